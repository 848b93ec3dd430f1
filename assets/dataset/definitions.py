"""The dataset domain: Filter, Verify, Difficulty, rejects and the release, with their checks and job."""

import dagster as dg

from assets.dataset import assets

dataset_job = dg.define_asset_job(
    "dataset_job",
    selection=dg.AssetSelection.groups(assets.GROUP),
    description="Filter, Verify, Difficulty and the released shards, over every ingested source.",
)


def build_defs() -> dg.Definitions:
    return dg.Definitions(assets=dg.load_assets_from_modules([assets]), jobs=[dataset_job])
