"""``call`` tests: the entry point called with each case's arguments in one process, in order, its
return values compared in the parent (the contract in :mod:`evaluator.model`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from evaluator.graders.grader import Grader, Judging, register_grader
from evaluator.model import CaseResult

if TYPE_CHECKING:
    from evaluator.asserts.lift import LiftedTest
    from evaluator.tail import SharedTest


@register_grader("call")
class CallGrader(Grader):
    def grade(self, judging: Judging, cases: list[Any], lifted: LiftedTest | None,
              share: Callable[[], SharedTest]) -> list[CaseResult] | SharedTest:
        options = judging.options
        return judging.calls(cases, batch=options.batch_calls, stop=options.stop_on_first_failure)
