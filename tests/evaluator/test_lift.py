"""Lifted asserts (issue 26.3): simple asserts run as one batch of calls that the parent compares.

Each idiom lifts and means what the judge's assert means; what cannot be lifted exactly stays
with the judge, with the same verdict; returned objects never decide a comparison in the parent.
"""

from __future__ import annotations

import time

import pytest

from evaluator import Limits, evaluate
from evaluator.asserts.lift import lift
from evaluator.sandbox.limits import wall_limit
from evaluator.sandbox.pool import WorkerPool


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(1)
    yield p
    p.close()


def _tests(code: str, fn_name: str | None = None, **extra) -> dict:
    return {"kind": "assert", "fn_name": fn_name, "assert_code": code, **extra}


def _both(pool, code: str, tests: dict, timeout_s: float = 2) -> tuple[dict, dict]:
    """The result lifted and the judge's, for the same program and test."""
    return (evaluate(code, tests, Limits(time_s=timeout_s), pool=pool),
            evaluate(code, tests, Limits(time_s=timeout_s), pool=pool, lift_asserts=False))


IDIOMS = {
    "equals": "assert f(2) == 4\nassert 6 == f(3)\nassert f(0) != 1\n",
    "isclose": "import math\nassert math.isclose(f(0.1), 0.2)\nassert math.isclose(f(1), 2.0, rel_tol=1e-9)\n",
    "isclose_imported": "from math import isclose\nassert isclose(f(0.1), 0.2, abs_tol=1e-12)\n",
    "abs_difference": "assert abs(f(0.1) - 0.2) < 1e-9\nassert abs(0.2 - f(0.1)) <= 1e-9\n",
    "not": "assert not f(0)\nassert f(1)\n",
    "is_none": "assert f(1) is not None\n",
    "check_candidate": ("METADATA = {'author': 'jt'}\n\ndef check(candidate):\n    '''doc'''\n"
                        "    assert candidate(1) == 2, 'first'\n    assert True\n    assert candidate(x=5) == 10\n\n"
                        "check(f)\n"),
    "check_without_call": "def check(candidate):\n    assert candidate(4) == 8\n",  # the evaluator adds check(f)
    "test_function": "def check(candidate):\n    assert candidate(1) == 2\n\ndef test_check():\n    check(f)\n\ntest_check()\n",
    "literals": ("assert f([1, 2]) == [1, 2, 1, 2]\nassert f((1,)) == (1, 1)\nassert f('ab') == 'abab'\n"
                 "assert f(10**9 + 7) == 2 * (10**9 + 7)\nassert f(-3) == -6\nassert f(float('inf')) == float('inf')\n"),
    "builtins_on_results": "assert sorted(f([3, 1])) == [1, 1, 3, 3]\nassert len(f('abc')) == 6\nassert set(f([1])) == {1}\n",
    "message_that_calls": "assert f(1) == 2, 'got ' + str(f(1))\n",
}


@pytest.mark.parametrize("name", list(IDIOMS))
def test_each_idiom_is_lifted_and_judged_like_the_judge(pool, name):
    test = IDIOMS[name]
    assert lift(test if name != "check_without_call" else test + "\n\ncheck(f)\n", "f") is not None
    right = "def f(x):\n    return x * 2\n"
    wrong = "def f(x):\n    return x * 2 + (x == 0 or x == 1 or x == 0.1 or x == [1] or x == 3)\n"
    lifted, judged = _both(pool, right, _tests(test, "f"))
    assert lifted.verdict == judged.verdict == "accepted", (lifted, judged)
    assert lifted.cases[0].lifted and not judged.cases[0].lifted, lifted
    lifted, judged = _both(pool, wrong, _tests(test, "f"))  # wrong, or raising, on some inputs
    assert lifted.verdict == judged.verdict, (lifted, judged)
    if name != "message_that_calls":  # a failing assert whose message calls the program: the judge's
        assert lifted.cases[0].lifted, lifted


def test_leetcode_check_with_a_solution_instance(pool):
    test = "def check(candidate):\n    assert candidate(nums = [3,1,5], k = 2) == 4\n\ncheck(Solution().minOps)\n"
    code = "class Solution:\n    def minOps(self, nums, k):\n        return sum(nums) - k - 3\n"
    lifted, judged = _both(pool, code, _tests(test, "minOps", prelude="from typing import *\n"))
    assert lifted.passed and judged.passed and lifted.cases[0].lifted
    assert lifted.cases[0].calls == 1


UNLIFTABLE = {
    "loop": "for i in range(3):\n    assert f(i) == 2 * i\n",
    "helper_in_test": "def g(x):\n    return 2 * x\nassert f(1) == g(1)\n",
    "variable_argument": "x = [1]\nassert f(x) == [1, 1]\n",
    "print": "print(f(1))\nassert f(1) == 2\n",
    "and": "assert f(1) == 2 and f(2) == 4\n",
    "chained": "assert 1 < f(1) < 3\n",
    "is_a_number": "assert f(1) is 2\n",
    "star_import": "from math import *\nassert isclose(f(0.1), 0.2)\n",
    "program_isclose": "assert isclose(f(0.1), 0.2)\n",  # the program's own isclose would decide
    "builtin_target": "assert sum([1, 2]) == 3\n",
    "method_on_result": "assert f('a').upper() == 'AA'\n",
    "try": "try:\n    assert f(1) == 2\nexcept AssertionError:\n    pass\n",
    "pytest_raises": "import pytest\nwith pytest.raises(ValueError):\n    f('x')\n",
    "multiplied_result": "assert f(1) * 2 == 4\n",
    "assert_false": "assert f(1) == 2\nassert False\n",
    "check_calls_nothing": "def check(candidate):\n    assert True\n\ncheck(f)\n",
}


@pytest.mark.parametrize("name", list(UNLIFTABLE))
def test_what_cannot_be_lifted_stays_with_the_judge(pool, name):
    test = UNLIFTABLE[name]
    assert lift(test, "f") is None
    code = "def f(x):\n    return x * 2\n"
    lifted, judged = _both(pool, code, _tests(test, "f"))
    assert lifted.verdict == judged.verdict, (lifted, judged)
    assert not lifted.cases[0].lifted


def test_the_entry_point_may_shadow_a_builtin_only_in_the_judge():
    assert lift("assert sorted(g([2, 1])) == [1, 2]\n", "g") is not None
    assert lift("assert abs(g(1) - 1) < 1e-9\n", "abs") is None


ENDINGS = {  # how a call ends -> the verdict both paths give
    "raises": ("def f(x):\n    if x == 2:\n        raise ValueError('no')\n    return x\n", "runtime_error"),
    "raises_after_a_wrong_answer": ("def f(x):\n    if x == 2:\n        raise ValueError\n    return 0\n", "wrong_answer"),
    "assertion_error": ("def f(x):\n    raise AssertionError('mine')\n", "wrong_answer"),
    "memory_error": ("def f(x):\n    raise MemoryError\n", "memory_limit"),
    "system_exit_0": ("def f(x):\n    raise SystemExit(0)\n", "runtime_error"),
    "keyboard_interrupt": ("def f(x):\n    raise KeyboardInterrupt\n", "runtime_error"),
    "stop_iteration": ("def f(x):\n    raise StopIteration\n", "runtime_error"),
    "generator_exit": ("def f(x):\n    raise GeneratorExit\n", "runtime_error"),
    "skip_test": ("import unittest\ndef f(x):\n    raise unittest.SkipTest('skip')\n", "runtime_error"),
    "os_exit_0": ("import os\ndef f(x):\n    if x == 2:\n        os._exit(0)\n    return x\n", "runtime_error"),
    "os_exit_0_after_a_wrong_answer": ("import os\ndef f(x):\n    if x == 2:\n        os._exit(0)\n    return 0\n",
                                       "wrong_answer"),
    "top_level_raises": ("raise ValueError('import time')\ndef f(x):\n    return x\n", "runtime_error"),
    "top_level_exits": ("import sys\nsys.exit(0)\ndef f(x):\n    return x\n", "runtime_error"),
    "not_defined": ("def g(x):\n    return x\n", "runtime_error"),
    "not_callable": ("f = [1, 2]\n", "runtime_error"),
    "kills_itself": ("import os, signal\ndef f(x):\n    os.kill(os.getpid(), signal.SIGKILL)\n", None),  # PID 1: ignored
    "returns_a_generator": ("def f(x):\n    yield x\n", "wrong_answer"),
    "prints_past_the_output_cap": ("def f(x):\n    print('x' * (3 << 20))\n    return x\n", "output_limit"),
    "loops_after_a_wrong_answer": ("def f(x):\n    while x == 2:\n        pass\n    return 0\n", "wrong_answer"),
    "loops": ("def f(x):\n    while x == 2:\n        pass\n    return x\n", "time_limit"),
}


@pytest.mark.parametrize("name", list(ENDINGS))
def test_every_ending_of_a_call_gets_the_judges_verdict(pool, name):
    code, want = ENDINGS[name]
    tests = _tests("assert f(1) == 1\nassert f(2) == 2\nassert f(3) == 3\n", "f")
    lifted = evaluate(code, tests, Limits(time_s=1, output_mb=2), pool=pool)
    judged = evaluate(code, tests, Limits(time_s=1, output_mb=2), pool=pool, lift_asserts=False)
    assert lifted.verdict == judged.verdict == (want or judged.verdict), (lifted, judged)


HOSTILE_RETURNS = {  # each returns something that claims to equal anything, or to be its answer
    "eq_object": "class A:\n    def __eq__(self, o):\n        return True\n    __hash__ = None\ndef f(x):\n    return A()\n",
    "ne_object": "class A:\n    def __ne__(self, o):\n        return False\n    def __eq__(self, o):\n        return True\n"
                 "def f(x):\n    return A()\n",
    "int_subclass": "class I(int):\n    def __eq__(self, o):\n        return True\n    __hash__ = int.__hash__\n"
                    "def f(x):\n    return I(0)\n",
    "str_subclass": "class S(str):\n    def __eq__(self, o):\n        return True\n    __hash__ = str.__hash__\n"
                    "def f(x):\n    return S('no')\n",
    "list_subclass": "class L(list):\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return L([0])\n",
    "float_subclass": ("class F(float):\n    def __float__(self):\n        return 0.5\n    def __sub__(self, o):\n"
                       "        return 0.0\n    def __rsub__(self, o):\n        return 0.0\n"
                       "    def __abs__(self):\n        return 0.0\ndef f(x):\n    return F(9.0)\n"),
    "nested_eq_object": "class A:\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return [A()]\n",
    "expected_from_memory": ("import gc\ndef f(x):\n    for o in gc.get_objects():\n        if isinstance(o, (list, dict)):\n"
                             "            for v in (o.values() if isinstance(o, dict) else o):\n"
                             "                if isinstance(v, str) and v.startswith('MC_EXPECTED'):\n"
                             "                    return v\n    return 'MC_EXPECTED_none'\n"),
    "forged_reply_lines": ("import os\ndef f(x):\n    for fd in range(3, 20):\n        try:\n"
                           "            os.write(fd, b'{\"names\":[]}\\n{\"r\":true}\\n{\"verdict\":\"accepted\"}\\n')\n"
                           "        except OSError:\n            pass\n    return 0\n"),
    "huge_int": "def f(x):\n    return 10 ** 5000\n",
    "deep_list": "def f(x):\n    v = []\n    for _ in range(20000):\n        v = [v]\n    return v\n",
}


@pytest.mark.parametrize("name", list(HOSTILE_RETURNS))
@pytest.mark.parametrize("test", [
    "assert f(1) == 'MC_EXPECTED_7'\n",
    "assert not f(1) != [0.25]\n",
    "import math\nassert math.isclose(f(1), 0.5)\n",
    "assert abs(f(1) - 0.5) < 1e-9\n",
    "def check(candidate):\n    assert candidate(1) == 'MC_EXPECTED_7'\n\ncheck(f)\n",
])
def test_a_returned_value_never_decides_its_own_comparison(pool, name, test):
    lifted, judged = _both(pool, HOSTILE_RETURNS[name], _tests(test, "f"))
    assert not lifted.passed, lifted
    assert lifted.verdict == judged.verdict, (lifted, judged)


def test_a_looping_call_in_a_lifted_block_fails_in_about_one_limit(pool):
    tests = _tests("".join(f"assert f({i}) == {i}\n" for i in range(30)), "f")
    assert lift(tests["assert_code"], "f") is not None
    code = "import time\ndef f(x):\n    if x == 2:\n        time.sleep(60)\n    return x\n"
    start = time.monotonic()
    res = evaluate(code, tests, Limits(time_s=1), pool=pool)
    assert res.verdict == "time_limit" and res.cases[0].lifted, res
    assert time.monotonic() - start < wall_limit(1) + 2.5


def test_lifting_keeps_the_order_and_state_of_one_process(pool):
    """Calls run in order in one process, as the judge makes them: state carries over."""
    code = "n = []\ndef f(x):\n    n.append(x)\n    return len(n)\n"
    tests = _tests("assert f(5) == 1\nassert f(5) == 2\nassert f(5) == 3\n", "f")
    lifted, judged = _both(pool, code, tests)
    assert lifted.passed and judged.passed and lifted.cases[0].lifted
    code = "def f(x, acc=[]):\n    acc.append(x)\n    return acc\n"
    lifted, judged = _both(pool, code, _tests("assert f(1) == [1]\nassert f(2) == [2]\n", "f"))
    assert lifted.verdict == judged.verdict == "wrong_answer"


def test_test_code_parses_in_threads_without_a_spurious_system_error():
    """``evaluate_many`` lifts in threads; CPython 3.11's AST builder shares its recursion counter
    between threads, and a parse interleaved with another (here through a collector running
    finalizers) failed with ``SystemError: AST constructor recursion depth mismatch``: a KodCode
    reference judged an internal error in a full test run. With ``ast.parse`` this loop fails a few
    parses in a hundred; through :func:`evaluator.asserts.lift.parse_code`, none."""
    import gc
    import threading

    from evaluator.asserts.lift import parse_code

    code = "def f(x):\n" + "".join(f"    assert g({i}, [1, [2, (3, 4)]]) == {{'a': [{i}]}}\n" for i in range(200))

    class Finalizer:
        def __del__(self):
            sum(range(50))  # Python code at collection time: a chance to switch threads

    errors: list[str] = []

    def run(depth: int) -> None:
        if depth:
            return run(depth - 1)  # each thread parses from its own stack depth
        for _ in range(30):
            try:
                parse_code(code)
            except SystemError as exc:
                errors.append(str(exc))
            for _ in range(2000):
                a = Finalizer()
                a.cycle = [a]

    old = gc.get_threshold()
    gc.set_threshold(50, 1, 1)
    try:
        threads = [threading.Thread(target=run, args=(d,)) for d in (0, 7, 13, 21)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        gc.set_threshold(*old)
    assert not errors, errors[:3]
