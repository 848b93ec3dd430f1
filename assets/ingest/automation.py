"""Ingest automation: a weekly refresh of every source, and a sensor that turns dropped files into sources.

Downstream assets (Filter onwards) carry ``AutomationCondition.eager()``, so they refresh when
their inputs change instead of through hand-written job chains.
"""

from __future__ import annotations

import os

import dagster as dg
from dagster._utils.schedules import is_valid_cron_string

from assets.ingest.partitions import register_sources, source_partitions
from pipeline.paths import SettingError
from pipeline.sources.discovery import configured_specs, drop_specs

REFRESH_CRON_ENV = "MICROCODER_REFRESH_CRON"
DEFAULT_REFRESH_CRON = "0 3 * * 1"  # Mondays 03:00


def refresh_cron() -> str:
    cron = os.environ.get(REFRESH_CRON_ENV, DEFAULT_REFRESH_CRON)
    if not is_valid_cron_string(cron):
        raise SettingError(f"{REFRESH_CRON_ENV}={cron!r} is not a valid cron expression")
    return cron


def build_refresh_schedule(job: dg.UnresolvedAssetJobDefinition) -> dg.ScheduleDefinition:
    @dg.schedule(job=job, cron_schedule=refresh_cron(), name="dataset_refresh_schedule",
                 description="Re-collect every source; Filter and downstream refresh through their automation conditions.")
    def dataset_refresh_schedule(context: dg.ScheduleEvaluationContext):
        register_sources(context.instance)
        keys = sorted(configured_specs())
        return [dg.RunRequest(run_key=f"{context.scheduled_execution_time:%Y%m%d%H%M}:{k}", partition_key=k) for k in keys]

    return dataset_refresh_schedule


def build_drop_sensor(job: dg.UnresolvedAssetJobDefinition) -> dg.SensorDefinition:
    @dg.sensor(job=job, name="source_drop_sensor", minimum_interval_seconds=60,
               default_status=dg.DefaultSensorStatus.RUNNING,
               description="Registers configured sources as partitions and ingests files dropped into $MICROCODER_DATA/drop/<adapter>/.")
    def source_drop_sensor(context: dg.SensorEvaluationContext):
        known = set(context.instance.get_dynamic_partitions(source_partitions.name))
        specs = configured_specs()
        new = sorted(name for name in specs if name not in known)
        dropped = drop_specs()
        # A dropped file is ingested when it appears and again whenever it changes.
        runs = []
        for name, spec in dropped.items():
            path = spec.data_files[0]
            version = f"{os.path.getmtime(path):.0f}:{os.path.getsize(path)}"
            runs.append(dg.RunRequest(run_key=f"{name}:{version}", partition_key=name))
        return dg.SensorResult(
            run_requests=runs,
            dynamic_partitions_requests=[source_partitions.build_add_request(new)] if new else [],
        )

    return source_drop_sensor
