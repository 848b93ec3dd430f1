"""The ``stdin`` test kind: a program reads an input text and prints its answer. Its kind
(:mod:`.kind`), the grammar inferred from the examples and the statement (:mod:`.grammar`,
:mod:`.infer`, :mod:`.search`, :mod:`.statement`), the generator that writes new inputs from it
(:mod:`.generate`, :mod:`.draw`, joined by :mod:`.inputs`) and the validator (:mod:`.validate`)."""
