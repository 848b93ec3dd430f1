"""The ``call`` test kind: a function (or a ``Solution`` method) called with arguments. Its kind
(:mod:`.kind`, which the assert kinds build on), what the examples say (:mod:`.profile`,
:mod:`.shapes`, :mod:`.envelope`, :mod:`.postconditions`), the generators (:mod:`.inputs` with
:mod:`.mutation`, :mod:`.positions`, :mod:`.trees`; the edges past the envelope, :mod:`.edges`) and
the validator (:mod:`.validate`)."""
