"""Run a MicroCoder-GRPO training job on verl; the process Dagster launches in ``.venv-train``.

Usage:
    python -m training.launcher                    # under Dagster Pipes: config in extras["config"]
    python -m training.launcher CONFIG.json        # standalone: prints one JSON line per event
    python -m training.launcher --submit CONFIG.json   # submit to the Ray cluster at ray_address

Messages (Pipes ``report_custom_message`` payloads, or stdout JSON lines standalone):
    {"type": "step", "step": int, "metrics": {name: float}}   one per training step (verl's
        metrics dict: critic/score/mean, response_length/mean, actor/pg_clipfrac*,
        microcoder/{diversity,masked_count,truncation_rate,accuracy,temperature}, timing_s/*)
    {"type": "done", "checkpoint": str|None, "eval": {"pass@1": float, "attempts": int, ...}}
At the end, under Pipes, ``report_asset_materialization`` carries the final metrics, the
checkpoint path and the held-out evaluation (pass@1 averaged over ``eval_attempts`` samples
per test problem, verl's validation on ``val_files``) as metadata.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from training.verl_ext.config import TrainingConfig

CPU_MODULES = "training.verl_ext.cpu.platform,training.verl_ext.register,training.verl_ext.cpu"
GPU_MODULES = "training.verl_ext.register"


def verl_env(cfg: TrainingConfig, metrics_path: Path) -> dict[str, str]:
    """Environment every verl process needs (driver and Ray workers)."""
    env = {
        "VERL_USE_EXTERNAL_MODULES": CPU_MODULES if cfg.device == "cpu" else GPU_MODULES,
        "VERL_FILE_LOGGER_PATH": str(metrics_path),
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONPATH": os.pathsep.join(p for p in [str(Path(__file__).resolve().parents[1]),
                                                  os.environ.get("PYTHONPATH", "")] if p),
    }
    if cfg.device == "cpu":
        env.update({"VERL_PLATFORM": "cpu", "WANDB_MODE": "disabled"})
    if cfg.trace_masking:
        from training.verl_ext.trace import ENV as TRACE_ENV

        env[TRACE_ENV] = str(Path(cfg.output_dir).resolve() / "trace")
    return env


def resolve_model(cfg: TrainingConfig) -> str:
    """The configured HF folder, or the embedded SmolLM2 default converted from its GGUF."""
    if cfg.model_path:
        return cfg.model_path
    from pipeline.samplers.default_model import default_model_path

    return default_model_path()


def compose_verl_config(overrides: list[str]):
    """verl's ``ppo_trainer`` Hydra config with ``overrides`` applied (what ``main_ppo`` gets)."""
    from hydra import compose, initialize_config_dir
    import verl.trainer.main_ppo as main_ppo

    config_dir = str(Path(main_ppo.__file__).parent / "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def run_verl(cfg: TrainingConfig, model_path: str, env: dict[str, str]) -> None:
    """Start Ray (CPU: declared GPUs, as verl's pools ask for them) and run verl's PPO driver."""
    import ray
    from omegaconf import OmegaConf

    os.environ.update(env)
    import verl  # noqa: F401  (imports the external modules named in the environment)
    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env
    from verl.trainer.main_ppo import TaskRunnerV1, run_ppo
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config
    from verl.utils.device import auto_set_device

    config = compose_verl_config(cfg.to_hydra_overrides(model_path))
    auto_set_device(config)
    validate_config(config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    if not ray.is_initialized():
        runtime_env = dict(get_ppo_ray_runtime_env(config))
        runtime_env["env_vars"] = {**runtime_env.get("env_vars", {}), **env}
        runtime_env["env_vars"]["TRANSFER_QUEUE_ENABLE"] = "1"
        kwargs: dict[str, Any] = {"runtime_env": runtime_env, "include_dashboard": False}
        if cfg.device == "cpu":
            kwargs.update(num_cpus=cfg.num_cpus, num_gpus=cfg.n_gpus * cfg.nnodes)
        ray.init(**kwargs)
    try:
        run_ppo(config, task_runner_class=TaskRunnerV1)
    finally:
        ray.shutdown()


class MetricsTail:
    """Follows verl's file-logger JSONL and hands each step's metrics to ``emit``."""

    def __init__(self, path: Path, emit: Callable[[dict], None]):
        self.path, self.emit = path, emit
        self.steps: list[dict] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join()
        self._drain()

    def _run(self):
        while not self._stop.wait(0.5):
            self._drain()

    _pos = 0

    def _drain(self):
        if not self.path.exists():
            return
        with open(self.path, "rb") as fh:
            fh.seek(self._pos)
            while True:
                line = fh.readline()
                if not line or not line.endswith(b"\n"):
                    break
                self._pos += len(line)
                rec = json.loads(line)
                msg = {"type": "step", "step": int(rec["step"]), "metrics": _scalars(rec["data"])}
                self.steps.append(msg)
                self.emit(msg)


def _scalars(data: dict) -> dict[str, float]:
    out = {}
    for k, v in data.items():
        try:
            out[k] = float(v)
        except (TypeError, ValueError):
            continue
    return out


def held_out_eval(steps: list[dict], attempts: int) -> dict[str, Any]:
    """pass@1 averaged over ``attempts`` samples: verl's validation reward mean@attempts."""
    final = {}
    for msg in steps:
        final.update({k: v for k, v in msg["metrics"].items() if k.startswith("val-core/")})
    keys = [k for k in final if k.endswith(f"/mean@{attempts}") and "/reward/" in k or k.endswith(f"acc/mean@{attempts}")]
    values = [final[k] for k in keys]
    return {"pass@1": sum(values) / len(values) if values else None, "attempts": attempts,
            "sources": {k: final[k] for k in keys}}


def latest_checkpoint(cfg: TrainingConfig) -> str | None:
    root = Path(cfg.output_dir) / "checkpoints"
    runs = sorted(root.glob("global_step_*"), key=lambda p: int(p.name.rsplit("_", 1)[1])) if root.exists() else []
    return str(runs[-1].resolve()) if runs else None


def train(cfg: TrainingConfig, emit: Callable[[dict], None]) -> dict[str, Any]:
    """Run the job here; returns the final summary (also emitted as a ``done`` message)."""
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    metrics_path = out / "metrics.jsonl"
    metrics_path.unlink(missing_ok=True)
    model_path = resolve_model(cfg)
    tail = MetricsTail(metrics_path, emit).start()
    started = time.time()
    try:
        run_verl(cfg, model_path, verl_env(cfg, metrics_path))
    finally:
        tail.stop()
    summary = {"type": "done", "checkpoint": latest_checkpoint(cfg), "model_path": model_path,
               "eval": held_out_eval(tail.steps, cfg.eval_attempts), "steps": len(tail.steps),
               "wall_s": round(time.time() - started, 1),
               "final_metrics": tail.steps[-1]["metrics"] if tail.steps else {}}
    emit(summary)
    return summary


# -- Ray job submission (clusters) ----------------------------------------------------------
def job_submission_request(cfg: TrainingConfig, working_dir: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``JobSubmissionClient.submit_job``: this launcher, standalone, on
    the cluster with the same config (``ray_address`` cleared so it runs there)."""
    remote = TrainingConfig.from_dict({**cfg.to_dict(), "ray_address": None})
    runtime_env: dict[str, Any] = {"env_vars": {k: v for k, v in verl_env(remote, Path(remote.output_dir) / "metrics.jsonl").items()
                                                if k != "PYTHONPATH"}}
    if working_dir:
        runtime_env["working_dir"] = working_dir
    return {
        "entrypoint": f"python -m training.launcher --config-json {_shell_quote(remote.to_json())}",
        "runtime_env": runtime_env,
        "metadata": {"experiment": cfg.experiment_name, "preset": cfg.preset},
        "submission_id": None,
    }


def submit_ray_job(cfg: TrainingConfig, client=None, working_dir: str | None = None) -> str:
    """Submit to the Ray cluster at ``cfg.ray_address``; returns the submission id."""
    if client is None:
        from ray.job_submission import JobSubmissionClient

        client = JobSubmissionClient(cfg.ray_address)
    request = job_submission_request(cfg, working_dir)
    request = {k: v for k, v in request.items() if v is not None}
    return client.submit_job(**request)


def _shell_quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


# -- entry point ----------------------------------------------------------------------------
def _main_pipes() -> int:
    from dagster_pipes import open_dagster_pipes

    with open_dagster_pipes() as pipes:
        cfg = TrainingConfig.from_dict(pipes.get_extra("config"))

        def emit(msg: dict) -> None:
            pipes.report_custom_message(msg)
            if msg["type"] == "step":
                m = msg["metrics"]
                pipes.log.info(f"step {msg['step']}: reward={m.get('critic/score/mean')} "
                               f"diversity={m.get('microcoder/diversity')} masked={m.get('microcoder/masked_count')}")

        if cfg.ray_address:
            job_id = submit_ray_job(cfg)
            pipes.report_asset_materialization(metadata={"ray_job_id": job_id, "ray_address": cfg.ray_address})
            return 0
        summary = train(cfg, emit)
        meta: dict[str, Any] = {k: v for k, v in summary["final_metrics"].items()
                                if k.startswith(("critic/score", "microcoder/", "actor/pg_clipfrac", "response_length/mean"))}
        meta.update({"checkpoint": summary["checkpoint"] or "", "steps": summary["steps"],
                     "wall_s": summary["wall_s"], "eval_pass@1": summary["eval"]["pass@1"],
                     "eval_attempts": summary["eval"]["attempts"]})
        pipes.report_asset_materialization(metadata={k: v for k, v in meta.items() if v is not None})
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.launcher", description=__doc__.split("\n")[0])
    parser.add_argument("config", nargs="?", help="TrainingConfig as a JSON file (standalone)")
    parser.add_argument("--config-json", help="TrainingConfig as a JSON string")
    parser.add_argument("--submit", action="store_true", help="submit to cfg.ray_address as a Ray job")
    args = parser.parse_args(argv)
    if args.config is None and args.config_json is None:
        return _main_pipes()
    data = json.loads(args.config_json) if args.config_json else json.loads(Path(args.config).read_text())
    cfg = TrainingConfig.from_dict(data)

    def emit(msg: dict) -> None:
        print("MICROCODER " + json.dumps(msg), flush=True)

    if args.submit:
        print(submit_ray_job(cfg))
        return 0
    train(cfg, emit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
