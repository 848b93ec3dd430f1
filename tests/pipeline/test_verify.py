"""Verify with the real evaluator: test strength, several valid answers, time limits from the references."""

from __future__ import annotations

import json

import pytest

from pipeline.schema import Tests as CanonicalTests
from pipeline.schema import make_row
from pipeline.stage import StageStats
from pipeline.verify import VerifyConfig, derived_time_limit, strength_by_source, strength_markdown, verify_rows

# "Print any divisor of n that is greater than 1": several answers are valid.
DIVISOR_CASES = [{"input": "12\n", "output": "2\n"}, {"input": "9\n", "output": "3\n"}, {"input": "35\n", "output": "5\n"}]
SMALLEST = "n = int(input())\nprint(next(d for d in range(2, n + 1) if n % d == 0))\n"
THREE_FIRST = "n = int(input())\nprint(3 if n % 3 == 0 else next(d for d in range(2, n + 1) if n % d == 0))\n"  # 3 on 12: still right
DIVISOR_CHECKER = (
    "import sys\n"
    "inp, exp, out = (open(p).read() for p in sys.argv[1:4])\n"
    "n, d = int(inp), int(out.split()[0])\n"
    "sys.exit(0 if d > 1 and n % d == 0 else 1)\n"
)


def divisor_row(solutions: list[str], checker: str | None = None, incorrect: list[str] = (), time_limit_s: float | None = None):
    tests = CanonicalTests(kind="stdin", cases=DIVISOR_CASES, checker=checker, time_limit_s=time_limit_s)
    return make_row("unit", f"divisor-{len(solutions)}-{bool(checker)}", statement="Print any divisor d > 1 of n.",
                    tests=tests, solutions=solutions, incorrect_solutions=list(incorrect))


def test_references_that_disagree_without_checker_are_rejected():
    result = verify_rows([divisor_row([SMALLEST, THREE_FIRST])], VerifyConfig(workers=2))
    assert not result.kept and [r["reason"] for r in result.rejects] == ["multiple_valid_answers"]
    detail = json.loads(result.rejects[0]["detail"])
    assert detail["references"] == [0, 1] and detail["outputs"][0].strip() != detail["outputs"][1].strip()
    assert json.loads(result.rejects[0]["record"])["solutions"] == [SMALLEST, THREE_FIRST]  # nothing lost


def test_references_that_pass_come_first_for_test_generation():
    """Test generation's oracle, mutants and hardcoder take the first references: a failing first
    reference moves behind the one that passes."""
    wrong = "n = int(input())\nprint(n)\n"
    result = verify_rows([divisor_row([wrong, SMALLEST])], VerifyConfig(workers=2, weak_tests="mark"))
    assert [r["solutions"] for r in result.kept] == [[SMALLEST, wrong]] and result.kept[0]["references_passed"] == 1


def test_references_that_disagree_with_a_checker_are_kept_and_marked():
    result = verify_rows([divisor_row([SMALLEST, THREE_FIRST], checker=DIVISOR_CHECKER)], VerifyConfig(workers=2))
    assert not result.rejects
    (row,) = result.kept
    assert row["verified"] and row["multiple_answers"] and row["references_passed"] == 2


def test_references_that_agree_are_kept():
    same = "n = int(input())\nd = 2\nwhile n % d:\n    d += 1\nprint(d)\n"
    result = verify_rows([divisor_row([SMALLEST, same])], VerifyConfig(workers=2))
    assert [r["multiple_answers"] for r in result.kept] == [False] and not result.rejects


def test_time_limit_from_the_references_and_wrong_programs_under_it():
    loops = "n = int(input())\nwhile True:\n    n += 1\n"
    wrong = "print(2)\n"  # right on 12 only
    row = divisor_row([SMALLEST], incorrect=[loops, wrong], time_limit_s=10.0)
    result = verify_rows([row], VerifyConfig(workers=2, time_limit_factor=3.0, min_time_limit_s=1.0))
    (kept,) = result.kept
    limit = kept["tests"].time_limit_s
    assert limit == 1.0 and 0 < kept["reference_cpu_s"] < limit  # a print program needs far less than 1 s
    assert (kept["incorrect_run"], kept["incorrect_rejected"], kept["test_strength"], kept["weak_tests"]) == (2, 2, 1.0, False)
    assert json.loads(kept["incorrect_survivors"]) == []


def test_derived_time_limit_floor_factor_and_source_cap():
    config = VerifyConfig(time_limit_factor=3.0, min_time_limit_s=1.0)
    assert derived_time_limit(0.05, None, config) == 1.0
    assert derived_time_limit(0.8, None, config) == 2.4
    assert derived_time_limit(0.8, 2.0, config) == 2.0  # the source's own limit caps
    assert derived_time_limit(2.5, 2.0, config) == 7.5  # never below what a reference needed


def test_no_wrong_programs_means_no_strength_not_full_strength():
    result = verify_rows([divisor_row([SMALLEST])], VerifyConfig(workers=2))
    (row,) = result.kept
    assert row["incorrect_run"] == 0 and row["test_strength"] is None and row["weak_tests"] is False
    summary = strength_by_source(result.kept, result.rejects)
    assert summary["unit"]["mean_strength"] is None and "n/a" in strength_markdown(summary)


WEAK_TRAVERSAL = """from typing import List

def enhanced_inorder_traversal(root) -> List[int]:
    seen, todo = set(), [root] if root else []
    while todo:
        node = todo.pop()
        seen.add(node.data)
        todo += [c for c in (node.left_child, node.right_child) if c]
    return sorted(seen)
"""


@pytest.fixture(scope="module")
def kodcode_with_wrong_programs(shared_data):
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    rows = process_rows(collect(default_specs()["kodcode"]).kept).kept
    weak = [dict(r) for r in rows if r["source_id"] == "algorithm/00000051"]
    others = [r for r in rows if r["incorrect_solutions"] and r["source_id"] != "algorithm/00000051"][:8]
    assert weak and weak[0]["incorrect_solutions"], "the KodCode demo row with a weak test suite"
    # Its failing attempt fails at import (an annotation names a class it never defines), so its
    # tests reject every attempt KodCode labels wrong. A traversal that drops repeated keys passes
    # them: no test tree repeats a key, the weak-suite case.
    weak[0]["incorrect_solutions"] = [WEAK_TRAVERSAL]
    return weak + others


@pytest.mark.parametrize("mode", ["reject", "mark"])
def test_kodcode_wrong_programs_measure_the_tests(kodcode_with_wrong_programs, mode):
    result = verify_rows(kodcode_with_wrong_programs, VerifyConfig(workers=2, weak_tests=mode))
    weak_id = kodcode_with_wrong_programs[0]["problem_id"]
    strong = [r for r in result.kept if r["problem_id"] != weak_id]
    assert strong and all(r["incorrect_run"] >= 1 and r["test_strength"] == 1.0 and not r["weak_tests"] for r in strong)
    if mode == "reject":
        (reject,) = [r for r in result.rejects if r["problem_id"] == weak_id]
        detail = json.loads(reject["detail"])
        assert reject["reason"] == "weak_tests" and detail["survivors"] == [0]
        assert detail["program"] == kodcode_with_wrong_programs[0]["incorrect_solutions"][0]
        assert weak_id not in {r["problem_id"] for r in result.kept}
    else:
        (row,) = [r for r in result.kept if r["problem_id"] == weak_id]
        assert row["weak_tests"] and json.loads(row["incorrect_survivors"]) == [0] and row["test_strength"] < 1.0
    summary = strength_by_source(result.kept, result.rejects)["kodcode"]
    assert summary["with_incorrect"] == len(kodcode_with_wrong_programs) - result.stats.reasons.get("no_reference_passes", 0)
    assert summary["weak_rejected" if mode == "reject" else "weak_kept"] == 1
    # the attempts KodCode labels correct run on the final tests too: the card's TPR
    assert sum(r["labelled_correct_run"] for r in result.kept) >= len(strong)
    assert all(r["labelled_correct_accepted"] == r["labelled_correct_run"] for r in result.kept)
    from pipeline.verify.report import funnel_by_source

    assert funnel_by_source(result.kept, result.rejects)["kodcode"]["tpr"] == 1.0


def test_card_shows_test_strength_per_source():
    from pipeline.shards import card_markdown

    table = strength_markdown(strength_by_source([{"source": "kodcode", "incorrect_run": 2, "incorrect_rejected": 2, "test_strength": 1.0}]))
    card = card_markdown({"verify": StageStats(3, 1, 2)}, {}, {}, {}, {"train": 1}, test_strength=table)
    assert "| verify | 3 | 1 | 2 |" in card and "## Test strength" in card and "| kodcode | 1 | 1 | 2 | 2 | 1.0 |" in card


def test_verify_asset_metadata_has_strength_by_source(kodcode_with_wrong_programs, tmp_path, monkeypatch):
    """The real ``verify_problems`` multi-asset, materialized in memory on KodCode rows."""
    import dagster as dg

    from assets.dataset.assets import verify_problems
    from assets.resources import EvaluatorResource, SamplerResource
    from pipeline.schema import PROCESSED_SCHEMA, rows_from_table, rows_to_table

    monkeypatch.setenv("MICROCODER_DATA", str(tmp_path))  # Verify's shard cache starts empty

    @dg.asset(name="filtered_problems")
    def filtered():  # in memory: the rows as the IO manager would hand them on
        return rows_from_table(rows_to_table(kodcode_with_wrong_programs[:3], PROCESSED_SCHEMA))

    def materialize():
        result = dg.materialize_to_memory(
            [filtered, verify_problems], selection=["filtered_problems", "verified_problems", "verify_rejects"],
            resources={"sampler": SamplerResource(), "evaluator": EvaluatorResource()})  # sampler: model-written inputs only
        assert result.success
        (event,) = [m for m in result.asset_materializations_for_node("verify_problems")
                    if m.asset_key.path[-1] == "verified_problems"]
        return event

    materialization = materialize()
    shards = materialization.metadata["stage_stats"].value["shards"]
    assert materialization.metadata["shards_reused"].value == f"0/{shards}"
    again = materialize()  # a refresh with nothing changed: every shard from the first run
    assert again.metadata["shards_reused"].value == f"{shards}/{shards}"
    assert again.metadata["dagster/row_count"].value == materialization.metadata["dagster/row_count"].value
    summary = materialization.metadata["test_strength_by_source_json"].value["kodcode"]
    assert summary["with_incorrect"] >= 1 and summary["weak_rejected"] == 1
    assert "| kodcode |" in materialization.metadata["test_strength_by_source"].value
    funnel = materialization.metadata["verify_funnel_by_source_json"].value["kodcode"]
    assert funnel["problems_in"] == 3 and funnel["hardcoder_run"] == funnel["released"]
    assert funnel["correct_programs_run"] >= 1 and funnel["tpr"] == 1.0


def test_a_reference_the_evaluator_failed_runs_once_more():
    """An ``internal_error`` is the evaluator's hiccup, never the program's: that reference runs
    again, and the problem is judged on the second run (a main job lost a KodCode problem so)."""
    from evaluator.backend import LocalBackend
    from evaluator.model import Result, Verdict
    from pipeline.verify import reference_jobs, run_references

    tests = CanonicalTests(kind="stdin", cases=[{"input": "2\n", "output": "4\n"}])
    rows = [{"problem_id": "p", "tests": tests, "solutions": ["print(int(input()) * 2)"]}]
    calls = []

    class Flaky(LocalBackend):
        def evaluate_many(self, jobs, limits=None, options=None):
            calls.append(len(jobs))
            if len(calls) == 1:
                return [Result.failed(Verdict.INTERNAL_ERROR, "worker start timed out", key=j[0]) for j in jobs]
            return super().evaluate_many(jobs, limits, options)

    by_problem = run_references(rows, reference_jobs(rows, VerifyConfig()), VerifyConfig(), Flaky())
    assert calls == [1, 1] and by_problem["p"][0].verdict is Verdict.ACCEPTED


def test_the_generation_columns_are_stored_as_the_report_declares_them():
    """``GenerationColumns`` declares the generation columns; the schema stores the same, in order,
    with a storage type for each declared type."""
    import dataclasses

    import pyarrow as pa

    from pipeline.schema import VERIFIED_SCHEMA, GenerationColumns

    declared = dataclasses.fields(GenerationColumns)
    names = VERIFIED_SCHEMA.names
    start = names.index(declared[0].name)
    assert names[start:start + len(declared)] == [f.name for f in declared]
    storage = {"int": pa.int64(), "bool": pa.bool_(), "str": pa.string(), "str | None": pa.string(), "float | None": pa.float64()}
    assert all(VERIFIED_SCHEMA.field(f.name).type == storage[f.type] for f in declared)
