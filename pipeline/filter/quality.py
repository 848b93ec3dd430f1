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


def special_judge(row: dict[str, Any]) -> str | None:
    """Evidence that several outputs are accepted (needs a checker), or None."""
    meta = row_metadata(row)
    for key in ("special_judge", "output_spj", "spj"):
        if _truthy(meta.get(key)):
            return f"metadata.{key}"
    match = SPECIAL_JUDGE_RE.search(row.get("statement") or "")
    return match.group(0) if match else None


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
