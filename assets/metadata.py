"""Materialization metadata a person reads at a glance: counts, reject reasons, a preview."""

from __future__ import annotations

from collections import Counter
from typing import Any

import dagster as dg

from pipeline.plots import bar_png, histogram_png, line_png, png_markdown
from pipeline.stage import StageStats

PREVIEW_COLUMNS = ("problem_id", "source", "source_id", "statement", "num_tests", "reason", "detail")
Rows = list[dict[str, Any]]


def preview_markdown(rows: Rows, limit: int = 5, width: int = 80) -> str:
    """A few rows as a markdown table, long text cut to ``width`` characters."""
    names = list(rows[0]) if rows else []
    columns = [c for c in PREVIEW_COLUMNS if c in names] or names[:6]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for record in rows[:limit]:
        cells = []
        for column in columns:
            text = "" if record[column] is None else str(record[column])
            text = " ".join(text.split()).replace("|", "\\|")
            cells.append(text[:width] + ("…" if len(text) > width else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def reasons_markdown(counts: dict[str, int]) -> str:
    if not counts:
        return "no rejects"
    lines = ["| reason | rows |", "|---|---|"]
    lines += [f"| {reason} | {count} |" for reason, count in sorted(counts.items(), key=lambda kv: -kv[1])]
    return "\n".join(lines)


def table_metadata(rows: Rows) -> dict[str, Any]:
    return {"dagster/row_count": len(rows), "preview": dg.MetadataValue.md(preview_markdown(rows))}


# Every dataset asset reports its stage's counts under these keys (assets.progress reads them).
STAGE_KEYS = ("rows_in", "rows_kept", "rows_rejected", "stage_reasons", "stage_stats")


def stage_metadata(stats: StageStats, *, omit: tuple[str, ...] = ()) -> dict[str, Any]:
    """A stage's :class:`~pipeline.stage.StageStats` as metadata, the same keys on every asset of a
    stage (its kept rows and its rejects alike). ``omit``: extras shown elsewhere (a card, a manifest)."""
    return {
        "rows_in": stats.input, "rows_kept": stats.kept, "rows_rejected": stats.rejected,
        "stage_reasons": dg.MetadataValue.json(stats.reasons),
        "stage_stats": dg.MetadataValue.json({k: v for k, v in stats.extra.items() if k not in omit}),
    }


def stats_from_metadata(metadata: dict[str, Any]) -> StageStats | None:
    """:func:`stage_metadata` read back from a stored materialization (None: it has none)."""
    value = {k: getattr(metadata.get(k), "value", metadata.get(k)) for k in STAGE_KEYS}
    if value["rows_in"] is None:
        return None
    return StageStats(int(value["rows_in"]), int(value["rows_kept"]), int(value["rows_rejected"]),
                      dict(value["stage_reasons"] or {}), dict(value["stage_stats"] or {}))


def stage_counts(instance: dg.DagsterInstance, assets: dict[str, str]) -> dict[str, StageStats]:
    """Each stage's counts (stage name -> the asset that reports them), as the latest
    materialization of every partition reported them, summed over partitions."""
    out: dict[str, StageStats] = {}
    for stage, asset in assets.items():
        latest: dict[str | None, StageStats] = {}
        records = instance.fetch_materializations(dg.AssetKey(asset), limit=10_000).records  # newest first
        for record in records:
            event = record.asset_materialization
            if event is not None and event.partition not in latest:
                found = stats_from_metadata(dict(event.metadata))
                if found is not None:
                    latest[event.partition] = found
        if latest:
            reasons: Counter = Counter()
            for s in latest.values():
                reasons.update(s.reasons)
            out[stage] = StageStats(sum(s.input for s in latest.values()), sum(s.kept for s in latest.values()),
                                    sum(s.rejected for s in latest.values()), dict(reasons.most_common()))
    return out


def rejects_metadata(rejects: Rows) -> dict[str, Any]:
    counts = dict(Counter(r["reason"] for r in rejects))
    return {
        "dagster/row_count": len(rejects),
        "rejects_by_reason": dg.MetadataValue.md(reasons_markdown(counts)),
        "rejects_by_reason_json": dg.MetadataValue.json(counts),
        "preview": dg.MetadataValue.md(preview_markdown(rejects)),
    }


def _column(rows: Rows, name: str) -> list:
    return [r.get(name) for r in rows]


def source_mix_metadata(rows: Rows) -> dict[str, Any]:
    """Rows per source, as a bar chart and as JSON (for tools that read numbers)."""
    counts = dict(Counter(_column(rows, "source")).most_common())
    return {
        "source_mix": dg.MetadataValue.md(png_markdown(bar_png(counts, "rows per source"), "rows per source")),
        "source_mix_json": dg.MetadataValue.json(counts),
    }


def length_metadata(rows: Rows) -> dict[str, Any]:
    """Statement length (characters) and tests per problem, as histograms with their medians."""
    lengths = [len(text) for text in _column(rows, "statement") if text]
    tests = [n for n in _column(rows, "num_tests") if n is not None]
    out: dict[str, Any] = {
        "statement_chars": dg.MetadataValue.md(png_markdown(histogram_png(lengths, 30, "statement length (chars)"), "statement length")),
    }
    if lengths:
        out["statement_chars_median"] = float(sorted(lengths)[len(lengths) // 2])
    if tests:
        out["tests_per_problem"] = dg.MetadataValue.md(png_markdown(histogram_png(tests, 30, "tests per problem"), "tests per problem"))
        out["tests_per_problem_median"] = float(sorted(tests)[len(tests) // 2])
    return out


def difficulty_metadata(histogram: dict[str, int], pass_rates: list[float] | None = None) -> dict[str, Any]:
    """The difficulty buckets as bars, and the pass-rate distribution when there is one."""
    out: dict[str, Any] = {
        "difficulty_chart": dg.MetadataValue.md(png_markdown(bar_png(histogram, "problems per difficulty"), "difficulty")),
    }
    if pass_rates:
        out["pass_rate_chart"] = dg.MetadataValue.md(
            png_markdown(histogram_png(pass_rates, [i / 10 for i in range(11)], "model pass rate"), "pass rate")
        )
    return out


def training_curves_metadata(steps: list[dict[str, float]], names: dict[str, tuple[str, ...]] | None = None) -> dict[str, Any]:
    """Training curves (reward, accuracy, response length, diversity) from per-step metrics.

    ``names`` maps a curve to the metric keys it may come from, first present wins (verl's
    ``critic/score/mean`` or the extension's ``microcoder/reward_mean`` for reward, ...).
    """
    names = names or TRAINING_CURVES
    out: dict[str, Any] = {}
    for curve, keys in names.items():
        key = next((k for k in keys if any(k in step for step in steps)), None)
        if key is None:
            continue
        values = [float(step[key]) if key in step else float("nan") for step in steps]
        out[f"curve_{curve}"] = dg.MetadataValue.md(png_markdown(line_png({key: values}, curve), curve))
    return out


TRAINING_CURVES: dict[str, tuple[str, ...]] = {
    "reward": ("critic/score/mean", "microcoder/reward_mean", "reward/mean"),
    "accuracy": ("microcoder/accuracy", "accuracy", "reward/accuracy"),
    "response_length": ("response_length/mean", "microcoder/response_length_mean"),
    "diversity": ("microcoder/diversity", "diversity"),
}
