"""Test generation for Verify: new inputs, the references' answers, and the tests that reject wrong
programs. This is its face: what Verify, the difficulty stage, the benchmarks and the tests import.

Laid out by test kind, each package with its kind, generators and validator:

- :mod:`.stdin`: a program reads an input text (a grammar inferred from the examples and the statement);
- :mod:`.call`: a function called with arguments (type-aware mutation, the examples' envelope);
- :mod:`.asserts`: assert blocks and LeetCode's node asserts, run as calls.

Shared by every kind: :mod:`.kind` (the seam a kind implements), :mod:`.registry` (the kind of a
row's tests), :mod:`.generate` (the driver), :mod:`.planning` (inputs before any program runs),
:mod:`.differential` (the difficulty stage's round), :mod:`.adversaries`, :mod:`.witnesses`,
:mod:`.model_inputs`, :mod:`.constraints` (the one place statements are read), :mod:`.structures`,
:mod:`.settings` and :mod:`.timing`.

Names load on first use (:pep:`562`): reading the settings does not import the driver.
"""

from __future__ import annotations

from pipeline.faces import lazy_face

_FACE = {  # name -> the module it lives in
    "TestGenConfig": "settings",
    "generate_tests": "generate", "invalid_count": "generate", "float_derived": "generate",
    "differential_round": "differential", "read_reserve": "differential", "reserve_entry": "differential",
    "RoundResult": "differential",
    "planner": "planning",
    "AllowAll": "kind", "Answers": "kind", "Candidate": "kind", "Job": "kind", "Kills": "kind", "NoInputs": "kind",
    "Plan": "kind", "Program": "kind", "Runs": "kind", "TestKind": "kind", "hardcoder": "registry", "kind_for": "registry",
    "register_kind": "kind",
}

__all__ = sorted(_FACE)


__getattr__ = lazy_face(__name__, _FACE)
