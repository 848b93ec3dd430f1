"""LiveCodeBench (livecodebench/code_generation_lite) and rllm's flattened test file.

The hub's ``private_test_cases`` are base64(zlib(pickle(JSON text))). Unpickling untrusted bytes
with plain :mod:`pickle` runs arbitrary code, so :func:`decode_private_tests` uses a restricted
unpickler that admits only plain data (str, bytes, numbers, lists, dicts, ...): any global (a
class, a function such as ``os.system``) is refused and the record is rejected.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import zlib
from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, fn_name_from_code, index_id, require_text
from pipeline.sources.loading import json_value, leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter
from pipeline.stage import Rejected

LICENSE = "CC-BY-4.0"
MAX_DECOMPRESSED = 1 << 30  # a zip bomb in a record must not take the machine down


class RestrictedUnpickler(pickle.Unpickler):
    """Admits only the built-in plain types pickle encodes without globals; refuses the rest."""

    def find_class(self, module: str, name: str) -> Any:  # noqa: D401 - pickle API
        raise pickle.UnpicklingError(f"refused global {module}.{name} in untrusted pickle")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused persistent id in untrusted pickle")


def restricted_loads(data: bytes) -> Any:
    """``pickle.loads`` for untrusted bytes: plain data only, never code."""
    return RestrictedUnpickler(io.BytesIO(data)).load()


def decode_private_tests(text: str) -> Any:
    """The hub's compressed private tests: JSON text as is, or base64(zlib(pickle(JSON text)))."""
    text = (text or "").strip()
    if not text:
        return []
    if text[:1] in "[{":
        return json.loads(text)
    raw = base64.b64decode(text, validate=False)
    inflater = zlib.decompressobj()
    data = inflater.decompress(raw, MAX_DECOMPRESSED)
    if inflater.unconsumed_tail:
        raise ValueError("private tests decompress beyond the size limit")
    value = restricted_loads(data)
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    return json.loads(value) if isinstance(value, str) else value


def load(spec: SourceSpec):
    return load_records(spec)


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    if "question_content" in record:
        return _hub_row(record, spec)
    statement = require_text(record.get("problem"))
    starter = record.get("starter_code") or ""
    tests = {"cases": record.get("tests") or [], "fn_name": fn_name_from_code(starter) if starter.strip() else None}
    return make_row(
        source=spec.name, source_id=index_id(record), statement=statement, starter_code=starter,
        tests=tests, tests_format="lcb", license=LICENSE,
        metadata=leftovers(record, {"problem", "starter_code", "tests"} | BOOKKEEPING),
    )


def _hub_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    statement = require_text(record.get("question_content"))
    public = json_value(record.get("public_test_cases")) or []
    try:
        private = decode_private_tests(record.get("private_test_cases") or "")
    except (pickle.UnpicklingError, ValueError, zlib.error, EOFError, TypeError) as err:
        raise Rejected("unsafe_or_invalid_private_tests", f"{type(err).__name__}: {err}") from None
    meta = json_value(record.get("metadata")) or {}
    starter = record.get("starter_code") or ""
    fn_name = (meta.get("func_name") if isinstance(meta, dict) else None) or (
        fn_name_from_code(starter) if starter.strip() else None
    )
    tests = {"cases": list(public) + list(private or []), "fn_name": fn_name}
    used = {"question_content", "public_test_cases", "private_test_cases", "starter_code", "difficulty",
            "contest_date", "question_id"} | BOOKKEEPING
    return make_row(
        source=spec.name, source_id=record.get("question_id") or index_id(record, spec.split), statement=statement,
        starter_code=starter, tests=tests, tests_format="lcb", source_difficulty=record.get("difficulty"),
        license=LICENSE, contest_date=None if record.get("contest_date") is None else str(record.get("contest_date")),
        metadata=leftovers(record, used),
    )


register_adapter(SourceAdapter("livecodebench", LICENSE, load, to_row, "LiveCodeBench: hub lite and rllm layouts"))
