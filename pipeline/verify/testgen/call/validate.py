"""The call kind's validator: whether generated arguments are ones the problem allows (after
CodeContests+: a validator per problem, independent of how the input was made). Each refusal has
a reason, counted per problem in the ``inputs_invalid`` column; the ``stdin`` kind's is
:mod:`pipeline.verify.testgen.stdin.validate`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pipeline.verify.testgen.call.envelope import Envelope
from pipeline.verify.testgen.call.profile import CallProfile
from pipeline.verify.testgen.call.shapes import leaf_numbers, leaf_strings
from pipeline.verify.testgen.constraints import bounds as cx
from pipeline.verify.testgen.proof import MAX_VARIANT_SIZE, RuleProof, Variant, outside_char, prove

__all__ = ["CallValidator"]
_RULE_PARTS = ("value_range", "length", "alphabet")  # a rule's parts, in the order of its tuple


class CallValidator:
    """Whether a call's arguments are ones the problem allows: each argument's stated element
    range, size and alphabet, and the relations the Constraints section states among them
    (:mod:`pipeline.verify.testgen.constraints.relations`: ``edges.length == n - 1``, a valid tree); where the
    statement states nothing, the examples' envelope. All of it read from the problem's
    :class:`~pipeline.verify.testgen.call.profile.CallProfile`, as the generators read it. Each
    stated part is tested before it is trusted (:mod:`pipeline.verify.testgen.proof`): one an example
    breaks is a misreading, and one that lets its just-illegal variant through (a value one past
    its bound, a size one past, a character outside the alphabet) is dropped, and its argument held
    to the examples' envelope (``proof``)."""

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
        self.held: set[int] = set()  # arguments a dropped rule covered: held to the examples' envelope
        self.examples_envelope = Envelope(examples)
        self.proof: RuleProof = prove(self._illegal_variants(examples), lambda call: self.reason(*call) is not None)
        for dropped in self.proof.dropped:
            self._drop(dropped)

    def _illegal_variants(self, examples: list[tuple[tuple, dict]]) -> Iterator[Variant]:
        """For each stated part of each rule, an example with that argument made just illegal."""
        for i, (vb, sb, chars) in self.rules.items():
            base = next((args for args, _ in examples if i < len(args)), None)
            if base is None:
                continue
            value, name = base[i], self.params[i]

            def at(v: Any, base: tuple = base, i: int = i) -> tuple[tuple, dict]:
                return base[:i] + (v,) + base[i + 1:], {}
            if vb is not None:
                for bound, step in ((vb.hi, 1), (vb.lo, -1)):
                    changed = _first_number_set(value, bound + step) if bound is not None else None
                    if changed is not None:
                        yield f"value_range:{name}", at(changed)
            if sb is not None and isinstance(value, (str, list, tuple)) and value:
                if sb.hi is not None and sb.hi < MAX_VARIANT_SIZE:
                    yield f"length:{name}", at(_resized(value, int(sb.hi) + 1))
                if sb.lo is not None and sb.lo >= 1:
                    yield f"length:{name}", at(_resized(value, int(sb.lo) - 1))
            if chars:
                changed = _first_char_outside(value, chars)
                if changed is not None:
                    yield f"alphabet:{name}", at(changed)

    def _drop(self, dropped: str) -> None:
        """Stop trusting one part of a rule (``value_range:nums``): its argument keeps to the examples' envelope."""
        part, name = dropped.split(":", 1)
        for i, rule in list(self.rules.items()):
            if self.params[i] == name:
                kept = tuple(None if p == part else r for p, r in zip(_RULE_PARTS, rule))
                self.rules[i] = kept
                self.held.add(i)

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
        if chars and not all(set(s) <= set(chars) for s in leaf_strings(value)):
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
                    if i in self.held and not self.examples_envelope.fits(i, args[i]):
                        return "outside_examples"
            if any(not self._holds(check, args, kwargs) for _, check in self.relations):
                return "relation"
            if self.envelope is not None and not (self.envelope.lengths_kept(args, kwargs) if edge
                                                  else self.envelope.admits(args, kwargs)):
                return "outside_examples"
        except Exception as exc:  # noqa: BLE001 - a validator bug refuses the input
            return f"validator_error:{type(exc).__name__}"
        return None


def _first_number_set(value: Any, number: float) -> Any:
    """``value`` with its first number (depth first) set to ``number`` (an int where both are
    whole); None where it holds none."""
    def change(leaf: Any) -> Any:
        if isinstance(leaf, bool) or not isinstance(leaf, (int, float)):
            return None
        return int(number) if isinstance(leaf, int) and float(number).is_integer() else float(number)
    return _first_leaf_changed(value, change)


def _first_leaf_changed(value: Any, change: Any) -> Any:
    """``value`` with its first leaf (depth first) that ``change`` changes (a new value; None: not
    this one) changed; None where ``change`` changes none."""
    changed = change(value)
    if changed is not None or not isinstance(value, (list, tuple)):
        return changed
    for j, v in enumerate(value):
        changed = _first_leaf_changed(v, change)
        if changed is not None:
            out = list(value)
            out[j] = changed
            return type(value)(out) if isinstance(value, tuple) else out
    return None


def _resized(value: str | list | tuple, size: int) -> Any:
    """``value`` cut, or grown by repeating its items, to ``size`` items."""
    items = [value[j % len(value)] for j in range(size)]
    return "".join(items) if isinstance(value, str) else type(value)(items) if isinstance(value, tuple) else items


def _first_char_outside(value: Any, chars: str) -> Any:
    """``value`` with its first string's first character replaced by one outside ``chars``; None
    where it holds no string, or every candidate character is inside."""
    bad = outside_char(chars)
    if bad is None:
        return None
    return _first_leaf_changed(value, lambda leaf: bad + leaf[1:] if isinstance(leaf, str) and leaf else None)
