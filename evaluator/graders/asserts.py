"""``assert`` tests: one case, the whole block, run by a judge process that calls the program; or,
where its asserts lift (:mod:`evaluator.asserts.lift`), as calls compared in the parent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaluator.asserts import lift, prefetch
from evaluator.graders.grader import Grader, Judging, register_grader
from evaluator.model import Options, Tests, Verdict

if TYPE_CHECKING:
    from evaluator.model import Run


@register_grader("assert")
class AssertGrader(Grader):
    def cases(self, tests: Tests, options: Options) -> list[Any]:
        return [None] if tests.assert_code else []  # the block is one case

    def lifted(self, tests: Tests, options: Options) -> lift.LiftedTest | None:
        return lift.lift(tests.assert_block(), tests.fn_name, tests.prelude) if options.lift_asserts else None

    def payload(self, judging: Judging, case: Any, prefetch_calls: bool) -> tuple[dict[str, str], dict[str, Any], tuple]:
        """The block for the judge; each call gets the limit, the block one per call made, up to a
        cap; the calls predicted to come first, where asked."""
        tests = judging.tests
        test = tests.assert_block()
        ahead = prefetch.predict(test, tests.fn_name, tests.prelude) if prefetch_calls else ()
        payload = {"test": test, **({"prefetch": prefetch.payload(ahead)} if ahead else {})}
        return payload, {"block_s": judging.block_cap()}, ahead

    def compared(self, judging: Judging, case: Any, run: Run) -> tuple[Verdict, str]:
        return Verdict.ACCEPTED, ""  # the judge's asserts held: nothing left to compare
