"""``call`` tests: the cases run in order in one process (the contract, evaluator.model): after a
first case alone, every case together; a case that ends the process fails alone."""

from __future__ import annotations

import json

from evaluator import Limits, evaluate


def _tests(cases):
    return {"kind": "call", "fn_name": "f", "time_limit_s": 2.0,
            "cases": [{"input": json.dumps([x]), "output": json.dumps(y)} for x, y in cases]}


def test_a_correct_program_is_accepted_from_one_process():
    res = evaluate("def f(x):\n    return x * 2\n", _tests([(i, 2 * i) for i in range(10)]))
    assert res.passed and all(c.batched for c in res.cases)


def test_state_left_by_an_earlier_case_carries_over():
    # Right in a fresh process each time; wrong from its second call in a shared one, as on LeetCode.
    code = "calls = []\ndef f(x):\n    calls.append(x)\n    return x * len(calls)\n"
    for batch in (True, False):
        res = evaluate(code, _tests([(i, i) for i in range(6)]), stop_on_first_failure=False, batch_calls=batch)
        assert res.verdict == "wrong_answer" and res.num_passed == 1, (batch, res)


def test_a_wrong_case_fails_alone():
    code = "def f(x):\n    return -1 if x == 7 else x\n"
    res = evaluate(code, _tests([(i, i) for i in range(10)]), stop_on_first_failure=False)
    assert res.verdict == "wrong_answer" and res.num_passed == 9
    assert res.cases[7].verdict == "wrong_answer"


def test_a_looping_call_fails_alone():
    code = "def f(x):\n    while x == 4:\n        pass\n    return x\n"
    res = evaluate(code, _tests([(i, i) for i in range(8)]), Limits(time_s=0.5), stop_on_first_failure=False)
    assert [c.verdict for c in res.cases].count("time_limit") == 1 and res.num_passed == 7


def test_large_arguments_reach_the_program():
    big = list(range(60_000))  # ~400 KB of JSON: more than one socket message holds
    tests = {"kind": "call", "fn_name": "f", "cases": [{"input": json.dumps([big]), "output": json.dumps(sum(big))}]}
    assert evaluate("def f(a):\n    return sum(a)\n", tests).passed
