"""Test kinds as registered strategies (:mod:`~pipeline.verify.testgen.kinds.base`): ``stdin``
(:mod:`~pipeline.verify.testgen.kinds.stdin`), ``call`` (:mod:`~pipeline.verify.testgen.kinds.call`),
``assert`` and ``linked`` (:mod:`~pipeline.verify.testgen.kinds.assertion`). Importing the package
registers them all."""

from __future__ import annotations

from typing import Any

from pipeline.verify.testgen.kinds import assertion, call, stdin
from pipeline.verify.testgen.kinds.base import AllowAll, Answers, Candidate, Job, Kills, NoInputs, Plan, Program, Runs, TestKind, cover, input_size, kind_for, register_kind

__all__ = ["AllowAll", "Answers", "Candidate", "Job", "Kills", "NoInputs", "Plan", "Program", "Runs", "TestKind",
           "assertion", "call", "cover", "hardcoder", "input_size", "kind_for", "register_kind", "stdin"]


def hardcoder(row: dict[str, Any], plan: Plan | None = None, kind: TestKind | None = None) -> str | None:
    """The program that memorises the examples the row's statement prints (None: none to write),
    which a problem's tests must reject: generation's adversary, and Verify's strength check.
    ``plan``, ``kind``: what generation already read from the tests."""
    try:
        return (kind or kind_for(row["tests"])).hardcoder(row, plan)
    except Exception:  # noqa: BLE001 - no hardcoder for this problem: measured without it
        return None
