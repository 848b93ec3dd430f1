"""Hostile programs: each gets a failing verdict, nothing is left running, the evaluator carries on."""

from __future__ import annotations

import os
import time

import pytest

from evaluator import Limits, evaluate
from evaluator.sandbox.pool import WorkerPool

STDIN = {"kind": "stdin", "cases": [{"input": "2 3\n", "output": "5\n"}]}
GOOD = "a, b = map(int, input().split())\nprint(a + b)\n"
ASSERT = {"kind": "assert", "fn_name": "f", "assert_code": "assert f(2) == 4\nassert f(3) == 9\n"}


def _still_works() -> None:
    assert evaluate(GOOD, STDIN, Limits(time_s=5)).verdict == "accepted"


def test_kill_parent_then_carry_on():
    code = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(5)\n"
    res = evaluate(code, STDIN, Limits(time_s=5))
    # In its PID namespace the program has no parent to reach (getppid() is 0: kill(0) hits only
    # its own group, and PID 1 ignores it), so it goes on and prints the right answer. At the
    # degraded level the kill fails (another uid) or kills the worker: a runtime_error either way.
    assert res.verdict == ("accepted" if "pidns" in res.isolation else "runtime_error")
    _still_works()


def test_output_flood_is_output_limit():
    code = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    res = evaluate(code, STDIN, Limits(time_s=10, output_mb=4))
    assert res.verdict == "output_limit"
    big = "import sys\nsys.stdout.write('x' * (5 << 20))\n"
    assert evaluate(big, STDIN, Limits(time_s=10, output_mb=4)).verdict == "output_limit"
    _still_works()


def test_six_gib_allocation_is_memory_limit():
    res = evaluate("x = bytearray(6 * 1024 ** 3)\nprint(5)\n", STDIN, Limits(time_s=5))
    assert res.verdict == "memory_limit"
    _still_works()


def test_infinite_loop_ignoring_sigterm_is_time_limit():
    code = "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n"
    start = time.perf_counter()
    res = evaluate(code, STDIN, Limits(time_s=1))
    assert res.verdict == "time_limit"
    assert time.perf_counter() - start < 10
    _still_works()


def test_sleeping_program_is_time_limit():
    res = evaluate("import time\ntime.sleep(60)\n", STDIN, Limits(time_s=1))
    assert res.verdict == "time_limit"


def test_forked_children_that_outlive_the_program_are_killed(leftover_processes):
    code = (
        "import os, time\n"
        "os.environ['MC_HOSTILE_MARK'] = '1'\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        "            os.execve('/bin/sleep', ['sleep', '300'], {'MC_HOSTILE_MARK': '1'})\n"
        "        time.sleep(300)\n"
        "print(5)\n"
    )
    res = evaluate(code, STDIN, Limits(time_s=5))
    assert res.verdict == "accepted"  # it printed the right answer; its children must still die
    time.sleep(0.2)
    assert leftover_processes() == []


DEATH_SIGNAL_OFF = "import ctypes\nctypes.CDLL(None).prctl(1, 0)  # PR_SET_PDEATHSIG: none\n"


@pytest.mark.parametrize("prelude", ["", DEATH_SIGNAL_OFF], ids=["plain", "death-signal-off"])
def test_a_program_cut_off_by_the_wall_budget_dies_with_its_worker(prelude, leftover_processes):
    """Past the wall budget the worker is killed mid-case: its candidate must not run on beside the
    next programs (it used to, to its own CPU limit, as an orphan), even one that cleared the
    signal it gets when its parent dies."""
    code = prelude + "import os\nos.execve('/bin/sleep', ['sleep', '300'], {'MC_HOSTILE_MARK': '1'})\n"
    start = time.monotonic()
    res = evaluate(code, STDIN, Limits(time_s=10, wall_budget_s=1.5))
    assert res.verdict == "time_limit" and time.monotonic() - start < 4
    time.sleep(0.3)
    assert leftover_processes() == []


def test_fork_bomb_is_contained(leftover_processes):
    code = "import os, time\nos.environ['MC_HOSTILE_MARK'] = '1'\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n"
    res = evaluate(code, STDIN, Limits(time_s=1))
    assert res.verdict in ("time_limit", "runtime_error", "memory_limit")
    time.sleep(0.2)
    assert leftover_processes() == []
    _still_works()


@pytest.mark.parametrize(
    "trick",
    [
        "import os\nos._exit(0)\n",
        "import sys\nsys.exit(0)\n",
        "import atexit, os\natexit.register(lambda: os._exit(0))\nraise SystemExit(0)\n",
        "import sys\nsys.excepthook = lambda *a: None\n",
        "import builtins\nbuiltins.AssertionError = type('Nope', (Exception,), {})\n",
    ],
)
def test_assert_tricks_do_not_pass(trick):
    # The trick runs at import time of the solution or at the start of the test code; the
    # function is wrong, so only skipping the asserts could make it pass.
    code = "def f(x):\n    return 0\n" + trick
    assert evaluate(code, ASSERT, Limits(time_s=5)).passed is False
    tests = dict(ASSERT, assert_code=trick + ASSERT["assert_code"])
    assert evaluate("def f(x):\n    return 0\n", tests, Limits(time_s=5)).passed is False


def test_fake_sentinel_write_to_every_fd_does_not_pass():
    code = (
        "import os\n"
        "def f(x):\n    return 0\n"
        "for fd in range(3, 64):\n"
        "    try:\n        os.write(fd, b'{\"status\": \"ok\", \"completed\": true}\\n')\n"
        "    except OSError:\n        pass\n"
        "os._exit(0)\n"
    )
    assert evaluate(code, ASSERT, Limits(time_s=5)).passed is False


def test_custom_eq_return_value_does_not_pass():
    code = "class Any:\n    def __eq__(self, other):\n        return True\n\ndef add(a, b):\n    return Any()\n"
    tests = {"kind": "call", "fn_name": "add", "cases": [{"input": "[1, 2]", "output": "3"}]}
    res = evaluate(code, tests, Limits(time_s=5))
    assert res.verdict == "wrong_answer"
    class_int = "class I(int):\n    def __eq__(self, o):\n        return True\n\ndef add(a, b):\n    return I(7)\n"
    assert evaluate(class_int, tests, Limits(time_s=5)).verdict == "wrong_answer"


def test_custom_eq_return_value_fails_an_assert_test():
    code = "class Any(int):\n    def __eq__(self, other):\n        return True\n\ndef f(x):\n    return Any(0)\n"
    assert evaluate(code, ASSERT, Limits(time_s=5)).passed is False
    nested = "class Any:\n    def __eq__(self, other):\n        return True\n\ndef f(x):\n    return [Any()][0]\n"
    assert evaluate(nested, ASSERT, Limits(time_s=5)).passed is False
    honest = "def f(x):\n    return x * x if x < 3 else f(x - 1) + 2 * x - 1\n"
    assert evaluate(honest, ASSERT, Limits(time_s=5)).passed is True


def test_no_network():
    code = (
        "import socket\n"
        "s = socket.socket()\ns.settimeout(2)\n"
        "s.connect(('1.1.1.1', 80))\nprint(5)\n"
    )
    res = evaluate(code, STDIN, Limits(time_s=5))
    assert res.verdict == "runtime_error"
    message = res.cases[0].message.lower()
    if "landlock" in res.isolation:  # TCP connect refused before the (empty) network is tried
        assert "permission denied" in message
    elif "netns" in res.isolation:
        assert "unreachable" in message


def test_environment_is_scrubbed_and_workdir_fresh():
    os.environ["MC_SECRET_TOKEN"] = "hunter2"
    try:
        code = "import os\nprint('MC_SECRET_TOKEN' in os.environ, len(os.listdir('.')))\n"
        pool = WorkerPool(1)  # started after the secret is set, so it inherits it
        try:
            tests = {"kind": "stdin", "cases": [{"input": "", "output": "False 0\n"}]}
            res = evaluate(code, tests, Limits(time_s=5), pool=pool)
        finally:
            pool.close()
        assert res.verdict == "accepted", res
    finally:
        del os.environ["MC_SECRET_TOKEN"]
