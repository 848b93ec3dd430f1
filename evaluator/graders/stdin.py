"""``stdin`` tests: each case a fresh process on its input, its output compared (or checked)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from evaluator.graders.grader import Grader, Judging, register_grader
from evaluator.model import CaseResult, Options, SpecialJudge, Tests

if TYPE_CHECKING:
    from evaluator.asserts.lift import LiftedTest
    from evaluator.tail import SharedTest


def run_order(tests: Tests, options: Options) -> list[Any]:
    """The order a test's cases run in: as given, but for a test that stops at its first failure the
    smallest input goes first (``Options.smallest_first``). Each case runs alone, so whether the
    program passes is the same in any order. Why that one: it is the cheapest look at a program (an
    edge case, in a millisecond), and a wrong program that fails there no longer spends a large
    case's time limit first; the rest keep the given order, whose first cases (the statement's
    samples) are where most wrong programs fail."""
    cases = list(tests.cases)
    if options.stop_on_first_failure and options.smallest_first and len(cases) > 1:
        first = min(range(len(cases)), key=lambda k: len(cases[k].input))  # the first of the smallest
        cases.insert(0, cases.pop(first))
    return cases


def batches_stdin(tests: Tests, worker: Any) -> bool:
    """Whether a test's cases go to the worker as one request (:meth:`evaluator.api._Judging.stdin_cases`):
    answers compared in the parent (no special judge, which runs between cases), on a worker whose
    children have PID namespaces (elsewhere each case's pid line matters)."""
    return tests.kind == "stdin" and not isinstance(tests.checker, SpecialJudge) and not getattr(worker, "host_pids", True)


@register_grader("stdin")
class StdinGrader(Grader):
    def cases(self, tests: Tests, options: Options) -> list[Any]:
        return run_order(tests, options)

    def grade(self, judging: Judging, cases: list[Any], lifted: LiftedTest | None,
              share: Callable[[], SharedTest]) -> list[CaseResult] | SharedTest:
        """As one request where it can (:func:`batches_stdin`), the cases shared with idle workers;
        else a request a case."""
        if not (judging.options.batch_stdin and batches_stdin(judging.tests, judging.worker)):
            return judging.one_by_one(cases, None)
        shared = share()
        judging.stdin_cases(cases, shared)
        return shared

    def keeps_stdout(self) -> bool:
        return True
