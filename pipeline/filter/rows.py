"""``filter_rows``: quality rules, decontamination, exact and near dedup, difficulty mix, per-source sample.

Order: quality first (cheap, and a bad row must not be picked as a cluster's keeper), then
decontamination (a benchmark copy is removed as contamination, whatever its duplicates), then
exact and near dedup among the clean rows, then the mix, then the sample (a run that
samples still decontaminates and dedups against every row). Every input row ends in ``kept`` or
in ``rejects`` (stage ``filter``) with one reason; ``stats`` counts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pipeline.filter import decontaminate, dedup, quality
from pipeline.filter import mix as mixing
from pipeline.filter.decontaminate import BenchmarkSet
from pipeline.filter.roles import RoleSplit, benchmark_sets, decontaminated_against, split_by_role
from pipeline.stage import FILTER, Rejected, Row, StageResult, Step, reject, run_steps


@dataclass(frozen=True)
class FilterConfig:
    quality: quality.QualityConfig = field(default_factory=quality.QualityConfig)
    # dedup
    exact_dedup: bool = True
    near_dedup: bool = True
    shingle_words: int = 5
    num_perm: int = 112
    lsh_bands: int = 14
    lsh_rows: int = 8
    min_similarity: float = 0.65  # estimated Jaccard a bucket collision must reach
    minhash_seed: int = 1
    workers: int | None = None  # processes for MinHash; None: all cores
    source_priority: tuple[str, ...] = ()  # the copy kept first; empty: the source registry's priorities
    roles: Mapping[str, str] | None = None  # source -> role, over the registry's (the launchpad's override)
    # decontamination
    decontaminate: bool = True
    ngram_words: int = 13
    max_benchmark_df: int = 2
    min_ngram_matches: int = 8
    min_ngram_fraction: float = 0.5
    # difficulty mix: label -> fraction kept (<= 1) or cap (> 1); None keeps everything
    mix: Mapping[str, float] | None = None
    mix_seed: int = 0
    # a sample through the whole graph: at most this many problems of each training source go on
    # (the main job's --sample; picked by the mix's seeded hash); None keeps every problem
    sample_per_source: int | None = None


def find_contamination(
    rows: list[dict[str, Any]], benchmarks: list[decontaminate.BenchmarkSet], config: FilterConfig | None = None
) -> list[tuple[int, decontaminate.Match]]:
    """``(row index, match)`` for rows sharing benchmark n-grams under ``config``'s thresholds."""
    config = config or FilterConfig()
    index = decontaminate.NgramIndex(
        benchmarks, config.ngram_words, max_benchmark_df=config.max_benchmark_df,
        min_matches=config.min_ngram_matches, min_fraction=config.min_ngram_fraction,
    )
    return decontaminate.contaminated(rows, index)


def quality_step(config: quality.QualityConfig) -> Step:
    """The quality rules as a step: a row that fails one is rejected with that rule's reason."""

    def step(row: Row) -> Row:
        if failed := quality.check(row, config):
            raise Rejected(*failed)
        return row

    return step


def filter_rows(rows: Sequence[Row], config: FilterConfig, benchmarks: list[BenchmarkSet]) -> StageResult:
    """Filter processed rows; kept + rejects account for every input row."""
    result = run_steps(rows, [quality_step(config.quality)], FILTER)
    alive, rejects = result.kept, result.rejects

    def drop(found: dict[int, str], reason: str) -> list[Row]:
        for i, detail in found.items():
            rejects.append(reject(FILTER, alive[i], reason, detail))
        return [r for i, r in enumerate(alive) if i not in found]

    if config.decontaminate and benchmarks:
        alive = drop({i: m.detail() for i, m in find_contamination(alive, benchmarks, config)}, "benchmark_contamination")
    key = dedup.keeper_key(config.source_priority)
    if config.exact_dedup:
        alive = drop({d.index: d.detail(alive, "exact_duplicate") for d in dedup.exact_duplicates(alive, key)}, "exact_duplicate")
    if config.near_dedup and len(alive) > 1:
        found = dedup.near_duplicates(
            alive, key, num_perm=config.num_perm, bands=config.lsh_bands, rows_per_band=config.lsh_rows,
            ngram=config.shingle_words, min_similarity=config.min_similarity, seed=config.minhash_seed,
            workers=config.workers,
        )
        alive = drop({d.index: d.detail(alive, "near_duplicate") for d in found}, "near_duplicate")
    if config.mix:
        alive = drop(dict(mixing.subsample(alive, config.mix, config.mix_seed)), "difficulty_mix")
    if config.sample_per_source is not None:
        alive = drop(dict(mixing.per_source(alive, config.sample_per_source, config.mix_seed)), "outside_sample")

    result = StageResult(alive, rejects).count(len(rows), kept_by_source=dict(Counter(r.get("source") for r in alive)))
    if len(alive) + len(rejects) != len(rows):  # pragma: no cover - an invariant, not a branch
        raise AssertionError(f"filter lost rows: {len(alive)} kept + {len(rejects)} rejected != {len(rows)}")
    return result


def filter_sources(rows: Sequence[Row], config: FilterConfig) -> tuple[RoleSplit, StageResult]:
    """Filter over every source's processed rows: split by role (the registry's, with
    ``config.roles`` over it), then :func:`filter_rows` on the training rows against the benchmark
    and held-out rows, keeping duplicates by the registry's priority unless ``config`` names one.
    The result's ``stats`` counts the training rows; ``extra`` says what was decontaminated against what."""
    from pipeline.sources.discovery import source_priority, source_roles

    split = split_by_role(rows, source_roles(config.roles))
    config = replace(config, source_priority=config.source_priority or source_priority())
    result = filter_rows(split.train, config, benchmark_sets(split.references))
    result.stats.extra.update(rows_by_role=split.counts(),
                              decontaminated_against=decontaminated_against(split.references, result.rejects))
    return split, result
