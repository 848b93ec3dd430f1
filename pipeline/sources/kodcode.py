"""KodCode: KodCode/KodCode-V1 on the hub and the KodCode demo files in the shared data.

Tests are pytest code (``test_code`` / ``test``). The demo's ``Verified_*.json`` records are
problems; ``kodcode_demo_labeled.jsonl`` (option ``labels_files``) says which of the three model
attempts pass the chosen tests: attempts confirmed failing become ``incorrect_solutions``, the
passing ones ``metadata.passing_attempts`` (labelled correct, for the TPR of Verify's tests).
``Failed_*`` records are prompts whose attempts all failed verification: no tests, no reference,
so each is rejected as ``failed_verification``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, index_id, require_text
from pipeline.sources.loading import FILE_KEY, INDEX_KEY, json_value, leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter
from pipeline.stage import Rejected

LICENSE = "CC-BY-NC-4.0"


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() == "true"


def load(spec: SourceSpec) -> Iterator[dict[str, Any] | Rejected]:
    labels: dict[tuple[str, int], dict[str, Any]] = {}
    for record in load_records(spec, tuple(spec.options.get("labels_files", ()))):
        if isinstance(record, dict):
            labels[(str(record.get("source_file")), int(record.get("index")))] = record
    for record in load_records(spec):
        if isinstance(record, dict):
            record["_labels"] = labels.get((str(record.get(FILE_KEY)), int(record.get(INDEX_KEY, -1))))
        yield record


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    if "messages" in record:
        meta = record.get("metadata") or {}
        raise Rejected("failed_verification", f"pass_sequence={meta.get('pass_sequence')}")
    if "question" in record:
        return _hub_row(record, spec)
    statement = require_text(record.get("instruction"))
    test_code = require_text(record.get("test_code"), "tests")
    labels = record.get("_labels") or {}
    attempts = [c for c in labels.get("candidate_solutions") or [] if c.get("code")]
    incorrect = [c["code"] for c in attempts if not _truthy(c.get("passes_reference_tests"))]
    meta = record.get("metadata") or {}
    source_id = f"{meta.get('mode', 'local')}/{meta.get('prompt_id', index_id(record))}"
    used = {"instruction", "response", "test_code", "_labels"} | BOOKKEEPING
    extra = leftovers(record, used)
    extra["trials"] = {k: {"test_result": v.get("test_result"), "test_coverage": v.get("test_coverage")}
                       for k, v in (record.get("trials") or {}).items() if isinstance(v, dict)}
    extra["labelled"] = bool(labels)
    extra["reference_passes"] = labels.get("reference_passes")
    # labelled correct: Verify runs them on the final tests, the TPR the dataset card shows
    extra["passing_attempts"] = [c["code"] for c in attempts if _truthy(c.get("passes_reference_tests"))]
    return make_row(
        source=spec.name, source_id=source_id, statement=statement, starter_code="",
        tests={"test_code": test_code}, tests_format="pytest", solutions=[record.get("response")] if record.get("response") else [],
        incorrect_solutions=incorrect, license=LICENSE, metadata=extra,
    )


def _hub_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    statement = require_text(record.get("question"))
    test_code = require_text(record.get("test"), "tests")
    used = {"question", "solution", "test", "question_id", "gpt_difficulty"} | BOOKKEEPING
    return make_row(
        source=spec.name, source_id=record.get("question_id") or index_id(record, spec.split), statement=statement,
        starter_code="", tests={"test_code": test_code}, tests_format="pytest",
        solutions=[record["solution"]] if record.get("solution") else [],
        source_difficulty=record.get("gpt_difficulty"), license=LICENSE,
        metadata=leftovers({k: json_value(v) for k, v in record.items()}, used),
    )


register_adapter(SourceAdapter("kodcode", LICENSE, load, to_row, "KodCode: hub V1 and the demo files"))
