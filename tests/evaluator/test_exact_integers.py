"""An integer answer is exact (issue 26.6, "lenient numbers"): a float printed or returned for an
integer expected is never accepted within a tolerance, so a policy cannot learn to compute in
floats. Tolerance stays for expected values that are not integers and for the ``doubles`` checker."""

from __future__ import annotations

import pytest

from evaluator import Limits, evaluate

BIG = 10**18 + 1  # float(BIG) == 1e18: a float computation loses the last digit


@pytest.mark.parametrize("code", [
    "n = int(input())\nprint(float(n) + 1)\n",              # prints 1e+18
    "n = int(input())\nprint(f'{float(n) + 1:.1f}')\n",     # prints 1000000000000000000.0
    "n = int(input())\nprint('%e' % (n + 1))\n",             # prints 1.000000e+18
])
def test_stdin_float_for_a_big_integer_is_wrong(code):
    tests = {"kind": "stdin", "cases": [{"input": f"{BIG - 1}\n", "output": f"{BIG}\n"}]}
    res = evaluate(code, tests, Limits(time_s=5))
    assert res.verdict == "wrong_answer", res
    exact = "n = int(input())\nprint(n + 1)\n"
    assert evaluate(exact, tests, Limits(time_s=5)).passed


def test_stdin_list_literal_of_big_integers():
    tests = {"kind": "stdin", "cases": [{"input": "", "output": f"[{BIG}, 2]\n"}]}
    assert not evaluate(f"print([{float(BIG)!r}, 2])\n", tests, Limits(time_s=5)).passed
    assert evaluate(f"print([{BIG}, 2])\n", tests, Limits(time_s=5)).passed


@pytest.mark.parametrize("ret", ["float(n) + 1", "[float(n) + 1]", "str(float(n) + 1)", "{'a': float(n) + 1}",
                                 "__import__('numpy').float64(n) + 1"])
def test_call_float_for_a_big_integer_is_wrong(ret):
    expected = {"float(n) + 1": str(BIG), "[float(n) + 1]": f"[{BIG}]", "str(float(n) + 1)": str(BIG),  # numeric text for a number
                "{'a': float(n) + 1}": f'{{"a": {BIG}}}'}.get(ret, str(BIG))
    tests = {"kind": "call", "fn_name": "f", "cases": [{"input": f"[{BIG - 1}]", "output": expected}]}
    res = evaluate(f"def f(n):\n    return {ret}\n", tests, Limits(time_s=5))
    assert res.verdict == "wrong_answer", res
    honest = ret.replace("float(n) + 1", "n + 1").replace("__import__('numpy').float64(n) + 1", "n + 1")
    assert evaluate(f"def f(n):\n    return {honest}\n", tests, Limits(time_s=5)).passed


def test_tolerance_stays_where_it_belongs():
    """Non-integer answers and the ``doubles`` checker keep their tolerance; an exact value
    written as a float (``3.0`` for ``3``) is still that integer."""
    floats = {"kind": "stdin", "cases": [{"input": "", "output": "0.3333333\n"}]}
    assert evaluate("print(1 / 3)\n", floats, Limits(time_s=5)).passed
    doubles = {"kind": "stdin", "checker": "doubles:1e-6", "cases": [{"input": "", "output": f"{BIG}\n"}]}
    assert evaluate(f"print({float(BIG)!r})\n", doubles, Limits(time_s=5)).passed
    call = {"kind": "call", "fn_name": "f", "cases": [{"input": "[1]", "output": "0.3333333"}]}
    assert evaluate("def f(n):\n    return n / 3\n", call, Limits(time_s=5)).passed
    exact = {"kind": "call", "fn_name": "f", "cases": [{"input": "[6]", "output": "3"}]}
    assert evaluate("def f(n):\n    return n / 2\n", exact, Limits(time_s=5)).passed
    assert not evaluate("def f(n):\n    return n / 2 + 1e-9\n", exact, Limits(time_s=5)).passed
