"""``assert`` tests: a block of asserts on what the entry point returns; and ``linked``, LeetCode's
asserts on ``ListNode``/``TreeNode`` values.

Both run like ``call`` tests (:mod:`pipeline.verify.testgen.kinds.call`): the examples are the
asserts that lift into calls (:mod:`pipeline.verify.testgen.asserts`), or, for ``linked``, the
``check(candidate)`` asserts read as calls on plain lists and made through a shim
(:mod:`pipeline.verify.testgen.linked`). Two answers are the same as a written assert judges them
(``isclose`` for a float), and a chosen input becomes one more assert line.
"""

from __future__ import annotations

from typing import Any

from evaluator.model import Checker, SpecialJudge
from pipeline.schema import Tests
from pipeline.verify.testgen import asserts, linked
from pipeline.verify.testgen.kinds.base import Candidate, Made, register_kind
from pipeline.verify.testgen.kinds.call import CallKind, param_names


@register_kind("assert")
class AssertKind(CallKind):
    serves = "assert"

    def examples(self, cand: Candidate, statement: str) -> None:
        found = asserts.examples(cand.row["tests"])
        if found is None:
            cand.note = "no assert of the form entry(literals) == literal to grow inputs from"
            return
        cand.entry, cand.answered = found
        self._read(cand)

    def _read(self, cand: Candidate) -> None:
        cand.params = param_names(cand.row, cand.entry[-1])
        cand.examples = [(a, k) for a, k, _ in cand.answered]

    def runnable(self, cand: Candidate) -> bool:
        return cand.entry is not None  # else the asserts did not lift: nothing to call

    def same_answer(self, checker: Checker | SpecialJudge | None, a: Any, b: Any) -> bool:
        return asserts.same_value(a, b) and asserts.same_value(b, a)

    def hardcoder(self, row: dict[str, Any], entry: tuple[str, ...] | None) -> str | None:
        from pipeline.process.public import assert_examples, shown, statement_text, tokens
        from pipeline.verify.testgen import adversaries

        tests: Tests = row["tests"]
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
        return asserts.render(cand.entry or ("function", tests.fn_name or ""), args, kwargs, cand.expected[i],
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

    def examples(self, cand: Candidate, statement: str) -> None:
        cand.entry, cand.linked, cand.answered = linked.examples(cand.row["tests"])
        self._read(cand)

    def edges(self, cand: Candidate, n: int) -> Made:
        return []  # nodes built by a shim: their edges are not plain values

    def program(self, cand: Candidate, code: str) -> str:
        return code + cand.linked.shim()  # builds the nodes, answers a plain list

    def call_entry(self, cand: Candidate, code: str) -> tuple[str, ...]:
        return ("function", linked.SHIM_NAME)

    def line(self, cand: Candidate, tests: Tests, i: int) -> str | None:
        args, kwargs = cand.inputs[i]
        return linked.render(cand.entry, cand.linked, args, kwargs, cand.expected[i], cand.labels[i])
