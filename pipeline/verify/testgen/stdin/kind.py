"""``stdin`` tests: a program reads an input text and prints its answer.

New inputs come from a grammar inferred from the example inputs and the statement
(:mod:`pipeline.verify.testgen.stdin.inputs`), which the validator reads too; programs run on them as
test sets (``evaluate_many``), the problem's checker (or the evaluator's robust comparison) says
whether two outputs are the same, and a chosen input becomes a test case with its output.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from typing import Any

from evaluator.model import Cause, Checker, Options, Result, SpecialJudge, Verdict
from pipeline.schema import TestCase, Tests
from pipeline.verify.testgen.kind import Answers, Candidate, Job, Kills, Made, NoInputs, Plan, Program, TestKind, answer_limit_s, append_cases, register_kind
from pipeline.verify.testgen.stdin.grammar import Grammar

CLEAN = ("accepted", "wrong_answer")  # a reference that ended so answered (its output is the answer)
MAX_EXPECTED_CHARS = 1 << 20  # a longer answer makes every reward slower to compare: that input is dropped
SMALL_STDIN_CHARS = 120  # a brute force answers inputs this short


def stdin_tests(tests: Tests, inputs: list[str], outputs: list[str] | None = None) -> Tests:
    """``tests`` with these cases (no outputs: empty ones, for a run that only wants the answers)."""
    cases = [TestCase(text, "" if outputs is None else outputs[i]) for i, text in enumerate(inputs)]
    return dataclasses.replace(tests, cases=cases)


def _accepted(checker: Checker | None, expected: str, actual: str) -> bool:
    """Whether the evaluator accepts ``actual`` for a case expecting ``expected`` (as
    :meth:`evaluator.api._Judging._compare` judges a program's output, with default options)."""
    from evaluator.compare import compare_stdout

    if isinstance(checker, Checker):
        return checker.check(expected, actual)[0]
    options = Options()
    return compare_stdout(expected, actual, mode=options.mode, rel_tol=options.rel_tol, abs_tol=options.abs_tol)


@register_kind("stdin")
class StdinKind(TestKind):
    serves = "stdin"
    model_shape = " as the exact text the program reads from stdin"
    # each case a forked, jailed process of its own that runs the program's top level again: an
    # empty program's 2.3 ms (benchmarks/bench_evaluator.py --stdin-cost) and the program's own
    # compile and imports; on the released stdin tests of a golden run (benchmarks/golden_verify.py,
    # 2026-11-30) a correct program took a median 3.4 to 3.7 ms a case, over 10 where inputs are large
    case_s = 0.004
    inputs_share = 0.33  # ... so fewer inputs: each is a process for every reference and adversary (30, and 3 made for slow programs)

    def read(self, row: dict[str, Any]) -> Plan:
        return Plan(examples=[c.input for c in row["tests"].cases])

    def plan(self, row: dict[str, Any], statement: str) -> Plan[Grammar]:
        """The grammar the examples and the statement give (the generator and the validator read it)."""
        from pipeline.verify.testgen.stdin.inputs import infer_grammar
        from pipeline.verify.testgen.stdin.validate import StdinValidator

        plan = self.read(row)
        plan.profile, plan.note = infer_grammar(plan.examples, statement)
        plan.validator = StdinValidator(plan.profile, statement, plan.examples)
        return plan

    def propose(self, plan: Plan[Grammar], n: int, seed: int) -> Generator[Made, int, None]:
        from pipeline.verify.testgen.stdin.inputs import inputs_from

        grammar, validator = plan.profile, plan.validator
        if grammar is None:
            yield []
            return
        try:  # the validator parses each made text as the grammar's check does: once, for both
            made, why = inputs_from(grammar, n=n, seed=seed, keep=validator.parses)
            if why is not None:
                raise NoInputs(why)
            short = yield made
            yield inputs_from(grammar, n=2 * short, seed=seed + 1, keep=validator.parses)[0]  # the refused made up for
        finally:  # planning is over (this generator closed): parses kept for texts never checked go
            validator.forget()

    def small(self, value: Any) -> bool:
        return isinstance(value, str) and len(value) <= SMALL_STDIN_CHARS

    def encode(self, value: Any) -> str | None:
        return value if isinstance(value, str) else None  # an input and its output are text already

    def decode(self, text: str) -> Any:
        return text

    def from_json(self, value: Any) -> Any:
        return (value if value.endswith("\n") else value + "\n") if isinstance(value, str) and value.strip() else None

    def to_json(self, value: Any) -> Any:
        return value

    def brute_force_how(self, tests: Tests) -> str:
        return "Read the input from standard input and print the answer."

    def oracle_jobs(self, cand: Candidate, program: Program, code: str, indices: list[int]) -> list[Job]:
        """A reference runs each input under the most it may take on one (:func:`answer_limit_s`),
        not the problem's whole limit: an answer that takes longer is dropped whatever it is, and
        each input is a process of its own, so nothing else changes (a brute force keeps the limit)."""
        tests: Tests = cand.row["tests"]
        if program.role != "brute":
            tests = dataclasses.replace(tests, time_limit_s=round(answer_limit_s(cand), 3))
        return [Job(code, stdin_tests(tests, [cand.inputs[i] for i in indices]))]

    def answers(self, cand: Candidate, program: Program, indices: list[int], result: Result) -> Answers:
        per = [(c.verdict in CLEAN and isinstance(c.output, str), c.output, c.cpu_s or 0.0) for c in result.cases]
        return Answers(per + [(False, None, 0.0)] * (len(indices) - len(per)))  # cases never run: no answer

    def oversized(self, answer: Any) -> bool:
        return len(answer) > MAX_EXPECTED_CHARS

    def same_answer(self, checker: Checker | SpecialJudge | None, a: Any, b: Any) -> bool:
        from evaluator.compare import agree

        if isinstance(checker, Checker):
            return checker.check(a, b)[0] and checker.check(b, a)[0]
        return agree("stdin", a, b)

    def hardcoder(self, row: dict[str, Any], plan: Plan | None) -> str | None:
        from pipeline.verify.testgen import adversaries

        return adversaries.hardcoder_stdin([(c.input, c.output) for c in row["tests"].cases if c.public])

    def adversary_jobs(self, cand: Candidate, code: str, tests: Tests, kept: list[int]) -> list[Job]:
        return [Job(code, stdin_tests(tests, [cand.inputs[i] for i in kept], [cand.expected[i] for i in kept]))]

    def kills(self, cand: Candidate, result: Result) -> Kills | None:
        if result.verdict is Verdict.INTERNAL_ERROR:
            return None
        kept = sorted(cand.expected)
        ran = {i for i, c in enumerate(result.cases) if c.cause is not Cause.WALL_BUDGET}
        return Kills(rejected={kept[i] for i in ran if result.cases[i].verdict is not Verdict.ACCEPTED},
                     unrun={kept[i] for i in range(len(kept)) if i not in ran},  # a limit came first
                     failed={kept[i] for i in ran  # it crashed or ran out of a limit: no answer at all
                             if result.cases[i].verdict not in (Verdict.ACCEPTED, Verdict.WRONG_ANSWER)})

    def known_kills(self, cand: Candidate, program: Program, code: str, kept: list[int]) -> set[int] | None:
        """The hardcoder's: what it prints is a table lookup (:func:`~pipeline.verify.testgen.adversaries.hardcoder_stdin_answers`),
        judged as the evaluator judges a case (the problem's checker, else the robust comparison;
        a special judge is a program: it runs). A process per input saved: a quarter of a stdin
        problem's adversary runs."""
        from pipeline.verify.testgen import adversaries

        tests: Tests = cand.row["tests"]
        if program.role != "hardcoder" or isinstance(tests.checker, SpecialJudge):
            return None
        examples = [(c.input, c.output) for c in tests.cases if c.public]
        if code != adversaries.hardcoder_stdin(examples):
            return None
        answer = adversaries.hardcoder_stdin_answers(examples)
        outputs = {i: answer(cand.inputs[i]) for i in kept}
        if any(out is None for out in outputs.values()):
            return None
        return {i for i, out in outputs.items() if not _accepted(tests.checker, cand.expected[i], out)}

    def expected_text(self, answer: Any) -> str | None:
        return answer

    def render(self, cand: Candidate, tests: Tests, chosen: list[int]) -> tuple[Tests, int]:
        return append_cases(self, cand, tests, chosen, lambda text: text)
