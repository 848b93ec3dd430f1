"""One loader for every adapter: hub datasets and local files go through ``datasets.load_dataset``.

Local files are read with the same builder a hub dataset would use (``json`` or ``parquet``), so
an adapter's mapping is exercised on real files exactly as in production. Where Arrow cannot
hold a file (types that differ between records, a JSON array it cannot parse), the file is read
record by record with the standard ``json`` module instead, and a record that cannot be parsed
becomes a :class:`Rejected`: no record is ever lost silently.

Each record from a local file carries two bookkeeping keys, ``_file`` (the file's base name) and
``_index`` (its position in that file), so adapters can build stable ids and keep the split.
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Iterator
from typing import Any

from pipeline.paths import local_cache_dir
from pipeline.sources.registry import SourceReadError, SourceSpec, read_json_lines
from pipeline.stage import Rejected

log = logging.getLogger(__name__)

FILE_KEY = "_file"
INDEX_KEY = "_index"


def builder_for(path: str) -> str:
    """The ``datasets`` builder that reads ``path``: ``parquet`` or ``json`` (JSON, JSONL, .gz)."""
    name = path.lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith((".json", ".jsonl", ".ndjson")):
        return "json"
    raise ValueError(f"cannot tell the format of {path!r} (expected .json, .jsonl or .parquet)")


def _basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def load_records(spec: SourceSpec, files: tuple[str, ...] | None = None) -> Iterator[dict[str, Any] | Rejected]:
    """Records of ``spec`` (or of ``files``, auxiliary files of the same source), in file order."""
    if files is None and spec.is_hub:
        yield from _load_hub(spec)
        return
    for path in files if files is not None else spec.data_files:
        yield from load_file(path)


def _load_hub(spec: SourceSpec) -> Iterator[dict[str, Any]]:
    import datasets

    ds = datasets.load_dataset(
        spec.hub_path, spec.hub_name, split=spec.split, cache_dir=str(local_cache_dir("hf_datasets")),
        **spec.options.get("load_kwargs", {}),
    )
    for index, record in enumerate(ds):
        record = dict(record)
        record.setdefault(FILE_KEY, f"{spec.hub_path}:{spec.hub_name or 'default'}:{spec.split}")
        record.setdefault(INDEX_KEY, index)
        yield record


def load_file(path: str) -> Iterator[dict[str, Any] | Rejected]:
    """Every record of one local file: ``datasets.load_dataset`` first, json per record as fallback."""
    builder = builder_for(path)
    try:
        records = list(_load_with_datasets(builder, path))
    except Exception as err:  # noqa: BLE001 - Arrow cannot hold every real file; fall back below
        if builder != "json":
            raise SourceReadError(f"cannot read {path}: {type(err).__name__}: {err}") from err
        log.info("load_dataset could not read %s (%s: %s); reading it record by record", path, type(err).__name__, err)
        try:
            records = list(_load_with_json(path))
        except (OSError, EOFError, UnicodeDecodeError, zlib.error) as read_err:
            raise SourceReadError(f"cannot read {path}: {type(read_err).__name__}: {read_err}") from read_err
    base = _basename(path)
    for index, record in enumerate(records):
        if isinstance(record, dict):
            record[FILE_KEY] = base
            record[INDEX_KEY] = index
        yield record


def _load_with_datasets(builder: str, path: str) -> Iterator[dict[str, Any]]:
    import datasets

    ds = datasets.load_dataset(
        builder, data_files=[path], split="train", cache_dir=str(local_cache_dir("hf_datasets"))
    )
    for record in ds:
        yield dict(record)


def _load_with_json(path: str) -> Iterator[dict[str, Any] | Rejected]:
    import fsspec

    with fsspec.open(path, "rt", encoding="utf-8", compression="infer") as handle:
        head = handle.read(4096).lstrip()
    if not head.startswith("["):
        yield from read_json_lines(path)
        return
    with fsspec.open(path, "rt", encoding="utf-8", compression="infer") as handle:
        try:
            values = json.load(handle)
        except json.JSONDecodeError as err:  # the whole array is unreadable: one reject says so
            yield Rejected("invalid_json", f"{path}: {err}")
            return
    for number, value in enumerate(values):
        if isinstance(value, dict):
            yield value
        else:
            yield Rejected("not_an_object", f"{path}[{number}]: {type(value).__name__}")


def json_value(value: Any) -> Any:
    """A field that sources store either as JSON text or already parsed."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("[", "{"):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                return value
    return value


def strip_none(value: Any) -> Any:
    """Drop the ``None`` keys Arrow adds when records of one file have different struct fields."""
    if isinstance(value, dict):
        return {k: strip_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_none(v) for v in value]
    return value


def leftovers(record: dict[str, Any], used: set[str]) -> dict[str, Any]:
    """Metadata: whatever a record carries that the canonical columns did not take."""
    return {k: v for k, v in record.items() if k not in used and v not in (None, "", [], {})}
