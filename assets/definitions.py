"""Definitions: assets, checks, jobs and resources of the embedded default (local Parquet, CPU model).

Resources take their settings from ``MICROCODER_<RESOURCE>_<FIELD>`` variables (``assets.settings``);
a bad value stops the code location from loading, with the variable's name.
"""

from __future__ import annotations

import dagster as dg

from assets import checks, dataset, ingest, training
from assets.automation import build_drop_sensor, build_refresh_schedule
from assets.io import ParquetIOManagerFactory
from assets.resources import RayClusterResource, SamplerResource, TranslationResource
from assets.settings import check_data_root, from_env
from assets.sources import configured_specs
from assets.training import TrainingEnvironment
from pipeline.paths import PROJECT_ROOT

ingest_job = dg.define_asset_job(
    "ingest_job",
    selection=dg.AssetSelection.groups(ingest.GROUP),
    description="Collect and Process one source partition.",
)
dataset_job = dg.define_asset_job(
    "dataset_job",
    selection=dg.AssetSelection.groups(dataset.GROUP),
    description="Filter, Verify, Difficulty and the released shards, over every ingested source.",
)

training_job = dg.define_asset_job(
    "training_job",
    selection=dg.AssetSelection.groups(training.GROUP),
    description="MicroCoder-GRPO on verl over the released dataset.",
)


def build_defs() -> dg.Definitions:
    """The definitions under the current environment; raises ``SettingError`` naming a bad setting."""
    check_data_root()
    configured_specs()  # MICROCODER_HUB_SOURCES names known hub sets
    resources = {
        "io_manager": from_env(ParquetIOManagerFactory, "io_manager"),
        "translation": from_env(TranslationResource, "translation"),
        "sampler": from_env(SamplerResource, "sampler"),
        "training_environment": from_env(TrainingEnvironment, "training_environment"),
        "ray_cluster": from_env(RayClusterResource, "ray_cluster"),
    }
    return dg.Definitions(
        assets=dg.load_assets_from_modules([ingest, dataset, training]),
        asset_checks=dg.load_asset_checks_from_modules([checks]),
        jobs=[ingest_job, dataset_job, training_job],
        schedules=[build_refresh_schedule(ingest_job)],
        sensors=[build_drop_sensor(ingest_job)],
        resources={**resources, "pipes_subprocess_client": dg.PipesSubprocessClient(cwd=str(PROJECT_ROOT))},
    )


defs = build_defs()
