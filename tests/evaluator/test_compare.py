"""Table-driven tests of evaluator.compare: what robust accepts, what it must never accept,
LiveCodeBench-strict rules, call-result serialization, hostile and large inputs, real data."""
from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
import time
from collections import Counter, OrderedDict, deque

import pytest

from evaluator.compare import (
    agree,
    compare_stdout,
    compare_values,
    decode_value,
    either_accepts,
    encode_value,
    match_strategy,
    parse_expected,
    values_equal,
)
from pipeline.paths import shared_data_dir

BIG = 10**18

# (expected, actual, strategy that must match first)
STDOUT_ACCEPT = [
    ("", "", "exact"),
    ("42\n", "42\n", "exact"),
    ("", "\n\n", "whitespace"),
    ("\n", "", "whitespace"),
    ("42", "42\n", "whitespace"),
    ("42\n", "42", "whitespace"),
    ("1 2 3\n", "1 2 3   \n", "whitespace"),
    ("a\nb\n", "a\r\nb\r\n", "whitespace"),
    ("a\nb", "a\rb\r", "whitespace"),
    ("YES\n", "YES\n\n\n", "whitespace"),
    ("1\t2\n", "1\t2\t\n", "whitespace"),
    ("1 2 3", "1  2\t3", "tokens"),
    ("1 2 3", "  1 2 3", "tokens"),
    ("1\n2", "1\n\n2", "tokens"),
    ("\n1\n", "1\n", "tokens"),
    ("hello world", "hello   world", "tokens"),
    ("0.5", "0.5000000", "float"),
    ("0.333333", "0.3333333333", "float"),
    ("1.0", "1", "float"),
    ("1", "1.0", "float"),
    ("100", "1e2", "float"),
    ("2.5e-3", "0.0025", "float"),
    ("1000000.0", "1000000.5", "float"),  # relative 5e-7
    ("0.0", "0.0000009", "float"),  # absolute 9e-7
    ("-0.00", "0.00", "float"),
    ("-0", "0", "float"),  # signed integer zero
    ("3.14 abc 2", "3.1400001 abc 2", "float"),
    ("1e400", "1.0e400", "float"),
    ("1e-400", "0.0", "float"),
    (".5", "0.5", "float"),
    ("5.", "5.0", "float"),
    ("[1, 2]", "[1,2]", "structured"),
    ("[1, 2]", "(1, 2)", "structured"),
    ("(1, (2, 3))", "[1, [2, 3]]", "structured"),
    ("{'a': 1}", '{"a": 1}', "structured"),
    ("['x', 'y']", '["x","y"]', "structured"),
    ("[0.5, 1]", "[0.5000001,1]", "structured"),
    ("{1, 2, 3}", "{3, 2, 1}", "structured"),
    ("[1, 2]\n[3]", "[1,2]\n[3]", "structured"),
    ("2\n[1, 2]", "2\n[1,2]", "structured"),
    ("[True, None]", "[true, null]", "structured"),
    ("1\n2", "1 2", "token_stream"),
    ("1 2", "1\n2", "token_stream"),
    ("0 0 0 2 4 \n0 91\n", "0\n0\n0\n2\n4\n0\n91\n", "token_stream"),  # TACO 464
    ("1.5 2\n3", "1.5000001\n2 3", "token_stream"),
]

# (expected, actual): robust must reject every one of these.
STDOUT_REJECT = [
    ("42", ""),
    ("42\n", "\n"),
    ("", "0"),
    ("YES", "NO"),
    ("Yes", "YES"),
    ("abc", "abd"),
    ("1 2 3", "1 2"),
    ("1 2", "1 2 3"),
    ("1\n2\n3", "1\n2"),
    ("1 2\n3", "1 2 3 4"),
    ("1\n2", "12"),
    ("1 2\n3 4", "1 3\n2 4"),  # tokens moved across lines
    ("1\n2", "2 1"),
    ("1\n2", "1\n2\n3"),
    ("1\n2", "2\n1"),
    (str(BIG), str(BIG + 1)),
    # TACO 946 (special judge): a float-tolerant harness wrongly accepts this reference answer
    ("900000000000000009 900000000000000010 900000000000000021",
     "900000000000000009 900000000000000011 900000000000000012"),
    ("10", "11"),
    ("007", "7"),
    ("+5", "5"),
    ("12", "12.5"),
    ("0.5", "0.51"),
    ("1.0", "1.00001"),
    ("1000000.0", "1000002.0"),  # relative 2e-6
    ("1e400", "1e401"),
    ("1e400", "inf"),
    ("inf", "1e400"),
    ("nan", "NaN"),
    ("nan", "0.5"),
    ("0.5", "nan"),
    ("True", "1"),
    ("True", "2"),
    ("1", "True"),
    ("[1, 2]", "[2, 1]"),
    ("[1, 2]", "[1, 2, 3]"),
    ("[1, 2]", "{1, 2}"),  # order-free only when expected is a set
    ("[True]", "[1]"),
    ("['1']", "['2']"),
    ("[1, 2]", "1 2"),
    ("'abc'", "abc"),
    ("1_000", "1000"),
    ("0x10", "16"),
    ("١", "1"),  # non-ASCII digits are words, not numbers
    ("a b", "ab"),
    ("[1,\n2]", "[1,\n3]"),
    ("((((((((((1))))))))))", "((((((((((2))))))))))"),
]

# Pairs rejected one way only: order is free when the expected value is a set.
ASYMMETRIC = {("{1, 2}", "[1, 2]")}

STRICT_ACCEPT = [
    ("42", "42"),
    ("42\n", "  42  \n\n"),
    ("1 2", "1 2"),
    ("1.0", "1"),  # Decimal('1.0') == Decimal('1')
    ("1.50 2", "1.5 2.0"),
    ("a\nb", "a\r\nb"),
    ("", ""),
]
STRICT_REJECT = [
    ("1 2 3", "1  2 3 x"),
    ("0.5", "0.5000001"),  # no tolerance
    ("hello  world", "hello world"),  # line text differs and is not numeric
    ("1\n2", "1\n\n2"),  # line count
    ("[1, 2]", "[1,2]"),
    ("nan", "NaN"),  # Decimal NaN never equals
    ("1", "sNaN"),
    (str(BIG), str(BIG + 1)),
]

# (expected text as a dataset writes it, returned Python value)
VALUES_ACCEPT = [
    ("4", 4),
    ("true", True),
    ("True", True),
    ("None", None),
    ("null", None),
    ('"abc"', "abc"),
    ("'abc'", "abc"),
    ("[1, 2]", (1, 2)),
    ("[[1, 2], [3]]", ((1, 2), [3])),
    ("5.5", 5.5),
    ("5.5", 5.5000001),
    ("5.0", 5),
    ("5", 5.0),
    ("1.0", "1.0"),
    ("1.0", "1"),
    ('"1.0"', 1.0),
    ("[1, 2, 3]", {3, 1, 2}),  # sets travel as sorted lists
    ("{1, 2, 3}", [3, 1, 2]),
    ("{(1, 2), (3, 4)}", {(3, 4), (1, 2)}),
    ("{0.1, 0.2}", {0.2, 0.1000000001}),
    ('{"a": [1, 2]}', {"a": (1, 2)}),
    ('{"1": 2}', {1: 2}),  # JSON cannot hold int keys
    ("{1: 'x'}", {1: "x"}),
    ("b'ab'", b"ab"),
    (str(10**30), 10**30),
    ("[]", []),
    ("[]", ()),
    ("NaN", float("nan")),
    ("Infinity", float("inf")),
    ("(1+2j)", complex(1, 2)),
]
VALUES_REJECT = [
    ("4", 5),
    ("true", 1),
    ("True", 1),
    ("1", True),
    ("2", True),
    ("false", 0),
    ("0", False),
    ("false", None),
    ("None", 0),
    ("None", "None"),
    ('"abc"', "ABC"),
    (str(BIG), BIG + 1),
    ("[1, 2]", [2, 1]),
    ("[1, 2]", [1, 2, 3]),
    ("[1, 2]", {1, 2, 3}),
    ("[[1, 2]]", [[1, 2, 3]]),
    ("{1, 2}", [1, 1]),
    ("{1, 2}", [1, 2, 2]),
    ("{True}", [1]),
    ("5.5", 5.6),
    ("5.5", "5.6"),
    ('"abc"', 0),
    ('"1"', 2),
    ("Infinity", float("-inf")),
    ("Infinity", 1e308),
    ("NaN", 0.0),
    ('{"a": 1}', {"a": 1, "b": 2}),
    ('{"a": 1}', {"b": 1}),
    ("[True, False]", [1, 0]),
    ("b'ab'", "ab"),
    ("not a literal", "not a literal"),
    ("7", "007"),
    ("{True: 1}", {1: 1}),
    ("[1.5]", ["1.5x"]),
]


@pytest.mark.parametrize("expected, actual, strategy", STDOUT_ACCEPT)
def test_stdout_accepts(expected: str, actual: str, strategy: str) -> None:
    assert match_strategy(expected, actual) == strategy
    assert compare_stdout(expected, actual)


@pytest.mark.parametrize("expected, actual", STDOUT_REJECT)
def test_stdout_rejects(expected: str, actual: str) -> None:
    assert match_strategy(expected, actual) is None
    assert not compare_stdout(expected, actual)
    if (actual, expected) not in ASYMMETRIC:
        assert not compare_stdout(actual, expected)


@pytest.mark.parametrize("expected, actual", STRICT_ACCEPT)
def test_strict_accepts(expected: str, actual: str) -> None:
    assert compare_stdout(expected, actual, mode="strict")


@pytest.mark.parametrize("expected, actual", STRICT_REJECT)
def test_strict_rejects(expected: str, actual: str) -> None:
    assert not compare_stdout(expected, actual, mode="strict")


@pytest.mark.parametrize("expected, value", VALUES_ACCEPT)
def test_values_accept(expected: str, value: object) -> None:
    assert compare_values(expected, encode_value(value))


@pytest.mark.parametrize("expected, value", VALUES_REJECT)
def test_values_reject(expected: str, value: object) -> None:
    assert not compare_values(expected, encode_value(value))


def test_tolerance_is_configurable() -> None:
    assert not compare_stdout("0.5", "0.5001")
    assert compare_stdout("0.5", "0.5001", rel_tol=1e-3, abs_tol=0)
    assert not compare_stdout("0.5", "0.5001", rel_tol=0, abs_tol=1e-5)
    assert compare_values("0.5", encode_value(0.5001), abs_tol=1e-3)
    assert not compare_stdout("1000", "1001", rel_tol=0.1)  # integers never get a tolerance


def test_strict_values_follow_python_equality() -> None:
    """LCB compares with ==: tuples become lists, 1 == 1.0 and True == 1 pass, nan never does."""
    assert compare_values("[1, 2]", encode_value((1, 2)), mode="strict")
    assert compare_values("1", encode_value(1.0), mode="strict")
    assert compare_values("1", encode_value(True), mode="strict")
    assert compare_values("True", encode_value(True), mode="strict")
    assert not compare_values("0.5", encode_value(0.5000001), mode="strict")
    assert not compare_values("NaN", encode_value(float("nan")), mode="strict")
    assert compare_values("NaN", encode_value(float("nan")))  # robust: nan matches nan


def test_unknown_mode_is_an_error() -> None:
    with pytest.raises(ValueError):
        compare_stdout("1", "1", mode="lenient")
    with pytest.raises(ValueError):
        compare_values("1", "1", mode="lenient")


class _FakeEqual:
    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


@pytest.mark.parametrize("value", [
    _FakeEqual(), object(), print, iter([1]), (x for x in [1]), [1, _FakeEqual()],
    {"a": object()}, {1.5, _FakeEqual()}, type,
])
def test_encode_rejects_non_plain_data(value: object) -> None:
    with pytest.raises(TypeError):
        encode_value(value)


def test_encode_rejects_cycles_but_allows_shared_refs() -> None:
    loop: list = [1]
    loop.append(loop)
    with pytest.raises(TypeError):
        encode_value(loop)
    shared = [1, 2]
    assert decode_value(encode_value([shared, shared])) == [[1, 2], [1, 2]]


@pytest.mark.parametrize("value, plain", [
    ((1, (2, 3)), [1, [2, 3]]),
    ({3, 1, 2}, [1, 2, 3]),
    (frozenset({"b", "a"}), ["a", "b"]),
    ({1, "a"}, frozenset({1, "a"})),  # unsortable set keeps its set-ness through a tag
    (deque([1, 2]), [1, 2]),
    (OrderedDict(a=1), {"a": 1}),
    (Counter("aab"), {"a": 2, "b": 1}),
    ({(1, 2): "x"}, {(1, 2): "x"}),
    ({"__set__": [1]}, {"__set__": [1]}),  # a user dict that looks like a tag stays a dict
    (b"\x00\xff", b"\x00\xff"),
    pytest.param(10**5000, 10**5000, id="int-5000-digits"),  # beyond CPython's str limit
    (float("inf"), float("inf")),
    (-0.0, -0.0),
    (True, True),
])
def test_encode_decode_round_trip(value: object, plain: object) -> None:
    text = encode_value(value)
    json.loads(text)  # always valid JSON text
    assert decode_value(text) == plain


def test_encode_nan_round_trip_and_bool_stays_bool() -> None:
    assert math.isnan(decode_value(encode_value(float("nan"))))
    assert decode_value(encode_value([True, 1])) == [True, 1]
    assert type(decode_value(encode_value(True))) is bool


def test_numpy_values_encode_without_numpy_in_module() -> None:
    np = pytest.importorskip("numpy")
    assert compare_values("[1, 2]", encode_value(np.array([1, 2])))
    assert compare_values("3", encode_value(np.int64(3)))
    assert compare_values("true", encode_value(np.bool_(True)))
    assert not compare_values("1", encode_value(np.bool_(True)))


def test_module_imports_standalone_with_stdlib_only() -> None:
    """The child imports encode_value: it must not pull numpy or our other modules in."""
    code = ("import sys, evaluator.compare as c; print(c.encode_value((1, {2})));"
            "bad = [m for m in sys.modules if m.split('.')[0] in {'numpy', 'pipeline'}];"
            "assert not bad, bad")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=str(__import__("pathlib").Path(__file__).parents[2]))
    assert out.stdout.strip() == "[1,[2]]"


def test_corrupt_actual_or_expected_fails_closed() -> None:
    assert not compare_values("[1, 2]", "[1, 2")
    assert not compare_values("[1, 2", "[1, 2]")
    assert not compare_values("1", "")
    assert not values_equal([1, 2], "[1, 2]")


def test_parse_expected_json_then_literal() -> None:
    assert parse_expected("[1, 2]") == [1, 2]
    assert parse_expected("(1, 2)") == (1, 2)
    assert parse_expected(" True ") is True
    with pytest.raises(ValueError):
        parse_expected("__import__('os')")


def test_hostile_nesting_and_literals_do_not_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert compare_stdout(deep, deep)
    assert not compare_stdout(deep, "[" * 100_000 + "]" * 99_999)
    assert not compare_values(deep, encode_value([]))
    assert not compare_stdout("9" * 10_000, "9" * 9_999 + "8")
    assert compare_stdout("9" * 10_000 + ".0", "9" * 10_000)
    assert not compare_stdout("1e999999999", "1e999999998")
    assert compare_stdout("1e999999999", "10e999999998")


def test_million_token_outputs_compare_quickly() -> None:
    n = 1_000_000
    expected = "\n".join(" ".join(str(i + j) for j in range(10)) for i in range(0, n, 10)) + "\n"
    assert len(expected.split()) == n
    spaced = expected.replace("\n", "  \r\n")
    floats = " ".join(f"{i / 7:.9f}" for i in range(n))
    floats_close = " ".join(f"{i / 7:.7f}" for i in range(n))
    wrong = expected[:-3] + "9\n" if expected[-2] != "9" else expected[:-2] + "8\n"
    start = time.perf_counter()
    assert match_strategy(expected, expected) == "exact"
    assert match_strategy(expected, spaced) == "whitespace"
    assert match_strategy(floats, floats_close) == "float"
    assert match_strategy(expected, wrong) is None
    assert compare_stdout(expected, spaced, mode="strict")
    assert time.perf_counter() - start < 60  # generous: about 3 s on a loaded 2-core machine


def _data(*parts: str):
    root = shared_data_dir()
    if root is None or not root.joinpath(*parts).exists():
        pytest.skip("shared data not available")
    return root.joinpath(*parts)


def test_leetcode_expected_values_match_themselves_and_not_others() -> None:
    """Every LeetCodeDataset test output parses, round-trips through encode_value, and does
    not match a different output of the same problem."""
    path = _data("leetcode", "LeetCodeDataset-v0.2.0-test.jsonl.gz")
    checked = distinct = 0
    with gzip.open(path, "rt") as fh:
        for line in fh:
            outputs = [io["output"] for io in json.loads(line)["input_output"]]
            for out in outputs:
                value = parse_expected(out)
                assert compare_values(out, encode_value(value)), out
                assert compare_values(out, encode_value(value), mode="strict"), out
                checked += 1
            values = {}
            for out in outputs:
                values.setdefault(json.dumps(parse_expected(out), sort_keys=True), out)
            texts = list(values.values())
            for a, b in zip(texts, texts[1:]):
                if not values_equal(parse_expected(a), parse_expected(b)):
                    distinct += 1
                    assert not compare_values(a, encode_value(parse_expected(b))), (a, b)
    assert checked >= 400 and distinct >= 100, (checked, distinct)


def test_taco_expected_outputs_robust_to_formatting_only() -> None:
    """TACO example outputs: reformatted copies pass both modes; swapping outputs of different
    examples fails robust unless they are the same answer."""
    path = _data("taco", "taco_test_stdin_with_examples.jsonl")
    outputs = []
    with path.open() as fh:
        for line in fh:
            outputs += [ex["output"] for ex in json.loads(line)["examples"]]
    assert len(outputs) > 1000
    for out in outputs:
        reformatted = out.replace("\n", " \r\n") + "\n\n"
        assert compare_stdout(out, reformatted), out
        assert compare_stdout(out, reformatted, mode="strict"), out
    mismatches = sum(compare_stdout(a, b) for a, b in zip(outputs, outputs[1:])
                     if a.split() != b.split() and not _numeric_twins(a, b))
    assert mismatches == 0


def _numeric_twins(a: str, b: str) -> bool:
    """Outputs that are genuinely the same numbers written differently (e.g. 2.0 vs 2.00)."""
    ta, tb = a.split(), b.split()
    try:
        return len(ta) == len(tb) and all(math.isclose(float(x), float(y), rel_tol=1e-6,
                                                       abs_tol=1e-6) for x, y in zip(ta, tb))
    except ValueError:
        return False


def test_agree_is_one_symmetric_rule_and_the_lenient_one_has_its_own_name():
    """The oracle's references agree when each passes a test that expects the other's answer; the
    lenient rule (one way round suffices) is the multiple-answers check's alone. An expected set
    accepts a list, and a tolerance counts from the expected value: neither makes two answers agree."""
    for kind, a, b in [("stdin", "{1, 2}", "[2, 1]"), ("stdin", "1e-7", "0"), ("call", "[1, 2]", "[2, 1]")]:
        assert agree(kind, a, b) == agree(kind, b, a)
    assert either_accepts("stdin", "{1, 2}", "[2, 1]") and either_accepts("stdin", "[2, 1]", "{1, 2}")
    assert not agree("stdin", "{1, 2}", "[2, 1]") and not agree("stdin", "1e-7", "0")
    assert agree("stdin", "1.0", "1") and agree("stdin", "1\n2", "1 2") and agree("call", "[1, 2]", "[1, 2]")
    assert not either_accepts("stdin", "YES", "NO")
