"""The envelope of the examples: what a generated call input may change when nothing else says.

Why: a reference answers any input, including ones its problem never meant to allow (an empty
list where every example has items, a negative count, lists of different lengths). A correct
program may reject those, and a test built on one would punish it. Where the statement states
its constraints, mutation keeps to them (``pipeline.testgen.constraints``); where it does not
(MBPP, HumanEval), an input stays inside what every example shares: each argument's type, its
sign, non-emptiness, equal lengths across arguments, and magnitudes within ten times the
largest seen. Measured on MapCoder's labelled programs, this is what keeps correct programs
passing (``benchmarks/bench_test_quality.py``).
"""

from __future__ import annotations

from typing import Any

SCALE = 10  # a number may grow to this many times the largest magnitude the examples show


def _kind(value: Any) -> str:
    return "bool" if isinstance(value, bool) else "num" if isinstance(value, (int, float)) else type(value).__name__


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


class Envelope:
    """What every example's arguments share, position by position."""

    def __init__(self, examples: list[tuple[tuple, dict]]) -> None:
        self.positions = [list(args) + [kwargs[k] for k in sorted(kwargs)] for args, kwargs in examples]
        self.width = len(self.positions[0]) if self.positions else 0
        self.same_width = all(len(p) == self.width for p in self.positions)

    def _column(self, i: int) -> list[Any]:
        return [p[i] for p in self.positions]

    def admits(self, args: tuple, kwargs: dict) -> bool:
        """Whether a generated input stays inside the examples' envelope."""
        if not self.positions or not self.same_width:
            return True
        values = list(args) + [kwargs[k] for k in sorted(kwargs)]
        if len(values) != self.width:
            return False
        for i, value in enumerate(values):
            seen = self._column(i)
            if len({_kind(v) for v in seen}) == 1 and _kind(value) != _kind(seen[0]):
                return False
            if all(_sized(v) and len(v) > 0 for v in seen) and _sized(value) and len(value) == 0:
                return False
            seen_numbers = [n for v in seen for n in _numbers(v)]
            numbers = _numbers(value)
            if seen_numbers and numbers:
                if min(seen_numbers) > 0 and min(numbers) <= 0:
                    return False
                if min(seen_numbers) >= 0 and min(numbers) < 0:
                    return False
                top = max(abs(n) for n in seen_numbers)
                if max(abs(n) for n in numbers) > SCALE * max(top, 1):
                    return False
        sized = [i for i in range(self.width) if all(_sized(p[i]) for p in self.positions)]
        for a in sized:
            for b in sized:
                if a < b and all(len(p[a]) == len(p[b]) for p in self.positions) and _sized(values[a]) \
                        and _sized(values[b]) and len(values[a]) != len(values[b]):
                    return False
        return True
