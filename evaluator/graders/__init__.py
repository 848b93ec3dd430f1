"""The evaluator's graders, one per test kind (:mod:`.grader`): ``stdin`` (:mod:`.stdin`), ``call``
(:mod:`.call`) and ``assert`` (:mod:`.asserts`); :func:`grader_for` finds a test's."""

from __future__ import annotations

from evaluator.graders import asserts as _asserts  # noqa: F401 - registers assert
from evaluator.graders import call as _call  # noqa: F401 - registers call
from evaluator.graders import stdin as _stdin  # noqa: F401 - registers stdin
from evaluator.graders.grader import _GRADERS, Grader, register_grader
from evaluator.model import Tests

__all__ = ["Grader", "grader_for", "register_grader"]


def grader_for(tests: Tests) -> Grader:
    """The grader of a test's kind."""
    if tests.kind not in _GRADERS:
        raise ValueError(f"no grader is registered for {tests.kind!r} tests; registered: {sorted(_GRADERS)}")
    return _GRADERS[tests.kind]
