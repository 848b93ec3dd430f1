"""MBPP (google-research mbpp.jsonl layout): ``text``, ``code``, ``test_list``, ``test_setup_code``.

``options["split"]``: ``"test"`` reads MBPP's test split only (task ids 11..510, the benchmark),
``"train"`` every other task; absent, every record.
"""

from __future__ import annotations

from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, require_text
from pipeline.sources.loading import leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter

LICENSE = "CC-BY-4.0"


TEST_TASK_IDS = range(11, 511)  # MBPP's test split


def load(spec: SourceSpec):
    split = spec.options.get("split")
    if split not in (None, "test", "train"):
        raise ValueError(f"source {spec.name!r}: mbpp split {split!r} is not 'test' or 'train'")
    for record in load_records(spec):
        if split is not None:  # a line that is no record is reported once, by the train split
            task = record.get("task_id") if isinstance(record, dict) else None
            in_test = task is not None and str(task).isdigit() and int(task) in TEST_TASK_IDS
            if in_test != (split == "test"):
                continue
        yield record


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    statement = require_text(record.get("text") or record.get("prompt"))
    tests = {
        "test_setup_code": record.get("test_setup_code") or "",
        "test_list": list(record.get("test_list") or []),
        "challenge_test_list": list(record.get("challenge_test_list") or []),
    }
    used = {"text", "prompt", "code", "test_list", "test_setup_code", "challenge_test_list", "task_id"} | BOOKKEEPING
    return make_row(
        source=spec.name, source_id=record.get("task_id"), statement=statement, starter_code="",
        tests=tests, tests_format="mbpp", solutions=[record["code"]] if record.get("code") else [],
        license=LICENSE, metadata=leftovers(record, used),
    )


register_adapter(SourceAdapter("mbpp", LICENSE, load, to_row, "MBPP"))
