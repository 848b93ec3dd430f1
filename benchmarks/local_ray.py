"""A two-node Ray cluster on this machine: ``ray start --head`` and a second node on another
loopback address. The cluster path of the evaluator, checked (tests/evaluator/test_ray_backend.py)
and measured (benchmarks/bench_generation_scale.py) without a cluster."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from tests.procs import free_port, pids_using

SECOND_IP = "127.0.0.2"
# No token authentication (a token left in ~/.ray by another cluster would otherwise split the
# nodes); node deaths noticed within ~1.5 s.
SETTINGS = {"RAY_AUTH_MODE": "disabled", "RAY_health_check_period_ms": "500",
            "RAY_health_check_failure_threshold": "3", "RAY_USAGE_STATS_ENABLED": "0"}


def _start(command: list[str], env: dict[str, str], groups: list[int]) -> None:
    """Run ``ray start`` in a session of its own, its process group (every daemon it leaves) in
    ``groups`` from the moment it starts: a signal during the start still finds them."""
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    groups.append(proc.pid)
    out, _ = proc.communicate(timeout=120)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, command, out)


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """SIGTERM raises SystemExit while inside, so a killed benchmark still tears its cluster down."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    def exit_once(*_: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM (`timeout` passes one on) must not cut the teardown
        sys.exit(128 + signal.SIGTERM)

    before = signal.signal(signal.SIGTERM, exit_once)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@contextlib.contextmanager
def two_node_cluster(cpus_per_node: int = 1) -> Iterator[tuple[str, str]]:
    """``(address, temp dir)`` of a running two-node cluster, this process connected to it; every
    process of the cluster is gone afterwards (also after SIGTERM or Ctrl-C): each ``ray start``
    runs in a process group of its own, which is killed whole, with anything else holding a file
    under the cluster's temp dir."""
    import ray

    ray_bin = Path(sys.executable).with_name("ray")
    temp = tempfile.mkdtemp(prefix="mc-ray-", dir="/tmp")  # short: Ray's sockets live under it
    port = free_port()
    saved = {k: os.environ.get(k) for k in SETTINGS}
    os.environ.update(SETTINGS)
    env = dict(os.environ)
    common = [f"--num-cpus={cpus_per_node}", "--disable-usage-stats", f"--temp-dir={temp}"]
    groups: list[int] = []
    with _terminate_as_exit():
        try:
            _start([str(ray_bin), "start", "--head", f"--port={port}", "--include-dashboard=false", *common], env, groups)
            _start([str(ray_bin), "start", f"--address=127.0.0.1:{port}", f"--node-ip-address={SECOND_IP}", *common], env, groups)
            ray.init(address=f"127.0.0.1:{port}", log_to_driver=False)
            yield f"127.0.0.1:{port}", temp
        finally:
            ray.shutdown()
            _restore(saved)
            for group in groups:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)
            for pid in pids_using(temp):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            shutil.rmtree(temp, ignore_errors=True)


def _restore(saved: dict[str, str | None]) -> None:
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
