"""Quality rules: each one configurable, each with its own reject reason.

A rule returns ``(reason, detail)`` for a row it rejects, else None. Rules see processed rows
(``num_tests`` and ``has_images`` from Process; canonical ``Tests``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pipeline.schema import Tests, num_tests, row_metadata

INTERACTIVE_RE = re.compile(
    r"\binteractive (?:problem|task)\b|\bthis is an interactive\b|\bflush the output\b|\bfflush\s*\(|"
    r"\bstdout\.flush\b|\bcout\.flush\b|\binteractor\b",
    re.IGNORECASE,
)
FIGURE_RE = re.compile(
    r"\b(?:see|shown in|in|on|from) the (?:following |above |below )?(?:figure|picture|image|illustration|diagram)s?\b"
    r"|\b(?:figure|picture|image|illustration|diagram)s? (?:below|above)\b"
    r"|\bas (?:shown|illustrated|depicted) (?:below|above|in)\b",
    re.IGNORECASE,
)
SPECIAL_JUDGE_RE = re.compile(
    r"\bif there are (?:multiple|several|many) (?:possible |valid |correct |optimal )?(?:answers|solutions)\b"
    r"|\b(?:print|output|return) any (?:of them|one of them|valid|correct|such|possible)\b"
    r"|\bany of them\b|\bin any order\b",
    re.IGNORECASE,
)
# "in any order" often describes the operation ("rearrange the digits in any order", "finish the
# tasks in any order"), not the answer: evidence only where the answer could be a list.
OPERATION_ORDER_RE = re.compile(r"in any order", re.IGNORECASE)
NUMBER_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
BOOL_WORDS = {"true", "false", "yes", "no"}
TEST_CASES_RE = re.compile(r"\btest ?cases?\b", re.IGNORECASE)


@dataclass(frozen=True)
class QualityConfig:
    min_statement_chars: int = 40
    max_statement_chars: int = 20_000
    min_tests: int = 1
    drop_interactive: bool = True
    drop_image_dependent: bool = True
    require_checker_for_special_judge: bool = True


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in {"true", "1", "yes"}) or value == 1


def is_interactive(row: dict[str, Any]) -> str | None:
    """Evidence that the problem is interactive (needs a live judge), or None."""
    if any("interactive" in str(t).lower() for t in row.get("tags") or []):
        return "tag"
    if _truthy(row_metadata(row).get("interactive")):
        return "metadata"
    match = INTERACTIVE_RE.search(row.get("statement") or "")
    return match.group(0) if match else None


def needs_images(row: dict[str, Any]) -> str | None:
    """The statement has images and refers to a figure the solver must see, or None."""
    if not row.get("has_images"):
        return None
    match = FIGURE_RE.search(row.get("statement") or "")
    return match.group(0) if match else None


def _fixed_by_statement(word: str, statement: str) -> bool:
    """``word`` is a string the statement prints in quotes (\"Impossible\", «YES», 'Alice')."""
    return re.search(rf"[\"'«“`]\s*{re.escape(word)}\s*[\"'»”`]", statement) is not None


def _one_token_answer(token: str, statement: str) -> bool:
    return (NUMBER_RE.fullmatch(token) is not None or token.lower() in BOOL_WORDS
            or _fixed_by_statement(token, statement))


def _stdin_scalar(case_input: str, output: str, statement: str) -> bool:
    """One token, or one token per line for a multi-test-case input (the first input token says
    how many test cases, and the output has as many lines)."""
    lines = [line.strip() for line in output.strip().splitlines()]
    if not lines or any(len(line.split()) != 1 or not _one_token_answer(line, statement) for line in lines):
        return False
    if len(lines) == 1:
        return True
    first = case_input.split(maxsplit=1)[0] if case_input.strip() else ""
    return bool(TEST_CASES_RE.search(statement)) and first.isdigit() and int(first) == len(lines)


def _call_scalar(output: str, statement: str) -> bool:
    try:
        value = json.loads(output)
    except ValueError:
        return False
    if isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, str) and value != "" and len(value.split()) == 1 and _fixed_by_statement(value, statement)


def single_valued_answer(row: dict[str, Any]) -> bool:
    """Every test's answer is a number, a bool or one string the statement fixes: an answer with
    one valid form (no order to choose, nothing to pick among). Assert-style tests are not read."""
    tests: Tests | None = row.get("tests")
    if tests is None or tests.kind not in ("stdin", "call") or not tests.cases:
        return False
    statement = row.get("statement") or ""
    if tests.kind == "call":
        return all(_call_scalar(case.output, statement) for case in tests.cases)
    return all(_stdin_scalar(case.input, case.output, statement) for case in tests.cases)


def special_judge(row: dict[str, Any]) -> str | None:
    """Evidence that several outputs are accepted (needs a checker), or None.

    "in any order" is no evidence when every answer is single-valued (:func:`single_valued_answer`):
    then it is the operation that may go in any order. The answer-directed phrases ("print any of
    them", "if there are several answers") stay evidence even then: "print any index" is a number.
    """
    meta = row_metadata(row)
    for key in ("special_judge", "output_spj", "spj"):
        if _truthy(meta.get(key)):
            return f"metadata.{key}"
    single: bool | None = None  # computed once, only when an "in any order" needs it
    for match in SPECIAL_JUDGE_RE.finditer(row.get("statement") or ""):
        if OPERATION_ORDER_RE.fullmatch(match.group(0)):
            single = single_valued_answer(row) if single is None else single
            if single:
                continue
        return match.group(0)
    return None


def check(row: dict[str, Any], config: QualityConfig) -> tuple[str, str] | None:
    """The first quality rule ``row`` fails, as ``(reason, detail)``, or None."""
    length = len((row.get("statement") or "").strip())
    if length < config.min_statement_chars:
        return "statement_too_short", json.dumps({"chars": length, "min": config.min_statement_chars})
    if length > config.max_statement_chars:
        return "statement_too_long", json.dumps({"chars": length, "max": config.max_statement_chars})
    count = num_tests(row)
    if count < config.min_tests:
        return "too_few_tests", json.dumps({"num_tests": count, "min": config.min_tests})
    if config.drop_interactive and (why := is_interactive(row)):
        return "interactive", json.dumps({"evidence": why})
    if config.drop_image_dependent and (why := needs_images(row)):
        return "needs_images", json.dumps({"evidence": why})
    if config.require_checker_for_special_judge:
        tests: Tests | None = row.get("tests")
        # assert-style tests judge the answer in code: they are their own checker
        if tests is not None and tests.kind != "assert" and not tests.checker and (why := special_judge(row)):
            return "special_judge_without_checker", json.dumps({"evidence": why})
    return None
