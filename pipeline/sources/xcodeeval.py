"""xCodeEval program synthesis (MapCoder's ``prog_syn_val.jsonl``): Codeforces problems with the
statement split into description / input spec / output spec / notes, sample I/O only, rating,
time and memory limits."""

from __future__ import annotations

from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, megabytes, require_text, seconds
from pipeline.sources.loading import leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter

LICENSE = "CC-BY-NC-4.0"


def load(spec: SourceSpec):
    return load_records(spec)


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    parts = [require_text(record.get("description"))]
    for title, key in (("Input", "input_spec"), ("Output", "output_spec"), ("Note", "notes")):
        text = (record.get(key) or "").strip()
        if text:
            text = text.removeprefix("Note").strip() if key == "notes" else text
            parts.append(f"{title}\n{text}")
    tests = {
        "inputs": list(record.get("sample_inputs") or []),
        "outputs": list(record.get("sample_outputs") or []),
        "time_limit_s": seconds(record.get("time_limit")),
        "memory_limit_mb": megabytes(record.get("memory_limit")),
    }
    used = {"description", "input_spec", "output_spec", "notes", "sample_inputs", "sample_outputs",
            "time_limit", "memory_limit", "tags", "difficulty", "src_uid"} | BOOKKEEPING
    return make_row(
        source=spec.name, source_id=record.get("src_uid"), statement="\n\n".join(parts), starter_code="",
        tests=tests, tests_format="apps_io", source_difficulty=None if record.get("difficulty") is None else str(record["difficulty"]),
        tags=list(record.get("tags") or []), license=LICENSE, metadata=leftovers(record, used),
    )


register_adapter(SourceAdapter("xcodeeval", LICENSE, load, to_row, "xCodeEval program synthesis samples"))
