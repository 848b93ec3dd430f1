"""The held-out evaluation split: LiveCodeBench, which training never sees.

Curation removes every training row that shares n-grams with a LiveCodeBench statement
(``pipeline.filter.decontaminate``), so these problems are the natural held-out set, as in the
paper (LiveCodeBench v6, tested on problems unseen in training). They are processed like any
source (clean statement, canonical tests) and written as the dataset's ``test`` split.

Breakdown (verl reports validation per ``data_source``, so the group is the data source):
the hub release (``code_generation_lite``) carries platform, difficulty and contest date, giving
the paper's Table 1 groups ``livecodebench/<platform>/<difficulty>``, and ``after`` keeps only
problems from that contest date on (a date split). The shared copy in ``../shared/data`` has none
of these fields, so there the group is the test kind: ``livecodebench/stdin`` (AtCoder and
Codeforces style) or ``livecodebench/call`` (functional, LeetCode style).
"""

from __future__ import annotations

import json
from typing import Any

SOURCE = "livecodebench"


def heldout_rows(*, hub: bool = False, after: str = "") -> list[dict[str, Any]]:
    """Processed LiveCodeBench rows (hub release or the local copy); [] when neither exists.

    ``after``: ISO date; only problems whose contest date is on or after it (rows without a date
    are dropped then, since they cannot be placed).
    """
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs, hub_specs

    spec = hub_specs()[f"{SOURCE}_hub"] if hub else default_specs().get(SOURCE)
    if spec is None:
        return []
    rows = process_rows(collect(spec).kept).kept
    if after:
        rows = [r for r in rows if r.get("contest_date") and str(r["contest_date"])[:10] >= after]
    return rows


def eval_group(row: dict[str, Any]) -> str:
    """``livecodebench/<platform>/<difficulty>`` where the row has them, else ``livecodebench/<test kind>``."""
    meta = row.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = {}
    platform = (meta or {}).get("platform") if isinstance(meta, dict) else None
    difficulty = row.get("source_difficulty")
    parts = [SOURCE, str(platform).lower() if platform else row["tests"].kind]
    if difficulty:
        parts.append(str(difficulty).lower())
    return "/".join(parts)
