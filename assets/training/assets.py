"""MicroCoder-GRPO training as a Dagster asset: verl launched in ``.venv-train`` through Pipes."""

import dataclasses
import json

import dagster as dg
from pydantic import Field

from assets.config import changes_config_for, changes_from, run_config_for, to_dataclass
from assets.io import Rows
from assets.metadata import training_curves_metadata
from assets.training.resources import RayClusterResource, TrainingEnvironment
from pipeline.paths import data_root
from training.demo_data import demo_train_file
from training.grpo.presets import LABELS, GRPOConfig
from training.progress import Pulse
from training.verl_ext.config import TrainingConfig, algorithm_for, preset_values

GROUP = "training"

AlgorithmChanges = changes_config_for(GRPOConfig, "AlgorithmChanges", descriptions=preset_values())


class TrainingRunConfig(run_config_for(TrainingConfig, "TrainingConfigBase")):  # type: ignore[misc]
    """TrainingConfig's fields and defaults (empty ones take the ``profile``'s value, ``cpu-demo``
    by default: the embedded CPU model for 2 steps). ``algorithm`` holds changes to the preset:
    GRPOConfig's own fields, each empty unless set (``temperature_schedule: {"1": 0.8, "50": 1.2}``)."""

    algorithm: AlgorithmChanges = Field(default_factory=AlgorithmChanges)  # type: ignore[valid-type]


def temperature_metadata(record: dict) -> dict:
    """T(D) as metadata, from the run's ``temperature.json``: the probe's curve (T -> diversity,
    spread), the rule, why it chose its T, and every switch."""
    if not record:
        return {"temperature_rule": "fixed"}
    rows = "\n".join(f"| {p['temperature']:g} | {p['diversity']:.3f} | {p['spread']:.3f} |" for p in record["probe"])
    return {"temperature_rule": "diversity", "temperature_chosen": record["chosen"],
            "temperature_target_diversity": record["target_diversity"],
            "temperature_probe": dg.MetadataValue.md("| T | diversity | spread |\n|---|---|---|\n" + rows),
            "temperature_rule_text": record["rule"], "temperature_reason": record["reason"],
            "temperature_switches": dg.MetadataValue.json(record["switches"])}


def training_config(config: TrainingRunConfig, manifest: Rows, run_id: str) -> TrainingConfig:
    """The run's TrainingConfig: the launchpad's values, the released verl files, and an output dir per run."""
    verl = {r["split"]: r["path"] for r in manifest if r["layout"] == "verl"}
    values = {
        "algorithm": algorithm_for(config.preset, config.profile, **changes_from(GRPOConfig, config.algorithm)),
        "train_files": config.train_files or [verl["train"]],
        "val_files": config.val_files or [verl["test"]],
    }
    if config.output_dir in (None, "", TrainingConfig.output_dir):
        values["output_dir"] = f"{data_root()}/runs/{run_id}"
    return to_dataclass(TrainingConfig, config, **values)


@dg.asset(group_name=GROUP, kinds={"verl", "python"},
          description="MicroCoder-GRPO on verl over the released dataset; metrics stream back per step.")
def grpo_training_run(
    context: dg.AssetExecutionContext,
    config: TrainingRunConfig,
    microcoder_dataset: Rows,
    pipes_subprocess_client: dg.PipesSubprocessClient,
    training_environment: TrainingEnvironment,
    ray_cluster: RayClusterResource,
):
    cfg = training_config(config, microcoder_dataset, context.run.run_id)
    demo = None
    if cfg.profile == "cpu-demo" and not config.train_files:  # problems the CPU model can learn from
        demo = demo_train_file(cfg.train_files[0], f"{cfg.output_dir}/data")
        cfg = dataclasses.replace(cfg, train_files=[demo.train_file])
        context.log.info(f"cpu-demo profile: training on {demo.why}")
    if not cfg.model_path:  # the embedded CPU model, converted here once: the launcher never imports pipeline
        from pipeline.samplers.default_model import default_model_path

        with Pulse(context.log.info, "training: the CPU model (converted from its GGUF on a first run)"):
            cfg = dataclasses.replace(cfg, model_path=default_model_path())
    address = cfg.ray_address or ray_cluster.address
    where = f"Ray cluster {address}" if address else training_environment.python
    context.log.info(f"training {cfg.preset} for {cfg.steps} steps on {cfg.train_files}, output {cfg.output_dir}, on {where}")
    if address:  # the job runs the config as given, on the cluster (it must not submit again)
        remote = dict(json.loads(cfg.to_json()), ray_address=None)
        invocation = ray_cluster.pipes_client(address).run(
            context=context, extras={"config": remote},
            submit_job_params=ray_cluster.submit_params({"experiment": cfg.experiment_name, "preset": cfg.preset}))
    else:
        invocation = pipes_subprocess_client.run(
            command=training_environment.command(), context=context, extras={"config": json.loads(cfg.to_json())}
        )
    messages = invocation.get_custom_messages()
    steps = [m for m in messages if isinstance(m, dict) and m.get("type") == "step"]
    done = next((m for m in messages if isinstance(m, dict) and m.get("type") == "done"), {})
    metadata = {
        "steps": len(steps),
        "preset": cfg.preset,
        "preset_label": LABELS[cfg.preset],  # the paper's name for it
        **({"train_source": demo.source, "train_source_why": demo.why} if demo else {}),
        "algorithm": dg.MetadataValue.json(dataclasses.asdict(cfg.algorithm)),
        **({"ray_address": address} if address else {}),  # the job id comes as "Ray Job ID"
        "metrics_per_step": dg.MetadataValue.json(steps),
        **training_curves_metadata([m["metrics"] for m in steps]),
        **temperature_metadata(done.get("temperature") or {}),
        **({"training_card": dg.MetadataValue.md(done["card"])} if done.get("card") else {}),
    }
    result = invocation.get_materialize_result()
    return dg.MaterializeResult(metadata={**(result.metadata or {}), **metadata})
