"""The execution side on ordinary programs: every kind, real stdin/stdout, parallel batches."""

from __future__ import annotations

import json

import pytest

from evaluator import VERDICTS, Limits, Tests, evaluate, evaluate_many

SUM = {"kind": "stdin", "cases": [{"input": "1 2\n", "output": "3\n"}, {"input": "5 7\n", "output": "12\n"}]}


@pytest.mark.parametrize(
    "code",
    [
        "a, b = map(int, input().split())\nprint(a + b)\n",
        "import sys\nfor line in sys.stdin:\n    sys.stdout.buffer.write(str(sum(map(int, line.split()))).encode() + b'\\n')\n",
        "print(sum(map(int, open(0).read().split())))\nexit()\n",
        "import sys\nprint(sum(map(int, sys.stdin.read().split())))\nsys.exit(0)\n",
        # the Codeforces idiom: solve in a big-stack thread
        "import threading, sys\nthreading.stack_size(1 << 26)\ndef main():\n    print(sum(map(int, input().split())))\nt = threading.Thread(target=main)\nt.start()\n",
    ],
)
def test_stdin_programs_that_emulated_io_rejects(code):
    res = evaluate(code, SUM, Limits(time_s=5))
    assert res.verdict == "accepted", res
    assert res.num_passed == 2 and len(res.cases) == 2


def test_wrong_answer_and_stop_on_first_failure():
    code = "print(3)\n"
    assert evaluate(code, SUM, Limits(time_s=5)).cases[-1].verdict == "wrong_answer"
    assert len(evaluate(code, SUM, Limits(time_s=5)).cases) == 2  # case 1 passes, case 2 fails
    first_fails = {"kind": "stdin", "cases": SUM["cases"][::-1]}
    assert len(evaluate(code, first_fails, Limits(time_s=5)).cases) == 1
    assert len(evaluate(code, first_fails, Limits(time_s=5), stop_on_first_failure=False).cases) == 2


def test_nonzero_exit_and_exception_are_runtime_errors():
    assert evaluate("print(3)\nraise SystemExit(1)\n", SUM, Limits(time_s=5)).verdict == "runtime_error"
    res = evaluate("print(1 / 0)\n", SUM, Limits(time_s=5))
    assert res.verdict == "runtime_error" and "ZeroDivisionError" in res.cases[0].message


def test_deep_recursion_works():
    code = "import sys\ndef d(n):\n    return 0 if n == 0 else 1 + d(n - 1)\nprint(d(int(input())))\n"
    tests = {"kind": "stdin", "cases": [{"input": "200000\n", "output": "200000\n"}]}
    assert evaluate(code, tests, Limits(time_s=10)).verdict == "accepted"


def test_call_kind_solution_class_and_function_with_prelude():
    tests = {"kind": "call", "fn_name": "twoSum", "cases": [{"input": "[[2, 7, 11, 15], 9]", "output": "[0, 1]"}]}
    cls = ("class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n        for i, x in enumerate(nums):\n"
           "            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i\n")
    assert evaluate(cls, tests, Limits(time_s=5)).verdict == "accepted"
    fn = "def twoSum(nums, target):\n    return (0, 1)\n"
    assert evaluate(fn, tests, Limits(time_s=5)).verdict == "accepted"  # tuple vs list: same value
    helper = dict(tests, prelude="def pair():\n    return [0, 1]\n")
    assert evaluate("def twoSum(nums, target):\n    return pair()\n", helper, Limits(time_s=5)).verdict == "accepted"
    assert evaluate("def twoSum(nums, target):\n    return [1, 0]\n", tests, Limits(time_s=5)).verdict == "wrong_answer"


def test_call_returning_listnode_is_serialized_as_list():
    prelude = "class ListNode:\n    def __init__(self, val=0, next=None):\n        self.val = val\n        self.next = next\n"
    code = "def build(n):\n    head = None\n    for v in range(n, 0, -1):\n        head = ListNode(v, head)\n    return head\n"
    tests = {"kind": "call", "fn_name": "build", "prelude": prelude, "cases": [{"input": "[3]", "output": "[1, 2, 3]"}]}
    assert evaluate(code, tests, Limits(time_s=5)).verdict == "accepted"


def test_assert_kind_with_humaneval_style_check():
    tests = {"kind": "assert", "fn_name": "inc", "assert_code": "def check(candidate):\n    assert candidate(1) == 2\n"}
    assert evaluate("def inc(x):\n    return x + 1\n", tests, Limits(time_s=5)).verdict == "accepted"
    assert evaluate("def inc(x):\n    return x\n", tests, Limits(time_s=5)).verdict == "wrong_answer"


def test_checker_accepts_any_valid_answer():
    checker = (
        "import sys\n"
        "inp, exp, out = (open(p).read() for p in sys.argv[1:4])\n"
        "n = int(inp)\n"
        "a, b = map(int, out.split())\n"
        "sys.exit(0 if a + b == n and a > 0 and b > 0 else 1)\n"
    )
    tests = {"kind": "stdin", "checker": checker, "cases": [{"input": "10\n", "output": "1 9\n"}]}
    assert evaluate("n = int(input())\nprint(5, n - 5)\n", tests, Limits(time_s=5)).verdict == "accepted"
    assert evaluate("n = int(input())\nprint(5, n)\n", tests, Limits(time_s=5)).verdict == "wrong_answer"


def test_bad_tests_are_internal_error_not_exception():
    res = evaluate("print(1)", {"kind": "nope"})
    assert res.verdict == "internal_error" and res.passed is False
    # JSON is parsed at the edges (CLI, reward, IO manager), once: the API takes Tests or its dict form
    assert evaluate("print(1)", json.dumps(SUM)).verdict == "internal_error"
    assert evaluate("print(1)", Tests.from_json(json.dumps(SUM)), Limits(time_s=5)).verdict == "wrong_answer"


def test_evaluate_many_parallel_in_order():
    stdin = {"kind": "stdin", "cases": [{"input": "x\n", "output": "3\n"}]}
    jobs = [(("p", i), f"input()\nprint({3 if i % 2 else 4})\n", stdin) for i in range(8)]
    jobs.append((("broken",), None, {"kind": "nope"}))  # neither code nor tests: still one result
    res = evaluate_many(jobs, Limits(time_s=5), workers=2)
    assert [r.key for r in res] == [key for key, _, _ in jobs]  # the caller's keys, as given
    assert [r.passed for r in res[:8]] == [bool(i % 2) for i in range(8)]
    assert res[-1].verdict == "internal_error"
    assert all(r.verdict in VERDICTS for r in res)


def test_the_jobs_with_the_largest_case_start_first_and_results_come_back_as_given():
    """A long job taken last keeps one worker busy while the others idle: the largest case (then the
    most cases, then the most input) starts first; the results still come back in the jobs' order,
    with their keys."""
    from evaluator.api import most_work_first

    def cases(n: int, size: int = 1) -> dict:
        return {"kind": "stdin", "cases": [{"input": "x" * size, "output": ""}] * n}

    big_one = {"kind": "stdin", "cases": [{"input": "x", "output": ""}, {"input": "x" * 80, "output": ""}]}
    tests = [cases(1), cases(3), cases(3, 50), Tests.from_dict(cases(2)), {"kind": "assert", "assert_code": "assert f(1)"},
             big_one]
    assert most_work_first(tests) == [5, 2, 1, 3, 0, 4]
    count = "import sys\nprint(sys.stdin.read().count('x'))\n"
    jobs = [(i, count, {"kind": "stdin", "cases": [{"input": "x" * i, "output": str(i)}] * (1 + i % 3)}) for i in range(6)]
    res = evaluate_many(jobs, Limits(time_s=5), workers=1)
    assert [r.key for r in res] == list(range(6)) and all(r.passed for r in res)
    assert [len(r.cases) for r in res] == [1 + i % 3 for i in range(6)]


def test_a_limit_says_whether_the_program_or_the_budget_ran_out():
    """A test past its own limit and one the evaluation's wall budget cut short are both
    ``time_limit``; ``cause`` tells them apart (Verify's adversaries count only the first)."""
    from evaluator.model import Cause

    loop = {"kind": "stdin", "cases": [{"input": "", "output": ""}] * 2}
    own = evaluate("while True:\n    pass\n", loop, Limits(time_s=0.3), stop_on_first_failure=False)
    assert [(c.verdict.value, c.cause) for c in own.cases] == [("time_limit", Cause.OWN_LIMIT)] * 2
    cut = evaluate("import time\ntime.sleep(5)\n", loop, Limits(time_s=5, wall_budget_s=0.5), stop_on_first_failure=False)
    assert [(c.verdict.value, c.cause) for c in cut.cases] == [("time_limit", Cause.WALL_BUDGET)] * 2
    assert evaluate("print(1)", {"kind": "stdin", "cases": [{"input": "", "output": "1"}]}).cases[0].cause is None
    from evaluator.sandbox.pool import WorkerPool

    pool = WorkerPool(1)
    try:
        with pool.worker():  # the only worker is busy past the budget: the program never ran
            waited = evaluate("print(1)", loop, Limits(wall_budget_s=0.3), pool=pool)
        assert [(c.verdict.value, c.cause) for c in waited.cases] == [("time_limit", Cause.WALL_BUDGET)]
    finally:
        pool.close()
