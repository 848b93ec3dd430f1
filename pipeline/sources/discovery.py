"""Which sources a deployment has, and their roles: the local sets, hub sets switched on by
configuration, and files dropped into ``$MICROCODER_DATA/drop/<adapter>/`` (the folder names the
file's layout; training data) or ``drop/<role>/<adapter>/`` (``benchmark`` or ``heldout``).

Hub sources are switched on with ``MICROCODER_HUB_SOURCES`` (comma-separated names from
:func:`pipeline.sources.hub_specs`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from pipeline.paths import SettingError, data_root
from pipeline.sources import ADAPTERS, ROLES, TRAIN, SourceSpec, default_specs, hub_specs

DROP_SUFFIXES = (".json", ".jsonl", ".jsonl.gz", ".json.gz", ".parquet")


def drop_dir() -> str:
    return os.environ.get("MICROCODER_DROP_DIR") or f"{data_root()}/drop"


def drop_specs(directory: str | None = None) -> dict[str, SourceSpec]:
    """One source per file under ``<drop>/<adapter>/`` (role ``train``) or ``<drop>/<role>/<adapter>/``."""
    base = Path(directory or drop_dir())
    specs: dict[str, SourceSpec] = {}
    if not base.is_dir():
        return specs
    found = [(TRAIN, path) for path in base.glob("*/*")]
    found += [(role, path) for role in ROLES if role != TRAIN for path in base.glob(f"{role}/*/*")]
    for role, path in sorted(found, key=lambda item: str(item[1])):
        adapter = path.parent.name
        if adapter not in ADAPTERS or not path.is_file() or not path.name.endswith(DROP_SUFFIXES):
            continue
        stem = re.sub(r"[^a-z0-9_]+", "_", path.name.split(".")[0].lower()).strip("_")
        name = f"drop_{adapter}_{stem}" if role == TRAIN else f"drop_{role}_{adapter}_{stem}"
        specs[name] = SourceSpec(name, adapter, data_files=(str(path),), role=role)
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


def source_roles(overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each configured source's role, as declared, with ``overrides`` (the launchpad's) applied.
    A name that is no configured source, or a role that is no role, is a SettingError."""
    roles = {name: spec.role for name, spec in configured_specs().items()}
    for name, role in (overrides or {}).items():
        if name not in roles:
            raise SettingError(f"a role is set for {name!r}, which is no configured source; configured: {sorted(roles)}")
        if role not in ROLES:
            raise SettingError(f"source {name!r}: role {role!r} is not one of {ROLES}")
        roles[name] = role
    return roles


def source_priority() -> tuple[str, ...]:
    """Configured sources, the copy to keep first (``pipeline.filter.dedup.keeper_key``)."""
    specs = configured_specs()
    return tuple(sorted(specs, key=lambda name: (specs[name].priority, name)))
