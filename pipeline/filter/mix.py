"""Deterministic subsampling: the difficulty mix (per ``source_difficulty`` label) and the
per-source sample (the main job's: a few problems of each source through the whole graph).

``mix`` maps a label to a weight: a value in [0, 1] keeps that fraction of the label's rows, a
value above 1 caps the label at that many rows. Labels not in ``mix`` are kept whole; rows
without a label use the key ``"unknown"``. Which rows stay is decided by a seeded hash of the
problem_id, so reruns and machines agree and adding rows elsewhere does not reshuffle a label.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

UNKNOWN = "unknown"


def _rank(problem_id: str, seed: int) -> str:
    return hashlib.sha1(f"{seed}\x00{problem_id}".encode()).hexdigest()


def subsample(rows: Sequence[dict[str, Any]], mix: Mapping[str, float], seed: int = 0) -> list[tuple[int, str]]:
    """``(row index, detail)`` of the rows the mix drops."""
    by_label: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_label[row.get("source_difficulty") or UNKNOWN].append(i)
    dropped: list[tuple[int, str]] = []
    for label, members in by_label.items():
        if label not in mix:
            continue
        weight = float(mix[label])
        if weight < 0:
            raise ValueError(f"mix weight for {label!r} is negative")
        keep = math.floor(weight * len(members) + 0.5) if weight <= 1 else int(weight)
        ordered = sorted(members, key=lambda i: _rank(str(rows[i].get("problem_id")), seed))
        detail = json.dumps({"label": label, "weight": weight, "kept": min(keep, len(members)), "of": len(members)})
        dropped.extend((i, detail) for i in ordered[keep:])
    return sorted(dropped)


def per_source(rows: Sequence[dict[str, Any]], cap: int, seed: int = 0) -> list[tuple[int, str]]:
    """``(row index, detail)`` of the rows past the first ``cap`` of each source, by the seeded hash
    (a count, never a fraction: a cap of 1 keeps one row)."""
    by_source: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_source[row.get("source") or UNKNOWN].append(i)
    dropped: list[tuple[int, str]] = []
    for source, members in by_source.items():
        ordered = sorted(members, key=lambda i: _rank(str(rows[i].get("problem_id")), seed))
        detail = json.dumps({"source": source, "sample_per_source": cap, "of": len(members)})
        dropped.extend((i, detail) for i in ordered[cap:])
    return sorted(dropped)
