"""Verify a shard at a time, reusing what an earlier run decided: a refresh re-verifies only the
shards whose problems changed.

Why shards, and why here rather than as Dagster partitions: what Verify costs is running programs,
and those already spread over every node through the evaluator's backend (``evaluator.ray_backend``);
what a refresh must avoid is running them again for problems that did not change. A shard is the
problems whose id hashes to it (:func:`shard_of`), so adding or editing a problem touches one shard.
Its key hashes its rows, the Verify settings and the code that decides (Verify, test generation,
the evaluator): any of them changed, the shard is verified again. The shards to verify
go through :func:`pipeline.verify.verify_rows` together, so the pool stays full.

One setting makes a shard's result depend on rows outside it: a generation sample
(``generation.sample_per_source``: the first N verified problems of each source). With a sample,
every shard is verified each time and nothing is stored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from evaluator.backend import EvaluatorBackend
from pipeline.schema import REJECT_SCHEMA, VERIFIED_SCHEMA, rows_from_table, rows_to_table, to_storable
from pipeline.stage import StageResult
from pipeline.verify.config import VerifyConfig
from pipeline.verify.deciding_code import code_version
from pipeline.verify.report import outcome_counts
from pipeline.verify.run import verify_rows

VERIFY_VERSION = "1"  # the stored layout
_NOT_SETTINGS = ("workers", "cache", "shards")  # how a run goes, not what it decides


def shard_of(problem_id: str, shards: int) -> int:
    return int(hashlib.sha1(problem_id.encode()).hexdigest()[:8], 16) % shards


def shard_key(rows: list[dict[str, Any]], config: VerifyConfig, model: str | None = None) -> str:
    """What a shard's result depends on: its rows, the settings, the deciding code, and the model
    that writes input generators (``generation.model_inputs``), if one does."""
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in _NOT_SETTINGS}
    rows_text = [json.dumps(to_storable(r), sort_keys=True, ensure_ascii=False, default=str)
                 for r in sorted(rows, key=lambda r: r["problem_id"])]
    text = json.dumps([VERIFY_VERSION, code_version(), settings, model, rows_text], sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()


class ShardCache:
    """A shard's kept rows and rejects as Parquet, ``<key>.kept.parquet`` and ``<key>.rejects.parquet``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def load(self, key: str) -> StageResult | None:
        try:
            kept = rows_from_table(pq.read_table(self.folder / f"{key}.kept.parquet"))
            rejects = rows_from_table(pq.read_table(self.folder / f"{key}.rejects.parquet"))
        except (OSError, ValueError):
            return None
        return StageResult(kept, rejects)

    def store(self, key: str, result: StageResult) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        for name, rows, schema in (("rejects", result.rejects, REJECT_SCHEMA), ("kept", result.kept, VERIFIED_SCHEMA)):
            tmp = self.folder / f"{key}.{name}.tmp"
            pq.write_table(rows_to_table(rows, schema), tmp)
            tmp.replace(self.folder / f"{key}.{name}.parquet")  # kept last: its presence means complete


def default_cache() -> ShardCache:
    from pipeline.paths import local_cache_dir

    return ShardCache(local_cache_dir("verify", f"v{VERIFY_VERSION}"))


def verify_sharded(
    rows: list[dict[str, Any]],
    config: VerifyConfig | None = None,
    *,
    cache: ShardCache | None = None,
    backend: EvaluatorBackend | None = None,
    sampler: Any = None,
    progress: Callable[[str], None] | None = None,
) -> StageResult:
    """:func:`pipeline.verify.verify_rows`, reusing the stored result of every unchanged shard.
    ``stats`` counts over all rows, plus ``shards``, ``shards_reused`` and ``problems_reused``; the
    run figures (seconds, runs) are those of the shards verified now."""
    config = config or VerifyConfig()
    if config.shards < 1:
        raise ValueError(f"shards must be at least 1, got {config.shards}")
    run = dict(backend=backend, sampler=sampler, progress=progress)
    if not config.cache or config.generation.sample_per_source is not None:
        result = verify_rows(rows, config, **run)
        why = "off" if not config.cache else "a generation sample depends on every shard"
        result.stats.extra.update({"shards": 1, "shards_reused": 0, "problems_reused": 0, "shard_cache": why})
        return result
    cache = cache or default_cache()
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(shard_of(row["problem_id"], config.shards), []).append(row)
    model = str(getattr(sampler, "model_id", sampler)) if config.generation.model_inputs else None
    keys = {shard: shard_key(group, config, model) for shard, group in groups.items()}
    reused = {shard: cache.load(key) for shard, key in keys.items()}
    todo = [row for row in rows if reused[shard_of(row["problem_id"], config.shards)] is None]  # input order
    if progress:
        done = sum(r is not None for r in reused.values())
        progress(f"verify: {done}/{len(groups)} shards unchanged since an earlier run; {len(todo)} problems to verify")
    started = time.monotonic()
    fresh = verify_rows(todo, config, **run) if todo else StageResult().count(0, seconds=0.0)
    by_shard: dict[int, StageResult] = {shard: StageResult() for shard, done in reused.items() if done is None}
    for row in fresh.kept:
        by_shard[shard_of(row["problem_id"], config.shards)].kept.append(row)
    for row in fresh.rejects:
        by_shard[shard_of(row["problem_id"], config.shards)].rejects.append(row)
    for shard, part in by_shard.items():
        cache.store(keys[shard], part)
    parts = {**{s: r for s, r in reused.items() if r is not None}, **by_shard}
    order = {row["problem_id"]: i for i, row in enumerate(rows)}
    kept = sorted((r for p in parts.values() for r in p.kept), key=lambda r: order[r["problem_id"]])
    rejects = sorted((r for p in parts.values() for r in p.rejects), key=lambda r: order.get(r["problem_id"], 0))
    result = StageResult(kept, rejects)
    return result.count(len(rows), **{**fresh.stats.extra, **outcome_counts(len(rows), result, config.derive_time_limits),
                                      "shards": len(groups), "shards_reused": len(groups) - len(by_shard),
                                      "problems_reused": len(rows) - len(todo),
                                      "seconds": round(time.monotonic() - started, 2)})
