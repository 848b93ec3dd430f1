"""The per-row Process steps: ``step(row) -> row``, raising :class:`Rejected` to drop a row.

Each step does one job and keeps the row a plain dict of canonical columns. Translation is
not here: it is batched across rows (see ``pipeline.process.process_rows``).
"""

from __future__ import annotations

import re

from pipeline.process.language import detect_language
from pipeline.process.statements import clean_statement, has_images
from pipeline.process.tests_format import normalize_tests
from pipeline.schema import CANONICAL_FORMAT, Tests
from pipeline.stage import Rejected, Row

# A statement shorter than this (after cleaning) cannot specify a problem; a CJK character
# counts as a word and as three characters (those scripts are denser and use no spaces).
MIN_STATEMENT_CHARS = 20
MIN_STATEMENT_WORDS = 3


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def clean_statement_step(row: Row) -> Row:
    """Markup/scaffolding noise out; image references flagged before cleaning can hide them."""
    raw = row.get("statement")
    row["has_images"] = has_images(raw)
    row["statement"] = clean_statement(raw, row.get("starter_code"))
    return row


def canonical_tests_step(row: Row) -> Row:
    """Source test formats -> a canonical :class:`Tests` (``tests_format`` becomes canonical)."""
    if row.get("tests") in (None, "", "null"):
        raise Rejected("no_tests", "the row carries no tests")
    if isinstance(row["tests"], str) and (row.get("tests_format") or CANONICAL_FORMAT) == CANONICAL_FORMAT:
        try:  # canonical text that did not come through rows_from_table (a caller's own rows)
            row["tests"] = Tests.from_json(row["tests"])
        except (ValueError, TypeError) as err:
            raise Rejected("tests_unparseable", f"{type(err).__name__}: {err}") from None
    row["tests"] = normalize_tests(row)
    row["tests_format"] = CANONICAL_FORMAT
    return row


def completeness_step(row: Row) -> Row:
    """Statement present and non-trivial, at least one test, ``fn_name`` for call problems."""
    statement = (row.get("statement") or "").strip()
    if not statement:
        raise Rejected("missing_statement", "empty after cleaning")
    cjk = 0 if statement.isascii() else len(_CJK.findall(statement))
    if len(statement) + 2 * cjk < MIN_STATEMENT_CHARS or len(statement.split()) + cjk < MIN_STATEMENT_WORDS:
        raise Rejected("statement_too_short", repr(statement[:80]))
    tests: Tests = row["tests"]
    if tests.count == 0:
        raise Rejected("no_tests", f"{tests.kind} tests with no cases")
    if tests.kind == "call" and not tests.fn_name:
        raise Rejected("missing_fn_name", "call tests need the function to call")
    row["num_tests"] = tests.count
    return row


def checker_step(row: Row) -> Row:
    """A standard checker where the statement says unambiguously which answers are accepted."""
    from pipeline.process.checkers import derive_checker

    derived = derive_checker(row.get("statement"), row["tests"])
    if derived is not None:
        row["tests"].checker = derived[0]
    return row


def public_tests_step(row: Row) -> Row:
    """Mark the tests the statement prints: a program could memorise those (``pipeline.process.public``)."""
    from pipeline.process.public import mark_public, statement_text

    row["tests"] = mark_public(statement_text(row), row["tests"])
    return row


def language_step(row: Row) -> Row:
    """Detected base language code of the cleaned statement (fast path + seeded langdetect)."""
    row["language"] = detect_language(row["statement"])
    row["needs_translation"] = row["language"] not in (None, "en")
    return row


DEFAULT_STEPS = (clean_statement_step, canonical_tests_step, completeness_step, checker_step, public_tests_step,
                 language_step)
