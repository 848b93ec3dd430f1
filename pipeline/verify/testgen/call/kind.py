"""``call`` tests: a function (or a ``Solution`` method) is called with arguments and its return
value compared. Also the part the ``assert`` kinds share: inputs are ``(args, kwargs)`` calls.

New inputs are type-aware mutations of the examples' arguments
(:mod:`pipeline.verify.testgen.call.inputs`); programs answer them through ``values_many``; an
answer is also held to the relations every example's answer keeps
(:mod:`pipeline.verify.testgen.call.postconditions`); a chosen input becomes a test case of the
arguments as a JSON array and the answer as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from evaluator.model import Checker, SpecialJudge
from evaluator.values import CallOutcome
from pipeline.schema import Tests
from pipeline.verify.testgen.asserts import linked
from pipeline.verify.testgen.call import postconditions
from pipeline.verify.testgen.call.profile import CallProfile
from pipeline.verify.testgen.kind import Answers, Candidate, Job, Kills, Made, Plan, Program, TestKind, append_cases, register_kind

SMALL_CALL_LEAVES = 16  # a brute force answers calls with this many values in all


def call_examples(tests: Tests) -> list[tuple[tuple, dict, Any]]:
    """(args, kwargs, answer) of each case that reads (an answer that does not: None)."""
    from evaluator.compare import decode_value

    out = []
    for case in tests.cases:
        try:
            args = json.loads(case.input)
        except ValueError:
            continue
        try:
            answer = decode_value(case.output)
        except ValueError:
            answer = None
        out.append((tuple(args) if isinstance(args, list) else (args,), {}, answer))
    return out


def param_names(row: dict[str, Any], fn_name: str | None) -> list[str] | None:
    """The entry point's parameter names, from the starter code or the first reference."""
    from pipeline.process.tests_format import signature_params

    for code in (row.get("starter_code"), *(row.get("solutions") or [])[:1]):
        try:
            return signature_params(code or "", fn_name or "")
        except Exception:  # noqa: BLE001 - Rejected, SyntaxError: try the next text
            continue
    return None


@dataclass
class CallReading:
    """A call kind's own part of a :class:`~pipeline.verify.testgen.kind.Plan`: how the entry
    point is called, the examples with their answers, and what they and the statement say."""

    entry: tuple[str, ...] | None  # None: the kind's own (``call``: the tests' ``fn_name``)
    answered: list[tuple[tuple, dict, Any]]  # the examples, with answers
    params: list[str] | None  # the entry point's parameter names
    linked: linked.Shape | None = None  # LeetCode's list_node/tree_node asserts: called through a shim
    profile: CallProfile | None = None  # after :meth:`CallKind.plan`


def _leaves(value: Any, depth: int = 0) -> int:
    if depth > 8:
        return 1
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(_leaves(v, depth + 1) for v in value) or 1
    if isinstance(value, dict):
        return sum(_leaves(v, depth + 1) for v in value.values()) + len(value) or 1
    if isinstance(value, str):
        return max(1, len(value) // 4)
    return 1


@register_kind("call")
class CallKind(TestKind):
    serves = "call"
    model_shape = " as a Python list of the function's positional arguments"

    def read(self, row: dict[str, Any]) -> Plan[CallReading]:
        tests: Tests = row["tests"]
        return self._plan(CallReading(None, call_examples(tests), param_names(row, tests.fn_name)))

    @staticmethod
    def _plan(reading: CallReading) -> Plan[CallReading]:
        return Plan(examples=[(a, k) for a, k, _ in reading.answered], profile=reading)

    def plan(self, row: dict[str, Any], statement: str) -> Plan[CallReading]:
        from pipeline.verify.testgen.call.validate import CallValidator

        plan = self.read(row)
        if plan.note is None:
            reading = plan.profile
            reading.profile = CallProfile.infer(reading.answered, statement, reading.params)
            plan.validator = CallValidator(reading.profile)
        return plan

    def propose(self, plan: Plan[CallReading], n: int, seed: int) -> Generator[Made, int, None]:
        from pipeline.verify.testgen.call.inputs import mutate_args

        profile = plan.profile.profile
        made = mutate_args(profile, n=2 * n, seed=seed)
        yield [((m[0], m[1]), m[2]) for m in made]
        more = mutate_args(profile, n=2 * n, seed=seed + 1)
        yield [((m[0], m[1]), m[2]) for m in more]

    def relations(self, plan: Plan[CallReading]) -> dict[str, postconditions.Relation]:
        profile = plan.profile.profile if plan.profile is not None else None
        return profile.answer_relations if profile is not None else {}

    def edges(self, plan: Plan[CallReading], n: int) -> Made:
        from pipeline.verify.testgen.call.edges import edge_calls
        from pipeline.verify.testgen.call.validate import CallValidator

        profile = plan.profile.profile if plan.profile is not None else None
        if profile is None or not n:
            return []
        validator = CallValidator(profile)
        return [(call, label) for call, label in edge_calls(profile, 4 * n)
                if validator.reason(*call, edge=True) is None][:n]

    def small(self, value: Any) -> bool:
        args, kwargs = value
        return _leaves(list(args)) + _leaves(kwargs) <= SMALL_CALL_LEAVES

    def from_json(self, value: Any) -> Any:
        return (tuple(value), {}) if isinstance(value, list) else None

    def to_json(self, value: Any) -> Any:
        return list(value[0])

    def brute_force_how(self, tests: Tests) -> str:
        name = tests.fn_name or "the function the problem asks for"
        return f"Define {name} with the signature the problem gives; it is called directly, do not read input."

    # --- how a program is called
    def program(self, plan: Plan[CallReading], code: str) -> str:
        """A program as generation calls it."""
        return code

    def call_entry(self, plan: Plan[CallReading], tests: Tests, code: str) -> tuple[str, ...]:
        """What generation calls in it."""
        from evaluator.values import entry_for

        return plan.profile.entry or entry_for(code, tests.fn_name or "")

    def _job(self, cand: Candidate, code: str, tests: Tests, calls: list[Any]) -> Job:
        return Job(self.program(cand.plan, code), tests, calls, self.call_entry(cand.plan, tests, code))

    def variants(self, cand: Candidate) -> dict[int, tuple[tuple, dict]]:
        """Input index -> the input with its dict arguments' keys reordered, where the answer must not
        change (single-value answers; see :mod:`pipeline.verify.testgen.call.postconditions`)."""
        profile = cand.plan.profile.profile
        if profile is None or not profile.order_free:
            return {}
        twins = {i: postconditions.reordered(*call) for i, call in enumerate(cand.inputs)}
        return {i: twin for i, twin in twins.items() if twin is not None}

    def oracle_jobs(self, cand: Candidate, program: Program, code: str, indices: list[int]) -> list[Job]:
        extra = list(self.variants(cand).values()) if program.first_reference else []  # the reordered inputs too
        return [self._job(cand, code, cand.row["tests"], [cand.inputs[i] for i in indices] + extra)]

    def answers(self, cand: Candidate, program: Program, indices: list[int], result: list[CallOutcome]) -> Answers:
        own = len(indices)
        variants = {}
        if program.first_reference:
            variants = {i: (o.ok, o.value) for i, o in zip(self.variants(cand), result[own:])}
        return Answers([(o.ok, o.value, o.time_s) for o in result[:own]], variants)

    def suspect(self, cand: Candidate, i: int, answer: Any) -> str | None:
        args, kwargs = cand.inputs[i]
        profile = cand.plan.profile.profile
        if profile is None:
            return None
        if postconditions.type_changed(profile.answer_type, answer):
            return "answer_type"  # None or infinity where every example answers a number: an input ruled out
        why = postconditions.broken(profile.answer_relations, args, kwargs, answer)
        if why is None and i in cand.variant_answers:
            ok, other = cand.variant_answers[i]
            if not (ok and self.same_answer(None, answer, other)):
                why = "same_answer_reordered"
        return why

    def same_answer(self, checker: Checker | SpecialJudge | None, a: Any, b: Any) -> bool:
        from evaluator.compare import agree, encode_value

        try:
            return agree("call", encode_value(a), encode_value(b))
        except TypeError:
            return False

    def hardcoder(self, row: dict[str, Any], plan: Plan | None) -> str | None:
        from pipeline.verify.testgen import adversaries

        tests: Tests = row["tests"]
        return adversaries.hardcoder_call(tests.fn_name or "", [(c.input, c.output) for c in tests.cases if c.public])

    def adversary_jobs(self, cand: Candidate, code: str, tests: Tests, kept: list[int]) -> list[Job]:
        return [self._job(cand, code, tests, [cand.inputs[i] for i in kept])]

    def kills(self, cand: Candidate, result: list[CallOutcome]) -> Kills:
        kept = sorted(cand.expected)
        return Kills(rejected={kept[j] for j, o in enumerate(result) if not o.not_run and (
                         not o.ok or not self.same_answer(None, cand.expected[kept[j]], o.value))},
                     unrun={kept[j] for j, o in enumerate(result) if o.not_run},
                     failed={kept[j] for j, o in enumerate(result) if not o.not_run and not o.ok})

    def expected_text(self, answer: Any) -> str | None:
        from evaluator.compare import encode_value

        try:
            return encode_value(answer)
        except TypeError:
            return None

    def render(self, cand: Candidate, tests: Tests, chosen: list[int]) -> tuple[Tests, int]:
        return append_cases(self, cand, tests, chosen, lambda call: json.dumps(list(call[0]), ensure_ascii=False))
