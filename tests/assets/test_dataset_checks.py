"""The release's check that no benchmark problem reaches a training shard, on real HumanEval rows."""

from __future__ import annotations

import pytest

from assets.dataset.checks import dataset_checks


@pytest.fixture(scope="module")
def humaneval_rows(shared_data) -> list[dict]:
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    return process_rows(collect(default_specs()["humaneval"]).kept).kept


def _check(train: list[dict], references: list[dict]):
    (result,) = dataset_checks(train, references)
    return result


def test_a_benchmark_problem_in_training_fails_the_check(humaneval_rows):
    references, clean = humaneval_rows[:100], humaneval_rows[100:]
    ok = _check([dict(r, source="taco") for r in clean], references)
    assert ok.passed and ok.metadata["benchmark_problems"].value == 100
    copied = dict(references[7], source="taco", problem_id="taco/copied")  # a new benchmark's problem, trained on
    leaked = _check([dict(r, source="taco") for r in clean] + [copied], references)
    assert not leaked.passed and leaked.metadata["copies"].value == 1 and "taco/copied" in leaked.metadata["examples"].value
    from_source = _check([dict(clean[0])], references)  # a row of a benchmark source (a role changed after Filter)
    assert not from_source.passed and from_source.metadata["from_benchmark_source"].value == 1
