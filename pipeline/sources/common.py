"""Small helpers the adapters share: ids, statements, solution lists, limits."""

from __future__ import annotations

import re
from typing import Any

from pipeline.sources.loading import FILE_KEY, INDEX_KEY
from pipeline.stage import Rejected

BOOKKEEPING = {FILE_KEY, INDEX_KEY}


def require_text(value: Any, what: str = "statement") -> str:
    """A non-empty string, or the record is malformed."""
    if not isinstance(value, str) or not value.strip():
        raise Rejected(f"missing_{what}", f"{what} is {type(value).__name__ if value is not None else 'missing'}")
    return value


def file_stem(record: dict[str, Any]) -> str:
    name = str(record.get(FILE_KEY) or "")
    for suffix in (".gz", ".jsonl", ".json", ".parquet"):
        name = name.removesuffix(suffix)
    return name


def index_id(record: dict[str, Any], prefix: str | None = None) -> str:
    """For sources without ids: the record's position in its (fixed, versioned) file."""
    return f"{prefix if prefix is not None else file_stem(record)}/{record.get(INDEX_KEY)}"


def as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


_FENCE = re.compile(r"^\s*```[\w+-]*\s*\n(.*?)\n?```\s*$", re.S)


def strip_fence(code: str) -> str:
    """``` ```python ... ``` ``` around a whole solution (rllm, sandboxfusion) is not code."""
    match = _FENCE.match(code or "")
    return match.group(1) if match else code


_SECONDS = re.compile(r"([\d.]+)\s*(?:s|sec|second|seconds)\b", re.I)
_MEGABYTES = re.compile(r"([\d.]+)\s*(?:mb|megabytes?|mib)\b", re.I)


def seconds(value: Any) -> float | None:
    """``"2 seconds"`` / ``2`` / ``"1.5s"`` to seconds."""
    if isinstance(value, (int, float)):
        return float(value)
    match = _SECONDS.search(str(value or ""))
    return float(match.group(1)) if match else None


def megabytes(value: Any) -> int | None:
    if isinstance(value, (int, float)):
        return int(value)
    match = _MEGABYTES.search(str(value or ""))
    return int(float(match.group(1))) if match else None


_DEF = re.compile(r"^[ \t]*def[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.M)


def fn_name_from_code(code: str) -> str | None:
    """The first public function/method defined in starter code (``__init__`` etc. skipped)."""
    for name in _DEF.findall(code or ""):
        if not name.startswith("__"):
            return name
    return None
