"""Output diversity D: distinct-n over the G responses of a query, averaged over queries.

The paper's diversity-determined temperature T(D) (section 2.4) reads this number: the
unique n-grams of the G responses, pooled, divided by their total count. G identical
responses give about 1/G; responses that share no n-gram give 1. Token ids are used as they
are; strings are split on whitespace.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

__all__ = ["distinct_n", "output_diversity", "batch_output_diversity", "group_index"]

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


def distinct_n(responses: Sequence[Response], n: int = 4) -> float:
    """|unique n-grams| / |n-grams| over all ``responses`` pooled.

    NaN when no response has ``n`` tokens (diversity undefined; callers skip it).
    """
    if n <= 0:
        raise ValueError("n must be positive")
    seen: set[tuple] = set()
    total = 0
    for response in responses:
        toks = _tokens(response)
        for i in range(len(toks) - n + 1):
            seen.add(tuple(toks[i : i + n]))
            total += 1
    return len(seen) / total if total else math.nan


def output_diversity(groups: Sequence[Sequence[Response]], n: int = 4) -> float:
    """Mean over queries of :func:`distinct_n` of each query's responses (NaN groups skipped)."""
    values = [d for d in (distinct_n(g, n) for g in groups) if not math.isnan(d)]
    return sum(values) / len(values) if values else math.nan


def batch_output_diversity(
    response_ids: torch.Tensor, lengths: torch.Tensor | Sequence[int], group_ids: Sequence | torch.Tensor, n: int = 4
) -> float:
    """:func:`output_diversity` of a verl-style batch: padded ``[B, L]`` ids, lengths, uids."""
    lens = lengths.tolist() if isinstance(lengths, torch.Tensor) else list(lengths)
    rows = response_ids.tolist()
    groups = [[rows[i][: int(lens[i])] for i in pos] for pos in group_index(group_ids)]
    return output_diversity(groups, n)
