"""Held-out pass@1 as the paper reports it: k samples per problem, each passing or not."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["heldout_pass_at_1"]


def heldout_pass_at_1(data_sources: Sequence[str], sample_uids: Sequence, acc: Sequence[float | None]) -> dict[str, float]:
    """pass@1 averaged over the k samples of each held-out problem, then over problems: overall
    (``microcoder/heldout/pass@1``) and per data source (``microcoder/heldout/<group>/pass@1`` and
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
    out = {"microcoder/heldout/pass@1": sum(rates.values()) / len(rates),
           "microcoder/heldout/problems": float(len(rates))}
    for group in sorted({g for g, _ in rates}):
        values = [r for (g, _), r in rates.items() if g == group]
        out[f"microcoder/heldout/{group}/pass@1"] = sum(values) / len(values)
        out[f"microcoder/heldout/{group}/problems"] = float(len(values))
    return out
