"""A standard checker from the statement, only where the statement leaves no doubt.

Two rules, each tied to a phrase judges use and to what the expected outputs look like:

- ``yesno``: the statement lets the answer be printed "in any case" (Codeforces' "You can
  output the answer in any case"), and every expected output token is YES or NO.
- ``doubles:1e-k``: the statement accepts an "absolute or relative error" up to ``10^-k``.

Anything vaguer ("print any of them", "if there are several answers") needs a real checker and
stays without one (the quality filter rejects it as ``special_judge_without_checker``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from evaluator.model import Checker
from pipeline.schema import Tests

ANY_CASE = re.compile(
    r"\b(?:in any (?:letter )?case|any letter case|case[- ]insensitive(?:ly)?|in any register|"
    r"(?:upper|lower)[- ]?case (?:or|and) (?:upper|lower)[- ]?case)\b", re.I)
ABS_OR_REL = re.compile(
    r"(?:absolute|relative)\s+(?:or|and/or)\s+(?:absolute|relative)\s+error[^.]{0,120}?"
    r"(?:10\s*(?:\^\s*)?\{?\s*[-\u2212]\s*(\d{1,2})\s*\}?|1\s*[eE]\s*-\s*(\d{1,2}))", re.S)
_YES_NO = {"yes", "no"}

RULES = ("yesno", "doubles")


def derive_checker(statement: str | None, tests: Tests) -> tuple[Checker, str] | None:
    """``(checker, rule)`` for ``stdin`` tests without a checker, or None."""
    if tests.kind != "stdin" or tests.checker or not tests.cases or not statement:
        return None
    if ANY_CASE.search(statement):
        tokens = [t.lower() for case in tests.cases for t in case.output.split()]
        if tokens and set(tokens) <= _YES_NO:
            return Checker("yesno"), "yesno"
    match = ABS_OR_REL.search(statement)
    if match:
        power = int(match.group(1) or match.group(2))
        if 1 <= power <= 15:
            return Checker("doubles", (f"1e-{power}",)), "doubles"
    return None


def checker_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """How many rows carry each named checker family (what the rules touched, per source run)."""
    counts: Counter[str] = Counter()
    for row in rows:
        checker = row["tests"].checker if isinstance(row.get("tests"), Tests) else None
        if isinstance(checker, Checker):
            counts[checker.name] += 1
        elif checker is not None:
            counts["program"] += 1
    return dict(counts)
