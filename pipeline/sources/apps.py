"""APPS (codeparrot/apps on the hub) and MapCoder's APPS selection (``APPS_selected150.jsonl``).

The hub layout is TACO's (``input_output`` JSON text). MapCoder flattened each case: call
arguments joined one per line with ``str()`` and outputs wrapped in a list; its stdin-only
records even keep ``test_list`` as a Python repr. Those cases are kept in their own format,
``mapcoder_apps``; Process rebuilds call arguments from the starter code's signature.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, as_list, fn_name_from_code, require_text
from pipeline.sources.loading import INDEX_KEY, leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter
from pipeline.sources.taco import _hub_row
from pipeline.stage import Rejected

LICENSE = "MIT"


def load(spec: SourceSpec):
    """Records; an exact repeat of an earlier record (MapCoder read APPS train twice) is a reject."""
    seen: dict[str, int] = {}
    for record in load_records(spec):
        if isinstance(record, dict) and "test_list" in record:
            key = json.dumps({k: v for k, v in record.items() if k not in BOOKKEEPING}, sort_keys=True, default=str)
            if key in seen:
                yield Rejected("duplicate_record", f"id {record.get('id')} repeats record #{seen[key]}")
                continue
            seen[key] = record.get(INDEX_KEY, -1)
        yield record


def _python_value(value: Any, what: str) -> Any:
    if isinstance(value, str):
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError) as err:
            raise Rejected("unparseable_tests", f"{what}: {err}") from None
    return value


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    if "test_list" not in record:
        row = _hub_row(record, spec)
        row["license"] = LICENSE
        return row
    statement = require_text(record.get("description"))
    starter = record.get("starter_code") or ""
    cases = _python_value(record.get("test_list"), "test_list")
    if not isinstance(cases, list):
        raise Rejected("unparseable_tests", f"test_list is {type(cases).__name__}")
    samples = _python_value(record.get("sample_io"), "sample_io")
    tests = {"fn_name": fn_name_from_code(starter) if starter.strip() else None, "starter_code": starter, "cases": cases}
    return make_row(
        source=spec.name, source_id=record.get("id"), statement=statement, starter_code=starter,
        tests=tests, tests_format="mapcoder_apps", source_difficulty=record.get("difficulty"),
        license=LICENSE,
        metadata={**leftovers(record, {"description", "starter_code", "test_list", "sample_io", "difficulty", "id"} | BOOKKEEPING),
                  "num_sample_io": len(as_list(samples))},
    )


register_adapter(SourceAdapter("apps", LICENSE, load, to_row, "APPS: hub layout and MapCoder's selection"))
