"""The training domain: the GRPO training asset and its job (verl in ``.venv-train`` or on Ray)."""

import dagster as dg

from assets.training import assets

training_job = dg.define_asset_job(
    "training_job",
    selection=dg.AssetSelection.groups(assets.GROUP),
    description="MicroCoder-GRPO on verl over the released dataset.",
)


def build_defs() -> dg.Definitions:
    return dg.Definitions(assets=dg.load_assets_from_modules([assets]), jobs=[training_job])
