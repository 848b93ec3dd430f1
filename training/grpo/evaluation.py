"""Held-out evaluation as the paper's Table 1 reports it: pass@1 over k samples per problem, per
platform and difficulty, on LiveCodeBench v6's AtCoder and LeetCode problems.

- pass@1: each sample passes or not (binary ``acc``: all tests pass), averaged over the k samples
  of a problem, then over problems; overall, per group (verl's data source, e.g.
  ``livecodebench/atcoder/easy``), per platform (``livecodebench/atcoder``) and per difficulty
  across platforms (``livecodebench/all/easy``): Table 1's rows and columns.
- The window: LiveCodeBench v6 in the Qwen3 reports the paper builds on is the problems released
  from 2025-02-01 to 2025-04-30; the paper tests on its AtCoder and LeetCode problems. Where a row
  carries its platform (in its data source) and contest date (``extra_info``), it is kept only
  inside that window; a row without them (the shared copy has neither) cannot be placed and is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["BENCHMARKS", "PLATFORMS", "heldout_pass_at_1", "in_benchmark", "metric_prefix"]

PLATFORMS = ("atcoder", "leetcode", "codeforces")  # what the hub release's data sources can name
# benchmark -> (first date, first date after, platforms); "all" keeps every held-out row
BENCHMARKS: dict[str, tuple[str, str, tuple[str, ...]] | None] = {
    "lcb-v6": ("2025-02-01", "2025-05-01", ("atcoder", "leetcode")),
    "all": None,
}
PREFIX = "microcoder/heldout"


def metric_prefix(length: int) -> str:
    """Where one evaluation length's metrics go: ``microcoder/heldout/L<length>``."""
    return f"{PREFIX}/L{int(length)}"


def in_benchmark(data_source: str, extra_info: Mapping | None, benchmark: str = "lcb-v6") -> bool | None:
    """Whether a held-out row belongs to ``benchmark``: True/False where its platform and contest
    date are known, None where they are not (the caller keeps it and counts it)."""
    window = BENCHMARKS[benchmark]
    if window is None:
        return True
    parts = str(data_source).lower().split("/")
    platform = parts[1] if len(parts) > 1 and parts[1] in PLATFORMS else None
    date = (extra_info or {}).get("contest_date") if isinstance(extra_info, Mapping) else None
    if platform is None or not date:
        return None
    first, after, platforms = window
    return platform in platforms and first <= str(date)[:10] < after


def _aggregates(group: str) -> list[str]:
    """``source/platform/difficulty`` also counts in ``source/platform`` and ``source/all/difficulty``."""
    parts = group.split("/")
    if len(parts) != 3:
        return [group]
    return [group, "/".join(parts[:2]), f"{parts[0]}/all/{parts[2]}"]


def heldout_pass_at_1(data_sources: Sequence[str], sample_uids: Sequence, acc: Sequence[float | None],
                      prefix: str = PREFIX) -> dict[str, float]:
    """pass@1 averaged over the k samples of each held-out problem, then over problems: overall
    (``<prefix>/pass@1``), per group, platform and difficulty (``<prefix>/<group>/pass@1`` and
    ``.../problems``). A sample passes when its binary ``acc`` is 1 (all tests pass); averaging
    the fraction of tests passed would give partial credit."""
    per_problem: dict[tuple[str, str], list[float]] = {}
    for source, uid, a in zip(data_sources, sample_uids, acc, strict=True):
        if a is None:
            continue
        per_problem.setdefault((str(source), str(uid)), []).append(1.0 if float(a) >= 1.0 else 0.0)
    if not per_problem:
        return {}
    rates = {key: sum(v) / len(v) for key, v in per_problem.items()}
    out = {f"{prefix}/pass@1": sum(rates.values()) / len(rates), f"{prefix}/problems": float(len(rates))}
    by_group: dict[str, list[float]] = {}
    for (group, _), rate in rates.items():
        for name in _aggregates(group):
            by_group.setdefault(name, []).append(rate)
    for group in sorted(by_group):
        values = by_group[group]
        out[f"{prefix}/{group}/pass@1"] = sum(values) / len(values)
        out[f"{prefix}/{group}/problems"] = float(len(values))
    return out
