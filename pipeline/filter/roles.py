"""Rows by their source's role: training rows are curated, benchmark and held-out rows are what
training is decontaminated against, and held-out rows are also the evaluation split.

Roles come from the source registry (``pipeline.sources``), with the launchpad's overrides; a row
whose source is no longer configured keeps the role ``train`` (an old partition still on disk).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.filter.decontaminate import BenchmarkSet
from pipeline.sources.registry import BENCHMARK, HELDOUT, TRAIN
from pipeline.stage import Row


@dataclass
class RoleSplit:
    """Processed rows by role, each in input order."""

    train: list[Row] = field(default_factory=list)
    benchmark: list[Row] = field(default_factory=list)
    heldout: list[Row] = field(default_factory=list)

    @property
    def references(self) -> list[Row]:
        """What training is decontaminated against: the benchmarks and the held-out sets."""
        return self.benchmark + self.heldout

    def counts(self) -> dict[str, dict[str, int]]:
        """Rows per role and source (the filter's metadata and the card's decontamination table)."""
        return {role: dict(Counter(r["source"] for r in rows))
                for role, rows in ((TRAIN, self.train), (BENCHMARK, self.benchmark), (HELDOUT, self.heldout)) if rows}


def split_by_role(rows: Sequence[Row], roles: Mapping[str, str]) -> RoleSplit:
    split = RoleSplit()
    for row in rows:
        getattr(split, roles.get(row["source"], TRAIN)).append(row)
    return split


def benchmark_sets(rows: Sequence[Row]) -> list[BenchmarkSet]:
    """One :class:`BenchmarkSet` per source of ``rows`` (its statements and source ids)."""
    by_source: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_source[row["source"]].append(row)
    return [BenchmarkSet(name, [r.get("statement") or "" for r in group], [str(r.get("source_id")) for r in group])
            for name, group in sorted(by_source.items())]


def decontaminated_against(references: Sequence[Row], rejects: Sequence[Row]) -> list[dict[str, Any]]:
    """Per benchmark or held-out source: its problems, and the training rows removed as their
    copies (the filter's ``benchmark_contamination`` rejects, whose detail names the benchmark)."""
    removed: Counter = Counter()
    for r in rejects:
        if r.get("reason") == "benchmark_contamination" and r.get("detail"):
            removed[json.loads(r["detail"]).get("benchmark")] += 1
    sizes = Counter(r["source"] for r in references)
    return [{"benchmark": name, "problems": n, "training_rows_removed": removed.get(name, 0)}
            for name, n in sorted(sizes.items())]
