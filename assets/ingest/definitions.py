"""The ingest domain: Collect and Process per source partition, its job, schedule and drop sensor."""

import dagster as dg

from assets.ingest import assets
from assets.ingest.automation import build_drop_sensor, build_refresh_schedule

ingest_job = dg.define_asset_job(
    "ingest_job",
    selection=dg.AssetSelection.groups(assets.GROUP),
    description="Collect and Process one source partition.",
)


def build_defs() -> dg.Definitions:
    return dg.Definitions(
        assets=dg.load_assets_from_modules([assets]),
        jobs=[ingest_job],
        schedules=[build_refresh_schedule(ingest_job)],
        sensors=[build_drop_sensor(ingest_job)],
    )
