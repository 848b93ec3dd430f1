"""Checkers derived from statements: only the unambiguous phrases, checked on real statements."""

from __future__ import annotations

from collections import Counter

import pytest

from pipeline.paths import shared_data_dir
from pipeline.process import process_rows
from pipeline.process.checkers import derive_checker
from pipeline.schema import TestCase as CanonicalCase
from pipeline.schema import Tests as CanonicalTests

YES_NO = CanonicalTests(kind="stdin", cases=[CanonicalCase("1\n", "YES\n"), CanonicalCase("2\n", "NO\n")])
FLOAT = CanonicalTests(kind="stdin", cases=[CanonicalCase("1\n", "0.5000000\n")])


@pytest.mark.parametrize("statement,tests,want", [
    ("Print YES or NO. You can output the answer in any case (upper or lower).", YES_NO, "yesno"),
    ("Print YES or NO. You may print every letter in any case you want.", YES_NO, "yesno"),
    ("Print YES or NO.", YES_NO, None),  # case not said to be free
    ("Output in any case: YES and a permutation.", CanonicalTests(kind="stdin", cases=[CanonicalCase("1\n", "YES\n1 2\n")]), None),
    ("Your answer is accepted if its absolute or relative error does not exceed $10^{-6}$.", FLOAT, "doubles:1e-6"),
    ("The answer is correct if the relative or absolute error is at most 10 ^ {-5}.", FLOAT, "doubles:1e-5"),
    ("relative or absolute error less than 10\u2009-\u20096.", FLOAT, "doubles:1e-6"),
    ("with an absolute or relative error of at most 1e-9.", FLOAT, "doubles:1e-9"),
    ("Print the answer with exactly 6 digits after the decimal point.", FLOAT, None),
    ("If there are several answers, print any of them.", FLOAT, None),
])
def test_rules(statement, tests, want):
    got = derive_checker(statement, tests)
    assert (str(got[0]) if got else None) == want


def test_call_tests_and_existing_checkers_are_left_alone():
    call = CanonicalTests(kind="call", fn_name="f", cases=[CanonicalCase("[1]", "1")])
    assert derive_checker("absolute or relative error 1e-6", call) is None
    own = CanonicalTests(kind="stdin", cases=[CanonicalCase("1\n", "YES\n")], checker="import sys")
    assert derive_checker("in any case", own) is None


def test_rules_on_the_shared_sets():
    """Process derives checkers on real statements; every derived one accepts the expected output."""
    if shared_data_dir() is None:
        pytest.skip("no shared data on this machine")
    from evaluator.model import Checker
    from pipeline.sources import collect_all

    rows = process_rows(collect_all()).kept
    counts: Counter = Counter()
    for row in rows:
        tests = row["tests"]
        if isinstance(tests.checker, Checker):
            counts[(row["source"], tests.checker.name)] += 1
            for case in tests.cases:
                assert tests.checker.check(case.output, case.output)[0]
                if tests.checker.name == "yesno":
                    assert tests.checker.check(case.output, case.output.lower())[0]
    print(dict(counts))
    assert counts[("taco", "yesno")] >= 5 and counts[("taco", "doubles")] >= 5
    assert counts[("livecodebench", "doubles")] >= 3
