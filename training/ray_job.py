"""The launcher as a Ray job: what to submit, and how the job joins the cluster it runs on.

The Dagster side (``assets.training``) hands :func:`submit_job_params` to dagster-ray's
``PipesRayJobClient``, which adds the Pipes bootstrap variables, submits, streams the job's
stdout back as Pipes messages and stops the job when the Dagster run is cancelled. The job
carries its code as a ``working_dir`` (this checkout; Ray honours ``.gitignore`` and the
``excludes`` below) and may name extra ``pip`` packages; the cluster's own Python supplies
verl and Ray (a verl image or ``scripts/setup-train.sh`` on each node).

No Dagster and no Ray at import time: both environments import this module.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
JOB_CONFIG_ENV = "RAY_JOB_CONFIG_JSON_ENV_VAR"  # set by Ray's job manager for a job's driver
EXCLUDES = ["/.git", "/.venv*", "/data", "/tests", "/benchmarks", "/notebooks", "/docs", "*.parquet",
            "__pycache__", "*.egg-info", ".pytest_cache", "node_modules"]


def in_ray_job() -> bool:
    """True when this process is the driver of a submitted Ray job (join, don't start, Ray)."""
    return JOB_CONFIG_ENV in os.environ


def on_this_node(actor_class: Any) -> Any:
    """``actor_class`` pinned to this node. verl's TaskRunner is the trainer's driver: it writes
    the file-logger metrics and the checkpoint tracker that the launcher reads from local disk,
    so it must run where the launcher runs, not on whichever node Ray picks."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = ray.get_runtime_context().get_node_id()
    return actor_class.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False))


def submit_job_params(
    *,
    working_dir: str | Path = PROJECT_ROOT,
    pip: list[str] | None = None,
    env_vars: dict[str, str] | None = None,
    python: str = "python",
    entrypoint_num_cpus: float = 1,
    metadata: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``JobSubmissionClient.submit_job`` keyword arguments (dagster-ray's ``SubmitJobParams``)
    that run ``python -m training.launcher`` under Pipes on the cluster. The training config
    travels as a Pipes extra, so nothing here depends on it."""
    runtime_env: dict[str, Any] = {"working_dir": str(working_dir), "excludes": list(EXCLUDES),
                                   "env_vars": {"TOKENIZERS_PARALLELISM": "false", **(env_vars or {})}}
    if pip:
        runtime_env["pip"] = list(pip)
    return {"entrypoint": f"{python} -m training.launcher", "runtime_env": runtime_env,
            "entrypoint_num_cpus": entrypoint_num_cpus, "metadata": dict(metadata or {})}


def forwarded_env(names: list[str], environ: dict[str, str] | None = None) -> dict[str, str]:
    """The storage settings the job needs to reach ``MICROCODER_DATA`` (credentials, endpoint),
    taken from this process's environment; names absent here are left out."""
    environ = dict(os.environ if environ is None else environ)
    return {n: environ[n] for n in names if environ.get(n)}
