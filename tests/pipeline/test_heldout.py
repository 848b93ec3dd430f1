"""The held-out evaluation split: LiveCodeBench rows as the dataset's test split, grouped for pass@1."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from pipeline.heldout import eval_group, from_date
from pipeline.samplers.prompts import build_messages
from pipeline.shards import ShardConfig, write_dataset


@pytest.fixture(scope="module")
def lcb(shared_data):
    """The held-out source's rows, through Collect, Process and the held-out Verify."""
    from pipeline.process import process_rows
    from pipeline.sources import HELDOUT, collect, default_specs
    from pipeline.verify import verify_heldout

    spec = next(s for s in default_specs().values() if s.role == HELDOUT)
    result = verify_heldout(process_rows(collect(spec).kept).kept)
    assert result.stats.kept + result.stats.rejected == result.stats.input == 879
    return result.kept


def test_local_copy_groups_by_test_kind(lcb):
    # the shared copy has no platform, difficulty or contest date: the breakdown is the test kind
    groups = {eval_group(r) for r in lcb}
    assert groups == {"livecodebench/stdin", "livecodebench/call"}
    assert all(r["source"] == "livecodebench" for r in lcb)
    assert from_date(lcb, "2024-01-01") == []  # a date split needs dates
    assert from_date([{"contest_date": "2024-03-01"}, {"contest_date": "2023-12-31"}], "2024-01-01") == [
        {"contest_date": "2024-03-01"}]


def test_hub_fields_give_the_papers_groups(lcb):
    row = dict(lcb[0], metadata=json.dumps({"platform": "AtCoder"}), source_difficulty="Hard")
    assert eval_group(row) == "livecodebench/atcoder/hard"


def test_dataset_test_split_is_the_heldout_set(tmp_path, lcb):
    train = [dict(r, source="mbpp", problem_id=f"mbpp/{i}") for i, r in enumerate(lcb[:6])]
    held = lcb[:5]
    written = write_dataset(train, str(tmp_path), build_messages, ShardConfig(), heldout=held)
    assert written.counts == {"train": 6, "test": 5, "unverified": 0, "source_tests": 0}  # every released row trains; no hash split
    test = pq.read_table(written.verl_files["test"]).to_pylist()
    assert {r["extra_info"]["problem_id"] for r in test} == {r["problem_id"] for r in held}
    assert {r["data_source"] for r in test} <= {"livecodebench/stdin", "livecodebench/call"}
    assert all(r["data_source"].startswith("microcoder/") for r in pq.read_table(written.verl_files["train"]).to_pylist())
    hashed = write_dataset(train, str(tmp_path / "h"), build_messages, ShardConfig(eval_split="hash", test_fraction=0.5))
    assert hashed.counts["train"] + hashed.counts["test"] == 6  # the random split, only when asked for
