"""The escape classes of bench_test_quality: why a wrong program passes the released tests."""

from __future__ import annotations

import gzip
import json

import pytest

from benchmarks.escapes import Shape, assert_shape, escape_class, example_shapes, single_tests, size_of, stdin_shape
from pipeline.paths import shared_data_dir

EXAMPLES = [stdin_shape("3\n1 2 3\n"), stdin_shape("5\n4 1 5 2 3\n")]


def test_each_class_by_its_rule():
    assert escape_class(stdin_shape("60\n" + " ".join(["7"] * 60)), EXAMPLES, 0.1) == "large input"
    assert escape_class(stdin_shape("2\n1000000000 1\n"), EXAMPLES, 0.1) == "extreme"
    assert escape_class(stdin_shape("2\n-1 3\n"), EXAMPLES, 0.1) == "extreme"  # below their least, negative
    assert escape_class(stdin_shape("4\n2 2 2 2\n"), EXAMPLES, 0.6) == "misread statement"
    assert escape_class(stdin_shape("1\n1\n"), EXAMPLES, 0.1) == "small corner"
    assert escape_class(stdin_shape("5\n2 2 1 1 3\n"), EXAMPLES, 0.1) == "structure"


def test_assert_lines_read_as_their_call_arguments():
    assert assert_shape("assert f([1, 2, 30], 'ab') == 3") == Shape(atoms=5, least=1.0, most=30.0)
    assert assert_shape("assert candidate(x) == 3").atoms == len("assert candidate(x) == 3")  # not literals


def test_full_tests_split_one_per_case_on_real_records():
    root = shared_data_dir()
    if root is None:
        pytest.skip("no shared data on this machine")
    with gzip.open(root / "labelled" / "programs.jsonl.gz", "rt", encoding="utf-8") as fh:
        rec = next(r for r in map(json.loads, fh) if r["dataset"] == "humaneval" and r["label_extended"] is False)
    singles = single_tests(rec["tests_extended"])
    lines = [ln for ln in rec["tests_extended"]["assert_code"].splitlines() if ln.strip().startswith("assert")]
    assert len(singles) == len(lines) > 1
    assert all(t["assert_code"].count("\n") == 0 and t["fn_name"] == rec["tests_extended"]["fn_name"] for t, _ in singles)
    assert min(size_of(t) for t, _ in singles) <= max(size_of(t) for t, _ in singles)
    assert example_shapes(rec["tests_base"])  # the base tests' `assert candidate(...)` lines


def test_a_renamed_mbpp_program_answers_to_mbpps_name_too():
    """MultiPL-E renamed a few MBPP functions (``next_Power_Of_2`` is ``next_power_of_2``) and MBPP's
    own tests and MBPP-ET call the old name: the program gets it too, unless it defines it itself."""
    from benchmarks.extended_audit import asserts_for, named_as_mbpp

    task = {"entry_point": "next_Power_Of_2", "setup": "", "asserts": ["assert next_Power_Of_2 (5) == 8"]}
    renamed = {"dataset": "mbpp", "mbpp_task_id": "167", "tests_base": {"fn_name": "next_power_of_2"},
               "code": "def next_power_of_2(n):\n    return 1 << max(0, n - 1).bit_length()\n"}
    namespace: dict = {}
    exec(named_as_mbpp(renamed, {"167": task}), namespace)
    assert namespace["next_Power_Of_2"] is namespace["next_power_of_2"]
    own = {**renamed, "code": "def next_Power_Of_2(n):\n    return 8\n"}  # defines MBPP's name itself
    namespace = {}
    exec(named_as_mbpp(own, {"167": task}), namespace)
    assert namespace["next_Power_Of_2"](5) == 8 and "next_power_of_2" not in namespace
    assert named_as_mbpp(renamed, {}) == renamed["code"]  # MBPP-ET not built: as it is
    tests = asserts_for(task)
    assert tests["assert_code"] == "assert next_Power_Of_2 (5) == 8\n"
    assert [t["assert_code"] for t, _ in single_tests(tests)] == ["assert next_Power_Of_2 (5) == 8"]
