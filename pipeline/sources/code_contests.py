"""CodeContests: deepmind/code_contests on the hub and the two rllm files in the shared data.

Hub records split tests into public/private/generated and solutions by language; only Python 3
programs are kept as references (the evaluator runs Python). ``test_code_contests.json`` has
``tests: {inputs, outputs}`` (APPS layout); rllm's ``train_verify.json`` has typed cases
(``[{type: "stdin_stdout", input, output}]``) and fenced solutions.
"""

from __future__ import annotations

from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, as_list, index_id, require_text, strip_fence
from pipeline.sources.loading import leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter

LICENSE = "CC-BY-4.0"
PYTHON3 = 3  # deepmind/code_contests Language enum: 1 PYTHON (2.x), 2 CPP, 3 PYTHON3, 4 JAVA


def load(spec: SourceSpec):
    return load_records(spec)


def _python3(block: Any) -> list[str]:
    if not isinstance(block, dict):
        return []
    return [code for lang, code in zip(block.get("language") or [], block.get("solution") or []) if lang == PYTHON3]


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    if "description" in record:
        return _hub_row(record, spec)
    statement = require_text(record.get("problem"))
    tests = record.get("tests")
    fmt = "typed_cases" if isinstance(tests, list) else "apps_io"
    solutions = [strip_fence(s) for s in as_list(record.get("solutions")) if isinstance(s, str)]
    return make_row(
        source=spec.name, source_id=index_id(record), statement=statement, starter_code="",
        tests=tests, tests_format=fmt, solutions=solutions, license=LICENSE,
        metadata=leftovers(record, {"problem", "tests", "solutions"} | BOOKKEEPING),
    )


def _hub_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    statement = require_text(record.get("description"))
    inputs: list[str] = []
    outputs: list[str] = []
    for key in ("public_tests", "private_tests", "generated_tests"):
        block = record.get(key) or {}
        inputs += list(block.get("input") or [])
        outputs += list(block.get("output") or [])
    limit = record.get("time_limit") or {}
    time_limit = (limit.get("seconds") or 0) + (limit.get("nanos") or 0) / 1e9 if isinstance(limit, dict) else None
    memory = record.get("memory_limit_bytes")
    tests = {
        "inputs": inputs, "outputs": outputs,
        "time_limit_s": time_limit or None, "memory_limit_mb": int(memory // 2**20) if memory else None,
    }
    used = {"description", "public_tests", "private_tests", "generated_tests", "solutions", "incorrect_solutions",
            "time_limit", "memory_limit_bytes", "cf_tags", "difficulty", "name"} | BOOKKEEPING
    return make_row(
        source=spec.name, source_id=record.get("name") or index_id(record, spec.split), statement=statement,
        starter_code="", tests=tests, tests_format="apps_io", solutions=_python3(record.get("solutions")),
        incorrect_solutions=_python3(record.get("incorrect_solutions")),
        source_difficulty=None if record.get("difficulty") is None else str(record.get("difficulty")),
        tags=as_list(record.get("cf_tags")), license=LICENSE, metadata=leftovers(record, used),
    )


register_adapter(SourceAdapter("code_contests", LICENSE, load, to_row, "CodeContests: hub and rllm layouts"))
