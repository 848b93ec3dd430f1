"""What a problem's statement says about its inputs: the one place test generation reads statements.

Generators and validators never search a statement's text themselves; they ask these readers:

- :mod:`.bounds`: value and size ranges from the Constraints section, and alphabets;
- :mod:`.relations`: what the Constraints section ties together (``edges.length == n - 1``, a
  valid tree, distinct values), as checks on a call's arguments;
- :mod:`.layout`: the Input section line by line (names, counts, kinds) and its guarantees;
- :mod:`.stdin`: those facts mapped onto an inferred stdin grammar;
- :mod:`.words`: the phrases that back a property no number states ("sorted", "distinct",
  "lowercase letters", "a binary tree", "test cases").

Nothing here raises on any text: what does not read is left out.
"""
