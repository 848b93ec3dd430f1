"""Limits per call in ``assert`` tests (issue 26.2): each call of the program gets the test's time
limit, the block a budget of one limit per call made (capped by the wall budget), a call that
loops fails in about one limit, and the result says how long the calls took."""

from __future__ import annotations

import os
import time

import pytest

from evaluator import compute_score, evaluate
from evaluator.model import Limits
from evaluator.sandbox.limits import (
    CPU_MARGIN_S,
    CPU_POLL_S,
    CaseClock,
    block_cap,
    block_deadline,
    call_share,
    next_reading_s,
    wall_limit,
)

BUSY = ("import time\n"
        "def f(x, spend=0.15):\n"
        "    t = time.process_time()\n"
        "    while time.process_time() - t < spend:\n"
        "        pass\n"
        "    return x * 2\n")


def _block(n: int) -> dict:
    """LeetCode's shape: a ``check(candidate)`` body of ``n`` asserts."""
    body = "".join(f"    assert candidate({i}) == {2 * i}\n" for i in range(n))
    return {"kind": "assert", "fn_name": "f", "assert_code": "def check(candidate):\n" + body}


def test_a_block_of_calls_gets_one_limit_per_call():
    """Twelve calls of 0.15 s CPU each: 1.8 s in all, each well under the 1 s limit."""
    res = evaluate(BUSY, _block(12), Limits(time_s=1))
    assert res.passed, res
    case = res.cases[0]
    assert case.calls == 12
    assert 0.1 < case.time_per_call_s < 1.0, case
    assert case.cpu_s > 1.0  # more than one limit in all: the old single limit failed it


def test_time_per_call_is_in_the_cli_and_reward_results():
    score = compute_score("x", f"```python\n{BUSY}```", _block(3), timeout_s=2)
    assert score["score"] == 1.0, score
    res = evaluate("def f(x):\n    return 2 * x\n", _block(5), Limits(time_s=2))
    assert res.cases[0].calls == 5 and res.cases[0].time_per_call_s >= 0


LOOPING = {
    "spins": "def f(x):\n    if x == 2:\n        while True:\n            pass\n    return 2 * x\n",
    "sleeps": "import time\ndef f(x):\n    if x == 2:\n        time.sleep(60)\n    return 2 * x\n",
    "lifts_its_cpu_limit": ("import resource\ndef f(x):\n    if x == 2:\n"
                            "        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]\n"
                            "        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))\n"
                            "        while True:\n            pass\n    return 2 * x\n"),
    "swallowed_by_the_test": "def f(x):\n    while True:\n        pass\n",
}


@pytest.mark.parametrize("name", list(LOOPING))
def test_a_looping_call_fails_in_about_one_limit(name):
    tests = _block(30)
    if name == "swallowed_by_the_test":  # the test catches everything: the call still timed out
        tests = {"kind": "assert", "fn_name": "f", "assert_code": "try:\n    f(1)\nexcept BaseException:\n    pass\n"}
    start = time.monotonic()
    res = evaluate(LOOPING[name], tests, Limits(time_s=1))
    took = time.monotonic() - start
    assert res.verdict == "time_limit", res
    assert took < wall_limit(1) + 2.5, took  # one call's limit, not the block's 30


def test_a_block_is_capped_by_the_wall_budget():
    """Each call is under the limit, but the calls together outrun the caller's wall budget."""
    start = time.monotonic()
    res = evaluate(BUSY.replace("spend=0.15", "spend=0.4"), _block(40), Limits(time_s=1, wall_budget_s=3))
    assert res.verdict == "time_limit", res
    assert time.monotonic() - start < 3 + 3


def test_test_code_that_loops_without_calls_fails_in_about_one_limit():
    start = time.monotonic()
    res = evaluate("def f(x):\n    return x\n", {"kind": "assert", "assert_code": "while True:\n    pass\n"}, Limits(time_s=1))
    assert res.verdict == "time_limit", res
    assert time.monotonic() - start < wall_limit(1) + 2.5


def test_limit_arithmetic():
    assert block_cap(6, None) == 600 and block_cap(6, 60) == 60 and block_cap(6, 2) == 2
    assert block_deadline(0, 1, 0, 100) == wall_limit(1)
    assert block_deadline(0, 1, 9, 100) == 10 * wall_limit(1)
    assert block_deadline(0, 1, 10**6, 100) == wall_limit(100)
    assert call_share(1, 0.25, 0.5) == (0.75, wall_limit(1) - 0.5)  # what a case alone has left after its top level
    assert call_share(1, 2, 9) == (0.0, 0.0)


def test_the_case_clock_reads_sooner_as_the_limit_nears_and_stops_past_it():
    """One rule, one place: the fork server asks the clock when to read a program's CPU and
    whether it is over; the deadlines are block_deadline's, not a copy of its formula."""
    clock = CaseClock(100.0, 6.0, 6.0, block=False)
    assert clock.deadline(fed_step=False) == 100.0 + wall_limit(6.0)
    assert not clock.read(1.0, 101.0, started=False, fed=False)
    assert clock.next_read == 101.0 + CPU_POLL_S  # far from the limit: the longest poll
    assert not clock.read(5.98, 105.98, started=False, fed=False)
    assert abs(clock.next_read - (105.98 + 0.02 + CPU_MARGIN_S)) < 1e-9  # near it: when one thread could reach it
    assert not clock.read(6.0 + CPU_MARGIN_S, 106.01, started=False, fed=False)
    assert clock.read(6.0 + CPU_MARGIN_S + 0.001, 106.02, started=False, fed=False)
    assert next_reading_s(-1.0) > 0  # past the limit: read again soon, never in a busy loop

    block = CaseClock(0.0, 1.0, 100.0, block=True)
    block.calls_started(9)
    assert block.deadline(fed_step=False) == block_deadline(0.0, 1.0, 9, 100.0)
    assert not block.read(0.5, 0.6, started=True, fed=False)  # a call started: its CPU counts from here
    assert not block.read(1.5, 1.6, started=False, fed=False) and block.read(1.52, 1.7, started=False, fed=False)

    fed = CaseClock(0.0, 1.0, 100.0, block=True, charge_top=True)
    assert not fed.read(0.25, 0.5, started=True, fed=True)  # the top level is over: each step carries it
    assert (fed.cpu_limit, fed.wall_step) == call_share(1.0, 0.25, 0.5) and fed.calls == 1
    fed.step_answered(2.0)
    assert fed.deadline(fed_step=True) == min(block_deadline(0.0, 1.0, 2, 100.0), 2.0 + fed.wall_step)


def test_a_looping_program_stops_within_milliseconds_of_its_limit():
    res = evaluate("while True:\n    pass\n", {"kind": "stdin", "cases": [{"input": "", "output": "1"}]}, Limits(time_s=1.0))
    case = res.cases[0]
    assert res.verdict.value == "time_limit" and 1.0 <= case.cpu_s < 1.0 + CPU_POLL_S, case  # it was 1.05 to 1.1


def test_a_sleeping_program_costs_its_limit_and_a_starved_one_keeps_the_slack():
    """A program that sleeps past a 1 s limit is stopped at about 1 s (once 2 s, the slack of
    wall_limit); a program needing 0.6 s of CPU on a machine whose cores burners hold still
    passes, however long it waits for a core (the runqueue wait is not its time)."""
    asleep = evaluate("import time\ntime.sleep(30)\n", {"kind": "stdin", "cases": [{"input": "", "output": "1"}]},
                      Limits(time_s=1.0))
    assert asleep.verdict.value == "time_limit" and asleep.cases[0].time_s < 1.5, asleep
    import multiprocessing

    burners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(4 * (os.cpu_count() or 1))]
    for b in burners:
        b.start()
    try:
        work = "x = 0\nfor i in range(3 * 10**6):\n    x += i\nprint(1)\n"
        starved = evaluate(work, {"kind": "stdin", "cases": [{"input": "", "output": "1"}]}, Limits(time_s=1.0))
    finally:
        for b in burners:
            b.kill()
    case = starved.cases[0]
    assert starved.passed, starved
    assert case.time_s > 1.05 or case.cpu_s < 0.5, "the program never waited: the test proves nothing here"


def _spin() -> None:
    while True:
        pass
