"""Which sources are partitions of ``raw_problems``: local sets, hub sets by configuration, and
files dropped into ``$MICROCODER_DATA/drop/<adapter>/``.

Partitions are dynamic: the drop-directory sensor (and ``microcoder run``) register new sources
as they appear. Hub sources are switched on with ``MICROCODER_HUB_SOURCES`` (comma-separated
names from ``pipeline.sources.hub_specs()``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import dagster as dg

from assets.settings import SettingError
from pipeline.paths import data_root
from pipeline.sources import ADAPTERS, SourceSpec, default_specs, hub_specs

source_partitions = dg.DynamicPartitionsDefinition(name="sources")
DROP_SUFFIXES = (".json", ".jsonl", ".jsonl.gz", ".json.gz", ".parquet")


def drop_dir() -> str:
    return os.environ.get("MICROCODER_DROP_DIR") or f"{data_root()}/drop"


def drop_specs(directory: str | None = None) -> dict[str, SourceSpec]:
    """One source per file under ``<drop>/<adapter>/``; the folder names the file's layout."""
    base = Path(directory or drop_dir())
    specs: dict[str, SourceSpec] = {}
    if not base.is_dir():
        return specs
    for path in sorted(base.glob("*/*")):
        adapter = path.parent.name
        if adapter not in ADAPTERS or not path.name.endswith(DROP_SUFFIXES):
            continue
        stem = re.sub(r"[^a-z0-9_]+", "_", path.name.split(".")[0].lower()).strip("_")
        name = f"drop_{adapter}_{stem}"
        specs[name] = SourceSpec(name, adapter, data_files=(str(path),))
    return specs


def configured_specs() -> dict[str, SourceSpec]:
    specs = dict(default_specs())
    wanted = [name.strip() for name in os.environ.get("MICROCODER_HUB_SOURCES", "").split(",") if name.strip()]
    available = hub_specs()
    for name in wanted:
        if name not in available:
            raise SettingError(f"MICROCODER_HUB_SOURCES names unknown hub source {name!r}; known: {sorted(available)}")
        specs[name] = available[name]
    specs.update(drop_specs())
    return specs


def spec_for(partition_key: str) -> SourceSpec:
    specs = configured_specs()
    if partition_key not in specs:
        raise KeyError(f"source partition {partition_key!r} is not configured here; configured: {sorted(specs)}")
    return specs[partition_key]


def register_sources(instance: dg.DagsterInstance) -> list[str]:
    """Add every configured source as a partition; returns the ones that were new."""
    known = set(instance.get_dynamic_partitions(source_partitions.name))
    new = [name for name in sorted(configured_specs()) if name not in known]
    if new:
        instance.add_dynamic_partitions(source_partitions.name, new)
    return new
