"""An interrupted ``microcoder run`` stops every process it started and resumes with ``--from-failure``.

One real run, interrupted three times with SIGTERM (what ``timeout`` and a closing terminal send):
during ingest, during Verify, and during training once Ray and verl's workers are up. Each time
the command must end within 10 s, leave no process behind (the run goes through a small wrapper
that is a child subreaper, so any process that escaped the tree re-parents to it and is seen), and
mark its unfinished run failed; ``--from-failure`` then goes on from there, and the fourth run
finishes the whole graph.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import psutil
import pytest
from dagster._core.instance.ref import InstanceRef

ROOT = Path(__file__).resolve().parents[2]
STOP_WITHIN_S = 10.0

# Runs a command as a child subreaper: forwards SIGTERM and SIGINT to it, and once it exited, writes
# its exit code and every process still alive below the wrapper (then stops them) to a JSON file.
WRAPPER = """
import json, signal, subprocess, sys, time
from pipeline.processes import adopt_orphans, descendants, stop_descendants
adopt_orphans()
report, command = sys.argv[1], sys.argv[2:]
child = subprocess.Popen(command)
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda signum, _: child.send_signal(signum))
code = child.wait()
ended = time.time()
time.sleep(1.0)
left = []
for process in descendants():
    try:
        left.append(" ".join(process.cmdline())[:200] or process.name())
    except Exception:
        pass
stop_descendants()
json.dump({"code": code, "left": left, "ended": ended}, open(report, "w"))
"""


def _instance(home: Path) -> dg.DagsterInstance:
    return dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home)))


def _running(home: Path, job: str, step: str, partition: str | None = None) -> bool:
    """Whether a run of ``job`` (of ``partition``) is inside ``step``: started it, not yet ended it.
    Interrupting there is interrupting a run, not the gap between two (a fast step would end first).

    Reads Dagster's SQLite files read-only: opening a ``DagsterInstance`` while the run is creating
    the same home would race it on stamping the schema (two heads in ``alembic_version``)."""
    runs_db = home / "history" / "runs.db"
    if not runs_db.exists():
        return False
    query = "SELECT run_id FROM runs WHERE pipeline_name = ?"
    args: tuple = (job,)
    if partition:
        query += " AND run_id IN (SELECT run_id FROM run_tags WHERE key = 'dagster/partition' AND value = ?)"
        args += (partition,)
    try:
        for (run_id,) in _read(runs_db, query, args):
            events = home / "history" / "runs" / f"{run_id}.db"
            if not events.exists():
                continue
            kinds = {kind for (kind,) in _read(events, "SELECT dagster_event_type FROM event_logs WHERE step_key = ?",
                                               (step,))}
            if "STEP_START" in kinds and not kinds & {"STEP_SUCCESS", "STEP_FAILURE"}:
                return True
    except sqlite3.OperationalError:  # a table not created yet, or locked for a moment
        return False
    return False


def _read(path: Path, query: str, args: tuple = ()) -> list[tuple]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
    try:
        return connection.execute(query, args).fetchall()
    finally:
        connection.close()


def _ray_is_up(wrapper: subprocess.Popen) -> bool:
    """verl's workers are being built: a raylet runs below the wrapper and the trainer announced a phase."""
    try:
        below = psutil.Process(wrapper.pid).children(recursive=True)
    except psutil.Error:
        return False
    names = []
    for process in below:
        try:
            names.append(" ".join(process.cmdline()))
        except psutil.Error:
            continue
    return any("raylet" in name for name in names)


def _interrupt(command: list[str], env: dict[str, str], tmp_path: Path, when: Callable[[subprocess.Popen], bool],
               name: str) -> tuple[dict, float, str]:
    """Start ``command`` under the wrapper, SIGTERM it once ``when`` holds; the wrapper's report,
    the seconds from the signal to the end, and what the command printed."""
    report = tmp_path / f"{name}.json"
    log = tmp_path / f"{name}.log"
    with open(log, "w") as out:
        wrapper = subprocess.Popen([sys.executable, "-c", WRAPPER, str(report), *command], cwd=ROOT, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 900
        while not when(wrapper):
            assert wrapper.poll() is None, f"the run ended before the {name} point:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"the {name} point never came:\n{log.read_text()[-3000:]}"
            time.sleep(0.2)
        signalled = time.time()
        wrapper.send_signal(signal.SIGTERM)
        wrapper.wait(timeout=120)
    result = json.loads(report.read_text())
    return result, result["ended"] - signalled, log.read_text()


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.train
@pytest.mark.timeout(2400)
def test_an_interrupted_run_stops_everything_and_resumes(tmp_path, shared_data):
    data, home = tmp_path / "data", tmp_path / "home"
    env = {**os.environ, "MICROCODER_DATA": str(data), "DAGSTER_HOME": str(home),
           "MICROCODER_TRANSLATION_ENABLED": "false"}  # ingest without the model: the test is about stopping
    # One training step: the run is interrupted and resumed like a longer one (a step is a minute on CPU)
    command = [str(Path(sys.executable).with_name("microcoder")), "run", "--sources", "leetcode", "--sample", "1",
               "--steps", "1"]
    points = [
        # LeetCode's Process step takes seconds (2,090 statements): long enough to land inside it
        ("ingest", lambda w: _running(home, "ingest_job", "process_source", "leetcode")),
        ("verify", lambda w: _running(home, "dataset_job", "verify_problems")),
        ("training", lambda w: _running(home, "training_job", "grpo_training_run") and _ray_is_up(w)),
    ]
    for i, (name, when) in enumerate(points):
        report, took, printed = _interrupt(command + (["--from-failure"] if i else []), env, tmp_path, when, name)
        assert report["code"] == 128 + signal.SIGTERM, printed[-3000:]
        assert took < STOP_WITHIN_S, f"{name}: {took:.1f}s from SIGTERM to the end\n{printed[-2000:]}"
        assert report["left"] == [], f"{name}: processes left behind: {report['left']}"
        assert "interrupted (SIGTERM)" in printed and "--from-failure" in printed
        with _instance(home) as instance:
            unfinished = [r for r in instance.get_runs() if not r.is_finished]
            assert unfinished == [], f"{name}: runs left unfinished: {[r.run_id for r in unfinished]}"
            job = {"ingest": "ingest_job", "verify": "dataset_job", "training": "training_job"}[name]
            assert any(r.status == dg.DagsterRunStatus.FAILURE for r in instance.get_runs(dg.RunsFilter(job_name=job)))

    done = subprocess.run(command + ["--from-failure"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with _instance(home) as instance:
        for job in ("dataset_job", "training_job"):
            runs = list(reversed(instance.get_runs(dg.RunsFilter(job_name=job))))  # oldest first
            assert runs[-1].status == dg.DagsterRunStatus.SUCCESS
            assert runs[-1].parent_run_id == runs[-2].run_id  # resumed from the interrupted run, not redone
        dataset = list(reversed(instance.get_runs(dg.RunsFilter(job_name="dataset_job"))))[-1]
        resumed = {r.event_log_entry.dagster_event.step_key for r in instance.get_records_for_run(
            dataset.run_id, of_type=dg.DagsterEventType.STEP_START).records}
        assert "verify_problems" in resumed and "filter_problems" not in resumed  # Filter finished: kept
        (leetcode,) = [r for r in instance.get_runs(dg.RunsFilter(job_name="ingest_job", tags={"dagster/partition": "leetcode"}))
                       if r.status == dg.DagsterRunStatus.SUCCESS]
        assert leetcode.parent_run_id is not None  # the interrupted partition resumed, from its unfinished step
    assert list((data / "dataset" / "data").glob("train-*.parquet"))
    assert list(data.glob("runs/*/summary.json"))
