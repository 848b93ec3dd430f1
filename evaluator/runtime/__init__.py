"""The child runtime: what runs inside a candidate's forked, jailed process. The program per test
kind (:mod:`.harness`), the steps of a lifted or ``call`` test (:mod:`.steps`), the candidate's end
of an ``assert`` test's pipes (:mod:`.peer`), the operations either side asks of the other's
objects (:mod:`.ops`), and the plain-data format between the processes (:mod:`.wire`).

The fork server imports these before it enters its jail (:func:`evaluator.sandbox.worker.preload`):
inside, the package is not visible. Nothing is imported here.
"""
