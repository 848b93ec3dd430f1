"""Edges beyond the examples' envelope: empty and single-item inputs, ties, long inputs, and the
extremes of a stated range.

Why: generated inputs stay inside what every example shares (:mod:`envelope`), because a correct
program may reject what its problem never meant to allow; and the wrong programs a policy writes
fail exactly at the edges the envelope leaves out (HumanEval's extended tests: ``fib(0)``,
``cycpattern_check('mswt', '')``, ``multiply(18, -17)``). An edge may be such an input, or one the
statement allows; nothing here can tell. So an edge never becomes a test on the references' word
alone: it must pass every rule the statement states (the validator without the envelope), the
references must answer it alike, and it then waits in the row's reserve. It joins the tests only
in the differential round (:mod:`pipeline.verify.testgen.differential`), when a sample that passes
every test answers it differently and another program, a second sample, answers it as the
references do: an answer two independent programs give is the problem's, not one reference's
accident.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pipeline.verify.testgen.call.profile import CallProfile, argument
from pipeline.verify.testgen.call.shapes import type_of
from pipeline.verify.testgen.constraints.bounds import value_bound
from pipeline.verify.testgen.kind import EDGE

LONG_ITEMS = 200  # a long input: the example's items repeated up to this many
MAX_BOUND = 10**9  # a stated extreme past this is not tried (a reference may loop to it)


def _sized(value: Any) -> Iterator[tuple[Any, str]]:
    """Edges of a list, tuple or string: empty, one item, all items equal, long. (Not spaces around
    text, ``check_integer(' 1 ')`` failed correct programs; not its case swapped, it caught nothing.)"""
    make = type(value) if isinstance(value, (list, tuple)) else "".join
    items = list(value)
    yield make([]), "empty"
    if items:
        yield make(items[:1]), "single"
        if len(items) > 1:
            yield make(items[:1] * len(items)), "ties"
        yield make((items * (LONG_ITEMS // len(items) + 1))[:LONG_ITEMS]), "long"


def _number(value: Any, bound: Any) -> Iterator[tuple[Any, str]]:
    """Edges of a number, where the statement states its range: the range's ends, and zero inside
    it. (Zero or a negation past the examples with nothing stated reads as an input the problem
    never meant: ``car_race_collision(-2)``, ``factorize(0)``, ``right_angle_triangle(-3, 4, 5)``
    failed correct programs in ``benchmarks/bench_differential_round.py``.)"""
    lo, hi = getattr(bound, "lo", None), getattr(bound, "hi", None)
    ends = [(end, name) for end, name in ((lo, "bound_lo"), (hi, "bound_hi"))
            if isinstance(end, (int, float)) and not isinstance(end, bool) and abs(end) <= MAX_BOUND]
    for end, name in ends:
        yield type(value)(end), name
    if len(ends) == 2 and lo < 0 < hi:
        yield type(value)(0), "zero"


def edges_of(value: Any, bound: Any = None) -> list[tuple[Any, str]]:
    """A value's edges of its own type (none for a type without any: bools, None, nested kinds)."""
    kind = type_of(value)
    if kind in ("list", "tuple", "str"):
        return list(_sized(value))
    if kind in ("int", "float"):
        return list(_number(value, bound))
    if kind == "dict" and value:
        return [({}, "empty")]
    return []


def _replaced(example: tuple[tuple, dict], key: int | str, value: Any) -> tuple[tuple, dict]:
    args, kwargs = example
    if isinstance(key, int):
        return (args[:key] + (value,) + args[key + 1:], dict(kwargs))
    return (tuple(args), {**kwargs, key: value})


def edge_calls(profile: CallProfile, limit: int) -> list[tuple[tuple[tuple, dict], str]]:
    """Up to ``limit`` calls, each an example with one argument set to an edge of its type,
    labelled ``edge:<what>:<argument>``; every argument's edges come before a second example's."""
    out: list[tuple[tuple[tuple, dict], str]] = []
    seen: set[str] = set()
    for example in profile.templates[:2]:
        for key in profile.keys:
            name = profile.params[key] if isinstance(key, int) and key < len(profile.params) else str(key)
            for value, what in edges_of(argument(example, key), value_bound(profile.bounds, name)):
                call = _replaced(example, key, value)
                if repr(call) in seen or call in profile.examples:
                    continue
                seen.add(repr(call))
                out.append((call, f"{EDGE}:{what}:{name}"))
    return out[:limit]
