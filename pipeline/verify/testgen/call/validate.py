"""The call kind's validator: whether generated arguments are ones the problem allows (after
CodeContests+: a validator per problem, independent of how the input was made). Each refusal has
a reason, counted per problem in the ``inputs_invalid`` column; the ``stdin`` kind's is
:mod:`pipeline.verify.testgen.stdin.validate`."""

from __future__ import annotations

from typing import Any

from pipeline.verify.testgen.call.profile import CallProfile
from pipeline.verify.testgen.call.shapes import leaf_numbers
from pipeline.verify.testgen.constraints import bounds as cx

__all__ = ["CallValidator"]


class CallValidator:
    """Whether a call's arguments are ones the problem allows: each argument's stated element
    range, size and alphabet, and the relations the Constraints section states among them
    (:mod:`pipeline.verify.testgen.constraints.relations`: ``edges.length == n - 1``, a valid tree); where the
    statement states nothing, the examples' envelope. All of it read from the problem's
    :class:`~pipeline.verify.testgen.call.profile.CallProfile`, as the generators read it."""

    def __init__(self, profile: CallProfile) -> None:
        examples = profile.examples
        self.bounds = profile.bounds
        self.envelope = profile.envelope
        self.statement = profile.statement
        self.params = profile.params
        self.rules: dict[int, tuple[Any, Any, str | None]] = {}
        for i, name in enumerate(self.params):
            rule = (cx.value_bound(self.bounds, name), cx.size_bound(self.bounds, name), cx.alphabet(self.statement, name))
            if any(rule) and all(self._fits(rule, args[i]) is None for args, _ in examples if i < len(args)):
                self.rules[i] = rule  # a bound an example breaks is a misreading
        from pipeline.verify.testgen.constraints.relations import relations

        self.relations = [(text, check) for text, check in relations(self.statement, self.params)
                          if all(self._holds(check, args, kwargs) for args, kwargs in examples)]

    @staticmethod
    def _fits(rule: tuple, value: Any) -> str | None:
        vb, sb, chars = rule
        if vb is not None:
            for v in leaf_numbers(value, max_depth=6):
                if (vb.lo is not None and v < vb.lo) or (vb.hi is not None and v > vb.hi):
                    return "value_range"
        if sb is not None and isinstance(value, (str, list, tuple)) and (
                (sb.lo is not None and len(value) < sb.lo) or (sb.hi is not None and len(value) > sb.hi)):
            return "length"
        if chars and isinstance(value, str) and not set(value) <= set(chars):
            return "alphabet"
        return None

    def _holds(self, check: Any, args: tuple, kwargs: dict) -> bool:
        try:
            return bool(check({**dict(zip(self.params, args)), **kwargs}))
        except Exception:  # noqa: BLE001 - a check that cannot read these arguments says nothing
            return True

    def reason(self, args: tuple, kwargs: dict, edge: bool = False) -> str | None:
        """Why the statement (or, where it says nothing, the examples' envelope) rules the call out;
        ``edge``: an input meant to leave the envelope (:mod:`pipeline.verify.testgen.call.edges`), held to
        the statement and to the length relations between arguments only."""
        try:
            for i, rule in self.rules.items():
                if i < len(args):
                    why = self._fits(rule, args[i])
                    if why:
                        return why
            if any(not self._holds(check, args, kwargs) for _, check in self.relations):
                return "relation"
            if self.envelope is not None and not (self.envelope.lengths_kept(args, kwargs) if edge
                                                  else self.envelope.admits(args, kwargs)):
                return "outside_examples"
        except Exception as exc:  # noqa: BLE001 - a validator bug refuses the input
            return f"validator_error:{type(exc).__name__}"
        return None
