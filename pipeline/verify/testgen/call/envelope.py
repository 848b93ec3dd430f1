"""The envelope of the examples: what a generated call input may change when nothing else says.

Why: a reference answers any input, including ones its problem never meant to allow (an empty
list where every example has items, a negative count, lists of different lengths). A correct
program may reject those, and a test built on one would punish it. Where the statement states
its constraints, mutation keeps to them (``pipeline.verify.testgen.constraints.bounds``); where it does not
(MBPP, HumanEval), an input stays inside what every example shares, as Daikon infers likely
invariants from observed values: each argument's type; its sign, and never zero where the
examples' signs differ but none is zero; non-emptiness, at least two items, and not all of them
equal; the same length difference between arguments (equal lengths, "one operator fewer than
operands"), or at least its sign; magnitudes within ten times the largest seen (twice, for a
small whole number given alone), and above a tenth of the smallest where all are large; operators
one of those seen; balanced brackets, per space-separated group too; the text
around a formatted string's numbers ("5 apples and 6 oranges"); and how many items of each kind a
mixed container holds ("a tuple with one nested tuple"). Measured on MapCoder's labelled programs,
this is what keeps correct programs passing (``benchmarks/bench_test_quality.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from pipeline.verify.testgen.call.shapes import number_type
from pipeline.verify.testgen.structures import balanced

SCALE = 10  # a number may grow to this many times the largest magnitude the examples show
SMALL = 32  # ... except a whole number given alone whose examples stay below this: twice (see _ceiling)


def arguments(args: tuple, kwargs: dict) -> list[Any]:
    """A call's arguments in one order: positional, then keywords by name."""
    return list(args) + [kwargs[k] for k in sorted(kwargs)]


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)] + [n for k in value for n in _numbers(k)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [n for v in value for n in _numbers(v)]
    return []


def _sized(value: Any) -> bool:
    return isinstance(value, (str, list, tuple, dict, set, frozenset))


_DIGITS = re.compile(r"-?\d+(\.\d+)?")


def _bracket_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and set(value) <= set("()[]{}<> ")


def _skeleton(value: str) -> str:
    """A formatted string with its numbers taken out: what stays fixed in "5 apples and 6 oranges"."""
    return _DIGITS.sub("#", value)


def _ceiling(seen: list[Any], top: float) -> float:
    """The largest magnitude a generated number may have: ten times the examples', but only twice
    a small whole number given alone (a count or size, "the n-th Jacobsthal number": ten times
    it asks an exponential correct program for more than any limit allows)."""
    if top <= SMALL and all(type(v) is int for v in seen):
        return 2 * max(top, 1)
    return SCALE * max(top, 1)


def _distinct(value: Any) -> int:
    return len({repr(v) for v in value})


def _kinds(value: Any) -> Counter:
    return Counter(number_type(v) for v in value) if isinstance(value, (list, tuple)) else Counter()


class Envelope:
    """What every example's arguments share, position by position."""

    def __init__(self, examples: list[tuple[tuple, dict]]) -> None:
        self.positions = [arguments(args, kwargs) for args, kwargs in examples]
        self.width = len(self.positions[0]) if self.positions else 0
        self.same_width = all(len(p) == self.width for p in self.positions)

    def _column(self, i: int) -> list[Any]:
        return [p[i] for p in self.positions]

    def admits(self, args: tuple, kwargs: dict) -> bool:
        """Whether a generated input stays inside the examples' envelope."""
        if not self.lengths_kept(args, kwargs):
            return False
        return not self.positions or not self.same_width or all(
            self._value_fits(value, self._column(i)) for i, value in enumerate(arguments(args, kwargs)))

    def fits(self, i: int, value: Any) -> bool:
        """Whether argument ``i`` alone stays inside what the examples show for it (where a stated
        rule for it cannot be trusted: :class:`~pipeline.verify.testgen.call.validate.CallValidator`)."""
        return not self.positions or not self.same_width or i >= self.width or self._value_fits(value, self._column(i))

    def lengths_kept(self, args: tuple, kwargs: dict) -> bool:
        """Whether the arguments keep the length differences every example keeps (equal lengths,
        "one operator fewer than operands", or at least the sign): the one part of the envelope an
        edge must keep too (:mod:`pipeline.verify.testgen.call.edges`)."""
        if not self.positions or not self.same_width:
            return True
        values = arguments(args, kwargs)
        if len(values) != self.width:
            return False
        sized = [i for i in range(self.width) if all(_sized(p[i]) for p in self.positions)]
        for a in sized:
            for b in sized:
                if not (a < b and _sized(values[a]) and _sized(values[b])):
                    continue
                gaps = {len(p[b]) - len(p[a]) for p in self.positions}
                gap = len(values[b]) - len(values[a])
                if len(gaps) == 1 and gap != next(iter(gaps)):
                    return False
                if (min(gaps) >= 0 > gap) or (max(gaps) <= 0 < gap):  # "the second is never shorter"
                    return False
        return True

    @staticmethod
    def _value_fits(value: Any, seen: list[Any]) -> bool:
        return (_kind_fits(value, seen) and _size_fits(value, seen) and _numbers_fit(value, seen)
                and _text_fits(value, seen) and _items_fit(value, seen))


def _kind_fits(value: Any, seen: list[Any]) -> bool:
    return not (len({number_type(v) for v in seen}) == 1 and number_type(value) != number_type(seen[0]))


def _size_fits(value: Any, seen: list[Any]) -> bool:
    """Where every example is sized: at least two items, and not all equal where every example varies."""
    if not (_sized(value) and all(_sized(v) for v in seen)):
        return True
    least = min(len(v) for v in seen)
    if len(value) < min(least, 2):  # "at least two": a one-item list is not an example's kind
        return False
    # every example varies: an all-equal list or string is an edge nobody showed
    return not (len(value) >= 2 and all(_distinct(v) >= 2 for v in seen) and _distinct(value) < 2)


def _numbers_fit(value: Any, seen: list[Any]) -> bool:
    seen_numbers = [n for v in seen for n in _numbers(v)]
    numbers = _numbers(value)
    if not (seen_numbers and numbers):
        return True
    return _signs_fit(numbers, seen_numbers) and _magnitudes_fit(numbers, seen_numbers, seen)


def _signs_fit(numbers: list[float], seen_numbers: list[float]) -> bool:
    if min(seen_numbers) > 0 and min(numbers) <= 0:
        return False
    if min(seen_numbers) >= 0 and min(numbers) < 0:
        return False
    # signs matter and zero has none (opposite signs of 0 and -3?)
    return not (min(seen_numbers) < 0 < max(seen_numbers) and 0 not in seen_numbers and 0 in numbers)


def _magnitudes_fit(numbers: list[float], seen_numbers: list[float], seen: list[Any]) -> bool:
    top = max(abs(n) for n in seen_numbers)
    if max(abs(n) for n in numbers) > _ceiling(seen, top):
        return False
    least = min(abs(n) for n in seen_numbers)
    # ... and never a tenth of the smallest, where every example is large
    return not (least >= SCALE and min(abs(n) for n in numbers) < least / SCALE)


def _text_fits(value: Any, seen: list[Any]) -> bool:
    if not (isinstance(value, str) and all(isinstance(v, str) for v in seen)):
        return True
    if not _brackets_fit(value, seen):
        return False
    shapes = {_skeleton(v) for v in seen}
    return not (len(shapes) == 1 and any(_DIGITS.search(v) for v in seen) and _skeleton(value) not in shapes)


def _brackets_fit(value: str, seen: list[str]) -> bool:
    """Balanced where every example is a balanced bracket text; per space-separated group too."""
    if all(_bracket_text(v) and balanced(v) for v in seen) and not balanced(value):
        return False
    return not (all(_bracket_text(v) and all(balanced(t) for t in v.split()) for v in seen)
                and not all(balanced(t) for t in value.split()))


def _items_fit(value: Any, seen: list[Any]) -> bool:
    if not (isinstance(value, (list, tuple)) and all(isinstance(v, (list, tuple)) for v in seen)):
        return True
    return _symbols_fit(value, seen) and _mix_fits(value, seen)


def _symbols_fit(value: list | tuple, seen: list[Any]) -> bool:
    """A list of operators or symbols: one of those the examples use."""
    items = [x for v in seen for x in v]
    symbols = {x for x in items if isinstance(x, str)}
    return not (items and len(symbols) <= 8 and all(isinstance(x, str) and len(x) <= 2 for x in items)
                and not all(isinstance(x, str) and x in symbols for x in value))


def _mix_fits(value: list | tuple, seen: list[Any]) -> bool:
    """Where every example mixes the same kinds: those kinds, as many of each as the examples agree on."""
    counts = [_kinds(v) for v in seen]
    kinds = set(counts[0])
    if not (len(kinds) > 1 and all(set(c) == kinds for c in counts)):
        return True
    mine = _kinds(value)
    if set(mine) != kinds:
        return False
    for kind in kinds:
        fixed = {c[kind] for c in counts}
        if len(fixed) == 1 and mine[kind] != fixed.pop():
            return False
    return True
