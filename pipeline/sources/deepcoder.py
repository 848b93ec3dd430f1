"""DeepCoder's preview dataset (agentica-org/DeepCoder-Preview-Dataset: lcbv5, primeintellect,
taco, codeforces subsets). ``tests`` is JSON text in the layout of the subset it came from:
LiveCodeBench cases (``testtype``), PrimeIntellect typed cases (``type``: stdin_stdout /
function_call), TACO's ``{inputs, outputs, fn_name}`` or plain ``[{input, output}]`` (codeforces).
"""

from __future__ import annotations

from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, as_list, fn_name_from_code, index_id, require_text
from pipeline.sources.loading import json_value, leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter
from pipeline.stage import Rejected

LICENSE = "MIT"


def load(spec: SourceSpec):
    return load_records(spec)


def tests_layout(tests: Any, starter: str, meta: Any) -> tuple[Any, str]:
    """(raw tests, format name) for one of DeepCoder's layouts."""
    fn_name = (meta.get("func_name") if isinstance(meta, dict) else None) or (
        fn_name_from_code(starter) if starter.strip() else None
    )
    if isinstance(tests, dict):
        if "inputs" in tests:
            return tests, "apps_io"
        raise Rejected("unparseable_tests", f"dict tests with keys {sorted(tests)[:5]}")
    if not isinstance(tests, list):
        raise Rejected("unparseable_tests", f"tests is {type(tests).__name__}")
    first = tests[0] if tests else {}
    if not isinstance(first, dict):
        raise Rejected("unparseable_tests", f"test case is {type(first).__name__}")
    if "testtype" in first:
        return {"cases": tests, "fn_name": fn_name}, "lcb"
    return tests, "typed_cases"  # PrimeIntellect (type, fn_name) or codeforces (no type: stdin)


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    statement = require_text(record.get("problem"))
    starter = record.get("starter_code") or ""
    tests = json_value(record.get("tests"))
    if isinstance(tests, str):
        raise Rejected("unparseable_tests", tests[:200])
    raw, fmt = tests_layout(tests, starter, json_value(record.get("metadata")))
    solutions = [s for s in as_list(json_value(record.get("solutions"))) if isinstance(s, str)]
    return make_row(
        source=spec.name, source_id=index_id(record, f"{spec.hub_name or 'local'}/{spec.split}"),
        statement=statement, starter_code=starter, tests=raw, tests_format=fmt, solutions=solutions,
        license=LICENSE, metadata=leftovers(record, {"problem", "tests", "starter_code", "solutions"} | BOOKKEEPING),
    )


register_adapter(SourceAdapter("deepcoder", LICENSE, load, to_row, "DeepCoder preview dataset (all subsets)"))
