"""Process marks the tests a statement prints (``pipeline.process.public``), on real records."""

from __future__ import annotations

from collections import Counter

import pytest

from pipeline.paths import shared_data_dir
from pipeline.process import process_rows
from pipeline.process.public import mark_public, only_public
from pipeline.schema import TestCase, Tests
from pipeline.sources import collect, default_specs


@pytest.fixture(scope="module")
def processed():
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    specs = default_specs()
    return {name: process_rows(collect(specs[name]).kept).kept for name in ("taco", "leetcode", "mbpp", "kodcode")}


def test_statement_examples_are_public_and_other_tests_hidden(processed):
    # TACO's tests are the examples parsed out of its statements; LeetCodeDataset's are its
    # problems' printed examples (kept as source_statement): almost all only public.
    assert only_public(processed["taco"]) >= 0.95 * len(processed["taco"])
    assert only_public(processed["leetcode"]) >= 0.9 * len(processed["leetcode"])
    # MBPP's asserts and KodCode's pytest tests are not printed in their statements.
    assert only_public(processed["mbpp"]) == 0 and only_public(processed["kodcode"]) == 0


def test_marks_survive_storage(processed):
    row = processed["taco"][0]
    back = Tests.from_json(row["tests"].to_json())
    assert [c.public for c in back.cases] == [c.public for c in row["tests"].cases] and back.cases[0].public


def test_call_arguments_match_one_by_one_and_outputs_must_match():
    statement = "Example 1:\nInput: nums = [2,7,11,15], target = 9\nOutput: [0,1]\n"
    tests = Tests(kind="call", fn_name="twoSum", cases=[
        TestCase("[[2, 7, 11, 15], 9]", "[0, 1]"), TestCase("[[2, 7, 11, 15], 9]", "[1, 2]"),
        TestCase("[[3, 3], 6]", "[0, 1]")])
    assert [c.public for c in mark_public(statement, tests).cases] == [True, False, False]


def test_assert_blocks_count_the_asserts_a_statement_shows(processed):
    statement = ">>> interleave('ABCD', 'XY')\n'AXBYCD'\n"
    tests = Tests(kind="assert", assert_code="assert interleave('ABCD', 'XY') == 'AXBYCD'\n"
                                             "assert interleave('A', '') == 'A'\n")
    marked = mark_public(statement, tests)
    assert marked.public_asserts == 1 and marked.hidden_count == 1
    # KodCode's pytest functions reach the evaluator as text inside the pytest shim: no assert to
    # mark, so none counts as public (its tests go well beyond its statements' doctests anyway).
    kodcode_public = Counter(r["tests"].public_asserts > 0 for r in processed["kodcode"])
    assert kodcode_public[True] == 0


def test_an_empty_value_the_statement_prints_is_public_too(processed):
    """``digits = ""`` and ``Output: []`` are examples a policy can memorise like any other."""
    statement = 'Example 2:\nInput: digits = ""\nOutput: []\nExample 3:\nInput: strs = ["dog","car"]\nOutput: ""\n'
    tests = Tests(kind="call", fn_name="f", cases=[
        TestCase('[""]', "[]"), TestCase('[["dog", "car"]]', '""'), TestCase('[["dog", "car"]]', '"d"')])
    assert [c.public for c in mark_public(statement, tests).cases] == [True, True, False]
    # on LeetCodeDataset, every call problem but two (a string of spaces) has only printed examples
    calls = [r for r in processed["leetcode"] if r["tests"].kind == "call"]
    assert sum(r["tests"].hidden_count > 0 for r in calls) <= 2


def test_leetcode_list_node_asserts_count_the_program_call_not_the_wrapper(processed):
    """``is_same_list(candidate(head = list_node([1,2])), list_node([2,1]))``: the example is the
    candidate's call and the expected list, as the statement prints them."""
    row = next(r for r in processed["leetcode"] if r["source_id"] == "add-two-numbers")
    assert row["tests"].kind == "assert" and row["tests"].hidden_count == 0
    asserts = [r for r in processed["leetcode"] if r["tests"].kind == "assert"]
    assert sum(r["tests"].hidden_count == 0 for r in asserts) >= 100  # of 121
