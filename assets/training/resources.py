"""Where training runs: this machine's ``.venv-train`` (``TrainingEnvironment``) or a Ray cluster
(``RayClusterResource``), configured as ``MICROCODER_TRAINING_ENVIRONMENT_*`` / ``MICROCODER_RAY_CLUSTER_*``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field, field_validator

from evaluator.ray_backend import ENV_NAMES as EVALUATOR_ENV
from pipeline.paths import PROJECT_ROOT


class TrainingEnvironment(dg.ConfigurableResource):
    """Where verl runs without a cluster: the local ``.venv-train`` interpreter (with one: ``ray_cluster``)."""

    python: str = str(PROJECT_ROOT / ".venv-train" / "bin" / "python")

    def command(self) -> list[str]:
        if not Path(self.python).exists():
            raise dg.Failure(f"training environment missing: {self.python} (create it with scripts/setup-train.sh)")
        return [self.python, "-m", "training.launcher"]



class RayClusterResource(dg.ConfigurableResource):
    """The Ray cluster that trains (``MICROCODER_RAY_CLUSTER_ADDRESS``); empty: train in this
    machine's ``.venv-train``. The job is submitted through dagster-ray's ``PipesRayJobClient``
    with this checkout as its ``working_dir``; see ``training.ray_job``."""

    address: str = ""  # the Ray dashboard, e.g. http://head:8265
    pip: str = ""  # extra packages for the job's runtime_env, comma-separated (e.g. "s3fs,dagster-pipes")
    python: str = "python"  # the interpreter on the cluster that has verl (the entrypoint's)
    entrypoint_num_cpus: float = Field(default=1, ge=0)
    # names of environment variables the job gets from here (storage credentials, endpoints)
    forward_env: str = ("AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY,AWS_SESSION_TOKEN,AWS_DEFAULT_REGION,"
                        "AWS_ENDPOINT_URL,GOOGLE_APPLICATION_CREDENTIALS,HF_ENDPOINT,HF_TOKEN,MICROCODER_TRAIN_SCRATCH,"
                        + ",".join(EVALUATOR_ENV))  # the reward judges on the cluster's evaluator actors
    poll_interval_s: float = Field(default=2, gt=0)
    auth_token: str = ""  # the cluster's token (Ray's token authentication); empty: none sent

    def headers(self) -> dict[str, str] | None:
        """HTTP headers for the Ray dashboard (job submission, log tailing)."""
        return {"Authorization": f"Bearer {self.auth_token}"} if self.auth_token else None

    @field_validator("address")
    @classmethod
    def _address_is_http(cls, address: str) -> str:
        if address and not address.startswith(("http://", "https://")):
            raise ValueError(f"must be the Ray dashboard's http(s) URL, got {address!r}")
        return address

    def submit_params(self, metadata: dict[str, str] | None = None) -> dict[str, Any]:
        from training.ray_job import forwarded_env, submit_job_params

        env = forwarded_env([n.strip() for n in self.forward_env.split(",") if n.strip()])
        return submit_job_params(pip=[p.strip() for p in self.pip.split(",") if p.strip()], env_vars=env,
                                 python=self.python, entrypoint_num_cpus=self.entrypoint_num_cpus,
                                 metadata=metadata)

    def pipes_client(self, address: str | None = None) -> Any:
        from dagster_ray import PipesRayJobClient

        return PipesRayJobClient(address=address or self.address, poll_interval=self.poll_interval_s,
                                 headers=self.headers())
