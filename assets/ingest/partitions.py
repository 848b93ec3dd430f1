"""Source partitions of ``raw_problems``: dynamic, one per configured source (``pipeline.sources.discovery``).

The drop-directory sensor and ``microcoder run`` register new sources as they appear.
"""

from __future__ import annotations

import dagster as dg

from pipeline.sources.discovery import configured_specs

source_partitions = dg.DynamicPartitionsDefinition(name="sources")


def register_sources(instance: dg.DagsterInstance) -> list[str]:
    """Add every configured source as a partition; returns the ones that were new."""
    known = set(instance.get_dynamic_partitions(source_partitions.name))
    new = [name for name in sorted(configured_specs()) if name not in known]
    if new:
        instance.add_dynamic_partitions(source_partitions.name, new)
    return new
