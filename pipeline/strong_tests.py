"""The release rule: ``train`` holds only problems whose tests were made strong.

A released row is a reward a policy will meet. Tests that let a wrong program through pay for it,
so the test figures on the card must describe every row that trains. A problem's tests are
strong when one of these holds:

- they went through generation: generated tests were selected (by Verify, or added by the
  difficulty stage's differential round), or generation ran its adversaries and the source's own
  tests already rejected every one (every distinguishable mutant, and the sample hardcoder);
- the source's tests were measured to reject every known-wrong program and every mutant Verify
  ran (``test_strength`` and ``mutation_score`` 1.0, with at least one of each run).

Tests that are only the statement's examples, or three or fewer of which the statement prints
some, are never strong, generated or not: matching the examples would earn most of the reward.
Other problems are released apart, in the ``source_tests`` config, each with its reason; the
release's ``train_on_source_tests`` puts them back in ``train``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pipeline.schema import Tests

SOURCE_TESTS = "source_tests"  # the config (and the rows' ``split``) of the problems whose tests are not strong
FEW_TESTS = 3  # at most this many tests, some printed in the statement: examples, not tests

# why a problem's tests are not strong: the card's columns, in order
EXAMPLES_ONLY = "examples_only"  # few tests, some of them the statement's examples
NOT_MEASURED = "not_measured"  # no generated test, and no mutant or known-wrong program ran on them
ADVERSARY_PASSES = "adversary_passes"  # a mutant, the hardcoder or a known-wrong program passes them
REASONS = (EXAMPLES_ONLY, NOT_MEASURED, ADVERSARY_PASSES)


def _generated(row: dict[str, Any]) -> bool:
    return int(row.get("generated_tests") or 0) > 0 or int(row.get("differential_added") or 0) > 0


def weakness(row: dict[str, Any]) -> str | None:
    """Why ``row``'s tests are not strong enough to train on (one of :data:`REASONS`); None: they are."""
    tests = row.get("tests")
    if isinstance(tests, Tests) and (tests.hidden_count == 0 or (tests.count <= FEW_TESTS and tests.count > tests.hidden_count)):
        return EXAMPLES_ONLY  # generated or not: matching the examples would be most of the reward
    if _generated(row):
        return None
    mutants, wrong = int(row.get("mutants_run") or 0), int(row.get("incorrect_run") or 0)
    hardcoder_passes = row.get("hardcoder_rejected") is False
    mutants_rejected = mutants > 0 and row.get("mutation_score") == 1.0
    if mutants_rejected and not hardcoder_passes and row.get("mutation_score_before") == 1.0:
        return None  # generation ran its adversaries, and the source's tests rejected every one
    if mutants_rejected and wrong > 0 and row.get("test_strength") == 1.0:
        return None  # every known-wrong program and every mutant rejected
    if mutants == 0 and wrong == 0 and row.get("mutation_score") is None:
        return NOT_MEASURED
    return ADVERSARY_PASSES


def split_source_tests(rows: list[dict[str, Any]], train_on_source_tests: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(train, source_tests)``: verified rows whose tests are not strong go apart unless the run says
    to train on them (an unverified row here was put in train by the run's own setting: it stays)."""
    if train_on_source_tests:
        return rows, []
    apart = [r for r in rows if r.get("verified") and weakness(r) is not None]
    ids = {id(r) for r in apart}
    return [r for r in rows if id(r) not in ids], apart


def source_tests_by_source(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per source of a verified released problem: those whose tests are strong (``train``), and
    those that are not, by reason (the card's table; zeros say the rule was applied)."""
    out: dict[str, Counter] = {}
    for row in rows:
        if row.get("verified"):
            out.setdefault(row["source"], Counter({"strong": 0, **{r: 0 for r in REASONS}})).update([weakness(row) or "strong"])
    return {source: dict(counts) for source, counts in sorted(out.items())}
