"""Output diversity D: distinct-4 over the first W tokens of each of a query's G responses, pooled.

The paper's diversity-determined temperature T(D) (section 2.4) reads this number. Per query, the
unique 4-grams of the G responses' first ``window`` tokens, pooled, divided by their total count:
G identical responses give about 1/G, responses that share no 4-gram give 1. The step's D is the
mean over queries, with its standard error (the spread across queries over sqrt(queries)).

Why a window. Pooled distinct-n over whole responses falls as responses grow: a long program
repeats its own 4-grams (indentation, identifiers, ``for i in range``), so the count of distinct
4-grams grows slower than the count of 4-grams. The length growth MicroCoder-GRPO aims for would
then read as a loss of diversity and push T(D) up. Over a fixed window every response contributes
the same number of 4-grams whatever its length, so D moves only when the responses' openings
become more or less alike. It is also what the probe can afford: it samples only ``window`` tokens
per response. The other length-free measure the issue names (similarity between a group's
responses) still depends on length through the n-gram sets' sizes. A response shorter than the
window contributes the 4-grams it has. Token ids are used as they are; strings split on whitespace.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import torch

__all__ = ["distinct_n", "group_diversities", "batch_group_diversities", "group_index",
           "mean_and_stderr"]

Response = str | Sequence[int] | torch.Tensor


def group_index(group_ids: Sequence | torch.Tensor) -> list[list[int]]:
    """Positions of each group's samples, groups in order of first appearance.

    ``group_ids`` is verl's ``uid`` array (strings, ints, numpy or torch values).
    """
    if isinstance(group_ids, torch.Tensor):
        group_ids = group_ids.tolist()
    groups: dict[object, list[int]] = {}
    for pos, gid in enumerate(group_ids):
        key = gid.item() if hasattr(gid, "item") else gid
        groups.setdefault(key, []).append(pos)
    return list(groups.values())


def _tokens(response: Response) -> list:
    if isinstance(response, str):
        return response.split()
    if isinstance(response, torch.Tensor):
        return response.tolist()
    return list(response)


def distinct_n(responses: Sequence[Response], n: int = 4, window: int | None = None) -> float:
    """|unique n-grams| / |n-grams| over all ``responses`` pooled, each cut to its first ``window``
    tokens (None: whole responses).

    NaN when no response has ``n`` tokens (diversity undefined; callers skip it).
    """
    if n <= 0:
        raise ValueError("n must be positive")
    seen: set[tuple] = set()
    total = 0
    for response in responses:
        toks = _tokens(response)[:window] if window else _tokens(response)
        for i in range(len(toks) - n + 1):
            seen.add(tuple(toks[i : i + n]))
            total += 1
    return len(seen) / total if total else math.nan


def group_diversities(groups: Sequence[Sequence[Response]], n: int = 4, window: int | None = None) -> list[float]:
    """:func:`distinct_n` of each query's responses, groups without an n-gram left out."""
    return [d for d in (distinct_n(g, n, window) for g in groups) if not math.isnan(d)]


def mean_and_stderr(values: Sequence[float]) -> tuple[float, float]:
    """Mean of per-query values and its standard error (NaN, NaN when empty; stderr NaN for one)."""
    if not values:
        return math.nan, math.nan
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan


def batch_group_diversities(response_ids: torch.Tensor, lengths: torch.Tensor | Sequence[int],
                            group_ids: Sequence | torch.Tensor, n: int = 4, window: int | None = None) -> list[float]:
    """:func:`group_diversities` of a verl-style batch: padded ``[B, L]`` ids, lengths, uids."""
    lens = lengths.tolist() if isinstance(lengths, torch.Tensor) else list(lengths)
    rows = response_ids.tolist()
    groups = [[rows[i][: int(lens[i])] for i in pos] for pos in group_index(group_ids)]
    return group_diversities(groups, n, window)
