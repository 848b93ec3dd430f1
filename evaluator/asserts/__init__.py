"""The ``assert`` machinery: the judge process that runs the test code (:mod:`.judge`) and its view
of the program's globals (:mod:`.names`); asserts lifted out of the test to run as calls
(:mod:`.lift`) and judged in the caller (:mod:`.lifted`); the calls a judged test will make first
(:mod:`.prefetch`). Nothing is imported here.
"""
