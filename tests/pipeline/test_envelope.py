"""The examples' envelope on real problems: generated inputs a correct program may reject are
left out (pipeline.testgen.envelope), the ones inside it kept."""

from __future__ import annotations

import pytest

from pipeline.process import process_rows
from pipeline.sources import collect, default_specs
from pipeline.testgen import asserts
from pipeline.testgen.envelope import Envelope


@pytest.fixture(scope="module")
def examples() -> dict[str, Envelope]:
    rows = process_rows(collect(default_specs()["humaneval"]).kept).kept
    rows += process_rows(collect(default_specs()["mbpp_test"]).kept).kept
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
])
def test_inputs_outside_the_examples_envelope_are_left_out(examples, problem, inside, outside):
    envelope = examples[problem]
    assert envelope.admits(inside, {})
    assert not envelope.admits(outside, {})
