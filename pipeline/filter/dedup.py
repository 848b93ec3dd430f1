"""Exact and near-duplicate removal with a deterministic keeper per cluster.

Exact: rows whose normalized statements hash equal. Near: datasketch ``MinHashLSH`` over word
5-gram MinHash signatures (112 permutations, 14 bands x 8 rows: datatrove's setting, an LSH
threshold of about (1/14)**(1/8) = 0.72). Bucket collisions are candidate pairs; a pair is
accepted when its signatures agree on at least ``min_similarity`` of the permutations (the
estimated Jaccard), which drops the rare low-similarity collisions. Accepted pairs are joined
into clusters (union-find) and each cluster keeps one row, chosen by ``keeper_key``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from datasketch import MinHashLSH

from pipeline.filter.minhash import signatures, to_minhash
from pipeline.filter.text import normalized_hash
from pipeline.schema import num_tests

_LARGE_BUCKET = 64  # buckets above this size are verified against one member, not pairwise


def keeper_key(source_priority: Sequence[str]) -> Callable[[dict[str, Any]], tuple]:
    """Sort key, best first: more tests, has a reference solution, richer source, problem_id."""
    rank = {name: i for i, name in enumerate(source_priority)}

    def key(row: dict[str, Any]) -> tuple:
        return (-num_tests(row), 0 if row.get("solutions") else 1, rank.get(row.get("source"), len(rank)),
                str(row.get("problem_id")))

    return key


@dataclass
class Duplicate:
    """A removed row: its index, the index of the kept row it duplicates, their similarity."""

    index: int
    keeper: int
    similarity: float

    def detail(self, rows: Sequence[dict[str, Any]], kind: str) -> str:
        kept = rows[self.keeper]
        return json.dumps({"duplicate_of": kept.get("problem_id"), "duplicate_of_source": kept.get("source"),
                           "kind": kind, "similarity": round(self.similarity, 4)})


def _clusters(n: int, pairs: list[tuple[int, int]]) -> dict[int, list[int]]:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        groups[find(i)].append(i)
    return {root: members for root, members in groups.items() if len(members) > 1}


def _pick(rows: Sequence[dict[str, Any]], members: list[int], key: Callable) -> int:
    return min(members, key=lambda i: key(rows[i]))


def exact_duplicates(rows: Sequence[dict[str, Any]], key: Callable) -> list[Duplicate]:
    """Rows whose normalized statement equals another's; the best row of each group stays."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        groups[normalized_hash(row.get("statement"))].append(i)
    out: list[Duplicate] = []
    for members in groups.values():
        if len(members) > 1:
            keep = _pick(rows, members, key)
            out.extend(Duplicate(i, keep, 1.0) for i in members if i != keep)
    return out


def similarity(sigs: np.ndarray, i: int, j: int) -> float:
    """Estimated Jaccard: the fraction of permutations on which two signatures agree."""
    return float(np.count_nonzero(sigs[i] == sigs[j])) / sigs.shape[1]


def candidate_pairs(sigs: np.ndarray, bands: int, rows_per_band: int, seed: int = 1) -> list[tuple[int, int]]:
    """Index pairs sharing an LSH bucket in any band (``datasketch.MinHashLSH``).

    Rows with an empty signature (no words) are not indexed: they would all collide.
    """
    num_perm = sigs.shape[1]
    lsh = MinHashLSH(num_perm=num_perm, params=(bands, rows_per_band))
    empty = (sigs == np.uint32(0xFFFFFFFF)).all(axis=1)
    with lsh.insertion_session() as session:
        for i in np.flatnonzero(~empty).tolist():
            session.insert(i, to_minhash(sigs[i], seed), check_duplication=False)
    pairs: set[tuple[int, int]] = set()
    for table in lsh.hashtables:
        for bucket, count in table.itemcounts().items():
            if count < 2:
                continue
            members = sorted(table.get(bucket))
            if len(members) > _LARGE_BUCKET:
                pairs.update((members[0], m) for m in members[1:])
            else:
                pairs.update((a, b) for k, a in enumerate(members) for b in members[k + 1 :])
    return sorted(pairs)


def near_duplicates(
    rows: Sequence[dict[str, Any]], key: Callable, *, num_perm: int = 112, bands: int = 14, rows_per_band: int = 8,
    ngram: int = 5, min_similarity: float = 0.65, seed: int = 1, workers: int | None = None,
    sigs: np.ndarray | None = None,
) -> list[Duplicate]:
    """Near-duplicate rows (MinHash LSH); each cluster keeps its best row by ``key``."""
    if sigs is None:
        sigs = signatures([r.get("statement") or "" for r in rows], num_perm, seed, ngram, workers)
    pairs = [(a, b) for a, b in candidate_pairs(sigs, bands, rows_per_band, seed)
             if similarity(sigs, a, b) >= min_similarity]
    out: list[Duplicate] = []
    for members in _clusters(len(rows), pairs).values():
        keep = _pick(rows, members, key)
        out.extend(Duplicate(i, keep, similarity(sigs, i, keep)) for i in members if i != keep)
    return out
