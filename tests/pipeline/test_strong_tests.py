"""The release rule on real records: ``train`` holds only problems whose tests were made strong;
the others are in the ``source_tests`` config, counted per source and reason on the card."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from pipeline.release import release
from pipeline.shards import ShardConfig, problem_ids
from pipeline.strong_tests import ADVERSARY_PASSES, EXAMPLES_ONLY, NOT_MEASURED, weakness
from pipeline.verify import VerifyConfig, verify_rows
from pipeline.verify.testgen import TestGenConfig


@pytest.fixture(scope="module")
def verified():
    """Four MBPP problems through the real Verify: test generation for the first two only."""
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    rows = process_rows(collect(default_specs()["mbpp"]).kept).kept[:4]
    config = VerifyConfig(workers=2, cache=False, generation=TestGenConfig(sample_per_source=2, cache=False,
                                                                          tests_only_in_statement="mark"))
    result = verify_rows(rows, config)
    assert len(result.kept) == 4, result.rejects
    return result.kept


def test_only_problems_with_generated_tests_train(verified, tmp_path):
    generated = [r for r in verified if r["generated_tests"]]
    source_only = [r for r in verified if not r["generated_tests"]]
    assert len(generated) == 2 and len(source_only) == 2
    assert all(weakness(r) is None for r in generated)
    assert all(weakness(r) == NOT_MEASURED for r in source_only)  # MBPP's 3 asserts: no adversary ran on them

    out = tmp_path / "dataset"
    result = release(verified, [], ShardConfig(), str(out))
    assert result.stats["splits"]["train"] == 2 and result.stats["splits"]["source_tests"] == 2
    train = problem_ids(str(out / "data" / "train-00000-of-00001.parquet"), "canonical")
    assert train == {r["problem_id"] for r in generated}
    assert problem_ids(str(out / "verl" / "train.parquet"), "verl") == train  # the verl layout follows train
    apart = pq.read_table(out / "source_tests" / "train-00000-of-00001.parquet").to_pylist()
    assert {r["problem_id"] for r in apart} == {r["problem_id"] for r in source_only}
    assert {r["split"] for r in apart} == {"source_tests"}
    card = (out / "README.md").read_text()
    assert "- config_name: source_tests" in card and "path: source_tests/train-*" in card
    assert "| mbpp | 2 | 0 | 2 | 0 |" in card  # per source: strong, examples_only, not_measured, adversary_passes

    back = release(verified, [], ShardConfig(train_on_source_tests=True), str(tmp_path / "back"))
    assert back.stats["splits"]["train"] == 4 and back.stats["splits"]["source_tests"] == 0


def test_the_reasons(verified):
    """Few tests that the statement prints, adversaries the tests let through, and the two ways
    source tests can earn their place."""
    row = next(r for r in verified if not r["generated_tests"])
    tests = row["tests"]
    assert weakness({**row, "tests": type(tests)(**{**tests.__dict__, "public_asserts": 1})}) == EXAMPLES_ONLY
    assert weakness({**row, "mutants_run": 4, "mutation_score": 0.75, "mutation_score_before": 0.75}) == ADVERSARY_PASSES
    assert weakness({**row, "mutants_run": 4, "mutation_score": 1.0, "mutation_score_before": 1.0,
                     "hardcoder_rejected": True}) is None  # generation found the source's tests reject every adversary
    assert weakness({**row, "mutants_run": 4, "mutation_score": 1.0, "mutation_score_before": 1.0,
                     "hardcoder_rejected": False}) == ADVERSARY_PASSES
    assert weakness({**row, "mutants_run": 2, "mutation_score": 1.0, "incorrect_run": 3, "test_strength": 1.0}) is None
    assert weakness({**row, "mutants_run": 2, "mutation_score": 1.0, "incorrect_run": 3, "test_strength": 2 / 3}) == ADVERSARY_PASSES
    assert weakness({**row, "differential_added": 1}) is None  # the differential round's tests are generated ones
    few = type(tests)(kind="assert", fn_name=tests.fn_name, assert_code="assert f(1) == 1\nassert f(2) == 4\n",
                      public_asserts=1)
    assert weakness({**row, "tests": few, "generated_tests": 1}) == EXAMPLES_ONLY  # generated or not: two tests, one printed
