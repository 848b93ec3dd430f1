"""A test kind's grader: what the evaluator does differently for ``stdin``, ``call`` and ``assert``
tests, one class per kind, registered by the ``Tests.kind`` it grades (as test generation's kinds
are: :mod:`pipeline.verify.testgen.kind`). The machinery every grader shares (a held worker, the
requests, the time budget, the comparison) is :class:`evaluator.api._Judging`'s; a grader decides
which cases run, in what order, how they are sent, and what is compared.

After DMOJ's one grader per test kind: a new kind of test is one grader here (and one kind in test
generation), not a branch in :func:`evaluator.api.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from evaluator.model import CaseResult, Options, ProcessEnd, Tests, Verdict, add_test_kind

if TYPE_CHECKING:
    from evaluator.asserts.lift import LiftedTest
    from evaluator.model import Run
    from evaluator.tail import SharedTest

_GRADERS: dict[str, Grader] = {}


class Judging(Protocol):
    """What a grader may ask of the evaluator's machinery for one program on a held worker
    (:class:`evaluator.api._Judging`)."""

    worker: Any
    tests: Tests
    options: Options

    def one_by_one(self, cases: list[Any], lifted: LiftedTest | None) -> list[CaseResult]: ...

    def calls(self, cases: list[Any], *, batch: bool, stop: bool) -> list[CaseResult]: ...

    def stdin_cases(self, cases: list[Any], shared: SharedTest) -> None: ...

    def compare(self, case: Any, cand: ProcessEnd) -> tuple[Verdict, str]: ...

    def block_cap(self) -> float: ...


G = TypeVar("G", bound=type["Grader"])


class Grader:
    """How the evaluator grades one kind of tests; the defaults are a test of independent cases,
    each run in a process of its own and its output compared."""

    kind = ""  # the ``Tests.kind`` it grades (set by :func:`register_grader`)
    child = ""  # the fork server's child layout its cases run in (``Request.child``; default: the kind)

    def cases(self, tests: Tests, options: Options) -> list[Any]:
        """The cases to run, in the order they run (empty: the tests have none)."""
        return list(tests.cases)

    def lifted(self, tests: Tests, options: Options) -> LiftedTest | None:
        """The test as calls compared in the parent, where it lifts (:mod:`evaluator.asserts.lift`)."""
        return None

    def grade(self, judging: Judging, cases: list[Any], lifted: LiftedTest | None,
              share: Callable[[], SharedTest]) -> list[CaseResult] | SharedTest:
        """The cases' results; or a shared test (:mod:`evaluator.tail`) whose results come once the
        worker is given back (``share`` makes it)."""
        return judging.one_by_one(cases, lifted)

    def payload(self, judging: Judging, case: Any, prefetch_calls: bool) -> tuple[dict[str, str], dict[str, Any], tuple]:
        """What a case in processes of its own is sent: the payload's texts besides the code, the
        request's extra fields, and the calls predicted to come first (:mod:`evaluator.asserts.prefetch`)."""
        return {"stdin": case.input}, {}, ()

    def keeps_stdout(self) -> bool:
        """Whether ``keep_output`` keeps what a case printed."""
        return False

    def compared(self, judging: Judging, case: Any, run: Run) -> tuple[Verdict, str]:
        """The verdict of a case whose processes ended cleanly: its output compared."""
        return judging.compare(case, run.candidate)


def register_grader(kind: str) -> Callable[[G], G]:
    """Class decorator: one instance of the grader, found by :func:`evaluator.graders.grader_for`."""

    def add(cls: G) -> G:
        if kind in _GRADERS:
            raise ValueError(f"a grader for {kind!r} tests is registered twice")
        grader = cls()
        grader.kind, grader.child = kind, cls.child or kind
        _GRADERS[kind] = grader
        add_test_kind(kind)
        return cls

    return add
