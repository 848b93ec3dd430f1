"""Prefetched calls in judged ``assert`` tests: the candidate runs the calls a test is predicted to
make without being asked, and no verdict may depend on the prediction (evaluator.asserts.prefetch)."""

from __future__ import annotations

import time

import pytest

from evaluator import Limits, evaluate, evaluate_many
from evaluator.asserts.prefetch import predict
from evaluator.model import Tests
from evaluator.sandbox.limits import wall_limit
from evaluator.sandbox.pool import WorkerPool
from pipeline.process.pytest_shim import assert_code_for_pytest

PYTEST_BLOCK = '''
from solution import add
import pytest

def test_small():
    assert add(1, 2) == 3
    assert add(a=2, b=2) == 4
    with pytest.raises(ValueError):
        add(-1, 0)

def test_large():
    assert add(5, 5) == 10
'''


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(1)
    yield p
    p.close()


def _tests(test: str = PYTEST_BLOCK) -> Tests:
    return Tests(kind="assert", assert_code=assert_code_for_pytest(test), fn_name="add")


def _both(pool, code: str, tests: Tests, time_s: float = 2) -> tuple:
    ahead = evaluate(code, tests, Limits(time_s=time_s), pool=pool, lift_asserts=False)
    plain = evaluate(code, tests, Limits(time_s=time_s), pool=pool, lift_asserts=False, prefetch_calls=False)
    return ahead, plain


def test_the_literal_calls_are_predicted_in_the_order_the_runner_makes_them():
    calls = predict(_tests().assert_code, "add")
    assert [(name, args) for name, args, _ in calls] == [("add", [1, 2]), ("add", []), ("add", [-1, 0]), ("add", [5, 5])]
    assert calls[1][2] == {"d": [["a", 2], ["b", 2]]}


@pytest.mark.parametrize("test, expected", [
    # a loop, an argument computed at run time, a fixture: the prediction ends there
    ("from solution import f\ndef test_a():\n    assert f(1) == 1\n    for x in range(3):\n        assert f(x)\n"
     "    assert f(2) == 2\n", [[1]]),
    ("from solution import f\ndef test_a():\n    x = [1]\n    assert f(1) == 1\n    assert f(x) == 1\n", [[1]]),
    ("from solution import f\ndef test_a(tmp_path):\n    assert f(1) == 1\n", []),
    # the test's own helper that calls the program, and a program name passed as a value
    ("from solution import f\ndef helper(x):\n    return f(x)\ndef test_a():\n    assert f(3) == 3\n"
     "    assert helper(1) == 1\n", [[3]]),
    ("from solution import f\ndef test_a():\n    assert f(3) == 3\n    assert sorted([2, 1], key=f) == [1, 2]\n", [[3]]),
    # an attribute of what the program returned may be a request of its own
    ("from solution import f\ndef test_a():\n    node = f(1)\n    assert node.val == 1\n    assert f(2)\n", [[1]]),
    # `import solution` and HumanEval's check(candidate)
    ("import solution\ndef test_a():\n    assert solution.f([1, 2]) == 3\n", [[[1, 2]]]),
    # the test writes a file the next call reads: that call may not run before the write
    ("from solution import f\ndef test_a():\n    assert f(1) == 1\n    with open('a.txt', 'w') as fh:\n"
     "        fh.write('x')\n    assert f('a.txt') == 'x'\n", [[1]]),
    ("import os\nfrom solution import f\ndef test_a():\n    assert f(1) == 1\n    os.remove('a.txt')\n"
     "    assert f('a.txt') is None\n", [[1]]),
    ("from solution import f\ndef test_a():\n    assert f(1) == 1\n    made = [open(n, 'w') for n in ['a.txt']]\n"
     "    assert f('a.txt') is None\n", [[1]]),
    ("import shutil\nfrom solution import f\ndef test_a():\n    assert f(1) == 1\n    shutil.os.remove('a.txt')\n"
     "    assert f('a.txt') is None\n", [[1]]),
    # what a pure module or a builtin computes changes nothing the program sees
    ("import math\nfrom solution import f\ndef test_a():\n    assert math.isclose(f(1), 1.0)\n"
     "    assert sorted(f([2, 1])) == [1, 2]\n", [[1], [[2, 1]]]),
    # a method of an object the program made is a request of its own
    ("from solution import Queue\ndef test_a():\n    assert Queue(3).push(1)\n    assert Queue(2)\n", []),
])
def test_the_prediction_stops_where_the_calls_cannot_be_known(test, expected):
    calls = predict(assert_code_for_pytest(test), "f")
    assert [args for _, args, _ in calls] == expected


def test_a_check_function_is_predicted_with_its_candidate():
    calls = predict("def check(candidate):\n    assert candidate(1) == 2\n    assert candidate('a') != 'b'\n\ncheck(f)\n", "f")
    assert [(name, args) for name, args, _ in calls] == [("f", [1]), ("f", ["a"])]


PROGRAMS = {
    "right": ("def add(a, b):\n    if a < 0:\n        raise ValueError\n    return a + b\n", "accepted"),
    "wrong_late": ("def add(a, b):\n    if a < 0:\n        raise ValueError\n    return a + b + (a == 5)\n", "wrong_answer"),
    "stateful": ("n = 0\ndef add(a, b):\n    global n\n    n += 1\n    if a < 0:\n        raise ValueError\n"
                 "    return a + b + (n > 4)\n", "accepted"),
    "no_raise": ("def add(a, b):\n    return a + b\n", "wrong_answer"),
    "exit_in_a_call": ("import sys\ndef add(a, b):\n    if a == 5:\n        sys.exit(0)\n    if a < 0:\n"
                       "        raise ValueError\n    return a + b\n", "runtime_error"),
    "prints": ("def add(a, b):\n    print('x' * 10)\n    if a < 0:\n        raise ValueError\n    return a + b\n", "accepted"),
    # fails the first assert; loops in a call the test never makes: the assert decides, as one at a time
    "wrong_then_loops": ("def add(a, b):\n    while a == 5:\n        pass\n    return 0\n", "wrong_answer"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prefetched_and_one_at_a_time_give_the_same_verdict(pool, name):
    code, verdict = PROGRAMS[name]
    ahead, plain = _both(pool, code, _tests())
    assert ahead.verdict == plain.verdict == verdict, (ahead.to_dict(), plain.to_dict())
    if verdict == "accepted":
        assert ahead.cases[0].prefetched == 4 and plain.cases[0].prefetched is None


def test_a_call_the_test_did_not_make_next_is_judged_again_one_at_a_time(pool):
    """The block's first call raises, so the second is never made: the candidate ran it anyway, and
    a program that counts its calls would answer the third wrongly. The departure is judged again."""
    test = ("from solution import add\nimport pytest\ndef test_a():\n    with pytest.raises(ValueError):\n"
            "        add(-1, 0)\n        add(1, 1)\n    assert add(3, 3) == 6\n")
    code = ("n = 0\ndef add(a, b):\n    global n\n    n += 1\n    if a < 0:\n        raise ValueError\n"
            "    return a + b + (n == 3)\n")
    assert len(predict(_tests(test).assert_code, "add")) == 3
    ahead, plain = _both(pool, code, _tests(test))
    assert ahead.verdict == plain.verdict == "accepted"
    assert ahead.cases[0].prefetched is None  # the verdict came from the second run


def test_a_prefetched_call_that_loops_fails_in_about_one_limit(pool):
    code = "def add(a, b):\n    while True:\n        pass\n"
    start = time.monotonic()
    res = evaluate(code, _tests(), Limits(time_s=1), pool=pool, lift_asserts=False)
    assert res.verdict == "time_limit"
    assert time.monotonic() - start < wall_limit(1) + 1.5


def test_kodcode_references_and_failing_attempts_keep_their_verdicts():
    """Real pytest blocks: every verdict is the one the judge gives one call at a time."""
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    rows = [r for r in process_rows(collect(default_specs()["kodcode"]).kept).kept][:40]
    jobs = [(f"{r['source_id']}/{i}", code, r["tests"]) for r in rows
            for i, code in enumerate((r.get("solutions") or [])[:1] + (r.get("incorrect_solutions") or [])[:2])]
    ahead = evaluate_many(jobs, workers=2, lift_asserts=False)
    plain = evaluate_many(jobs, workers=2, lift_asserts=False, prefetch_calls=False)
    assert [r.verdict for r in ahead] == [r.verdict for r in plain]
    prefetched = sum(r.cases[0].prefetched or 0 for r in ahead)
    calls = sum(r.cases[0].calls or 0 for r in ahead)
    assert prefetched >= calls // 3, (prefetched, calls)  # the rest: calls on objects, loops, helpers


def test_a_call_after_the_test_writes_a_file_sees_the_file(pool):
    """The judge and the program share the case's files: a call predicted past the write would run
    before it and find nothing."""
    test = ("from solution import read\ndef test_a():\n    assert read('a.txt') is None\n"
            "    with open('a.txt', 'w') as fh:\n        fh.write('hello')\n    assert read('a.txt') == 'hello'\n")
    code = ("def read(path):\n    try:\n        with open(path) as fh:\n            return fh.read()\n"
            "    except FileNotFoundError:\n        return None\n")
    tests = Tests(kind="assert", assert_code=assert_code_for_pytest(test), fn_name="read")
    ahead, plain = _both(pool, code, tests)
    assert plain.verdict == "accepted", plain.to_dict()
    assert ahead.verdict == "accepted" and ahead.cases[0].prefetched == 1, ahead.to_dict()
