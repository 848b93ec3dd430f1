"""The examples' envelope on real problems: generated inputs a correct program may reject are
left out (pipeline.verify.testgen.call.envelope), the ones inside it kept."""

from __future__ import annotations

import pytest

from pipeline.process import process_rows
from pipeline.sources import collect, default_specs
from pipeline.verify.testgen.asserts import calls as asserts
from pipeline.verify.testgen.call.envelope import Envelope


@pytest.fixture(scope="module")
def examples() -> dict[str, Envelope]:
    rows = process_rows(collect(default_specs()["humaneval"]).kept).kept
    rows += process_rows(collect(default_specs()["mbpp_test"]).kept).kept
    rows += process_rows(collect(default_specs()["mbpp"]).kept).kept
    out = {}
    for row in rows:
        found = asserts.examples(row["tests"])
        if found:
            out[row["source_id"]] = Envelope([(a, k) for a, k, _ in found[1]])
    return out


@pytest.mark.parametrize("problem, inside, outside", [
    # "a supplied list of numbers (of length at least two)"
    ("HumanEval/20", ([1.0, 2.5],), ([1.0],)),
    # groups of nested parentheses: balanced ones only
    ("HumanEval/1", ("(()) ()",), ("(() ) )(",)),
    ("HumanEval/6", ("(()) ((()))",), ("(()(",)),
    # "5 apples and 6 oranges": the numbers change, the words stay
    ("HumanEval/67", ("12 apples and 3 oranges", 20), ("12 apples and 3", 20)),
    # one operator fewer than operands
    ("HumanEval/160", (["+", "*"], [2, 3, 4]), (["+", "*"], [2, 3])),
    # a tuple with one nested tuple: count the elements before it
    ("278", ((1, 5, 7, (4, 6), 10),), ((1, 5, 7, 10),)),
    # opposite signs: zero has none
    ("58", (5, -3), (0, -3)),
    # every example's list varies: all equal is the edge where "an empty subarray" is open
    ("559", ([-2, -3, 4, -1], 4), ([-11, -11, -11, -11], 4)),
    # the second list is never shorter than the first
    ("723", ([1, 2, 3], [1, 2, 3, 4]), ([1, 2, 3, 4], [1, 2, 3])),
    # "groups separated by spaces", each balanced
    ("HumanEval/6", ("(()) ()",), (")( ()",)),
    # every example is large: not a tenth of the smallest (a dog's age in human years from 12)
    ("264", (12,), (1,)),
    # a small whole number alone grows to twice the examples', not ten times (the n-th Jacobsthal number)
    ("752", (9,), (50,)),
    # nested lists (a matrix): measured like the rest, never an error
    ("12", ([[1, 2, 3], [2, 4, 5], [1, 1, 2]],), ([],)),
    # operators: one of those the examples use
    ("HumanEval/160", (["+", "*"], [2, 3, 4]), (["+*", "*"], [2, 3, 4])),
])
def test_inputs_outside_the_examples_envelope_are_left_out(examples, problem, inside, outside):
    envelope = examples[problem]
    assert envelope.admits(inside, {})
    assert not envelope.admits(outside, {})


def test_an_answer_that_lost_digits_to_floats_is_no_answer():
    from pipeline.verify.testgen import float_derived

    # MBPP 739 (`math.sqrt` of a 40-digit number): exactly a float, the whole mantissa used
    assert float_derived(4472135954999579136) and float_derived("4472135954999579136\n")
    # exact big answers: a power of two, a power of ten, any integer that is not exactly a float
    assert not float_derived(2**60) and not float_derived(10**18) and not float_derived(10**18 + 1)
    assert not float_derived([1, 2, True]) and not float_derived(141421356237310)
    # an answer of thousands of digits (past Python's int-from-text limit) is simply not one
    assert not float_derived("7" * 6535 + "\n") and not float_derived(7 ** 8000)


def test_edges_leave_the_envelope_but_keep_what_the_statement_and_the_pairs_of_arguments_say():
    """Empty, single, ties and long for sized arguments; numbers only at a stated range's ends (a
    negation or zero with nothing stated failed correct programs); never an edge that breaks the
    length relation every example keeps between two arguments (elementwise tuples)."""
    from pipeline.verify.testgen.call.edges import edge_calls
    from pipeline.verify.testgen.call.profile import CallProfile

    free = CallProfile.infer([(((10, 4, 6), (5, 2, 3)), {}, (2, 2, 2)), (((12, 6), (3, 2)), {}, (4, 3))], "",
                             ["test_tup1", "test_tup2"])
    calls = edge_calls(free, 40)
    whats = {label.split(":")[1] for _, label in calls}
    assert whats == {"empty", "single", "ties", "long"}
    assert all(free.envelope.lengths_kept(*call) is False for call, label in calls if "empty" in label)
    assert free.envelope.lengths_kept(((1, 2), (3, 4)), {}) and not free.envelope.lengths_kept(((1, 2), (3,)), {})

    stated = CallProfile.infer([((5,), {}, 120), ((3,), {}, 6)], "Constraints: -10 <= n <= 20", ["n"])
    assert sorted(call[0][0] for call, _ in edge_calls(stated, 10)) == [-10, 0, 20]
    assert edge_calls(CallProfile.infer([((5,), {}, 120)], "", ["n"]), 10) == []
