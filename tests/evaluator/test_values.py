"""``call_values``: many calls of one program in one sandboxed process, as plain data."""

from __future__ import annotations

from fractions import Fraction

from evaluator.model import Cause, Limits, Verdict
from evaluator.values import call_values, entry_for

CALL = {"kind": "call", "fn_name": "f", "cases": [], "time_limit_s": 1.0}


def test_values_come_back_exact_and_in_order():
    code = "from fractions import Fraction\ndef f(x):\n    return (x, [x], {x}, Fraction(x, 3))\n"
    out = call_values(code, CALL, [((i,), {}) for i in range(50)])
    assert [o.value for o in out] == [(i, [i], {i}, Fraction(i, 3)) for i in range(50)]
    assert all(o.ok for o in out)


def test_a_raising_or_looping_call_fails_alone():
    code = ("def f(x):\n    if x == 2:\n        raise ValueError('two')\n    if x == 4:\n        while True:\n"
            "            pass\n    return x * 10\n")
    out = call_values(code, CALL, [((i,), {}) for i in range(6)])
    assert [o.value for o in out if o.ok] == [0, 10, 30, 50]
    assert out[2].error.startswith("ValueError") and out[4].error.startswith("time_limit")
    assert (out[4].verdict, out[4].cause, out[4].not_run) == (Verdict.TIME_LIMIT, Cause.OWN_LIMIT, False)
    assert out[5].ok and not any(o.not_run for o in out)


def test_a_raise_costs_no_process_and_the_next_call_runs_after_it():
    """The calls are independent: one that raises fails alone and the next runs in the same process
    (module state carried, as a call test's cases carry it), so a program raising on every input
    is one process, not one per input."""
    code = "seen = []\ndef f(x):\n    seen.append(x)\n    if x % 2:\n        raise ValueError(x)\n    return len(seen)\n"
    out = call_values(code, CALL, [((i,), {}) for i in range(6)])
    assert [o.value if o.ok else o.error.split(":")[0] for o in out] == [1, "ValueError", 3, "ValueError", 5, "ValueError"]
    code = "class Solution:\n    def __init__(self):\n        raise KeyError('no')\n    def f(self, x):\n        return x\n"
    assert [o.ok for o in call_values(code, CALL, [((i,), {}) for i in range(3)])] == [False, False, False]


def test_calls_not_made_say_so_and_why():
    """After a time limit (``stop_after_timeout``) the rest are not run for the call's own limit;
    past the wall budget, for the budget: typed, never a message to match."""
    code = "def f(x):\n    while x == 1:\n        pass\n    return x\n"
    calls = [((i,), {}) for i in range(4)]
    out = call_values(code, CALL, calls, Limits(time_s=0.25), stop_after_timeout=True)
    assert [o.ok for o in out] == [True, False, False, False] and out[1].verdict is Verdict.TIME_LIMIT
    assert [(o.not_run, o.cause) for o in out[1:]] == [(False, Cause.OWN_LIMIT)] + [(True, Cause.OWN_LIMIT)] * 2
    out = call_values(code, CALL, calls, budget_s=0)
    assert all(o.not_run and o.cause is Cause.WALL_BUDGET and not o.ok for o in out)


def test_solution_methods_get_a_fresh_instance_per_call():
    code = ("class Solution:\n    def __init__(self):\n        self.seen = 0\n    def f(self, x):\n"
            "        self.seen += 1\n        return self.seen + x\n")
    assert entry_for(code, "f") == ("method", "Solution", "f")
    assert [o.value for o in call_values(code, CALL, [((1,), {}), ((1,), {}), ((2,), {})])] == [2, 2, 3]


def test_objects_and_failures_before_any_call_are_errors_not_values():
    out = call_values("def f(x):\n    return object()\n", CALL, [((1,), {})])
    assert out[0].error == "not plain data"
    out = call_values("raise SystemExit(3)\ndef f(x):\n    return x\n", CALL, [((1,), {}), ((2,), {})])
    assert [o.ok for o in out] == [False, False] and "SystemExit" in out[0].error
    out = call_values("def g(x):\n    return x\n", CALL, [((1,), {})])
    assert "NameError" in out[0].error


def test_keyword_arguments():
    out = call_values("def f(a, b=0):\n    return a - b\n", CALL, [((5,), {"b": 2}), ((), {"a": 1, "b": 1})])
    assert [o.value for o in out] == [3, 0]
