"""Named standard checkers: each family accepts what testlib's would and rejects the rest."""

from __future__ import annotations

import pytest

from evaluator import Limits, evaluate
from evaluator.checkers import CHECKERS, register
from evaluator.model import Checker, SpecialJudge, parse_checker

CASES = [
    # checker, expected, actual, accepted
    ("tokens", "1 2\n3\n", "1\n2 3", True),
    ("tokens", "1 2 3", "1 2 3\n\n\n", True),
    ("tokens", "1 2 3", "1 2", False),
    ("tokens", "Yes", "YES", False),
    ("lines", "1 2\n3\n", "1   2\n3", True),
    ("lines", "1 2\n3\n", "1\n2 3", False),
    ("lines", "a\nb\n", "a\nb\n\n\n", True),
    ("integers", "5 -3 007", "5 -3 7", True),
    ("integers", "123456789012345678901234567890", "123456789012345678901234567890", True),
    ("integers", "5", "5.0", False),
    ("integers", "5 6", "6 5", False),
    ("doubles", "3.14159265", "3.1415930", True),
    ("doubles", "3.14159265", "3.1416", False),
    ("doubles:1e-2", "3.14159265", "3.1416", True),
    ("doubles:1e-4", "1000000", "1000050", True),   # relative error 5e-5
    ("doubles:1e-6", "1000000", "1000050", False),
    ("doubles:1e-6", "0.0000001", "0.0000009", True),  # absolute error 8e-7
    ("doubles", "1.5 2.5", "1.5", False),
    ("doubles", "1.5", "abc", False),
    ("yesno", "YES\nNO\n", "yes\nNo", True),
    ("yesno", "YES", "YES!", False),
    ("yesno", "YES\n3\n", "Yes\n3", True),
    ("yesno", "YES\n3\n", "Yes\n4", False),
    ("yesno", "NO", "YES", False),
    ("unordered", "1 2 3 3", "3 1\n3 2", True),
    ("unordered", "1 2 3 3", "1 2 3", False),
    ("unordered", "1 2 3", "1 2 4", False),
]


@pytest.mark.parametrize("checker,expected,actual,accepted", CASES)
def test_named_checker(checker, expected, actual, accepted):
    ok, reason = parse_checker(checker).check(expected, actual)
    assert ok is accepted, reason
    assert bool(reason) is not accepted


def test_names_and_programs_are_told_apart():
    assert parse_checker("doubles:1e-9") == Checker("doubles", ("1e-9",)) and parse_checker("yesno") == Checker("yesno")
    assert parse_checker(None) is None and parse_checker("  ") is None
    program = "import sys\nsys.exit(0)\n"
    assert parse_checker(program) == SpecialJudge(program) and isinstance(parse_checker("my_checker"), SpecialJudge)
    assert str(parse_checker("doubles:1e-9")) == "doubles:1e-9"  # stored as it came


def test_the_registry_takes_a_new_checker():
    @register("sorted_tokens")
    def _sorted(expected: str, actual: str) -> tuple[bool, str]:
        return sorted(expected.split()) == sorted(actual.split()), "" if sorted(expected.split()) == sorted(actual.split()) else "differs"

    try:
        assert parse_checker("sorted_tokens") == Checker("sorted_tokens")
        assert Checker("sorted_tokens").check("1 2", "2 1") == (True, "")
    finally:
        del CHECKERS["sorted_tokens"]


@pytest.mark.parametrize("text,eps", [("doubles", 1e-6), ("doubles:1e-9", 1e-9), ("doubles:10^-4", 1e-4),
                                      ("doubles:10^{-3}", 1e-3), ("doubles:0.01", 0.01)])
def test_precision_parsing(text, eps):
    from evaluator.checkers import parse_eps

    assert parse_eps(text.partition(":")[2]) == pytest.approx(eps)


@pytest.mark.parametrize("bad", ["doubles:abc", "doubles:2", "doubles:0"])
def test_bad_precision_is_an_error_when_the_tests_are_read(bad):
    with pytest.raises(ValueError):
        parse_checker(bad)


def test_evaluate_uses_the_named_checker():
    tests = {"kind": "stdin", "checker": "yesno", "cases": [{"input": "4\n", "output": "YES\n"},
                                                           {"input": "3\n", "output": "NO\n"}]}
    honest = "print('yes' if int(input()) % 2 == 0 else 'no')\n"
    assert evaluate(honest, tests, Limits(time_s=5)).passed
    assert not evaluate("print('yes')\n", tests, Limits(time_s=5)).passed
    doubles = {"kind": "stdin", "checker": "doubles:1e-6", "cases": [{"input": "2\n", "output": "1.414213562\n"}]}
    assert evaluate("print(2 ** 0.5)\n", doubles, Limits(time_s=5)).passed
    assert not evaluate("print(1.4142)\n", doubles, Limits(time_s=5)).passed
