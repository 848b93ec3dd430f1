"""The evaluator's typed contract (evaluator/model.py): one definition of the tests, limits,
verdicts and results, and verdicts read from how processes ended, never from their stderr text."""

from __future__ import annotations

import json

import pytest

from evaluator import CaseResult, Limits, Result, Tests, Verdict, evaluate, evaluate_many
from evaluator.model import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_MB, DEFAULT_TIME_S

STDIN = {"kind": "stdin", "cases": [{"input": "2\n", "output": "4\n"}]}
CALL = {"kind": "call", "fn_name": "f", "cases": [{"input": "[2]", "output": "4"}]}


def test_one_definition_of_the_tests():
    import pipeline.schema

    assert pipeline.schema.Tests is Tests and pipeline.schema.TestCase is evaluator_model().TestCase
    tests = Tests.from_json(json.dumps({**STDIN, "checker": "doubles:1e-4"}))
    assert Tests.from_json(tests.to_json()) == tests
    assert json.loads(tests.to_json())["checker"] == "doubles:1e-4"  # stored as text, typed in memory


def evaluator_model():
    import evaluator.model

    return evaluator.model


def test_limits_have_one_home():
    limits = Limits()
    assert (limits.memory_mb, limits.output_mb) == (DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_MB) == (2048, 64)
    tests = Tests.from_dict(STDIN)
    assert limits.time_for(tests) == DEFAULT_TIME_S == 6.0
    assert Limits(time_s=2).time_for(Tests.from_dict({**STDIN, "time_limit_s": 1.0})) == 2.0
    assert Limits().time_for(Tests.from_dict({**STDIN, "time_limit_s": 1.0})) == 1.0
    assert Limits(memory_mb=512).memory_for(Tests.from_dict({**STDIN, "memory_limit_mb": 1024})) == 1024
    with pytest.raises(ValueError):
        Limits(time_s=0)


def test_results_are_typed_and_keys_come_back_as_given():
    keys = [("p1", 0), ("p1", "h"), 7]
    results = evaluate_many([(k, "print(int(input()) * 2)", STDIN) for k in keys], Limits(time_s=5), workers=2)
    assert [r.key for r in results] == keys
    assert all(isinstance(r, Result) and r.verdict is Verdict.ACCEPTED and r.passed for r in results)
    assert all(isinstance(c, CaseResult) for r in results for c in r.cases)
    line = results[0].to_dict()  # the command line's output line
    assert line["id"] == ("p1", 0) and line["verdict"] == "accepted" and line["num_passed"] == 1


@pytest.mark.parametrize("tests,program,want", [
    # a program that only prints a limit's words on stderr fails as what it is: a runtime error
    (STDIN, "import sys\nsys.stderr.write('MemoryError\\n')\nsys.exit(1)\n", Verdict.RUNTIME_ERROR),
    (STDIN, "import sys\nsys.stderr.write('OSError: [Errno 27] File too large\\n')\nsys.exit(1)\n", Verdict.RUNTIME_ERROR),
    (CALL, "def f(x):\n    raise ValueError('[Errno 27] File too large')\n", Verdict.RUNTIME_ERROR),
    # the real limits, told by exit status and errno
    (STDIN, "x = [0] * (10 ** 10)\n", Verdict.MEMORY_LIMIT),
    (STDIN, "import sys\nsys.stdout.write('y' * (3 << 20))\n", Verdict.OUTPUT_LIMIT),
])
def test_verdicts_come_from_how_the_process_ended(tests, program, want):
    assert evaluate(program, tests, Limits(time_s=5, output_mb=1)).verdict is want


def test_an_assert_message_that_names_a_limit_is_a_wrong_answer():
    """The judge's report carries an ``OSError``'s errno as a number; a message with the words is text."""
    tests = {"kind": "assert", "fn_name": "f",
             "assert_code": "assert f(2) == 5, '[Errno 27] File too large'\n"}
    res = evaluate("def f(x):\n    return 2 * x\n", tests, Limits(time_s=5))
    assert res.verdict is Verdict.WRONG_ANSWER, res
    res = evaluate("def f(x):\n    return 2 * x\n", tests, Limits(time_s=5), lift_asserts=False)
    assert res.verdict is Verdict.WRONG_ANSWER, res
    raising = "def f(x):\n    raise OSError('[Errno 27] File too large')\n"
    for lift in (True, False):
        res = evaluate(raising, {"kind": "assert", "fn_name": "f", "assert_code": "assert f(2) == 4\n"},
                       Limits(time_s=5), lift_asserts=lift)
        assert res.verdict is Verdict.RUNTIME_ERROR, (lift, res)
