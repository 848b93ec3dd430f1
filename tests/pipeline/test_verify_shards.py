"""A refresh re-verifies only the shards whose problems changed (real MBPP and KodCode rows)."""

from __future__ import annotations

import dataclasses

import pytest

from evaluator.backend import LocalBackend
from pipeline.verify import VerifyConfig, verify_rows
from pipeline.verify.shards import ShardCache, shard_of, verify_sharded


@pytest.fixture(scope="module")
def rows(shared_data):
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    mbpp = process_rows(collect(default_specs()["mbpp"]).kept).kept[:8]
    kodcode = [r for r in process_rows(collect(default_specs()["kodcode"]).kept).kept if r["incorrect_solutions"]][:4]
    return mbpp + kodcode


class Counting(LocalBackend):
    """This machine's backend, counting its calls (both kinds) and the problems whose references
    and known-wrong programs it was given (their keys are ``(problem id, index)``)."""

    def __init__(self) -> None:
        self.problems: set[str] = set()
        self.calls = 0

    def evaluate_many(self, jobs, *args, **kwargs):
        jobs = list(jobs)
        self.calls += 1
        self.problems |= {key[0] for key, _, _ in jobs if isinstance(key, tuple) and isinstance(key[0], str)}
        return super().evaluate_many(jobs, *args, **kwargs)

    def values_many(self, jobs, *args, **kwargs):
        self.calls += 1
        return super().values_many(jobs, *args, **kwargs)


def _summary(result):
    return ([(r["problem_id"], r["verified"], r["tests"].to_json(), r["test_strength"]) for r in result.kept],
            sorted((r["problem_id"], r["reason"]) for r in result.rejects))


CONFIG = VerifyConfig(workers=2, shards=4)


def test_an_unchanged_refresh_runs_no_program(rows, tmp_path):
    cache = ShardCache(tmp_path)
    run = Counting()
    first = verify_sharded(rows, CONFIG, cache=cache, backend=run)
    assert run.problems == {r["problem_id"] for r in rows}
    assert first.stats["shards_reused"] == 0 and first.stats["problems"] == len(rows)
    counted = Counting()
    again = verify_sharded(rows, CONFIG, cache=cache, backend=counted)
    assert counted.calls == 0 and again.stats["shards_reused"] == again.stats["shards"]
    assert again.stats["problems_reused"] == len(rows)
    assert _summary(again) == _summary(first)
    assert {k: again.stats[k] for k in ("verified", "rejected", "reasons")} == \
        {k: first.stats[k] for k in ("verified", "rejected", "reasons")}


def test_a_changed_problem_reverifies_its_shard_only(rows, tmp_path):
    cache = ShardCache(tmp_path)
    first = verify_sharded(rows, CONFIG, cache=cache)
    edited = dict(rows[0], statement=rows[0]["statement"] + "\n(edited)")
    changed = [edited, *rows[1:]]
    shard = shard_of(edited["problem_id"], CONFIG.shards)
    run = Counting()
    second = verify_sharded(changed, CONFIG, cache=cache, backend=run)
    assert run.problems == {r["problem_id"] for r in changed if shard_of(r["problem_id"], CONFIG.shards) == shard}
    assert second.stats["shards_reused"] == second.stats["shards"] - 1
    assert _summary(second) == _summary(first)  # the statement does not change what Verify decides here
    # new settings decide anew: every shard runs
    run = Counting()
    verify_sharded(changed, dataclasses.replace(CONFIG, max_incorrect=1), cache=cache, backend=run)
    assert run.problems == {r["problem_id"] for r in changed}


def test_sharded_and_whole_verification_agree(rows, tmp_path):
    sharded = verify_sharded(rows, CONFIG, cache=ShardCache(tmp_path))
    whole = verify_rows(rows, CONFIG)
    assert _summary(sharded) == _summary(whole)


def test_a_generation_sample_is_verified_whole_each_time(rows, tmp_path):
    config = dataclasses.replace(CONFIG, generation=dataclasses.replace(CONFIG.generation, sample_per_source=2))
    result = verify_sharded(rows, config, cache=ShardCache(tmp_path))
    assert result.stats["shard_cache"].startswith("a generation sample") and not list(tmp_path.iterdir())
