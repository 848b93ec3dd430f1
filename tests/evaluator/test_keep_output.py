"""``keep_output``: what a program printed (stdin) or returned (call), per case, for Verify to compare references."""

from __future__ import annotations

import pytest

from evaluator import Options, evaluate_many


def test_outputs_are_kept_for_stdin_and_call_cases():
    stdin = {"kind": "stdin", "cases": [{"input": "12\n", "output": "2\n"}, {"input": "9\n", "output": "3\n"}],
             "checker": None, "time_limit_s": 2}
    call = {"kind": "call", "fn_name": "f", "cases": [{"input": "[4]", "output": "5"}], "checker": None, "time_limit_s": 2}
    jobs = [("s", "n = int(input())\nprint(3 if n % 3 == 0 else 2)\n", stdin),
            ("c", "def f(x):\n    return x + 1\n", call)]
    by_id = {r.key: r for r in evaluate_many(jobs, keep_output=True, workers=1, stop_on_first_failure=False)}
    assert [c.output for c in by_id["s"].cases] == ["3\n", "3\n"]
    assert [c.verdict for c in by_id["s"].cases] == ["wrong_answer", "accepted"]
    assert by_id["c"].cases[0].output == "5" and by_id["c"].passed
    plain = evaluate_many(jobs[:1], workers=1, stop_on_first_failure=False)[0]
    assert all(c.output is None for c in plain.cases)


def test_one_options_object_or_its_fields_as_keywords():
    """``Options`` is what ``evaluate``/``evaluate_many`` take; keywords override its fields."""
    jobs = [("s", "print(2)\nprint(input())\n", {"kind": "stdin", "cases": [{"input": "1", "output": "1"}] * 2})]
    given = Options(keep_output=True, workers=1, stop_on_first_failure=False)
    [res] = evaluate_many(jobs, None, given)
    assert [c.output for c in res.cases] == ["2\n1\n"] * 2
    [first] = evaluate_many(jobs, None, given, stop_on_first_failure=True)
    assert len(first.cases) == 1 and first.cases[0].output == "2\n1\n"
    with pytest.raises(TypeError, match="stop_on_first_fail"):
        evaluate_many(jobs, stop_on_first_fail=False)
