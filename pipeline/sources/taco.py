"""TACO (BAAI/TACO on the hub; the shared generation file joined with its parsed examples).

Hub records carry ``input_output`` (APPS layout) and ``solutions`` as JSON text. The shared
``taco_generation_example.json`` holds a prompt and one solution per task; its tests live in the
statement, parsed out into ``taco_test_stdin_with_examples.jsonl``, and ``output_spj.jsonl``
flags special-judge tasks. The local loader joins those by task id (options ``examples_files``,
``spj_files``), so one record is one problem; a task without parsed examples has no tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, as_list, index_id, megabytes, require_text, seconds
from pipeline.sources.loading import json_value, leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter
from pipeline.stage import Rejected

LICENSE = "Apache-2.0"


def load(spec: SourceSpec) -> Iterator[dict[str, Any] | Rejected]:
    examples: dict[str, dict[str, Any]] = {}
    for record in load_records(spec, tuple(spec.options.get("examples_files", ()))):
        if isinstance(record, dict):
            examples[str(record.get("task_id"))] = record
    spj: dict[str, bool] = {}
    for record in load_records(spec, tuple(spec.options.get("spj_files", ()))):
        if isinstance(record, dict):
            spj[str(record.get("idx"))] = bool(record.get("special_judge"))
    for record in load_records(spec):
        if isinstance(record, dict) and "prompt" in record:
            key = str(record.get("task_id"))
            record["_examples"] = examples.get(key)
            record["_special_judge"] = spj.get(key)
        yield record


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    if "prompt" in record:
        return _local_row(record, spec)
    return _hub_row(record, spec)


def _local_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    joined = record.get("_examples") or {}
    statement = joined.get("question") or require_text(record.get("prompt"))
    solutions = [s for s in as_list(record.get("output")) if isinstance(s, str) and s.strip()]
    special = record.get("_special_judge")
    if special is None:
        special = joined.get("special_judge")
    tests = None
    if joined.get("examples"):
        examples = joined["examples"]
        tests = {"inputs": [e.get("input") for e in examples], "outputs": [e.get("output") for e in examples]}
    metadata = {
        "special_judge": special,
        "examples_ref_passes": [e.get("ref_solution_passes") for e in joined.get("examples") or []],
        "statement_source": "examples_file" if joined else "prompt",
    }
    return make_row(
        source=spec.name, source_id=record.get("task_id"), statement=statement, starter_code="",
        tests=tests, tests_format="apps_io", solutions=solutions, license=LICENSE, metadata=metadata,
    )


def _hub_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    statement = require_text(record.get("question"))
    io = json_value(record.get("input_output"))
    if isinstance(io, str) and io.strip():
        raise Rejected("unparseable_tests", io[:200])
    solutions = json_value(record.get("solutions")) or []
    if isinstance(io, dict):
        io = dict(io)
        io.setdefault("time_limit_s", seconds(record.get("time_limit")))
        io.setdefault("memory_limit_mb", megabytes(record.get("memory_limit")))
    used = {"question", "input_output", "solutions", "starter_code", "difficulty", "tags", "url", "date"} | BOOKKEEPING
    return make_row(
        source=spec.name, source_id=record.get("name") or index_id(record, spec.split),
        statement=statement, starter_code=record.get("starter_code") or "",
        tests=io or None, tests_format="apps_io", solutions=[s for s in as_list(solutions) if isinstance(s, str)],
        source_difficulty=record.get("difficulty"), tags=as_list(json_value(record.get("tags"))),
        url=record.get("url"), license=LICENSE, contest_date=record.get("date"),
        metadata=leftovers(record, used),
    )


register_adapter(SourceAdapter("taco", LICENSE, load, to_row, "TACO: hub layout and the shared local files"))
