"""``assert`` tests: a block of asserts on what the entry point returns; and ``linked``, LeetCode's
asserts on ``ListNode``/``TreeNode`` values.

Both run like ``call`` tests (:mod:`pipeline.verify.testgen.call.kind`): the examples are the
asserts that lift into calls (:mod:`pipeline.verify.testgen.asserts.calls`), or, for ``linked``, the
``check(candidate)`` asserts read as calls on plain lists and made through a shim
(:mod:`pipeline.verify.testgen.asserts.linked`). Two answers are the same as a written assert judges them
(``isclose`` for a float), and a chosen input becomes one more assert line.
"""

from __future__ import annotations

from typing import Any

from evaluator.model import Checker, SpecialJudge
from pipeline.schema import Tests
from pipeline.verify.testgen.asserts import calls as asserts
from pipeline.verify.testgen.asserts import linked
from pipeline.verify.testgen.call.kind import CallKind, CallReading, param_names
from pipeline.verify.testgen.kind import Candidate, Made, Plan, register_kind


@register_kind("assert")
class AssertKind(CallKind):
    serves = "assert"

    def read(self, row: dict[str, Any]) -> Plan[CallReading]:
        found = asserts.examples(row["tests"])
        if found is None:
            return Plan(note="no assert of the form entry(literals) == literal to grow inputs from")
        entry, answered = found
        return self._plan(CallReading(entry, answered, param_names(row, entry[-1])))

    def runnable(self, plan: Plan[CallReading]) -> bool:
        return plan.profile is not None and plan.profile.entry is not None  # else the asserts did not lift: nothing to call

    def same_answer(self, checker: Checker | SpecialJudge | None, a: Any, b: Any) -> bool:
        return asserts.same_value(a, b) and asserts.same_value(b, a)

    def hardcoder(self, row: dict[str, Any], plan: Plan[CallReading] | None) -> str | None:
        from pipeline.process.public import assert_examples, shown, statement_text, tokens
        from pipeline.verify.testgen import adversaries

        tests: Tests = row["tests"]
        entry = plan.profile.entry if plan is not None and plan.profile is not None else None
        found = asserts.examples(tests)
        if found is None and entry is None and not tests.fn_name:
            return adversaries.hardcoder_constant((row.get("solutions") or [""])[0],
                                                  (tests.prelude or "") + "\n" + tests.assert_block())
        words = tokens(statement_text(row))
        shown_flags = [shown(words, a, r) for a, r in assert_examples(tests.assert_code or "")]
        known = [ex for ex, public in zip(found[1] if found else [], shown_flags) if public]
        return adversaries.hardcoder_assert(entry or (found[0] if found else ("function", tests.fn_name)), known)

    def line(self, cand: Candidate, tests: Tests, i: int) -> str | None:
        """The assert that tests input ``i`` (None: a value has no exact literal)."""
        args, kwargs = cand.inputs[i]
        return asserts.render(cand.plan.profile.entry or ("function", tests.fn_name or ""), args, kwargs, cand.expected[i],
                              cand.labels[i])

    def render(self, cand: Candidate, tests: Tests, chosen: list[int]) -> tuple[Tests, int]:
        lines = [line for i in chosen if (line := self.line(cand, tests, i))]
        return asserts.append(tests, lines), len(lines)


@register_kind("linked")
class LinkedKind(AssertKind):
    """An ``assert`` block no assert of which lifts, whose ``check(candidate)`` asserts build their
    arguments or answer with ``list_node``/``tree_node``."""

    def claims(self, tests: Tests) -> bool:
        try:
            return linked.examples(tests) is not None and asserts.examples(tests) is None
        except Exception:  # noqa: BLE001 - the assert kind meets the same error, and says so
            return False

    def read(self, row: dict[str, Any]) -> Plan[CallReading]:
        entry, shape, answered = linked.examples(row["tests"])
        return self._plan(CallReading(entry, answered, param_names(row, entry[-1]), shape))

    def edges(self, plan: Plan[CallReading], n: int) -> Made:
        return []  # nodes built by a shim: their edges are not plain values

    def program(self, plan: Plan[CallReading], code: str) -> str:
        return code + plan.profile.linked.shim()  # builds the nodes, answers a plain list

    def call_entry(self, plan: Plan[CallReading], tests: Tests, code: str) -> tuple[str, ...]:
        return ("function", linked.SHIM_NAME)

    def line(self, cand: Candidate, tests: Tests, i: int) -> str | None:
        args, kwargs = cand.inputs[i]
        reading = cand.plan.profile
        return linked.render(reading.entry, reading.linked, args, kwargs, cand.expected[i], cand.labels[i])
