"""The per-row Process steps: ``step(row) -> row``, raising :class:`Reject` to drop a row.

Each step does one job and keeps the row a plain dict of canonical columns. Translation is
not here: it is batched across rows (see ``pipeline.process.process_rows``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pipeline.process.language import detect_language
from pipeline.process.statements import clean_statement, has_images
from pipeline.schema import CANONICAL_FORMAT, Tests

Row = dict[str, Any]

# A statement shorter than this (after cleaning) cannot specify a problem; a CJK character
# counts as a word and as three characters (those scripts are denser and use no spaces).
MIN_STATEMENT_CHARS = 20
MIN_STATEMENT_WORDS = 3


class Reject(Exception):
    """A row that must not go on. ``reason`` is a short stable code for the rejects table."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def clean_statement_step(row: Row) -> Row:
    """Markup/scaffolding noise out; image references flagged before cleaning can hide them."""
    raw = row.get("statement")
    row["has_images"] = has_images(raw)
    row["statement"] = clean_statement(raw, row.get("starter_code"))
    return row


def canonical_tests_step(row: Row) -> Row:
    """Source test formats -> canonical ``Tests`` JSON (``tests_format`` becomes canonical)."""
    if row.get("tests") in (None, "", "null"):
        raise Reject("no_tests", "the row carries no tests")
    fmt = row.get("tests_format") or CANONICAL_FORMAT
    if fmt == CANONICAL_FORMAT:
        try:
            tests = Tests.from_json(row["tests"])
        except (ValueError, TypeError, json.JSONDecodeError) as err:
            raise Reject("tests_unparseable", f"{type(err).__name__}: {err}") from None
    else:
        try:
            from pipeline.process.tests_format import TestsFormatError, normalize_tests
        except ImportError:
            raise Reject("unsupported_tests_format", f"no normalizer for {fmt!r}") from None
        try:
            tests = normalize_tests(row)
        except TestsFormatError as err:
            raise Reject(getattr(err, "reason", "tests_unparseable"), getattr(err, "detail", str(err))) from None
    row["tests"] = tests.to_json()
    row["tests_format"] = CANONICAL_FORMAT
    return row


def completeness_step(row: Row) -> Row:
    """Statement present and non-trivial, at least one test, ``fn_name`` for call problems."""
    statement = (row.get("statement") or "").strip()
    if not statement:
        raise Reject("missing_statement", "empty after cleaning")
    cjk = 0 if statement.isascii() else len(_CJK.findall(statement))
    if len(statement) + 2 * cjk < MIN_STATEMENT_CHARS or len(statement.split()) + cjk < MIN_STATEMENT_WORDS:
        raise Reject("statement_too_short", repr(statement[:80]))
    tests = Tests.from_json(row["tests"])
    if tests.count == 0:
        raise Reject("no_tests", f"{tests.kind} tests with no cases")
    if tests.kind == "call" and not tests.fn_name:
        raise Reject("missing_fn_name", "call tests need the function to call")
    row["num_tests"] = tests.count
    return row


def checker_step(row: Row) -> Row:
    """A standard checker where the statement says unambiguously which answers are accepted."""
    from pipeline.process.checkers import derive_checker

    tests = Tests.from_json(row["tests"])
    derived = derive_checker(row.get("statement"), tests)
    if derived is not None:
        tests.checker = derived[0]
        row["tests"] = tests.to_json()
    return row


def language_step(row: Row) -> Row:
    """Detected base language code of the cleaned statement (fast path + seeded langdetect)."""
    row["language"] = detect_language(row["statement"])
    row["needs_translation"] = row["language"] not in (None, "en")
    return row


DEFAULT_STEPS = (clean_statement_step, canonical_tests_step, completeness_step, checker_step, language_step)
