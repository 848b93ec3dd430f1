"""A ``stdin`` test's cases as one request to the fork server (``Options.batch_stdin``): each case
still in a fresh process with only its own input, the same verdicts as a request a case, and the
evaluator carries on when the worker dies or the wall budget ends in the middle of a test."""

from __future__ import annotations

import threading
import time

import pytest

from evaluator import Limits, evaluate
from evaluator.graders.stdin import batches_stdin
from evaluator.model import as_tests
from evaluator.sandbox.pool import WorkerPool


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(1)
    yield p
    p.close()


def _cases(*pairs: tuple[str, str]) -> dict:
    return {"kind": "stdin", "cases": [{"input": i, "output": o} for i, o in pairs]}


SQUARES = _cases(("2\n", "4\n"), ("3\n", "9\n"), ("10\n", "100\n"), ("7\n", "49\n"))
PROGRAMS = {  # program -> the verdict both ways
    "n = int(input())\nprint(n * n)\n": "accepted",
    "n = int(input())\nprint(n * n if n != 10 else 0)\n": "wrong_answer",
    "n = int(input())\nprint(n * n)\nif n == 3:\n    raise SystemExit(3)\n": "runtime_error",
    "n = int(input())\nwhile n == 10:\n    pass\nprint(n * n)\n": "time_limit",
    "import sys\nn = int(input())\nsys.stdout.write('x' * ((5 << 20) if n == 7 else 0))\nprint(n * n)\n": "output_limit",
    "n = int(input())\nx = bytearray((6 << 30) if n == 3 else 1)\nprint(n * n)\n": "memory_limit",
}


def test_a_test_goes_as_one_request_where_children_have_pid_namespaces(pool):
    with pool.worker() as worker:
        assert batches_stdin(as_tests(SQUARES), worker) == (not worker.host_pids)


@pytest.mark.parametrize("stop", [True, False])
@pytest.mark.parametrize("code", list(PROGRAMS))
def test_the_same_verdicts_as_a_request_a_case(pool, code, stop):
    runs = [evaluate(code, SQUARES, Limits(time_s=1, output_mb=4), pool=pool, batch_stdin=batch,
                     stop_on_first_failure=stop) for batch in (True, False)]
    assert runs[0].verdict == runs[1].verdict == PROGRAMS[code], [r.to_dict() for r in runs]
    assert [c.verdict for c in runs[0].cases] == [c.verdict for c in runs[1].cases]


def test_each_case_reads_only_its_own_input_in_a_fresh_process(pool):
    """Inputs of several sizes travel in one memfd: each case sees exactly its own, from its
    start, and its own process (a fresh random seed, nothing left of the case before)."""
    code = ("import os, random, sys\ndata = sys.stdin.read()\n"
            "print(len(data), data.count('x'), os.path.exists('/tmp/mark'), random.random())\n"
            "open('/tmp/mark', 'w').close()\n")
    tests = _cases(("x" * 5, ""), ("", ""), ("x" * 70000 + "\n", ""), ("xy\n", ""))
    res = evaluate(code, tests, Limits(time_s=5), pool=pool, keep_output=True, stop_on_first_failure=False)
    seen = [c.output.split() for c in res.cases]
    assert [s[:3] for s in seen] == [["5", "5", "False"], ["0", "0", "False"], ["70001", "70000", "False"],
                                     ["3", "1", "False"]], seen
    assert len({s[3] for s in seen}) == 4  # random reseeds in every case, as a new python3 does


def test_the_wall_budget_ends_a_test_between_cases(pool):
    code = "import time\ntime.sleep(0.4)\nprint(int(input()) ** 2)\n"
    start = time.perf_counter()
    res = evaluate(code, SQUARES, Limits(time_s=2, wall_budget_s=1.0), pool=pool, stop_on_first_failure=False)
    assert time.perf_counter() - start < 3
    assert res.verdict == "time_limit" and res.cases[-1].cause == "wall_budget", res.to_dict()
    ran_out = [c for c in res.cases if c.verdict != "accepted"]
    assert ran_out and all(c.verdict == "time_limit" and c.cause == "wall_budget" for c in ran_out)
    assert evaluate("print(int(input()) ** 2)\n", SQUARES, pool=pool).passed


def test_a_worker_killed_mid_test_is_that_case_and_the_rest_run_on_a_new_one(pool):
    code = "import time\nn = int(input())\nif n == 3:\n    time.sleep(1.5)\nprint(n * n)\n"
    with pool.worker() as worker:
        victim = worker.proc.pid
    killer = threading.Timer(0.6, lambda: pool._all[0].proc and pool._all[0].proc.kill())
    killer.start()
    start = time.perf_counter()
    res = evaluate(code, SQUARES, Limits(time_s=5), pool=pool, stop_on_first_failure=False)
    killer.join()
    assert [c.verdict for c in res.cases] == ["accepted", "runtime_error", "accepted", "accepted"], res.to_dict()
    assert "fork server" in res.cases[1].message
    assert time.perf_counter() - start < 20
    with pool.worker() as worker:
        assert worker.proc.pid != victim
    assert evaluate("print(int(input()) ** 2)\n", SQUARES, pool=pool).passed


def test_the_smallest_case_first_finds_the_same_failure_sooner(pool):
    """The smallest case runs first when the test stops at its first failure: a program that would
    spend its time limit on a large case fails on the small one first; pass or fail is the same
    either way, and with every case run the order is the one given."""
    code = "s = input()\nwhile len(s) > 5:\n    pass\nprint('no')\n"
    tests = _cases(("x" * 50 + "\n", "yes\n"), ("a\n", "yes\n"))
    start = time.perf_counter()
    first = evaluate(code, tests, Limits(time_s=1), pool=pool)
    assert first.verdict == "wrong_answer" and len(first.cases) == 1, first.to_dict()
    assert time.perf_counter() - start < 1
    given = evaluate(code, tests, Limits(time_s=1), pool=pool, smallest_first=False)
    assert given.verdict == "time_limit" and not given.passed
    every = evaluate(code, tests, Limits(time_s=1), pool=pool, stop_on_first_failure=False)
    assert [c.verdict for c in every.cases] == ["time_limit", "wrong_answer"]
    right = "s = input()\nprint('yes')\n"
    assert evaluate(right, tests, pool=pool).passed and evaluate(right, tests, pool=pool, smallest_first=False).passed


def test_after_the_smallest_case_the_others_keep_their_order(pool):
    code = "import sys\nprint(sys.stdin.read().strip())\n"
    tests = _cases(("ccc\n", "ccc\n"), ("a\n", "a\n"), ("bb\n", "bb\n"), ("b\n", "b\n"), ("dddd\n", "dddd\n"))
    res = evaluate(code, tests, pool=pool, keep_output=True)
    assert [c.output.strip() for c in res.cases] == ["a", "ccc", "bb", "b", "dddd"]
