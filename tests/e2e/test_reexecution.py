"""A failed ``microcoder run`` is re-executed from failure without redoing what finished.

Two real command-line runs against one Dagster instance: a dropped source file is corrupt (its
partition fails, the other finishes, nothing downstream runs); after it is replaced,
``--from-failure`` re-executes only that partition, from its failed step, and then the dataset.
(A downstream job resumed from its failed step, reusing the steps that finished: the interrupted
run of tests/e2e/test_interrupt.py.)
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from dagster._core.instance.ref import InstanceRef

ROOT = Path(__file__).resolve().parents[2]
SOURCES = "drop_leetcode_part_a,drop_leetcode_part_b"


def _microcoder(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    command = [str(Path(sys.executable).with_name("microcoder")), "run", "--sources", SOURCES, "--no-training",
               "--sample", "1", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)


def _steps_started(instance: dg.DagsterInstance, run_id: str) -> set[str]:
    records = instance.get_records_for_run(run_id, of_type=dg.DagsterEventType.STEP_START).records
    return {record.event_log_entry.dagster_event.step_key for record in records}


def _runs(instance: dg.DagsterInstance, job: str, partition: str | None = None) -> list[dg.DagsterRun]:
    tags = {"dagster/partition": partition} if partition else {}
    return list(reversed(instance.get_runs(dg.RunsFilter(job_name=job, tags=tags))))  # oldest first


@pytest.mark.timeout(1800)
def test_failed_run_reexecutes_from_failure(tmp_path, leetcode_lines):
    drop = tmp_path / "data" / "drop" / "leetcode"
    drop.mkdir(parents=True)
    (drop / "part_a.jsonl").write_text("".join(leetcode_lines("test", 25)))
    broken = drop / "part_b.jsonl.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00 this is not a gzip stream" * 20)
    home = tmp_path / "home"
    env = {**os.environ, "MICROCODER_DATA": str(tmp_path / "data"), "DAGSTER_HOME": str(home),
           "MICROCODER_TRANSLATION_ENABLED": "false"}  # HumanEval-XL's statements untranslated: not what this tests

    first = _microcoder(env)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "ingest[drop_leetcode_part_b]: FAILED" in first.stdout
    assert f"cannot read {broken}" in first.stderr  # the error names the file
    assert "dataset_job" not in first.stdout  # nothing downstream runs on a partial ingest

    with gzip.open(broken, "wt") as handle:
        handle.writelines(leetcode_lines("train", 25))
    second = _microcoder(env, "--from-failure")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "ingest[drop_leetcode_part_a]: finished" in second.stdout

    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        (part_a,) = _runs(instance, "ingest_job", "drop_leetcode_part_a")  # finished once, never redone
        assert part_a.status == dg.DagsterRunStatus.SUCCESS
        failed_b, resumed_b = _runs(instance, "ingest_job", "drop_leetcode_part_b")
        assert failed_b.status == dg.DagsterRunStatus.FAILURE
        assert resumed_b.parent_run_id == failed_b.run_id and resumed_b.status == dg.DagsterRunStatus.SUCCESS
        assert _steps_started(instance, failed_b.run_id) == {"collect_source"}
        assert _steps_started(instance, resumed_b.run_id) == {"collect_source", "process_source"}
        (dataset,) = _runs(instance, "dataset_job")  # once, after the partial ingest was made whole
        assert dataset.status == dg.DagsterRunStatus.SUCCESS

    shards = tmp_path / "data" / "dataset" / "data"
    trained = pl.read_parquet(str(shards / "train-*.parquet"))
    assert set(trained["source"]) == {"drop_leetcode_part_a", "drop_leetcode_part_b"}
    held_out = pl.read_parquet(str(shards / "test-*.parquet"))  # LiveCodeBench: held-out sources come with --sources
    assert set(held_out["source"]) == {"livecodebench"}
