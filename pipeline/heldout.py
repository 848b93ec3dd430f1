"""The held-out evaluation split: the sources whose role is ``heldout`` (LiveCodeBench), which
training never sees.

They flow through Collect and Process like any source; Filter decontaminates the training rows
against them (``pipeline.filter.roles``) and passes them on unfiltered; Verify checks what it can
(``pipeline.verify.verify_heldout``); the release writes them as the dataset's ``test`` split, as
in the paper (LiveCodeBench v6, tested on problems unseen in training).

Breakdown (verl reports validation per ``data_source``, so the group is the data source):
the hub release (``code_generation_lite``) carries platform, difficulty and contest date, giving
the paper's Table 1 groups ``livecodebench/<platform>/<difficulty>``, and ``after`` keeps only
problems from that contest date on (a date split). The shared copy in ``../shared/data`` has none
of these fields, so there the group is the test kind: ``livecodebench/stdin`` (AtCoder and
Codeforces style) or ``livecodebench/call`` (functional, LeetCode style).
"""

from __future__ import annotations

from typing import Any

from pipeline.schema import row_metadata

SOURCE = "livecodebench"


def from_date(rows: list[dict[str, Any]], after: str) -> list[dict[str, Any]]:
    """Only problems whose contest date is on or after ``after`` (ISO date; "" keeps every row).
    Rows without a date are dropped then, since they cannot be placed."""
    if not after:
        return list(rows)
    return [r for r in rows if r.get("contest_date") and str(r["contest_date"])[:10] >= after]


def eval_group(row: dict[str, Any]) -> str:
    """``livecodebench/<platform>/<difficulty>`` where the row has them, else ``livecodebench/<test kind>``."""
    platform = row_metadata(row).get("platform")
    difficulty = row.get("source_difficulty")
    parts = [SOURCE, str(platform).lower() if platform else row["tests"].kind]
    if difficulty:
        parts.append(str(difficulty).lower())
    return "/".join(parts)
