"""Problems whose tests no program has passed (issue 33, item 4): a model's sample that passes every
test becomes the reference, with its origin; the rest are released apart, in the `unverified` config.

Real MBPP records with their references taken away (what Verify keeps when a source has none), and
real model-written programs (MapCoder's GPT-4 and ChatGPT outputs, ``labelled/``) as the samples: the
sampler replays them through the :class:`Sampler` interface, as any backend returns completions.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Sequence

import pyarrow.parquet as pq
import pytest

from pipeline.difficulty import DifficultyConfig, ScoreCache, cache_key, score_problems
from pipeline.model_references import MODEL_ORIGIN, SOURCE_ORIGIN
from pipeline.release import release
from pipeline.samplers.base import Completion, Sampler
from pipeline.shards import ShardConfig, problem_ids
from pipeline.verify import VerifyConfig, decide


class RecordedSampler(Sampler):
    """Recorded samples of a real model, one list per prompt's problem, in the order asked."""

    def __init__(self, samples: list[list[str]]) -> None:
        self.samples = samples

    @property
    def model_id(self) -> str:
        return "mapcoder-gpt4-recorded"

    def generate(self, prompts: Sequence, n: int = 1, temperature: float = 1.0, max_tokens: int = 256,
                 seed: int = 0) -> list[list[Completion]]:
        out, self.samples = self.samples[: len(prompts)], self.samples[len(prompts):]
        return [[Completion(f"```python\n{code}\n```", None, 10, "stop") for code in codes[:n]] for codes in out]


@pytest.fixture(scope="module")
def problems(shared_data):
    """Three MBPP problems: two with their references taken away (kept unverified, as Verify keeps a
    problem with none), one as the source gave it; and MapCoder's programs for the first two."""
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    rows = process_rows(collect(default_specs()["mbpp"]).kept).kept
    programs: dict[str, dict[bool, list[str]]] = {}
    with gzip.open(shared_data / "labelled" / "programs.jsonl.gz", "rt") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["dataset"] == "mbpp" and rec.get("compiles", True):
                good = rec["label_base"] is True and rec["label_extended"] is True
                programs.setdefault(str(rec["mbpp_task_id"]), {True: [], False: []})[good].append(rec["code"])
    with_both = [r for r in rows if all(programs.get(r["source_id"], {}).get(k) for k in (True, False))]
    orphans = [decide({**r, "solutions": []}, [], VerifyConfig())[0] for r in with_both[:2]]
    assert all(o["verified"] is False for o in orphans)
    sourced = {**with_both[2], "verified": True}
    return orphans, sourced, [programs[o["source_id"]] for o in orphans]


def test_a_passing_sample_is_the_reference_and_the_rest_are_released_apart(problems, tmp_path):
    orphans, sourced, programs = problems
    first, second = orphans
    # first: a wrong program then a right one; second: only wrong ones
    samples = [[programs[0][False][0], programs[0][True][0]], [programs[1][False][0], programs[1][False][-1]]]
    cache = ScoreCache(str(tmp_path / "scores.parquet"))
    scored, _ = score_problems(orphans + [sourced], RecordedSampler(sorted_like(orphans + [sourced], samples)),
                               DifficultyConfig(k=2, max_tokens=64), cache)
    by_id = {s["problem_id"]: s for s in scored}
    assert by_id[first["problem_id"]]["pass_rate"] == 0.5
    right = by_id[first["problem_id"]]["model_solution"]
    assert right.strip() == programs[0][True][0].strip()
    assert by_id[second["problem_id"]]["model_solution"] is None
    cache.save()  # the program survives the cache
    assert ScoreCache(cache.url).get(cache_key(first, "mapcoder-gpt4-recorded", DifficultyConfig(k=2, max_tokens=64)))[
        "passing_solution"] == right

    out = tmp_path / "dataset"
    # none of them went through test generation here: the release rule for that has its own test
    result = release(scored, [], ShardConfig(train_on_source_tests=True), str(out))
    assert result.stats["splits"]["unverified"] == 1 and result.stats["model_references"] == 1
    train = {r["problem_id"]: r for r in pq.read_table(out / "data" / "train-00000-of-00001.parquet").to_pylist()}
    adopted = train[first["problem_id"]]
    assert adopted["solutions"] == [right] and adopted["verified"] is True
    assert adopted["solution_origins"] == [MODEL_ORIGIN + "mapcoder-gpt4-recorded"]
    assert train[sourced["problem_id"]]["solution_origins"] == [SOURCE_ORIGIN] * len(sourced["solutions"])
    assert second["problem_id"] not in train
    assert second["problem_id"] not in problem_ids(str(out / "verl" / "train.parquet"), "verl")
    apart = pq.read_table(out / "unverified" / "train-00000-of-00001.parquet").to_pylist()
    assert [(r["problem_id"], r["split"], r["solutions"]) for r in apart] == [(second["problem_id"], "unverified", [])]
    card = (out / "README.md").read_text()
    assert "- config_name: unverified" in card and "path: unverified/train-*" in card
    assert "| mbpp | 2 | 1 | 1 |" in card and "| unverified | 1 |" in card
    assert f"| mbpp | 3 | 1 | {sourced['license']} |" in card  # every released row's licence, both configs

    back = release(scored, [], ShardConfig(train_on_unverified=True, train_on_source_tests=True),
                   str(tmp_path / "back"))
    assert back.stats["splits"]["unverified"] == 0 and back.stats["splits"]["train"] == 3
    assert second["problem_id"] in problem_ids(str(tmp_path / "back" / "verl" / "train.parquet"), "verl")


def sorted_like(rows: list[dict], samples: list[list[str]]) -> list[list[str]]:
    """The samples in the order the difficulty stage asks (by problem id); the last row gets none."""
    by_id = {row["problem_id"]: codes for row, codes in zip(rows, samples + [["print(0)", "print(0)"]])}
    return [by_id[pid] for pid in sorted(by_id)]


def test_a_cached_pass_without_its_program_is_sampled_again(tmp_path):
    cache = ScoreCache(str(tmp_path / "scores.parquet"))
    cache.put([{"cache_key": "a", "passes": 2}, {"cache_key": "b", "passes": 0},
               {"cache_key": "c", "passes": 1, "passing_solution": "print(1)"}])
    assert cache.get("a") is None  # scored before passing samples were kept
    assert cache.get("b")["passes"] == 0 and cache.get("c")["passing_solution"] == "print(1)"


def test_a_score_no_tests_can_reach_is_dropped_from_the_cache(tmp_path):
    """Scores written before the tests were part of the key (no ``tests_hash``) go when the file is
    read; a problem scored again on new tests drops its score on the old ones, not other settings'."""
    cache = ScoreCache(str(tmp_path / "scores.parquet"))
    row = {"problem_id": "p", "model": "m", "k": 2, "temperature": 1.0, "seed": 0, "max_tokens": 64,
           "prompt_version": 1, "passes": 0}
    cache.put([{**row, "cache_key": "old-key"}, {**row, "cache_key": "t1", "tests_hash": "t1"},
               {**row, "cache_key": "t1-k4", "k": 4, "tests_hash": "t1"}])
    cache.save()
    cache = ScoreCache(cache.url)
    assert sorted(cache.rows) == ["t1", "t1-k4"] and cache.pruned == 1
    cache.put([{**row, "cache_key": "t2", "tests_hash": "t2"}])
    assert sorted(cache.rows) == ["t1-k4", "t2"] and cache.pruned == 2


def test_a_score_is_reused_only_with_the_round_and_the_tests_it_was_made_with(problems):
    _, sourced, _ = problems
    on, off = DifficultyConfig(), DifficultyConfig(differential=False)
    assert cache_key(sourced, "m", on) != cache_key(sourced, "m", off)  # the round's rejections change the pass rate
    assert cache_key(sourced, "m", on) == cache_key(sourced, "m", DifficultyConfig(round_budget_s=on.round_budget_s))
    changed = dataclasses.replace(sourced["tests"], time_limit_s=(sourced["tests"].time_limit_s or 1.0) + 1.0)
    assert cache_key({**sourced, "tests": changed}, "m", on) != cache_key(sourced, "m", on)  # Verify changed them
