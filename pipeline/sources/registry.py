"""Source adapters: one small module per raw source, registered by name.

An adapter knows how to load its records (hub dataset or local files through the same
``datasets.load_dataset`` code) and how to map one record to a canonical row. ``collect`` runs
an adapter over a configured source and never lets one bad record sink the run: every record
becomes a row or a reject with its reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pipeline.schema import make_reject

STAGE = "collect"


class RecordError(ValueError):
    """A malformed source record. ``reason`` is a short stable code for the rejects table."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class SourceReadError(RuntimeError):
    """A whole file cannot be read (corrupt archive, unreadable bytes): the source fails, naming it."""


@dataclass(frozen=True)
class SourceSpec:
    """A configured source: one partition of ``raw_problems``.

    Either ``data_files`` (local paths or fsspec URLs) or ``hub_path`` (a hub dataset id, with
    ``hub_name``/``split``) says where records come from; ``adapter`` says how to read them.
    """

    name: str
    adapter: str
    data_files: tuple[str, ...] = ()
    hub_path: str | None = None
    hub_name: str | None = None
    split: str = "train"
    options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def is_hub(self) -> bool:
        return self.hub_path is not None


@dataclass
class SourceAdapter:
    """How to read one source layout. ``load`` yields raw records, ``to_row`` maps one."""

    name: str
    license: str
    load: Callable[[SourceSpec], Iterable[dict[str, Any]]]
    to_row: Callable[[dict[str, Any], SourceSpec], dict[str, Any] | list[dict[str, Any]]]
    description: str = ""


ADAPTERS: dict[str, SourceAdapter] = {}


def register_adapter(adapter: SourceAdapter) -> SourceAdapter:
    if adapter.name in ADAPTERS:
        raise ValueError(f"adapter {adapter.name!r} is already registered")
    ADAPTERS[adapter.name] = adapter
    return adapter


def get_adapter(name: str) -> SourceAdapter:
    try:
        return ADAPTERS[name]
    except KeyError:
        raise KeyError(f"unknown source adapter {name!r}; known: {sorted(ADAPTERS)}") from None


@dataclass
class CollectResult:
    rows: list[dict[str, Any]]
    rejects: list[dict[str, Any]]
    records: int  # records read from the source: rows + rejects account for all of them


def _record_id(record: dict[str, Any], index: int) -> str:
    for key in ("task_id", "question_id", "problem_id", "id", "name", "source_id"):
        value = record.get(key)
        if value not in (None, ""):
            return str(value)
    return f"#{index}"


def collect(spec: SourceSpec) -> CollectResult:
    """Map every record of ``spec`` to canonical rows; malformed ones become rejects."""
    adapter = get_adapter(spec.adapter)
    rows: list[dict[str, Any]] = []
    rejects: list[dict[str, Any]] = []
    count = 0
    for index, record in enumerate(_iter_records(adapter, spec)):
        count += 1
        if isinstance(record, RecordError):  # the loader could not even parse this record
            rejects.append(make_reject(spec.name, STAGE, record.reason, source_id=f"#{index}", detail=record.detail))
            continue
        try:
            mapped = adapter.to_row(record, spec)
        except RecordError as err:
            rejects.append(
                make_reject(spec.name, STAGE, err.reason, source_id=_record_id(record, index), detail=err.detail, record=record)
            )
            continue
        except Exception as err:  # noqa: BLE001 - one bad record never sinks a run
            rejects.append(
                make_reject(
                    spec.name, STAGE, "adapter_error", source_id=_record_id(record, index),
                    detail=f"{type(err).__name__}: {err}", record=record,
                )
            )
            continue
        rows.extend(mapped if isinstance(mapped, list) else [mapped])
    return CollectResult(rows=rows, rejects=rejects, records=count)


def _iter_records(adapter: SourceAdapter, spec: SourceSpec) -> Iterator[dict[str, Any] | RecordError]:
    yield from adapter.load(spec)


def read_json_lines(path: str) -> Iterator[dict[str, Any] | RecordError]:
    """Records of a JSON Lines file (optionally .gz), one bad line becoming a RecordError."""
    import fsspec

    with fsspec.open(path, "rt", encoding="utf-8", compression="infer") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as err:
                yield RecordError("invalid_json", f"{path}:{number}: {err}")
                continue
            if not isinstance(value, dict):
                yield RecordError("not_an_object", f"{path}:{number}: {type(value).__name__}")
                continue
            yield value
