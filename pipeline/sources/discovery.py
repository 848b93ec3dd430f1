"""Which sources a deployment has: the local sets, hub sets switched on by configuration, and
files dropped into ``$MICROCODER_DATA/drop/<adapter>/`` (the folder names the file's layout).

Hub sources are switched on with ``MICROCODER_HUB_SOURCES`` (comma-separated names from
:func:`pipeline.sources.hub_specs`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pipeline.paths import SettingError, data_root
from pipeline.sources import ADAPTERS, SourceSpec, default_specs, hub_specs

DROP_SUFFIXES = (".json", ".jsonl", ".jsonl.gz", ".json.gz", ".parquet")


def drop_dir() -> str:
    return os.environ.get("MICROCODER_DROP_DIR") or f"{data_root()}/drop"


def drop_specs(directory: str | None = None) -> dict[str, SourceSpec]:
    """One source per file under ``<drop>/<adapter>/``."""
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
    """Every configured source by name; an unknown name in ``MICROCODER_HUB_SOURCES`` is a SettingError."""
    specs = dict(default_specs())
    wanted = [name.strip() for name in os.environ.get("MICROCODER_HUB_SOURCES", "").split(",") if name.strip()]
    available = hub_specs()
    for name in wanted:
        if name not in available:
            raise SettingError(f"MICROCODER_HUB_SOURCES names unknown hub source {name!r}; known: {sorted(available)}")
        specs[name] = available[name]
    specs.update(drop_specs())
    return specs


def spec_for(name: str) -> SourceSpec:
    specs = configured_specs()
    if name not in specs:
        raise KeyError(f"source {name!r} is not configured here; configured: {sorted(specs)}")
    return specs[name]
