"""The code location: each domain's definitions (ingest, dataset, training) merged, with the
resources they share, on the embedded default (local Parquet, CPU model).

Resources take their settings from ``MICROCODER_<RESOURCE>_<FIELD>`` variables (``assets.settings``);
a bad value stops the code location from loading, with the variable's name.
"""

from __future__ import annotations

import dagster as dg

from assets.dataset import definitions as dataset
from assets.ingest import definitions as ingest
from assets.io import ParquetIOManagerFactory
from assets.resources import EvaluatorResource, SamplerResource, TranslationResource
from assets.settings import check_data_root, from_env
from assets.training import definitions as training
from assets.training.pipes import pipes_subprocess_client
from assets.training.resources import RayClusterResource, TrainingEnvironment
from pipeline.paths import PROJECT_ROOT
from pipeline.sources.discovery import configured_specs

ingest_job, dataset_job, training_job = ingest.ingest_job, dataset.dataset_job, training.training_job


def build_defs() -> dg.Definitions:
    """The definitions under the current environment; raises ``SettingError`` naming a bad setting."""
    check_data_root()
    configured_specs()  # MICROCODER_HUB_SOURCES names known hub sets
    resources = dg.Definitions(resources={
        "io_manager": from_env(ParquetIOManagerFactory, "io_manager"),
        "translation": from_env(TranslationResource, "translation"),
        "sampler": from_env(SamplerResource, "sampler"),
        "evaluator": from_env(EvaluatorResource, "evaluator"),
        "training_environment": from_env(TrainingEnvironment, "training_environment"),
        "ray_cluster": from_env(RayClusterResource, "ray_cluster"),
        "pipes_subprocess_client": pipes_subprocess_client(cwd=str(PROJECT_ROOT)),
    })
    return dg.Definitions.merge(ingest.build_defs(), dataset.build_defs(), training.build_defs(), resources)


defs = build_defs()
