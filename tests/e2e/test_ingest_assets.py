"""Materialize the real Collect -> Process assets for every local source in a temporary instance."""

from __future__ import annotations

import json

import dagster as dg
import polars as pl
import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ingested(tmp_path_factory, shared_data):
    root = tmp_path_factory.mktemp("microcoder-data")
    mp = pytest.MonkeyPatch()
    mp.setenv("MICROCODER_DATA", str(root))
    from assets.definitions import defs
    from assets.ingest.partitions import register_sources
    from assets.resources import TranslationResource
    from pipeline.sources.discovery import configured_specs

    job = defs.resolve_job_def("ingest_job")
    instance = dg.DagsterInstance.ephemeral()
    results = {}
    register_sources(instance)
    for key in sorted(configured_specs()):
        result = job.execute_in_process(
            partition_key=key, instance=instance, resources={"translation": TranslationResource(enabled=False)}
        )
        results[key] = result
    yield root, results
    mp.undo()


def _read(root, asset, key) -> pl.DataFrame:
    return pl.read_parquet(root / "assets" / asset / f"{key}.parquet")


def test_every_local_source_is_a_partition(ingested):
    _, results = ingested
    keys = set(results)
    assert {"humaneval", "mbpp", "taco", "leetcode", "livecodebench"} <= keys


def test_kept_plus_rejected_accounts_for_every_record(ingested):
    root, results = ingested
    for key, result in results.items():
        assert result.success, key
        raw, collect_rejects = _read(root, "raw_problems", key), _read(root, "collect_rejects", key)
        processed, process_rejects = _read(root, "processed_problems", key), _read(root, "process_rejects", key)
        events = result.asset_materializations_for_node("collect_source")
        records = next(e.metadata["rows_in"].value for e in events if e.asset_key.path[-1] == "raw_problems")
        assert raw.height + collect_rejects.height == records, key
        assert processed.height + process_rejects.height == raw.height, key
        assert processed["problem_id"].n_unique() == processed.height, key


def test_processed_rows_carry_canonical_tests(ingested):
    from pipeline.schema import Tests

    root, _ = ingested
    processed = _read(root, "processed_problems", "humaneval")
    assert processed.height == 164
    for text in processed["tests"].to_list():
        tests = Tests.from_json(text)
        assert tests.kind == "assert" and "check(" in tests.assert_code


def test_materialization_metadata(ingested):
    _, results = ingested
    events = results["mbpp"].asset_materializations_for_node("process_source")
    by_asset = {e.asset_key.path[-1]: e.metadata for e in events}
    assert by_asset["processed_problems"]["dagster/row_count"].value == 474  # MBPP but its test split (a benchmark)
    assert by_asset["processed_problems"]["source_role"].value == "train"
    assert "preview" in by_asset["processed_problems"]
    reasons = by_asset["process_rejects"]["rejects_by_reason_json"].value
    assert isinstance(reasons, dict)
    json.dumps(reasons)
