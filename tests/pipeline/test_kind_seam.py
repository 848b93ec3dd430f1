"""A new test kind is one class: registered, it is planned, run, judged and written back by the
same driver as the built-in kinds, which never branches on it (issue 51's seam)."""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any

import pytest

from pipeline.paths import shared_data_dir
from pipeline.process import process_rows
from pipeline.sources import collect, default_specs
from pipeline.verify import VerifyConfig, verify_rows
from pipeline.verify.testgen import Plan, TestGenConfig, kind_for, register_kind
from pipeline.verify.testgen import kind as kind_module
from pipeline.verify.testgen.stdin.kind import StdinKind

ONE_INT = re.compile(r"\s*(\d+)\s*")


class OneInteger(StdinKind):
    """A toy kind: stdin problems whose every input is one integer, grown by counting up from 1
    rather than from an inferred grammar. How programs run, answers compare and tests are written
    is the stdin kind's."""

    def claims(self, tests) -> bool:
        return bool(tests.cases) and all(ONE_INT.fullmatch(c.input) for c in tests.cases)

    def plan(self, row: dict[str, Any], statement: str) -> Plan[int]:
        plan = self.read(row)
        plan.profile = max(int(ONE_INT.fullmatch(x).group(1)) for x in plan.examples)  # the largest example
        return plan

    def propose(self, plan: Plan[int], n: int, seed: int) -> Generator[list[tuple[Any, str]], int, None]:
        top = min(plan.profile, 10 * n)
        yield [(f"{x}\n", "toy:count") for x in range(1, min(n, top) + 1)]


@pytest.fixture
def toy_kind():
    register_kind("toy_one_integer")(OneInteger)
    yield kind_module._KINDS["toy_one_integer"]
    del kind_module._KINDS["toy_one_integer"]  # other tests' stdin rows go back to the stdin kind


def test_a_toy_kind_runs_end_to_end_through_verify(toy_kind):
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    rows = process_rows(collect(default_specs()["taco"]).kept).kept
    rows = [r for r in rows[:140] if r.get("solutions") and toy_kind.claims(r["tests"])][:3]
    assert len(rows) == 3 and all(kind_for(r["tests"]) is toy_kind for r in rows)
    config = VerifyConfig(generation=TestGenConfig(inputs=30, max_tests=6, mutants=2, cache=False))
    kept = verify_rows(rows, config).kept
    grown = [r for r in kept if r.get("generated_tests")]
    assert grown, [r.get("generation_note") for r in kept]
    for row in grown:
        made = [c for c in row["tests"].cases if c.how == "toy:count"]
        assert len(made) == row["generated_tests"] and all(ONE_INT.fullmatch(c.input) for c in made)
        assert row["tests_before_generation"] + len(made) == row["tests"].count
