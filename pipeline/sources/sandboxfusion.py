"""SandboxFusion's sample datasets (bytedance/SandboxFusion ``sandbox/tests/datasets/samples``).

Each file has its own layout, told apart by its fields: CodeContests-style stdio tests
(``[{input: {stdin}, output: {stdout}}]``), plain assert code (MHPP, rl_train_oj), pytest code
(NaturalCodeBench), LiveCodeBench's compressed tests (decoded with the restricted unpickler).
Records in other programming languages and CRUXEval output prediction (no statement to solve)
are rejected with their reason.
"""

from __future__ import annotations

from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, file_stem, require_text, strip_fence
from pipeline.sources.livecodebench import decode_private_tests
from pipeline.sources.loading import json_value, leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter
from pipeline.stage import Rejected

LICENSE = "Apache-2.0"
# Solutions that only make a sandbox exit; no reference at all.
PLACEHOLDER_SOLUTIONS = {"import sys; sys.exit(0)"}


def load(spec: SourceSpec):
    return load_records(spec)


def _tests(test: Any) -> tuple[Any, str]:
    if isinstance(test, str) and test.lstrip()[:1] not in "[{" and "assert" not in test:
        try:
            decoded = decode_private_tests(test)
        except Exception as err:  # noqa: BLE001 - refuse anything the restricted unpickler refuses
            raise Rejected("unsafe_or_invalid_tests", f"{type(err).__name__}: {err}") from None
        decoded = json_value(decoded.get("input_output")) if isinstance(decoded, dict) else decoded
        if isinstance(decoded, dict) and "inputs" in decoded:
            return decoded, "apps_io"
        raise Rejected("unparseable_tests", f"decoded tests are {type(decoded).__name__}")
    value = json_value(test)
    if isinstance(value, list):
        return value, "sandbox_stdio"
    if isinstance(value, dict) and isinstance(value.get("code"), str):
        return {"test_code": value["code"], "asset": value.get("asset")}, "pytest"
    if isinstance(value, str) and value.strip():
        return {"assert_code": value}, "assert_code"
    raise Rejected("unparseable_tests", f"tests are {type(value).__name__}")


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    labels = json_value(record.get("labels")) or {}
    labels = labels if isinstance(labels, dict) else {"labels": labels}
    language = labels.get("programming_language") or labels.get("execution_language") or "python"
    if str(language).lower() not in ("python", "python3"):
        raise Rejected("unsupported_language", str(language))
    if "content" not in record and "code" in record and "input" in record:
        raise Rejected("unsupported_task", "CRUXEval output prediction: no problem statement to solve")
    statement = require_text(record.get("content"))
    tests, fmt = _tests(record.get("test"))
    solution = strip_fence(record.get("canonical_solution") or "").strip()
    solutions = [solution] if solution and solution not in PLACEHOLDER_SOLUTIONS else []
    extra = leftovers(record, {"content", "test", "canonical_solution", "labels", "id"} | BOOKKEEPING)
    extra["labels"] = labels
    return make_row(
        source=spec.name, source_id=f"{file_stem(record)}/{record.get('id')}", statement=statement, starter_code="",
        tests=tests, tests_format=fmt, solutions=solutions, source_difficulty=labels.get("difficulty"),
        tags=[t for t in labels.get("tags") or [] if isinstance(t, str)], license=LICENSE, metadata=extra,
    )


register_adapter(SourceAdapter("sandboxfusion", LICENSE, load, to_row, "SandboxFusion sample datasets"))
