"""Named standard checkers, after the families of testlib's (wcmp, lcmp, ncmp, rcmp/dcmp, yesno,
uncmp), for problems with several acceptable outputs.

A canonical test names one in ``tests.checker``: ``tokens``, ``lines``, ``integers``,
``doubles`` or ``doubles:<eps>`` (absolute or relative error at most eps, default 1e-6),
``yesno`` (YES/NO answers in any letter case) and ``unordered`` (the same tokens in any order).
Anything else in ``checker`` is a Python special-judge program (run in the sandbox by the API).
They run in the parent on text, like the robust comparison: no process, no program code.
Standard library only.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from decimal import Decimal, InvalidOperation

NAMES = ("tokens", "lines", "integers", "doubles", "yesno", "unordered")
DEFAULT_EPS = 1e-6
_INT = re.compile(r"[+-]?[0-9]+\Z")
_YES_NO = {"yes", "no"}


def is_named(checker: str | None) -> bool:
    """True when ``checker`` names a standard checker rather than holding a program."""
    if not checker or "\n" in checker:
        return False
    return checker.split(":", 1)[0].strip() in NAMES


def _lines(text: str) -> list[list[str]]:
    lines = [line.split() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _tokens(expected: str, actual: str) -> tuple[bool, str]:
    e, a = expected.split(), actual.split()
    if e == a:
        return True, ""
    if len(e) != len(a):
        return False, f"expected {len(e)} tokens, found {len(a)}"
    i = next(i for i, (x, y) in enumerate(zip(e, a)) if x != y)
    return False, f"token {i + 1} differs: expected {e[i][:40]!r}, found {a[i][:40]!r}"


def _lines_cmp(expected: str, actual: str) -> tuple[bool, str]:
    e, a = _lines(expected), _lines(actual)
    if len(e) != len(a):
        return False, f"expected {len(e)} lines, found {len(a)}"
    for i, (x, y) in enumerate(zip(e, a)):
        if x != y:
            return False, f"line {i + 1} differs"
    return True, ""


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


def _doubles(expected: str, actual: str, eps: float) -> tuple[bool, str]:
    """testlib's doubleCompare: equal when the absolute or the relative error is at most eps."""
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


def _unordered(expected: str, actual: str) -> tuple[bool, str]:
    e, a = Counter(expected.split()), Counter(actual.split())
    if e == a:
        return True, ""
    missing, extra = sum((e - a).values()), sum((a - e).values())
    return False, f"{missing} expected tokens missing, {extra} unexpected"


def parse_eps(checker: str) -> float:
    """The precision of ``doubles:<eps>`` (``1e-6``, ``0.000001``, ``10^-6``)."""
    _, _, arg = checker.partition(":")
    arg = arg.strip().replace(" ", "")
    if not arg:
        return DEFAULT_EPS
    power = re.fullmatch(r"10\^\{?(-?\d+)\}?", arg)
    try:
        eps = 10.0 ** int(power.group(1)) if power else float(Decimal(arg))
    except (InvalidOperation, ValueError):
        raise ValueError(f"bad precision in checker {checker!r}") from None
    if not (0 < eps < 1):
        raise ValueError(f"precision out of range in checker {checker!r}")
    return eps


def check(checker: str, expected: str, actual: str) -> tuple[bool, str]:
    """Judge ``actual`` against ``expected`` with the named checker: (accepted, reason)."""
    name = checker.split(":", 1)[0].strip()
    if name == "tokens":
        return _tokens(expected, actual)
    if name == "lines":
        return _lines_cmp(expected, actual)
    if name == "integers":
        return _integers(expected, actual)
    if name == "doubles":
        return _doubles(expected, actual, parse_eps(checker))
    if name == "yesno":
        return _yesno(expected, actual)
    if name == "unordered":
        return _unordered(expected, actual)
    raise ValueError(f"unknown checker {checker!r}")
