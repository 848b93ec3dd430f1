"""The drop-directory sensor and the refresh schedule, evaluated against a real instance."""

from __future__ import annotations

import datetime
import shutil

import dagster as dg
import pytest


@pytest.fixture()
def data_root(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROCODER_DATA", str(tmp_path))
    return tmp_path


def test_sensor_registers_sources_and_ingests_dropped_files(data_root, shared_data):
    from assets.definitions import defs

    sensor = defs.resolve_sensor_def("source_drop_sensor")
    with dg.instance_for_test() as instance:
        first = sensor(dg.build_sensor_context(instance=instance))
        added = first.dynamic_partitions_requests[0].partition_keys
        assert {"humaneval", "mbpp", "taco"} <= set(added)
        assert not first.run_requests  # configured sources are registered, not re-ingested
        instance.add_dynamic_partitions("sources", list(added))

        drop = data_root / "drop" / "mbpp"
        drop.mkdir(parents=True)
        shutil.copy(shared_data / "mbpp" / "mbpp.jsonl", drop / "new-problems.jsonl")
        second = sensor(dg.build_sensor_context(instance=instance))
        assert second.dynamic_partitions_requests[0].partition_keys == ["drop_mbpp_new_problems"]
        assert [r.partition_key for r in second.run_requests] == ["drop_mbpp_new_problems"]


def test_refresh_schedule_requests_every_source(data_root, monkeypatch):
    monkeypatch.setenv("MICROCODER_REFRESH_CRON", "0 5 * * 0")
    from assets.definitions import ingest_job
    from assets.ingest.automation import build_refresh_schedule, refresh_cron
    from pipeline.sources.discovery import configured_specs

    schedule = build_refresh_schedule(ingest_job)
    assert schedule.cron_schedule == "0 5 * * 0"
    with dg.instance_for_test() as instance:
        when = datetime.datetime(2026, 11, 22, 5, tzinfo=datetime.timezone.utc)
        requests = list(schedule(dg.build_schedule_context(instance=instance, scheduled_execution_time=when)))
    assert sorted(r.partition_key for r in requests) == sorted(configured_specs())
    monkeypatch.setenv("MICROCODER_REFRESH_CRON", "every monday")
    with pytest.raises(ValueError, match="MICROCODER_REFRESH_CRON"):
        refresh_cron()


def test_a_dropped_benchmark_source_has_its_role_and_triggers_re_decontamination(data_root, shared_data):
    """A file under ``drop/benchmark/<adapter>/`` is a benchmark source; once it is ingested, the
    eager condition asks for Filter again, so training is decontaminated against it too."""
    from assets.definitions import defs
    from pipeline.sources import BENCHMARK
    from pipeline.sources.discovery import configured_specs

    drop = data_root / "drop" / "benchmark" / "humaneval"
    drop.mkdir(parents=True)
    shutil.copy(shared_data / "humaneval_xl" / "python_English.jsonl", drop / "extra.jsonl")
    name = "drop_benchmark_humaneval_extra"
    assert configured_specs()[name].role == BENCHMARK
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("sources", ["taco"])
        instance.report_runless_asset_event(dg.AssetMaterialization(asset_key="processed_problems", partition="taco"))
        for key in ("filtered_problems", "filter_rejects", "benchmark_problems", "heldout_problems"):
            instance.report_runless_asset_event(dg.AssetMaterialization(asset_key=key))
        before = dg.evaluate_automation_conditions(defs=defs, instance=instance)
        assert not any(r.key.to_user_string() == "filtered_problems" and r.true_subset.size for r in before.results)
        sensor = defs.resolve_sensor_def("source_drop_sensor")(dg.build_sensor_context(instance=instance))
        assert name in sensor.dynamic_partitions_requests[0].partition_keys
        instance.add_dynamic_partitions("sources", [name])
        instance.report_runless_asset_event(dg.AssetMaterialization(asset_key="processed_problems", partition=name))
        after = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=before.cursor)
    requested = {r.key.to_user_string() for r in after.results if r.true_subset.size}
    assert {"filtered_problems", "benchmark_problems"} <= requested
