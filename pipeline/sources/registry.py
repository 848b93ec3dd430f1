"""Source adapters: one small module per raw source, registered by name.

An adapter knows how to load its records (hub dataset or local files through the same
``datasets.load_dataset`` code) and how to map one record to a canonical row. ``collect`` runs
an adapter over a configured source and never lets one bad record sink the run: every record
becomes a row or a reject with its reason (an adapter raises :class:`pipeline.stage.Rejected`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pipeline.stage import COLLECT, Rejected, StageResult, error_summary, reject

# What a source is for. ``train``: curated into the training set. ``benchmark``: only what training
# is decontaminated against. ``heldout``: the evaluation split (and decontaminated against too).
TRAIN, BENCHMARK, HELDOUT = "train", "benchmark", "heldout"
ROLES = (TRAIN, BENCHMARK, HELDOUT)
DEFAULT_PRIORITY = 100  # a source without one (a dropped file) ranks after the declared ones


class SourceReadError(RuntimeError):
    """A whole file cannot be read (corrupt archive, unreadable bytes): the source fails, naming it."""


@dataclass(frozen=True)
class SourceSpec:
    """A configured source: one partition of ``raw_problems``.

    Either ``data_files`` (local paths or fsspec URLs) or ``hub_path`` (a hub dataset id, with
    ``hub_name``/``split``) says where records come from; ``adapter`` says how to read them.
    ``role``: what the source is for (:data:`ROLES`); ``priority``: which copy of a problem found
    in several training sources is kept (lower first; see ``pipeline.filter.dedup.keeper_key``).
    """

    name: str
    adapter: str
    data_files: tuple[str, ...] = ()
    hub_path: str | None = None
    hub_name: str | None = None
    split: str = "train"
    options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    role: str = TRAIN
    priority: int = DEFAULT_PRIORITY

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"source {self.name!r}: role {self.role!r} is not one of {ROLES}")

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


def _record_id(record: dict[str, Any], index: int) -> str:
    for key in ("task_id", "question_id", "problem_id", "id", "name", "source_id"):
        value = record.get(key)
        if value not in (None, ""):
            return str(value)
    return f"#{index}"


def collect(spec: SourceSpec) -> StageResult:
    """Map every record of ``spec`` to canonical rows; malformed ones become rejects.

    ``stats.input``: records read from the source (kept rows and rejects account for all; a record
    may map to several rows). Not :func:`pipeline.stage.run_steps`: a record is not a row yet, one
    maps to several rows, and a loader yields its own rejects for records it cannot parse.
    """
    adapter = get_adapter(spec.adapter)
    result = StageResult()
    count = 0
    for index, record in enumerate(adapter.load(spec)):
        count += 1
        if isinstance(record, Rejected):  # the loader could not even parse this record
            result.rejects.append(reject(COLLECT, {}, record.reason, record.detail, source=spec.name, source_id=f"#{index}"))
            continue
        try:
            mapped = adapter.to_row(record, spec)
        except Exception as err:  # noqa: BLE001 - one bad record never sinks a run
            reason, detail = (err.reason, err.detail) if isinstance(err, Rejected) else ("adapter_error", error_summary(err))
            result.rejects.append(reject(COLLECT, record, reason, detail, source=spec.name, source_id=_record_id(record, index)))
            continue
        result.kept.extend(mapped if isinstance(mapped, list) else [mapped])
    return result.count(count)


def read_json_lines(path: str) -> Iterator[dict[str, Any] | Rejected]:
    """Records of a JSON Lines file (optionally .gz), one bad line becoming a Rejected."""
    import fsspec

    with fsspec.open(path, "rt", encoding="utf-8", compression="infer") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as err:
                yield Rejected("invalid_json", f"{path}:{number}: {err}")
                continue
            if not isinstance(value, dict):
                yield Rejected("not_an_object", f"{path}:{number}: {type(value).__name__}")
                continue
            yield value
