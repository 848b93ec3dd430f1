"""What crosses between an ``assert`` test and the program (issue 26.6): functions and objects the
test hands the program, exact ``Fraction``/``Decimal`` values, and every exception a program can
raise inside a call. Valid idioms pass as in one process; nothing the test hands over becomes a
way into the judge, and no exception turns a failing call into a pass."""

from __future__ import annotations

import pytest

from evaluator import Limits, evaluate

VALID = {
    "callback": ("def apply(fn, xs):\n    return [fn(x) for x in xs]\n",
                 "assert apply(lambda v: v * 2, [1, 2]) == [2, 4]\n"),
    "key_function": ("def order(xs, key):\n    return sorted(xs, key=key)\n",
                     "assert order(['bb', 'a', 'ccc'], key=len) == ['a', 'bb', 'ccc']\n"
                     "assert order([3, 1, 2], key=lambda v: -v) == [3, 2, 1]\n"),
    "callback_that_collects": ("def each(xs, fn):\n    for x in xs:\n        fn(x)\n",
                               "seen = []\neach([1, 2], seen.append)\nassert seen == [1, 2]\n"),
    "object_of_a_test_class": ("def area(p):\n    return p.w * p.h\n",
                               "class R:\n    def __init__(self, w, h):\n        self.w, self.h = w, h\n"
                               "assert area(R(2, 3)) == 6\n"),
    "methods_of_test_objects": ("def total(shapes):\n    return sum(s.area() for s in shapes)\n",
                                "class R:\n    def __init__(self, w, h):\n        self.w, self.h = w, h\n"
                                "    def area(self):\n        return self.w * self.h\n"
                                "assert total([R(2, 3), R(1, 1)]) == 7\n"),
    "tree_built_by_the_test": ("def depth(t):\n    return 0 if t is None else 1 + max(depth(t.left), depth(t.right))\n",
                               "class Node:\n    def __init__(self, v, l=None, r=None):\n"
                               "        self.val, self.left, self.right = v, l, r\n"
                               "assert depth(Node(1, Node(2, Node(3)), None)) == 3\n"),
    "test_object_changed_in_place": ("def bump(c):\n    c.n += 1\n",
                                     "class C:\n    n = 0\nc = C()\nbump(c)\nassert c.n == 1\n"),
    "fraction_returned": ("from fractions import Fraction\ndef half(x):\n    return Fraction(x, 2)\n",
                          "from fractions import Fraction\nassert half(3) == Fraction(3, 2)\n"
                          "assert isinstance(half(3), Fraction) and half(4) == 2\n"),
    "fraction_argument": ("def double(x):\n    return x * 2\n",
                          "from fractions import Fraction\nassert double(Fraction(1, 3)) == Fraction(2, 3)\n"),
    "decimal_returned": ("from decimal import Decimal\ndef quarter(x):\n    return Decimal(x) / 4\n",
                         "from decimal import Decimal\nassert quarter(1) == Decimal('0.25')\n"
                         "assert str(quarter(1)) == '0.25' and isinstance(quarter(1), Decimal)\n"),
}


@pytest.mark.parametrize("name", list(VALID))
def test_valid_idioms_cross_the_boundary(name):
    code, test = VALID[name]
    res = evaluate(code, {"kind": "assert", "assert_code": test}, Limits(time_s=5))
    assert res.passed, res


def test_exact_values_stay_exact():
    """A float is not the Fraction the test asks for, nor a Decimal's value to the last digit."""
    fraction = "from fractions import Fraction\nassert isinstance(half(3), Fraction) and half(3) == Fraction(3, 2)\n"
    assert not evaluate("def half(x):\n    return x / 2\n", {"kind": "assert", "assert_code": fraction}, Limits(time_s=5)).passed
    decimal = "from decimal import Decimal\nassert third() == Decimal(1) / Decimal(3)\n"
    assert not evaluate("from decimal import Decimal\ndef third():\n    return Decimal(1 / 3)\n",
                        {"kind": "assert", "assert_code": decimal}, Limits(time_s=5)).passed


# What a program may try with the test's objects: reach the test's globals (its expected
# values), its frames or the judge's modules. Each must fail (the test passes only with 4).
REACHING = {
    "function_globals": ("def f(fn):\n    return fn.__globals__['ANSWER']\n", "assert f(lambda v: v) == ANSWER\n"),
    "closure_cells": ("def f(fn):\n    return fn.__closure__[0].cell_contents\n",
                      "def make():\n    a = ANSWER\n    return lambda: a\nassert f(make()) == ANSWER\n"),
    "format_walks_attributes": ("def f(conv, fn):\n    return int(conv.format('{0.__globals__[ANSWER]}', fn))\n",
                                "assert f(str, lambda: 0) == ANSWER\n"),
    "format_map_walks_attributes": ("def f(conv, fn):\n    return int(conv.format_map('{x.__globals__[ANSWER]}', {'x': fn}))\n",
                                    "assert f(str, lambda: 0) == ANSWER\n"),
    "class_of_a_test_object": ("def f(o):\n    return o.__class__.__init__.__globals__['ANSWER']\n",
                               "class C:\n    pass\nassert f(C()) == ANSWER\n"),
    "type_of_a_test_class": ("def f(cls):\n    return cls.mro()[-1].__subclasses__()\n", "class C:\n    pass\nassert f(C) == ANSWER\n"),
    "judge_builtins_through_a_key": ("def f(key):\n    return key.__self__.eval('ANSWER')\n", "assert f(len) == ANSWER\n"),
    "sets_a_private_attribute": ("def f(o):\n    o.__class__ = int\n    return 0\n", "class C:\n    pass\nassert f(C()) == ANSWER\n"),
}


@pytest.mark.parametrize("name", list(REACHING))
def test_the_test_objects_lead_nowhere(name):
    code, test = REACHING[name]
    res = evaluate(code, {"kind": "assert", "assert_code": "ANSWER = 4\n" + test}, Limits(time_s=5))
    assert not res.passed, res
    assert res.verdict != "internal_error", res


RAISES = {
    "SystemExit": "raise SystemExit(0)",
    "KeyboardInterrupt": "raise KeyboardInterrupt",
    "StopIteration": "raise StopIteration",
    "StopAsyncIteration": "raise StopAsyncIteration",
    "GeneratorExit": "raise GeneratorExit",
    "unittest.SkipTest": "import unittest\n    raise unittest.SkipTest('not today')",
    "os._exit": "import os\n    os._exit(0)",
}
# Test shapes in which a one-process run could turn the exception into a pass.
SHAPES = {
    "plain": "assert f(2) == 4\n",
    "check_candidate": "def check(candidate):\n    assert candidate(2) == 4\n",
    "all_over_map": "assert all(map(lambda p: f(p[0]) == p[1], [(2, 4), (3, 6)]))\n",
    "list_of_map": "assert list(map(f, [2, 3])) in ([], [4, 6])\n",
    "unittest_case": ("import unittest\nclass T(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f(2), 4)\n"
                      "result = unittest.TextTestRunner().run(unittest.defaultTestLoader.loadTestsFromTestCase(T))\n"
                      "assert result.wasSuccessful()\n"),
}
ENDS_THE_RUN = ("SystemExit", "KeyboardInterrupt", "GeneratorExit", "os._exit")


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("exc", list(RAISES))
def test_every_exception_inside_a_call_fails_the_test(exc, shape):
    code = f"def f(x):\n    {RAISES[exc]}\n"
    res = evaluate(code, {"kind": "assert", "fn_name": "f", "assert_code": SHAPES[shape]}, Limits(time_s=5))
    assert not res.passed, res
    assert res.verdict in ("runtime_error", "wrong_answer"), res


@pytest.mark.parametrize("exc", ENDS_THE_RUN)
def test_what_ends_a_run_cannot_be_caught_by_the_test(exc):
    """In one process these pass any ``except Exception``, and end the run past a bare one."""
    code = f"def f(x):\n    {RAISES[exc]}\n"
    for catch in ("except Exception", "except", "except BaseException"):
        test = f"try:\n    assert f(2) == 4\n{catch}:\n    pass\n"
        res = evaluate(code, {"kind": "assert", "fn_name": "f", "assert_code": test}, Limits(time_s=5))
        assert not res.passed, (catch, res)


@pytest.mark.parametrize("exc", list(RAISES))
def test_every_exception_fails_a_call_test(exc):
    code = f"def f(x):\n    {RAISES[exc]}\n"
    res = evaluate(code, {"kind": "call", "fn_name": "f", "cases": [{"input": "[2]", "output": "4"}]}, Limits(time_s=5))
    assert res.verdict == "runtime_error", res
