"""Run a MicroCoder-GRPO training job on verl; the process Dagster launches in ``.venv-train``.

Usage:
    python -m training.launcher                    # under Dagster Pipes: config in extras["config"]
    python -m training.launcher CONFIG.json        # standalone: prints one JSON line per event

On a Ray cluster the same process is the Ray job's entrypoint: the ``grpo_training_run`` asset
submits it with dagster-ray's ``PipesRayJobClient`` (``training.ray_job`` builds the request),
and it joins the cluster instead of starting Ray.

Messages (Pipes ``report_custom_message`` payloads, or stdout JSON lines standalone):
    {"type": "step", "step": int, "metrics": {name: float}}   one per training step (verl's
        metrics dict: critic/score/mean, response_length/mean, actor/pg_clipfrac*, actor/ratio_*,
        microcoder/{diversity,masked_count,truncation_rate,accuracy,temperature}, timing_s/*)
    {"type": "done", "checkpoint": str|None, "eval": {"pass@1": float, "attempts": int, "lengths": ...},
     "temperature": {...}, "card": str, ...}
Outputs go to ``output_dir``, a local path or any fsspec URL (``training.storage``): verl
writes locally, and checkpoints, metrics and the evaluation are mirrored there as they land.
Before verl starts, the run's resolved config is saved next to its checkpoints
(``checkpoints/verl_config.yaml``, ``verl_overrides.txt``, ``training_config.json``); at the end,
the training card (``card.md``, :mod:`training.card`). Under Pipes, ``report_asset_materialization``
carries the final metrics, the checkpoint URL and the held-out evaluation (pass@1 averaged over
``eval_attempts`` samples per test problem at each evaluation length) as metadata.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from training.card import training_card
from training.progress import Pulse, signal_summary, step_line
from training.ray_job import in_ray_job, on_this_node
from training.storage import SCRATCH_ENV, RunStorage, localize
from training.verl_ext.config import TrainingConfig
from training.verl_ext.keys import TD_RECORD
from training.verl_ext.phases import ENV as PHASES_ENV
from training.verl_ext.phases import PhaseTail

LOG_NAME = "train.log"  # verl's and Ray's output, unless TrainingConfig.console_output
CPU_MODULES = "training.verl_ext.cpu.platform,training.verl_ext.register,training.verl_ext.cpu"
GPU_MODULES = "training.verl_ext.register"


def verl_env(cfg: TrainingConfig, metrics_path: Path, phases_path: Path | None = None) -> dict[str, str]:
    """Environment every verl process needs (driver and Ray workers)."""
    env = {
        "VERL_USE_EXTERNAL_MODULES": CPU_MODULES if cfg.device == "cpu" else GPU_MODULES,
        "VERL_FILE_LOGGER_PATH": str(metrics_path),
        **({PHASES_ENV: str(phases_path)} if phases_path is not None else {}),
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
    """The HF folder to train. The caller names it (the training asset resolves the embedded
    default in the project's environment), so this environment never imports ``pipeline``."""
    if not cfg.model_path:
        raise ValueError("model_path is not set: the caller (the training asset, a benchmark) names the model to train")
    return cfg.model_path


def compose_verl_config(overrides: list[str]):
    """verl's ``ppo_trainer`` Hydra config with ``overrides`` applied (what ``main_ppo`` gets)."""
    import verl.trainer.main_ppo as main_ppo
    from hydra import compose, initialize_config_dir

    config_dir = str(Path(main_ppo.__file__).parent / "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


@contextlib.contextmanager
def output_to(path: Path | None):
    """This process's stdout and stderr (file descriptors 1 and 2, so Ray's and verl's worker
    output that Ray forwards to the driver too) go to ``path`` while the block runs; None: unchanged."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(path, "ab", buffering=0) as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


class Console:
    """This process's stdout and stderr as they were at start (dups of file descriptors 1 and 2):
    what must still reach the terminal, or the Ray job's log that dagster-ray reads Pipes messages
    from, while :func:`output_to` sends descriptors 1 and 2 to ``train.log``."""

    def __init__(self) -> None:
        self.out = os.fdopen(os.dup(1), "w", buffering=1)
        self.err = os.fdopen(os.dup(2), "w", buffering=1)

    def message_writer(self) -> Any:
        """Pipes' default writer, with its stdout/stderr channel on this console (a file channel as is)."""
        from dagster_pipes import PipesDefaultMessageWriter, PipesStreamMessageWriterChannel

        console = self

        class ConsoleMessageWriter(PipesDefaultMessageWriter):
            @contextlib.contextmanager
            def open(self, params):  # dagster_pipes.PipesMessageWriter.open
                stream = params.get(self.STDIO_KEY)
                if stream in (self.STDOUT, self.STDERR):
                    yield PipesStreamMessageWriterChannel(console.out if stream == self.STDOUT else console.err)
                    return
                with super().open(params) as channel:
                    yield channel

        return ConsoleMessageWriter()


CONFIG_FILES = ("checkpoints/verl_config.yaml", "checkpoints/verl_overrides.txt", "checkpoints/training_config.json")


def resolved_config(cfg: TrainingConfig, model_path: str) -> dict[str, str]:
    """The run's config as files to save next to its checkpoints: verl's composed config with every
    interpolation resolved, the overrides that made it, and the TrainingConfig."""
    from omegaconf import OmegaConf

    overrides = cfg.to_hydra_overrides(model_path)
    config = compose_verl_config(overrides)
    return dict(zip(CONFIG_FILES, (OmegaConf.to_yaml(config, resolve=True), "\n".join(overrides) + "\n",
                                   cfg.to_json())))


def run_verl(cfg: TrainingConfig, model_path: str, env: dict[str, str]) -> None:
    """Start Ray (CPU: declared GPUs, as verl's pools ask for them) and run verl's PPO driver."""
    import ray

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
    joining = in_ray_job()
    if not ray.is_initialized():
        runtime_env = dict(get_ppo_ray_runtime_env(config))
        runtime_env["env_vars"] = {**runtime_env.get("env_vars", {}), **env}
        runtime_env["env_vars"]["TRANSFER_QUEUE_ENABLE"] = "1"
        kwargs: dict[str, Any] = {"runtime_env": runtime_env, "include_dashboard": False}
        if cfg.device == "cpu" and not joining:  # a running cluster declares its own resources
            kwargs.update(num_cpus=cfg.num_cpus, num_gpus=cfg.n_gpus * cfg.nnodes)
        if joining:  # these env vars win over the submitted job's (same keys, newer values)
            os.environ["RAY_OVERRIDE_JOB_RUNTIME_ENV"] = "1"
        ray.init(**kwargs)
    try:
        run_ppo(config, task_runner_class=on_this_node(TaskRunnerV1) if joining else TaskRunnerV1)
    finally:
        ray.shutdown()


class MetricsTail:
    """Follows verl's file-logger JSONL and hands each step's metrics to ``emit``."""

    def __init__(self, path: Path, emit: Callable[[dict], None], after_step: Callable[[], None] | None = None):
        self.path, self.emit, self.after_step = path, emit, after_step
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
                msg = step_message(json.loads(line))
                self.steps.append(msg)
                if self.after_step:  # mirror to the run's storage before Dagster hears of the step
                    try:
                        self.after_step()
                    except Exception as err:  # noqa: BLE001 - the step still streams; the final sync retries
                        print(f"mirroring step {msg['step']} to storage failed: {err!r}", file=sys.stderr, flush=True)
                self.emit(msg)


class StepLines:
    """Turns step messages into :func:`training.progress.step_line` lines, timing each step."""

    def __init__(self, total: int | None):
        self.total, self.started, self.last = int(total or 0), time.time(), time.time()

    def __call__(self, msg: dict) -> str:
        now = time.time()
        line = step_line(msg["step"], max(self.total, msg["step"]), msg["metrics"], now - self.started, now - self.last)
        self.last = now
        return line


def step_message(record: dict) -> dict:
    """One line of verl's file-logger JSONL as the step message the asset (and benchmarks) read."""
    return {"type": "step", "step": int(record["step"]), "metrics": _scalars(record["data"])}


def _scalars(data: dict) -> dict[str, float]:
    out = {}
    for k, v in data.items():
        try:
            out[k] = float(v)
        except (TypeError, ValueError):
            continue
    return out


def held_out_eval(steps: list[dict], attempts: int) -> dict[str, Any]:
    """The last held-out evaluation of the run: per evaluation length, pass@1 averaged over
    ``attempts`` samples per problem, then over problems, overall and per group (the trainer's
    ``microcoder/heldout/L<length>/*``, binary acc); ``pass@1``, ``problems`` and ``sources`` are
    the first length's. Without them, verl's validation mean@attempts per data source."""
    final: dict[str, float] = {}
    for msg in steps:
        final.update({k: v for k, v in msg["metrics"].items() if k.startswith(("val-", "microcoder/heldout/"))})
    lengths: dict[str, dict] = {}
    for key, value in final.items():
        head, _, rest = key.removeprefix("microcoder/heldout/").partition("/")
        if not (key.startswith("microcoder/heldout/L") and head[1:].isdigit()):
            continue
        entry = lengths.setdefault(head[1:], {"groups": {}})
        if rest in ("pass@1", "problems"):
            entry[rest] = value
        else:
            group, _, what = rest.rpartition("/")
            entry["groups"].setdefault(group, {})[what] = value
    info = {name: final.get(f"microcoder/heldout/{name}") for name in
            ("temperature", "split_problems", "window_problems", "unplaced_problems", "prompt_limit")}
    if lengths:
        ordered = dict(sorted(lengths.items(), key=lambda kv: int(kv[0])))
        first = next(iter(ordered.values()))
        return {"pass@1": first.get("pass@1"), "attempts": attempts, "problems": first.get("problems"),
                "sources": {g: v.get("pass@1") for g, v in first["groups"].items()}, "lengths": ordered, **info}
    keys = [k for k in final if k.endswith(f"/mean@{attempts}") and "/reward/" in k or k.endswith(f"acc/mean@{attempts}")]
    values = [final[k] for k in keys]
    return {"pass@1": sum(values) / len(values) if values else None, "attempts": attempts,
            "sources": {k: final[k] for k in keys}, "lengths": {}, **info}


def latest_checkpoint(cfg: TrainingConfig) -> str | None:
    """The newest checkpoint under ``cfg.output_dir`` (any fsspec URL), or None."""
    return RunStorage(cfg.output_dir).latest_checkpoint()


def train(cfg: TrainingConfig, emit: Callable[[dict], None], say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the job here; returns the final summary (also emitted as a ``done`` message).

    verl works in ``storage.local`` (the output folder itself when it is local); a remote
    ``output_dir`` gets each finished checkpoint and the metrics as they land, and verl resumes
    from the newest checkpoint found there. ``say`` hears where the run is (each phase, and the
    phase under way at least every 15 s: :mod:`training.verl_ext.phases`)."""
    storage = RunStorage(cfg.output_dir, scratch=os.environ.get(SCRATCH_ENV) or None)
    resumed_from = storage.restore_latest()
    local = dataclasses.replace(cfg, output_dir=str(storage.local), train_files=localize(cfg.train_files, storage.local),
                                val_files=localize(cfg.val_files, storage.local))
    metrics_path = storage.local / "metrics.jsonl"
    metrics_path.unlink(missing_ok=True)
    phases_path = storage.local / "phases.jsonl"
    phases_path.unlink(missing_ok=True)
    log_path = storage.local / LOG_NAME
    model_path = resolve_model(local)

    def mirror() -> None:
        storage.mirror(metrics_path)
        storage.sync_checkpoints()

    tail = MetricsTail(metrics_path, emit, after_step=mirror).start()
    started = time.time()
    pulse = Pulse(say, "training: starting Ray and verl's workers")
    phases = PhaseTail(phases_path, pulse).start()
    try:
        with pulse, output_to(None if cfg.console_output else log_path):
            for name, text in resolved_config(local, model_path).items():  # next to the checkpoints, first
                (storage.local / name).parent.mkdir(parents=True, exist_ok=True)
                (storage.local / name).write_text(text)
                if storage.remote:
                    storage.write_text(name, text)
            run_verl(local, model_path, verl_env(local, metrics_path, phases_path))
    finally:
        phases.stop()
        tail.stop()
        storage.mirror(log_path)
    evaluation = held_out_eval(tail.steps, cfg.eval_attempts)
    temperature_file = storage.local / TD_RECORD
    temperature = json.loads(temperature_file.read_text()) if temperature_file.exists() else {}
    summary = {"type": "done", "checkpoint": storage.sync_checkpoints() or storage.latest_checkpoint(),
               "output_url": storage.url, "resumed_from_step": resumed_from, "model_path": model_path,
               "code_dir": str(Path(__file__).resolve().parents[1]),  # a Ray job's working_dir copy
               "eval": evaluation, "steps": len(tail.steps), "wall_s": round(time.time() - started, 1),
               "train_log": None if cfg.console_output else storage.url_of(LOG_NAME),
               "learning_signal": signal_summary([m["metrics"] for m in tail.steps]),
               "final_metrics": tail.steps[-1]["metrics"] if tail.steps else {},
               "resolved_config": storage.url_of(CONFIG_FILES[0]), "temperature": temperature}
    storage.mirror(metrics_path)
    storage.mirror(temperature_file)
    summary["eval_url"] = storage.write_json("eval.json", evaluation)
    summary["card"] = training_card(local, summary, tail.steps, temperature)
    summary["card_url"] = storage.write_text("card.md", summary["card"])
    storage.write_json("summary.json", summary)
    emit(summary)
    return summary


# -- entry point ----------------------------------------------------------------------------
def _main_pipes() -> int:
    from dagster_pipes import open_dagster_pipes

    with open_dagster_pipes(message_writer=Console().message_writer()) as pipes:
        cfg = TrainingConfig.from_dict(pipes.get_extra("config"))
        lines = StepLines(cfg.steps)
        one_writer = threading.Lock()  # the metrics, the phases and the pulse speak from threads of their own

        def emit(msg: dict) -> None:
            with one_writer:
                pipes.report_custom_message(msg)
                if msg["type"] == "step":
                    pipes.log.info(lines(msg))

        def say(line: str) -> None:
            with one_writer:
                pipes.log.info(line)

        summary = train(cfg, emit, say)
        meta: dict[str, Any] = {k: v for k, v in summary["final_metrics"].items()
                                if k.startswith(("critic/score", "microcoder/", "actor/pg_clipfrac", "actor/ratio_",
                                                 "response_length/mean"))}
        meta.update({"checkpoint": summary["checkpoint"] or "", "output_url": summary["output_url"],
                     "eval_url": summary["eval_url"], "code_dir": summary["code_dir"], "steps": summary["steps"],
                     "wall_s": summary["wall_s"], "eval_pass@1": summary["eval"]["pass@1"],
                     "eval_attempts": summary["eval"]["attempts"], "train_log": summary["train_log"],
                     "learning_signal": summary["learning_signal"], "card_url": summary["card_url"],
                     "resolved_config": summary["resolved_config"]})
        pipes.report_asset_materialization(metadata={k: v for k, v in meta.items() if v is not None})
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.launcher", description=__doc__.split("\n")[0])
    parser.add_argument("config", nargs="?", help="TrainingConfig as a JSON file (standalone)")
    parser.add_argument("--config-json", help="TrainingConfig as a JSON string")
    args = parser.parse_args(argv)
    if args.config is None and args.config_json is None:
        return _main_pipes()
    data = json.loads(args.config_json) if args.config_json else json.loads(Path(args.config).read_text())
    return run_standalone(TrainingConfig.from_dict(data))


def run_standalone(cfg: TrainingConfig) -> int:
    """Train here without Dagster: one ``MICROCODER <json>`` line per event and a step line per step
    on stdout, verl's own output in ``train.log``; at the end, where the card and the log are."""
    console = Console()  # stays the terminal while verl's output goes to train.log
    lines = StepLines(cfg.steps)

    def emit(msg: dict) -> None:
        print("MICROCODER " + json.dumps(msg), file=console.out, flush=True)
        if msg["type"] == "step":
            print(lines(msg), file=console.err if cfg.console_output else console.out, flush=True)

    summary = train(cfg, emit, lambda line: print(line, file=console.err if cfg.console_output else console.out, flush=True))
    evaluation = summary["eval"]
    for length, result in (evaluation.get("lengths") or {}).items():
        print(f"held-out pass@1 at {length} tokens: {result.get('pass@1', float('nan')):.3f} over "
              f"{int(result.get('problems') or 0)} problems x {evaluation['attempts']} samples, "
              f"T {evaluation.get('temperature')}", file=console.out, flush=True)
    print(f"training card: {summary['card_url']}", file=console.out, flush=True)
    if summary["train_log"]:
        print(f"verl's and Ray's output: {summary['train_log']}", file=console.out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
