"""Tests to canonical form, on real shared records."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evaluator.model import Limits
from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.process.tests_format import (  # noqa: E402
    normalize_tests,
    signature_params,
)
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.stage import Rejected  # noqa: E402


@pytest.fixture(scope="module")
def rows():
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    return {name: collect(spec).kept for name, spec in default_specs().items()}


def test_every_row_normalizes_or_says_why(rows):
    reasons = Counter()
    for name, lst in rows.items():
        for row in lst:
            try:
                normalize_tests(row)
            except Rejected as err:
                reasons[(name, err.reason)] += 1
    assert reasons == {("taco", "no_tests"): 64, ("apps", "ambiguous_args"): 2, ("sandboxfusion", "no_tests"): 2}


def test_leetcode_keyword_inputs_follow_the_signature(rows):
    lc = {r["source_id"]: r for r in rows["leetcode"]}
    raw = json.loads(lc["two-sum"]["tests"])
    params = signature_params(raw["signature"], "twoSum")
    assert params == ["nums", "target"]
    tests = normalize_tests(lc["two-sum"])
    assert tests.kind == "call" and tests.fn_name == "twoSum" and "from typing import *" in tests.prelude
    assert json.loads(tests.cases[0].input) == [[2, 7, 11, 15], 9] and json.loads(tests.cases[0].output) == [0, 1]
    kinds = Counter(normalize_tests(r).kind for r in lc.values())
    tree = [r for r in lc.values() if "root: Optional[TreeNode]" in r["starter_code"]]
    assert tree and all(normalize_tests(r).kind == "assert" for r in tree)
    assert kinds["call"] > 1500


def test_livecodebench_functional_args(rows):
    row = next(r for r in rows["livecodebench"] if "countSeniors" in r["starter_code"])
    tests = normalize_tests(row)
    assert tests.kind == "call" and tests.fn_name == "countSeniors"
    assert json.loads(tests.cases[0].input) == [["7868190130M7522", "5303914400F9211", "9273338290F4010"]]
    assert tests.cases[0].output == "2"


def test_apps_call_lists(rows):
    row = next(r for r in rows["apps"] if "def get_score" in r["starter_code"])
    tests = normalize_tests(row)
    assert tests.kind == "call" and json.loads(tests.cases[0].input) == [[1]] and tests.cases[0].output == "100"
    two = next(r for r in rows["apps"] if "is_substitution_cipher" in r["starter_code"])
    assert json.loads(normalize_tests(two).cases[0].input) == ["aacb", "aabc"]


def test_assert_formats(rows):
    he = normalize_tests(rows["humaneval"][0])
    assert he.kind == "assert" and he.assert_code.rstrip().endswith("check(has_close_elements)")
    mb = normalize_tests(next(r for r in rows["mbpp"] if r["source_id"] == "1"))
    assert mb.assert_code.count("assert min_cost") == 3
    kod = normalize_tests(rows["kodcode"][0])
    assert kod.kind == "assert" and "_mc_run_tests" in kod.assert_code
    assert kod.count == json.loads(rows["kodcode"][0]["tests"])["test_code"].count("assert ")


def test_malformed_tests_are_refused():
    with pytest.raises(Rejected):
        normalize_tests({"tests_format": "lcb", "tests": "{not json"})
    with pytest.raises(Rejected) as err:
        normalize_tests({"tests_format": "nope", "tests": "{}"})
    assert err.value.reason == "unknown_tests_format"
    with pytest.raises(Rejected):
        normalize_tests({"tests_format": "apps_io", "tests": {"inputs": ["1"], "outputs": []}})


def test_references_pass_after_normalization(rows):
    evaluator = pytest.importorskip("evaluator.api")
    items = []
    for name in ("leetcode", "humaneval", "mbpp", "kodcode", "code_contests_verify", "humaneval_xl"):
        for row in rows[name][:3] + [r for r in rows[name] if "TreeNode" in (r["starter_code"] or "")][:2]:
            if "timeit" in row["tests"]:  # wall-clock assertions are flaky on a busy machine
                continue
            items.append((row["source_id"], row["solutions"][0], normalize_tests(row).to_dict()))
    results = evaluator.evaluate_many(items, Limits(time_s=10), workers=2)
    failed = [(r.key, r.verdict) for r in results if not r.passed]
    assert not failed
