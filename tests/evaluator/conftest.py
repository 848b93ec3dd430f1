"""Shared helpers of the evaluator tests."""

from __future__ import annotations

import os

import pytest

MARK = b"MC_HOSTILE_MARK"  # hostile test programs put this in the environment of what they spawn


def _marked() -> list[int]:
    """Live processes whose environment carries :data:`MARK` (spawned by a hostile program)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/environ", "rb") as fh:
                    if MARK in fh.read():
                        found.append(int(name))
            except OSError:
                pass
    return found


@pytest.fixture
def leftover_processes():
    """Call it after a hostile program: the processes it left behind (must be none)."""
    return _marked
