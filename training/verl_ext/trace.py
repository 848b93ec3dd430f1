"""Opt-in per-sample trace of the truncation mask, for checking it end to end.

When ``MICROCODER_TRACE_DIR`` is set (``TrainingConfig.trace_masking`` sets it for every verl
process), the trainer writes what it decided for each sample (keys, eligibility, draw, advantage
before and after the mask) and the policy loss writes what each row of each micro-batch actually
received (length, old log-prob sum as a fingerprint, advantage). Joining the two shows whether a
masked sample reaches the actor's loss with advantage 0 and every other sample with its own.
Off by default: the loss-side record costs a device sync per micro-batch.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

ENV = "MICROCODER_TRACE_DIR"


def trace_dir() -> Path | None:
    value = os.environ.get(ENV)
    return Path(value) if value else None


def write(kind: str, records: list[dict]) -> None:
    """Append ``records`` as JSON lines to ``<dir>/<kind>-<pid>.jsonl`` (one file per process)."""
    root = trace_dir()
    if root is None or not records:
        return
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{kind}-{os.getpid()}.jsonl", "a") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")


def read(root: Path, kind: str) -> list[dict]:
    """Every record of ``kind`` written under ``root`` (all processes)."""
    out = []
    for path in sorted(Path(root).glob(f"{kind}-*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return out
