"""The fork server's children, one worker at a time (``evaluator.sandbox.pool.Worker``, the raw protocol):
each starts with the process state the server set once for all of them, and nothing one case
leaves behind (processes, files, state) reaches the next case on the same worker."""

from __future__ import annotations

import json

import pytest

from evaluator.model import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_MB
from evaluator.runs import server_request
from evaluator.sandbox.pool import Worker

STATE = """
import json, os, random, signal, sys, threading
names = ("SIGPIPE", "SIGXFSZ", "SIGXCPU", "SIGTERM", "SIGINT")
print(json.dumps({
    "env": sorted(os.environ), "home": os.environ.get("HOME"), "tmpdir": os.environ.get("TMPDIR"),
    "cwd": os.getcwd(), "signals": {n: signal.getsignal(getattr(signal, n)) == signal.SIG_DFL for n in names},
    "recursion": sys.getrecursionlimit(), "int_digits": sys.get_int_max_str_digits(),
    "stack": threading.stack_size(), "random": random.getrandbits(128),
}))
# What this case changes in its own process never reaches the next one.
os.environ["MC_LEFT_BY_A_CASE"] = "1"
for n in names:
    signal.signal(getattr(signal, n), signal.SIG_IGN)
sys.setrecursionlimit(100)
threading.stack_size(0)
random.seed(0)
"""


def _run(worker: Worker, code: str) -> dict:
    raw = worker.run(server_request("stdin", 5, DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_MB), {"code": code, "stdin": ""})
    assert raw["candidate"]["exit"] == 0, raw
    return raw["candidate"]


def _states(worker: Worker, n: int = 3) -> list[dict]:
    return [json.loads(_run(worker, STATE)["stdout"]) for _ in range(n)]


@pytest.fixture
def worker(monkeypatch):
    monkeypatch.setenv("MC_SECRET_TOKEN", "hunter2")  # the worker inherits it; no child may
    w = Worker(0)
    yield w
    w.close()


def test_every_child_starts_with_the_servers_process_state(worker):
    states = _states(worker)
    for state in states:
        assert state["env"] == ["HOME", "LANG", "PATH", "TMPDIR"], state
        assert state["home"] == state["tmpdir"] == state["cwd"], state
        assert all(state["signals"].values()), state
        assert (state["recursion"], state["int_digits"], state["stack"]) == (1_000_000, 0, 64 << 20), state
    assert len({s["random"] for s in states}) == len(states), "a child's random module was not reseeded"
    assert [{**s, "random": 0} for s in states] == [{**states[0], "random": 0}] * len(states)


def test_every_child_gets_its_own_workdir_as_home_at_the_degraded_level(monkeypatch):
    monkeypatch.setenv("MICROCODER_EVAL_NAMESPACES", "0")
    w = Worker(0)
    try:
        assert w.isolation.startswith("degraded:")
        states = _states(w)
    finally:
        w.close()
    for state in states:
        assert state["home"] == state["tmpdir"] == state["cwd"], state
        assert state["env"] == ["HOME", "LANG", "PATH", "TMPDIR"], state
    assert len({s["cwd"] for s in states}) == len(states), "cases shared a working directory"


LEAVE = """
import os, time
open('/tmp/left', 'w').write('x')
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # a daemon: it outlives the case unless something kills it
        open('/tmp/daemon_pid', 'w').write(str(os.getpid()))
        while True:
            open('/tmp/daemon_' + str(time.monotonic_ns()), 'w').close()
            time.sleep(0.001)
    os._exit(0)
time.sleep(0.05)
print('left')
"""
LOOK = """
import json, os, time
time.sleep(0.05)  # a survivor would have written again by now
mine = {os.getpid()}
print(json.dumps({"tmp": sorted(os.listdir('/tmp')), "others": sorted(int(p) for p in os.listdir('/proc')
                  if p.isdigit() and int(p) not in mine)}))
"""


def _look(worker: Worker) -> dict:
    return json.loads(_run(worker, LOOK)["stdout"])


def test_nothing_a_case_leaves_reaches_the_next_case_on_the_worker(worker):
    """A daemonized, setsid'd grandchild that keeps writing to /tmp: the next cases on the same
    worker see /tmp as the first case did and, with a PID namespace, no process but their own."""
    first = _look(worker)
    assert _run(worker, LEAVE)["stdout"] == "left\n"
    for _ in range(2):
        seen = _look(worker)
        assert seen["tmp"] == first["tmp"], seen
        if "pidns" in worker.isolation:
            assert seen["others"] == [], seen


def test_a_case_cannot_signal_the_next(worker):
    """What a case starts cannot outlive it to kill the next case's program."""
    if "pidns" not in worker.isolation:
        pytest.skip("without a PID namespace a kill(-1) loop would reach this test's own processes")
    killer = ("import os, signal, time\n"
              "if os.fork() == 0:\n    os.setsid()\n"
              "    while True:\n        os.kill(-1, signal.SIGKILL)\n        time.sleep(0.001)\n"
              "print('ok')\n")
    assert _run(worker, killer)["stdout"] == "ok\n"
    for _ in range(3):
        assert _run(worker, "import time\ntime.sleep(0.05)\nprint('alive')\n")["stdout"] == "alive\n"


def test_the_fork_server_is_this_package_whatever_the_working_directory_holds(tmp_path):
    """``python -m`` puts the working directory first on ``sys.path``: a pool started where another
    ``evaluator`` package lies (another checkout, a user's project) must still run its own fork server."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    decoy = tmp_path / "project" / "evaluator" / "sandbox"
    decoy.mkdir(parents=True)
    (decoy.parent / "__init__.py").write_text("")
    (decoy / "__init__.py").write_text("")
    (decoy / "worker.py").write_text("raise SystemExit('the working directory's fork server ran')\n")
    script = tmp_path / "judge.py"
    script.write_text(
        f"import sys; sys.path.insert(0, {str(root)!r})\n"
        "from evaluator import evaluate\n"
        "r = evaluate('print(int(input()) * 2)', {'kind': 'stdin', 'cases': [{'input': '21\\n', 'output': '42\\n'}]})\n"
        "print(r.verdict.value)\n")
    done = subprocess.run([sys.executable, str(script)], cwd=decoy.parent.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("accepted"), done.stdout + done.stderr


def test_a_request_is_one_typed_record_and_the_server_refuses_an_unknown_field(worker):
    """The request crosses the socket as :class:`evaluator.runtime.request.Request`: read back into
    the same record, and a field it does not have (a misspelt limit) is refused, not defaulted."""
    import socket

    from evaluator.runtime.request import Request

    req = server_request("stdin", 5, DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_MB)
    assert Request.read(req.wire(["code"])) == (req, ["code"])
    for bad in ({**json.loads(req.wire([])), "timeout_s": 5}, {**json.loads(req.wire([])), "child": "shell"}):
        with pytest.raises(ValueError):
            Request.read(json.dumps(bad).encode())
    assert _run(worker, "print('before')")["stdout"] == "before\n"
    socket.send_fds(worker.sock, [json.dumps({**json.loads(req.wire([])), "timeout_s": 5}).encode()], [])
    assert "bad request" in worker._read_line(30.0)["internal_error"]
    assert _run(worker, "print('after')")["stdout"] == "after\n"  # the server serves on


def test_a_child_finds_its_descriptors_where_its_layout_says():
    """Each kind of child has one named layout (:mod:`evaluator.sandbox.layouts`): the server places
    descriptors by name in its order, a trailing optional one may be absent, and a missing or
    unknown one is refused rather than shifting the numbers the child reads."""
    from evaluator.sandbox.layouts import Fed, Judge, Program

    named = {name.lower(): 100 + m for name, m in Judge.__members__.items()}
    assert Judge.arrange(named) == list(range(100, 109))
    assert Judge.arrange({k: v for k, v in named.items() if k != "prefetch"}) == list(range(100, 108))
    with pytest.raises(ValueError):  # a hole in the middle would move every later descriptor
        Judge.arrange({k: v for k, v in named.items() if k != "report"})
    with pytest.raises(ValueError):
        Program.arrange({"stdin": 0, "stdout": 1, "stderr": 2, "code": 3, "steps": 4})
    assert [int(Fed.STEPS), int(Fed.REPLIES), int(Fed.TICKS)] == [4, 5, 6]
