"""The stage contract every pipeline stage speaks (datatrove's model: small steps over plain rows).

A stage takes rows and returns a :class:`StageResult`: the rows it kept, a rejects-table row for
every row it did not keep, and its counts. A step or a rule rejects a row by raising
:class:`Rejected` with a short stable reason; :func:`run_steps` writes the loop once, so one bad
row never sinks a run and every input row is accounted for.
"""

from __future__ import annotations

import json
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.schema import to_storable

Row = dict[str, Any]
Step = Callable[[Row], Row]

# One name per stage: the library package, the asset (``<stage>_rejects``, ...) and the rejects'
# ``stage`` column all use these.
COLLECT, PROCESS, FILTER, VERIFY = "collect", "process", "filter", "verify"
STAGES = (COLLECT, PROCESS, FILTER, VERIFY)


class Rejected(ValueError):
    """A record or row that must not go on. ``reason`` is a short stable code for the rejects table."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class StageStats:
    """One shape of counts for every stage (datatrove's stats): rows read, kept and rejected, the
    rejects per reason, and whatever else the stage measures (``extra``). The assets report it
    under the same metadata keys (``assets.metadata.stage_metadata``)."""

    input: int = 0
    kept: int = 0
    rejected: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        """A count by name, the fixed ones first (``stats["kept"]``, ``stats["seconds"]``)."""
        if key in ("input", "kept", "rejected", "reasons"):
            return getattr(self, key)
        return self.extra[key]


@dataclass
class StageResult:
    """What a stage returns: kept rows, rejects-table rows, and its counts (``stats``)."""

    kept: list[Row] = field(default_factory=list)
    rejects: list[Row] = field(default_factory=list)
    stats: StageStats = field(default_factory=StageStats)

    def reasons(self) -> dict[str, int]:
        """Rejects per reason, most frequent first."""
        return dict(Counter(r["reason"] for r in self.rejects).most_common())

    def count(self, input_rows: int, **extra: Any) -> StageResult:
        """Fill :attr:`stats` from the rows it holds: the one helper every stage counts with.
        ``input_rows``: what the stage read (a source's records for Collect)."""
        self.stats = StageStats(input_rows, len(self.kept), len(self.rejects), self.reasons(), extra)
        return self


def reject(
    stage: str,
    row: Row,
    reason: str,
    detail: str | None = None,
    *,
    source: str | None = None,
    source_id: Any = None,
) -> Row:
    """A rejects-table row for ``row`` (kept whole, as JSON text, so nothing is lost).

    ``source``/``source_id`` are for Collect, whose records are not canonical rows yet.
    """
    sid = row.get("source_id") if source_id is None else source_id
    return {
        "source": source or row.get("source") or "unknown",
        "source_id": None if sid is None else str(sid),
        "problem_id": row.get("problem_id"),
        "stage": stage,
        "reason": reason,
        "detail": detail,
        "record": json.dumps(to_storable(row), ensure_ascii=False, default=str) if row else None,
    }


def error_summary(err: BaseException) -> str:
    """An unexpected error as one line: type, message and the last frames (for the rejects table)."""
    frames = traceback.extract_tb(err.__traceback__)[-3:]
    where = " <- ".join(f"{f.name}@{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in reversed(frames))
    return f"{type(err).__name__}: {err} [{where}]"


def run_steps(rows: Iterable[Row], steps: Sequence[Step], stage: str) -> StageResult:
    """Each row through ``steps`` in order; a :class:`Rejected` (or any error) rejects that row only.

    Steps get a copy, so a reject keeps the row as it came in.
    """
    result = StageResult()
    count = 0
    for row in rows:
        count += 1
        current = dict(row)
        try:
            for step in steps:
                current = step(current)
        except Rejected as err:
            result.rejects.append(reject(stage, row, err.reason, err.detail))
            continue
        except Exception as err:  # noqa: BLE001 - one bad row never sinks a run
            result.rejects.append(reject(stage, row, f"{stage}_error", error_summary(err)))
            continue
        result.kept.append(current)
    return result.count(count)
