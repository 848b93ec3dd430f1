"""The command-line contract and verl's reward function."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from evaluator import compute_score, compute_score_batch, extract_code
from evaluator.sandbox.pool import shared_pool

ADD = {"kind": "stdin", "cases": [{"input": "1 2\n", "output": "3\n"}, {"input": "2 2\n", "output": "4\n"}]}


def test_cli_run_one_line_per_input(tmp_path):
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": "ok", "code": "print(sum(map(int, input().split())))", "tests": ADD}),
        json.dumps({"id": "bad", "code": "print(3)", "tests": ADD}),
        "this is not json",
        json.dumps({"id": "killer", "code": "import os, signal\nos.killpg(0, signal.SIGKILL)", "tests": ADD}),
    ]
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, "-m", "evaluator.cli", "run", str(src), "-o", str(out), "--workers", "2",
                           "--timeout", "5"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["ok", "bad", None, "killer"]
    assert [r["verdict"] for r in rows[:3]] == ["accepted", "wrong_answer", "internal_error"]
    # The killer is PID 1 of its own PID namespace: killpg(0) cannot reach anything outside its
    # box, so it just printed nothing (at the degraded level it kills itself: runtime_error).
    assert rows[3]["verdict"] in ("wrong_answer", "runtime_error") and not rows[3]["passed"]
    assert all({"id", "passed", "verdict", "cases", "time_s", "isolation"} <= set(r) for r in rows)


def test_cli_version_and_doctor():
    ver = subprocess.run([sys.executable, "-m", "evaluator.cli", "--version"], capture_output=True, text=True, timeout=60)
    assert ver.returncode == 0 and "isolation:" in ver.stdout
    doc = subprocess.run([sys.executable, "-m", "evaluator.cli", "doctor"], capture_output=True, text=True, timeout=60)
    info = json.loads(doc.stdout)
    assert "rlimits" in info["isolation"] and info["version"]
    module = subprocess.run([sys.executable, "-m", "evaluator", "--version"], capture_output=True, text=True, timeout=60)
    assert module.returncode == 0 and "isolation:" in module.stdout  # `python -m evaluator` is the same command


def test_extract_last_python_block():
    text = "try\n```python\nprint(1)\n```\nbetter:\n```python\nprint(2)\n```\n"
    assert extract_code(text).strip() == "print(2)"
    assert extract_code("no code here") is None


def test_compute_score_binary_and_acc():
    good = "```python\nprint(sum(map(int, input().split())))\n```"
    half = "```python\nprint(3)\n```"
    r = compute_score("taco", good, json.dumps(ADD), timeout_s=5)
    assert r["score"] == 1.0 and r["acc"] == 1.0 and r["verdict"] == "accepted"
    r = compute_score("taco", half, ADD, timeout_s=5)
    # acc is the binary pass (verl's pass@1); partial credit lives under its own key
    assert r["score"] == 0.0 and r["acc"] == 0.0 and r["test_pass_fraction"] == 0.5
    assert r["verdict"] == "wrong_answer"
    r = compute_score("taco", "I don't know", ADD)
    assert r["score"] == 0.0 and r["verdict"] == "no_code"


def test_compute_score_batch_matches_single():
    sols = ["```python\nprint(sum(map(int, input().split())))\n```", "no block", "```python\nprint(4)\n```"]
    res = compute_score_batch(["x"] * 3, sols, [ADD] * 3, workers=2, timeout_s=5)
    assert [r["score"] for r in res] == [1.0, 0.0, 0.0]
    assert [r["verdict"] for r in res] == ["accepted", "no_code", "wrong_answer"]
    assert res[2]["acc"] == 0.0 and res[2]["test_pass_fraction"] == 0.5


def test_compute_score_is_bounded_whatever_the_program_does():
    """Many tests that each sleep to their limit: the call still returns within its budget."""
    many = {"kind": "stdin", "cases": [{"input": "", "output": "1"}] * 50}
    start = time.monotonic()
    r = compute_score("x", "```python\nimport time\ntime.sleep(100)\n```", many, timeout_s=2, wall_budget_s=4)
    assert time.monotonic() - start < 4 + 3.5  # the budget, plus one case's kill and reap
    assert r["score"] == 0.0 and r["acc"] == 0.0 and r["verdict"] == "time_limit"


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSTOP])
def test_compute_score_is_bounded_when_the_worker_dies_or_hangs(how):
    """A worker killed or frozen mid-call (an OOM kill, a stalled machine) costs at most the budget."""
    pool = shared_pool(1)
    with pool.worker() as worker:
        victim = worker.proc.pid

    def strike() -> None:
        time.sleep(0.5)
        os.kill(victim, how)

    threading.Thread(target=strike, daemon=True).start()
    start = time.monotonic()
    r = compute_score("x", "```python\nimport time\ntime.sleep(3)\nprint(1)\n```", ADD, timeout_s=5, wall_budget_s=2)
    assert time.monotonic() - start < 2 + 1.5
    assert r["score"] == 0.0 and r["verdict"] in ("time_limit", "runtime_error")
    if how == signal.SIGSTOP:
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass
    good = "```python\nprint(sum(map(int, input().split())))\n```"
    assert compute_score("x", good, ADD, timeout_s=5)["score"] == 1.0  # a fresh worker took over
