"""``grpo_training_run`` on a real Ray cluster through dagster-ray, outputs on a real S3 API.

A Ray head (``ray start --head`` from ``.venv-train``, on 127.0.0.1 with its own ports and temp
dir, always stopped here) and moto's S3 server on loopback. ``MICROCODER_DATA`` is an ``s3://``
URL: the dataset manifest and verl files are read from it and the run's checkpoints, metrics and
evaluation land in it. Two runs: one cancelled while verl's actors are up (the Ray job must stop,
with nothing left alive), one of 2 verl CPU steps whose metrics and checkpoint reach Dagster.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.procs import pids_using

ROOT = Path(__file__).resolve().parents[2]
TRAIN_BIN = ROOT / ".venv-train" / "bin"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.train,
    pytest.mark.timeout(2400),
    pytest.mark.skipif(not (TRAIN_BIN / "ray").exists(), reason="run scripts/setup-train.sh"),
]


def _ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass
class Cluster:
    address: str
    temp: str
    token: str
    headers: dict

    def jobs(self):
        from ray.job_submission import JobSubmissionClient

        return JobSubmissionClient(self.address, headers=self.headers)

    def alive_actors(self, job_id: str | None = None) -> list:
        from ray.util.state.api import StateApiClient
        from ray.util.state.common import ListApiOptions, StateResource

        filters = [("state", "=", "ALIVE")] + ([("job_id", "=", job_id)] if job_id else [])
        client = StateApiClient(address=self.address, headers={"Content-Type": "application/json", **self.headers})
        return client.list(StateResource.ACTORS, options=ListApiOptions(filters=filters), raise_on_missing_output=False)

    def actors_of_class(self, class_name: str) -> list:
        """Every actor of ``class_name`` the cluster has had, alive or dead."""
        from ray.util.state.api import StateApiClient
        from ray.util.state.common import ListApiOptions, StateResource

        client = StateApiClient(address=self.address, headers={"Content-Type": "application/json", **self.headers})
        return client.list(StateResource.ACTORS, options=ListApiOptions(filters=[("class_name", "=", class_name)],
                                                                      detail=True), raise_on_missing_output=False)

    def resource(self):
        from assets.training.resources import RayClusterResource

        return RayClusterResource(address=self.address, auth_token=self.token)


@pytest.fixture(scope="module")
def ray_head():
    """A Ray head on loopback, in .venv-train (its Python is the cluster's: verl and Ray)."""
    pytest.importorskip("dagster_ray")
    from ray.job_submission import JobSubmissionClient

    temp = tempfile.mkdtemp(prefix="rh", dir="/tmp")  # short: Ray's socket paths have a length limit
    gcs, dash, client, agent, agent_grpc, metrics, env_agent, nm, om = _ports(9)
    # Ray swaps 127.0.0.1 for the machine's routable address; another loopback address it keeps
    cmd = [str(TRAIN_BIN / "ray"), "start", "--head", "--block", "--node-ip-address=127.0.0.2",
           f"--port={gcs}", "--dashboard-host=127.0.0.1", f"--dashboard-port={dash}", "--include-dashboard=true",
           f"--ray-client-server-port={client}", f"--dashboard-agent-listen-port={agent}",
           f"--dashboard-agent-grpc-port={agent_grpc}", f"--metrics-export-port={metrics}",
           f"--runtime-env-agent-port={env_agent}", f"--node-manager-port={nm}", f"--object-manager-port={om}",
           # verl's CPU backend declares the GPUs its pools ask for; logical CPUs are bookkeeping
           "--num-cpus=32", "--num-gpus=1", "--object-store-memory=1000000000",
           f"--temp-dir={temp}", "--disable-usage-stats"]
    # token authentication, as Ray has by default; the clients send the token as a header
    token = secrets.token_hex(32)
    env = {**os.environ, "PATH": f"{TRAIN_BIN}{os.pathsep}{os.environ['PATH']}", "RAY_AUTH_MODE": "token",
           "RAY_AUTH_TOKEN": token, "VIRTUAL_ENV": str(TRAIN_BIN.parent), "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("PYTHONPATH", None)
    log = open(Path(temp) / "head.log", "wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=temp)
    address = f"http://127.0.0.1:{dash}"
    headers = {"Authorization": f"Bearer {token}"}
    try:
        deadline = time.time() + 180
        while True:
            try:
                JobSubmissionClient(address, headers=headers).list_jobs()
                break
            except Exception:  # noqa: BLE001 - not up yet: any error means retry until the deadline
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("Ray head did not start: " + (Path(temp) / "head.log").read_text()[-3000:])
                time.sleep(1)
        yield Cluster(address, temp, token, headers)
    finally:
        try:  # a graceful `ray start --block` exit takes half a minute; the head's state dies with it anyway
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        for pid in pids_using(temp):  # anything of this cluster that outlived its group
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def s3_data(s3_server, humaneval_verl_rows):
    """MICROCODER_DATA on S3 holding the dataset's verl files and microcoder_dataset's manifest
    (what a materialized ``microcoder_dataset`` leaves there)."""
    import fsspec
    import pyarrow as pa
    import pyarrow.parquet as pq

    bucket, env = s3_server
    root = f"{bucket}/e2e-ray"
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    rows = humaneval_verl_rows(4)
    manifest = []
    for split, part in (("train", rows[:2]), ("test", rows[2:])):
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(part), buf)
        path = f"{root}/dataset/verl/{split}.parquet"
        fs.pipe_file(path, buf.getvalue())
        manifest.append({"split": split, "layout": "verl", "path": path})
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(manifest), buf)
    fs.pipe_file(f"{root}/assets/microcoder_dataset.parquet", buf.getvalue())
    return root, env


def _run_config(model_path: str, steps: int) -> dict:
    """No train_files: the cpu-demo profile's own data (here the synthetic family, written to S3).
    A fixed temperature schedule: the diversity rule is covered by tests/e2e/test_training_asset.py."""
    return {"ops": {"grpo_training_run": {"config": {
        "model_path": model_path, "steps": steps, "eval_attempts": 1, "val_max_samples": 2, "eval_response_lengths": [32],
        "algorithm": {"train_batch_size": 2, "ppo_mini_batch_size": 2, "samples_per_query": 2, "max_prompt_length": 256,
                      "max_response_length": 32, "temperature_schedule": {"1": 1.2, "2": 1.0}},
    }}}}


_RUNNER = textwrap.dedent("""
    import json, sys
    from assets.definitions import defs
    from assets.training.resources import RayClusterResource
    address, token, run_config = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    result = defs.resolve_job_def("training_job").execute_in_process(run_config=run_config, raise_on_error=False,
        resources={"ray_cluster": RayClusterResource(address=address, auth_token=token)})
    print("RESULT", json.dumps({"success": result.success}), flush=True)
""")


def test_cancelled_run_stops_the_ray_job(ray_head, s3_data, cpu_model_path, tmp_path):
    """SIGINT to the run's process is what Dagster's run termination sends; dagster-ray's client
    must stop the Ray job, and the job's verl actors must die with it."""
    from ray.job_submission import JobStatus

    cluster = ray_head
    root, env = s3_data
    client = cluster.jobs()
    before = {j.submission_id for j in client.list_jobs()}
    proc = subprocess.Popen([sys.executable, "-c", _RUNNER, cluster.address, cluster.token,
                             json.dumps(_run_config(cpu_model_path, 50))],
                            cwd=ROOT, env={**os.environ, **env, "MICROCODER_DATA": root},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, job = time.time() + 600, None
        while time.time() < deadline and proc.poll() is None:  # wait for verl's actors on the cluster
            jobs = [j for j in client.list_jobs() if j.submission_id not in before]
            job = jobs[0] if jobs else None
            if job and job.status == JobStatus.RUNNING and job.job_id and len(cluster.alive_actors(job.job_id)) >= 2:
                break
            time.sleep(2)
        assert job is not None and job.status == JobStatus.RUNNING, proc.stdout.read() if proc.poll() is not None else job
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert 'RESULT {"success": false}' in out, out[-3000:]
    assert f"Ray job {job.submission_id} terminated" in out, out[-3000:]
    deadline = time.time() + 120
    while not client.get_job_status(job.submission_id).is_terminal() and time.time() < deadline:
        time.sleep(1)
    assert client.get_job_status(job.submission_id) == JobStatus.STOPPED
    assert not [j for j in client.list_jobs() if not j.status.is_terminal()]
    deadline = time.time() + 120
    while time.time() < deadline and cluster.alive_actors():
        time.sleep(2)
    assert not cluster.alive_actors()


def test_two_steps_on_the_cluster_stream_metrics_and_checkpoint_to_dagster(ray_head, s3_data, cpu_model_path,
                                                                           monkeypatch):
    import fsspec
    from ray.job_submission import JobStatus

    from assets.definitions import defs

    cluster = ray_head
    root, _ = s3_data
    monkeypatch.setenv("MICROCODER_DATA", root)
    # forwarded to the job (the ray_cluster resource's forward_env): the reward judges on the
    # cluster's evaluator actors, started from inside the job
    monkeypatch.setenv("MICROCODER_EVALUATOR_RAY_ADDRESS", "auto")
    result = defs.resolve_job_def("training_job").execute_in_process(
        run_config=_run_config(cpu_model_path, 2), resources={"ray_cluster": cluster.resource()})
    assert result.success
    [event] = result.asset_materializations_for_node("grpo_training_run")
    meta = {k: v.value for k, v in event.metadata.items()}
    steps = meta["metrics_per_step"]
    assert [s["step"] for s in steps] == [1, 2] and meta["steps"] == 2
    for step in steps:
        for key in ("critic/score/mean", "response_length/mean", "microcoder/diversity", "timing_s/update_actor",
                    "microcoder/masked_count"):
            assert key in step["metrics"], key
        assert step["metrics"]["microcoder/temperature"] == (1.2 if step["step"] == 1 else 1.0)
    assert meta["temperature_rule"] == "fixed"
    assert {"curve_reward", "curve_accuracy", "curve_response_length", "curve_diversity"} <= set(meta)
    assert meta["train_source"] == "synthetic" and "no released problem" in meta["train_source_why"]
    output = f"{root}/runs/{result.run_id}"
    assert meta["output_url"] == output and meta["checkpoint"] == f"{output}/checkpoints/global_step_2"
    assert meta["ray_address"] == cluster.address
    assert meta["code_dir"].startswith(cluster.temp)  # the code came in the job's working_dir, not from this checkout
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    assert fs.cat(f"{output}/checkpoints/latest_checkpointed_iteration.txt") == b"2"
    assert b"ppo_mini_batch_size: 2" in fs.cat(f"{output}/checkpoints/verl_config.yaml")  # the resolved config
    assert fs.cat(meta["card_url"]).startswith(b"# Training card")
    assert fs.ls(f"{output}/checkpoints/global_step_2/actor")
    assert [json.loads(line)["step"] for line in fs.cat(f"{output}/metrics.jsonl").decode().splitlines()] == [1, 2]
    assert fs.exists(f"{output}/data/synthetic-train.parquet")  # the demo data: in the run, not the dataset
    evaluators = cluster.actors_of_class("EvaluatorActor")
    assert evaluators and {a.ray_namespace for a in evaluators} == {"microcoder-evaluator"}, evaluators
    assert meta["train_log"] == f"{output}/train.log" and b"step:2 - " in fs.cat(meta["train_log"])
    evaluation = json.loads(fs.cat(meta["eval_url"]))
    assert evaluation["attempts"] == 1 and evaluation["pass@1"] == meta["eval_pass@1"]
    assert cluster.jobs().get_job_status(meta["Ray Job ID"]) == JobStatus.SUCCEEDED
