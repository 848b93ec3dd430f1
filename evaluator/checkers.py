"""Named standard checkers, after the families of testlib's (wcmp, lcmp, ncmp, rcmp/dcmp, yesno,
uncmp), for problems with several acceptable outputs.

A canonical test names one in ``tests.checker`` (:class:`evaluator.model.Checker`, stored as
``name`` or ``name:arg``): ``tokens``, ``lines``, ``integers``, ``doubles`` or ``doubles:<eps>``
(absolute or relative error at most eps, default 1e-6), ``yesno`` (YES/NO answers in any letter
case) and ``unordered`` (the same tokens in any order). Anything else is a special-judge program
(:class:`evaluator.model.SpecialJudge`, run in the sandbox by the API). These run in the parent on
text, like the robust comparison: no process, no program code. :data:`CHECKERS` is the name ->
function registry; :func:`register` adds one. Standard library only.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

DEFAULT_EPS = 1e-6
# name -> (expected, actual, *args) -> (accepted, reason)
CHECKERS: dict[str, Callable[..., tuple[bool, str]]] = {}


def register(name: str) -> Callable[[Callable[..., tuple[bool, str]]], Callable[..., tuple[bool, str]]]:
    """Add a named checker: a function of the expected text, the actual text and the checker's arguments."""
    def add(fn: Callable[..., tuple[bool, str]]) -> Callable[..., tuple[bool, str]]:
        CHECKERS[name] = fn
        return fn
    return add

_INT = re.compile(r"[+-]?[0-9]+\Z")
_YES_NO = {"yes", "no"}


def _lines(text: str) -> list[list[str]]:
    lines = [line.split() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


@register("tokens")
def _tokens(expected: str, actual: str) -> tuple[bool, str]:
    e, a = expected.split(), actual.split()
    if e == a:
        return True, ""
    if len(e) != len(a):
        return False, f"expected {len(e)} tokens, found {len(a)}"
    i = next(i for i, (x, y) in enumerate(zip(e, a)) if x != y)
    return False, f"token {i + 1} differs: expected {e[i][:40]!r}, found {a[i][:40]!r}"


@register("lines")
def _lines_cmp(expected: str, actual: str) -> tuple[bool, str]:
    e, a = _lines(expected), _lines(actual)
    if len(e) != len(a):
        return False, f"expected {len(e)} lines, found {len(a)}"
    for i, (x, y) in enumerate(zip(e, a)):
        if x != y:
            return False, f"line {i + 1} differs"
    return True, ""


@register("integers")
def _integers(expected: str, actual: str) -> tuple[bool, str]:
    e, a = expected.split(), actual.split()
    if len(e) != len(a):
        return False, f"expected {len(e)} integers, found {len(a)}"
    for i, (x, y) in enumerate(zip(e, a)):
        if not _INT.match(y):
            return False, f"token {i + 1} is not an integer: {y[:40]!r}"
        if not _INT.match(x) or _to_int(x) != _to_int(y):
            return False, f"integer {i + 1} differs: expected {x[:40]}, found {y[:40]}"
    return True, ""


def _to_int(token: str) -> int:
    return int(token) if len(token) < 4000 else int(Decimal(token))


@register("doubles")
def _doubles(expected: str, actual: str, precision: str = "") -> tuple[bool, str]:
    """testlib's doubleCompare: equal when the absolute or the relative error is at most eps."""
    eps = parse_eps(precision)
    e, a = expected.split(), actual.split()
    if len(e) != len(a):
        return False, f"expected {len(e)} numbers, found {len(a)}"
    for i, (x, y) in enumerate(zip(e, a)):
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            if x == y:
                continue
            return False, f"token {i + 1} is not a number: {y[:40]!r}"
        if math.isnan(fx) or math.isnan(fy):
            if not (math.isnan(fx) and math.isnan(fy)):
                return False, f"number {i + 1} differs: expected {x[:40]}, found {y[:40]}"
            continue
        if math.isinf(fx) or math.isinf(fy):
            if fx != fy:
                return False, f"number {i + 1} differs: expected {x[:40]}, found {y[:40]}"
            continue
        diff = abs(fx - fy)
        if diff > eps + 1e-15 and diff > eps * abs(fx) + 1e-15:
            return False, f"number {i + 1} differs by {diff:.3g} (eps {eps:g}): expected {x[:40]}, found {y[:40]}"
    return True, ""


@register("yesno")
def _yesno(expected: str, actual: str) -> tuple[bool, str]:
    e, a = expected.split(), actual.split()
    if len(e) != len(a):
        return False, f"expected {len(e)} answers, found {len(a)}"
    for i, (x, y) in enumerate(zip(e, a)):
        if x.lower() in _YES_NO:
            if y.lower() != x.lower():
                return False, f"answer {i + 1}: expected {x!r}, found {y[:40]!r}"
        elif x != y:
            return False, f"token {i + 1} differs: expected {x[:40]!r}, found {y[:40]!r}"
    return True, ""


@register("unordered")
def _unordered(expected: str, actual: str) -> tuple[bool, str]:
    e, a = Counter(expected.split()), Counter(actual.split())
    if e == a:
        return True, ""
    missing, extra = sum((e - a).values()), sum((a - e).values())
    return False, f"{missing} expected tokens missing, {extra} unexpected"


def parse_eps(precision: str) -> float:
    """The precision of ``doubles:<eps>`` (``1e-6``, ``0.000001``, ``10^-6``; empty: the default)."""
    arg = precision.strip().replace(" ", "")
    if not arg:
        return DEFAULT_EPS
    power = re.fullmatch(r"10\^\{?(-?\d+)\}?", arg)
    try:
        eps = 10.0 ** int(power.group(1)) if power else float(Decimal(arg))
    except (InvalidOperation, ValueError):
        raise ValueError(f"bad precision {precision!r} in checker doubles") from None
    if not (0 < eps < 1):
        raise ValueError(f"precision {precision!r} out of range in checker doubles")
    return eps


def check(name: str, args: tuple[str, ...], expected: str, actual: str) -> tuple[bool, str]:
    """Judge ``actual`` against ``expected`` with the named checker: (accepted, reason)."""
    if name not in CHECKERS:
        raise ValueError(f"unknown checker {name!r}; expected one of {sorted(CHECKERS)}")
    return CHECKERS[name](expected, actual, *args)
