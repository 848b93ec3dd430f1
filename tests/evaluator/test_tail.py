"""Idle workers take over a running ``stdin`` test's cases (:mod:`evaluator.tail`): the same verdicts
and cases as one worker, the cases past a failure killed rather than waited for."""

from __future__ import annotations

import time

import pytest

from evaluator import tail
from evaluator.api import evaluate_many
from evaluator.model import Limits


def _fails(result: str) -> bool:
    return result != "ok"


def test_an_idle_worker_takes_the_back_half_of_the_cases_not_started():
    shared = tail.SharedTest(10, _fails)
    owner = shared.segments[0]
    assert shared.record(owner, "ok")  # case 0 done, case 1 running
    taken = shared.take()
    assert (taken.start, taken.end, owner.end) == (6, 10, 6)  # cases 2..9 not started: the back 4
    again = shared.take()  # the next idle worker halves the most not started again: the owner's 2..5
    assert (again.start, again.end, owner.end) == (4, 6, 4)
    assert [shared.record(owner, "ok") for _ in range(1, 4)] == [True, True, False]
    for seg in shared.segments[1:]:
        while shared.record(seg, "ok"):
            pass
    for seg in shared.segments:
        shared.finish(seg)
    assert shared.results() == ["ok"] * 10


def test_the_results_stop_at_the_first_failure_in_the_given_order():
    shared = tail.SharedTest(6, _fails)
    owner = shared.segments[0]
    taken = shared.take()  # cases 3..5 (case 0 counts as started)
    assert shared.record(taken, "wrong") is False  # case 3 fails: the owner still runs 0..2
    assert shared.record(owner, "ok") and shared.record(owner, "ok")
    assert shared.record(owner, "ok") is False  # case 2 was its last
    shared.finish(taken)
    shared.finish(owner)
    assert shared.results() == ["ok", "ok", "ok", "wrong"]


def test_a_failure_kills_the_cases_past_it_and_does_not_wait_for_them():
    shared = tail.SharedTest(6, _fails)
    owner = shared.segments[0]
    taken = shared.take()
    killed = []
    shared.running(taken, lambda: killed.append(taken.start))
    assert shared.record(owner, "wrong") is False  # case 0 fails while case 3 runs elsewhere
    assert killed == [3]
    shared.finish(owner)
    assert shared.results() == ["wrong"]  # the taken segment is still running: not waited for
    assert shared.take() is None


def test_a_result_standing_for_the_rest_ends_the_test_whatever_it_says():
    shared = tail.SharedTest(4, lambda r: False)  # a test that does not stop at failures
    owner = shared.segments[0]
    assert shared.record(owner, "wrong")
    assert shared.record(owner, "budget", last=True) is False
    shared.finish(owner)
    assert shared.results() == ["wrong", "budget"]


SPIN = "import sys, time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\nprint(sys.stdin.read().strip())\n"


@pytest.fixture
def taken(monkeypatch) -> list[tuple[int, int]]:
    seen: list[tuple[int, int]] = []
    take = tail.SharedTest.take

    def counting(self):
        seg = take(self)
        if seg is not None:
            seen.append((seg.start, seg.end))
        return seg

    monkeypatch.setattr(tail.SharedTest, "take", counting)
    return seen


def test_evaluate_many_shares_a_slow_test_and_reports_what_one_worker_would(taken):
    """Two workers, a slow 10-case test and quick ones: the worker done with the quick ones takes
    cases of the slow one, and a wrong answer among the taken cases is reported as one worker
    reports it (in a test that stops at its first failure, and in one that runs every case)."""
    cases = [{"input": f"{k}\n", "output": f"{k}\n"} for k in range(10)]
    cases[7]["output"] = "nope\n"
    quick = ("print(input())", {"kind": "stdin", "cases": [{"input": "a\n", "output": "a\n"}]})
    jobs = [("slow", SPIN, {"kind": "stdin", "cases": cases}), ("quick", *quick), ("quick2", *quick)]
    for stop in (True, False):
        taken.clear()
        shared = evaluate_many(jobs, Limits(time_s=5), workers=2, stop_on_first_failure=stop)
        assert taken, "no idle worker took cases"
        alone = evaluate_many(jobs, Limits(time_s=5), workers=2, stop_on_first_failure=stop, share_cases=False)
        assert [(r.key, r.verdict.value, [c.verdict.value for c in r.cases]) for r in shared] == \
            [(r.key, r.verdict.value, [c.verdict.value for c in r.cases]) for r in alone]
        assert [c.verdict.value for c in shared[0].cases] == ["accepted"] * 7 + ["wrong_answer"] + ["accepted"] * (0 if stop else 2)
        assert shared[1].passed and shared[2].passed


def test_a_case_past_the_first_failure_is_killed_not_run_to_its_limit(taken):
    """Case 0 fails after 0.5 s while another worker runs case 2, which would spin to the 5 s limit:
    it is killed, and the batch ends with case 0's verdict well before that limit."""
    code = ("import sys, time\nif sys.stdin.read().strip() == 'fail':\n    time.sleep(0.5)\n    print('no')\n"
            "else:\n    while True:\n        pass\n")
    tests = {"kind": "stdin", "cases": [{"input": w, "output": "yes"} for w in ("fail", "spin", "spin", "spin")]}
    jobs = [("test", code, tests), ("quick", "print(input())", {"kind": "stdin", "cases": [{"input": "a", "output": "a"}]})]
    start = time.monotonic()
    res = evaluate_many(jobs, Limits(time_s=5), workers=2)
    assert time.monotonic() - start < 4.0
    assert [c.verdict.value for c in res[0].cases] == ["wrong_answer"] and res[1].passed
    assert taken
