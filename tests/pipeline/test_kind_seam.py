"""A new test kind is one class on each side: a kind in test generation and a grader in the
evaluator. Registered, its problems are verified, grown, judged and written back by the same driver
and the same evaluator as the built-in kinds, neither of which branches on it (issue 51's seam)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Generator
from typing import Any

import pytest

from evaluator import evaluate
from evaluator.graders import grader, grader_for, register_grader
from evaluator.graders.stdin import StdinGrader
from evaluator.model import _GRADED_KINDS as graded_kinds
from evaluator.model import Limits, Tests, Verdict
from pipeline.paths import shared_data_dir
from pipeline.process import process_rows
from pipeline.sources import collect, default_specs
from pipeline.verify import VerifyConfig, verify_rows
from pipeline.verify.testgen import Plan, TestGenConfig, kind_for, register_kind
from pipeline.verify.testgen import kind as kind_module
from pipeline.verify.testgen.stdin.kind import StdinKind

ONE_INT = re.compile(r"\s*(\d+)\s*")
TOY = "unordered_lines"


class UnorderedLines(StdinGrader):
    """The evaluator's toy grader: a program reads its input as a ``stdin`` one does (the same child
    layout), and its lines may come in any order."""

    child = "stdin"

    def compared(self, judging, case, run) -> tuple[Verdict, str]:
        def lines(text: str) -> list[str]:
            return sorted(line.strip() for line in text.strip().splitlines())

        ok = lines(run.candidate.stdout) == lines(case.output)
        return (Verdict.ACCEPTED, "") if ok else (Verdict.WRONG_ANSWER, "lines: " + run.candidate.stdout[:80])


class OneInteger(StdinKind):
    """Test generation's toy kind for the same tests: every input is one integer, grown by counting
    up from 1 rather than from an inferred grammar. How programs run, answers compare and tests are
    written is the stdin kind's."""

    serves = TOY

    def plan(self, row: dict[str, Any], statement: str) -> Plan[int]:
        plan = self.read(row)
        plan.profile = max(int(ONE_INT.fullmatch(x).group(1)) for x in plan.examples)  # the largest example
        return plan

    def propose(self, plan: Plan[int], n: int, seed: int) -> Generator[list[tuple[Any, str]], int, None]:
        top = min(plan.profile, 10 * n)
        yield [(f"{x}\n", "toy:count") for x in range(1, min(n, top) + 1)]


@pytest.fixture
def toy():
    register_grader(TOY)(UnorderedLines)
    register_kind(TOY)(OneInteger)
    yield kind_module._KINDS[TOY]
    del kind_module._KINDS[TOY], grader._GRADERS[TOY]  # other tests see the built-in kinds only
    graded_kinds.discard(TOY)


def test_the_toy_grader_judges_its_own_way(toy):
    tests = Tests(kind=TOY, cases=[{"input": "", "output": "a\nb\n"}])
    assert grader_for(tests).child == "stdin"
    swapped = "print('b')\nprint('a')\n"
    assert evaluate(swapped, tests, Limits(time_s=5)).verdict is Verdict.ACCEPTED
    assert evaluate(swapped, dataclasses.replace(tests, kind="stdin"), Limits(time_s=5)).verdict is Verdict.WRONG_ANSWER
    assert evaluate("print('a')\n", tests, Limits(time_s=5)).verdict is Verdict.WRONG_ANSWER


def test_a_toy_kind_runs_end_to_end_through_verify(toy):
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    rows = process_rows(collect(default_specs()["taco"]).kept).kept
    rows = [{**r, "tests": dataclasses.replace(r["tests"], kind=TOY), "solutions": r["solutions"][:1]}
            for r in rows[:140] if r.get("solutions") and r["tests"].kind == "stdin"
            and all(ONE_INT.fullmatch(c.input) for c in r["tests"].cases)][:3]
    assert len(rows) == 3 and all(kind_for(r["tests"]) is toy for r in rows)
    config = VerifyConfig(generation=TestGenConfig(inputs=30, max_tests=6, mutants=2, cache=False))
    kept = verify_rows(rows, config).kept
    grown = [r for r in kept if r.get("generated_tests")]
    assert grown, [r.get("generation_note") for r in kept]
    for row in grown:
        assert row["tests"].kind == TOY and row["verified"]
        made = [c for c in row["tests"].cases if c.how == "toy:count"]
        assert len(made) == row["generated_tests"] and all(ONE_INT.fullmatch(c.input) for c in made)
        assert row["tests_before_generation"] + len(made) == row["tests"].count
        assert evaluate(row["solutions"][0], row["tests"], Limits(time_s=5)).passed  # the reference, judged by the toy grader
