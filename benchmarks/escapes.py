"""Why a wrong program escapes the released tests: the smallest full test that rejects it, and a class.

A wrong program that passes the released tests (a "survivor") is judged on the problem's full tests
one at a time (each official case, or each extended assert, alone), and the smallest one it fails
names what the released tests lack. Its class, first match:

- **large input**: more than 4 times the atoms of the largest example, and at least 50 (a slow or
  overflowing program, or one that breaks past a size);
- **extreme**: a number past the examples' range, in magnitude or below their least (a bound);
- **misread statement**: it fails at least half of the full tests (not one input: a rule of the
  problem the examples do not show);
- **small corner**: no more atoms than the smallest example, or at most 2 (empty, zero, one item);
- **structure**: the rest, inside the examples' envelope (duplicates, order, a shape the examples
  do not have).

Atoms: a stdin input's tokens; a call's numbers, strings' characters and containers' items.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

CLASSES = ("small corner", "extreme", "large input", "structure", "misread statement")
NO_FULL_TESTS = "no full tests here"  # a survivor whose problem's full tests this machine lacks
NOT_ALONE = "not rejected by a full test alone"  # fails the full tests together only (too slow for all of them)


@dataclass(frozen=True)
class Shape:
    """What the class reads of an input: its atoms, and the least and the largest number in it."""

    atoms: int
    least: float | None = None
    most: float | None = None  # in magnitude


def _numbers_of(value: Any, out: list[float]) -> int:
    """Atoms of a Python value, its numbers appended to ``out``."""
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, (int, float)):
        out.append(float(value))
        return 1
    if isinstance(value, str):
        return max(1, len(value))
    if isinstance(value, dict):
        return sum(_numbers_of(k, out) + _numbers_of(v, out) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(_numbers_of(v, out) for v in value)
    return 1


def _shape(atoms: int, numbers: list[float]) -> Shape:
    if not numbers:
        return Shape(atoms)
    return Shape(atoms, min(numbers), max(abs(n) for n in numbers))


def stdin_shape(text: str) -> Shape:
    tokens = text.split()
    numbers = []
    for tok in tokens:
        try:
            numbers.append(float(int(tok)) if tok.lstrip("+-").isdigit() else float(tok))
        except (ValueError, OverflowError):
            continue
    return _shape(len(tokens), [n for n in numbers if n == n and abs(n) != float("inf")])


def call_shape(args: Any) -> Shape:
    numbers: list[float] = []
    return _shape(_numbers_of(args, numbers), numbers)


def assert_shape(line: str) -> Shape:
    """The arguments of the first call an ``assert`` line makes (``assert f(1, [2]) == 3``), read
    as literals; a line whose arguments are not literals counts its characters."""
    try:
        tree = ast.parse(line.strip())
        call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
        return call_shape([ast.literal_eval(a) for a in call.args])
    except (SyntaxError, ValueError, StopIteration, TypeError, RecursionError, MemoryError):
        return Shape(len(line))


def escape_class(failing: Shape, examples: list[Shape], failed_share: float) -> str:
    """The class of a survivor whose smallest failing full test has ``failing``'s shape, against the
    examples it was released with; ``failed_share``: the share of the full tests it fails."""
    largest = max((e.atoms for e in examples), default=0)
    smallest = min((e.atoms for e in examples), default=0)
    mosts = [e.most for e in examples if e.most is not None]
    leasts = [e.least for e in examples if e.least is not None]
    if failing.atoms > 4 * largest and failing.atoms >= 50:
        return "large input"
    if failing.most is not None and (not mosts or failing.most > max(max(mosts), 1.0)
                                     or (leasts and failing.least is not None and failing.least < min(leasts)
                                         and failing.least < 0)):
        return "extreme"
    if failed_share >= 0.5:
        return "misread statement"
    if failing.atoms <= max(2, smallest):
        return "small corner"
    return "structure"


def single_tests(tests: dict) -> list[tuple[dict, Shape]]:
    """A full test set as one test per case (each assert line alone), with each one's shape."""
    if tests.get("kind") == "assert":
        lines = [ln for ln in (tests.get("assert_code") or "").splitlines() if ln.strip().startswith("assert")]
        return [({**tests, "assert_code": ln.strip()}, assert_shape(ln)) for ln in lines]
    out = []
    for case in tests.get("cases") or []:
        shape = stdin_shape(case["input"]) if tests.get("kind") in ("stdin", "checker") else _call_case_shape(case)
        out.append(({**tests, "cases": [case]}, shape))
    return out


def _call_case_shape(case: dict) -> Shape:
    try:
        return call_shape(json.loads(case["input"]))
    except (ValueError, TypeError, RecursionError):
        return Shape(len(str(case.get("input", ""))))


def example_shapes(tests: dict) -> list[Shape]:
    """The shapes of the tests a problem was released from (its examples, before generation)."""
    return [shape for _, shape in single_tests(tests)]


def size_of(test: dict) -> int:
    """How large a single test is, to pick the smallest: its input's (or its assert's) characters."""
    if test.get("kind") == "assert":
        return len(test.get("assert_code") or "")
    return sum(len(str(c.get("input", ""))) for c in test.get("cases") or [])
