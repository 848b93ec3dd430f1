"""The stage contract (pipeline/stage.py) and the storage edge (rows_to_table / rows_from_table), on real rows."""

from __future__ import annotations

import json

import pytest

from pipeline.schema import PROCESSED_SCHEMA, REJECT_SCHEMA, Tests, rows_from_table, rows_to_table
from pipeline.stage import PROCESS, Rejected, StageResult, StageStats, reject, run_steps


@pytest.fixture(scope="module")
def processed(shared_data) -> list[dict]:
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    return process_rows(collect(default_specs()["mbpp"]).kept).kept[:6]


def test_run_steps_rejects_one_row_and_keeps_the_rest(processed):
    poisoned, refused = processed[1]["problem_id"], processed[2]["problem_id"]

    def step(row):
        if row["problem_id"] == poisoned:
            raise KeyError("boom")
        if row["problem_id"] == refused:
            raise Rejected("too_plain", "a reason a person reads")
        row["statement"] = "changed"
        return row

    result = run_steps(processed, [step], PROCESS)
    assert isinstance(result, StageResult)
    assert [r["problem_id"] for r in result.kept] == [r["problem_id"] for r in processed if r["problem_id"] not in (poisoned, refused)]
    assert [(r["reason"], r["stage"]) for r in result.rejects] == [("process_error", PROCESS), ("too_plain", PROCESS)]
    assert "KeyError" in result.rejects[0]["detail"] and result.rejects[1]["detail"] == "a reason a person reads"
    # a reject keeps the row as it came in, tests as JSON text; the input rows are not modified
    record = json.loads(result.rejects[1]["record"])
    assert record["statement"] == processed[2]["statement"] != "changed"
    assert Tests.from_json(record["tests"]) == processed[2]["tests"]
    assert all(r["statement"] != "changed" for r in processed)
    assert result.stats == StageStats(6, 4, 2, {"process_error": 1, "too_plain": 1})


def test_tests_are_parsed_once_at_the_storage_edge(processed):
    assert all(isinstance(r["tests"], Tests) for r in processed)  # Process hands on typed tests
    table = rows_to_table(processed, PROCESSED_SCHEMA)
    assert table.schema.field("tests").type == "string"  # stored as JSON text
    back = rows_from_table(table)
    assert [r["tests"] for r in back] == [r["tests"] for r in processed]
    rejects = [reject(PROCESS, row, "why") for row in processed]
    assert rows_to_table(rejects, REJECT_SCHEMA).num_rows == len(processed)
