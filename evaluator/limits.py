"""Time limits of one test: a process's wall slack, and an ``assert`` block's limits per call.

Why per call: an ``assert`` test of a hundred calls (LeetCode's ``check(candidate)``) is a hundred
tests to a judge, each with the test's limit. One limit for the whole block failed correct
programs; no limit on the block would let one looping call stall a caller. So each call gets the
limit (:func:`call_cpu_limit` in the program's process, :func:`wall_limit` in the judge's), and
the block a budget of one limit per call made, capped (:func:`block_cap`).
"""

from __future__ import annotations

import math

BLOCK_CALLS_CAP = 100  # without a wall budget, a block's budget stops growing after this many limits


def wall_limit(cpu_s: float) -> float:
    """Wall time a process (or one call) may take for ``cpu_s`` of CPU: slack for a loaded machine."""
    return cpu_s * 1.5 + 0.5


def block_cap(limit_s: float, wall_left_s: float | None) -> float:
    """CPU seconds an ``assert`` block may use at most: one limit per call up to
    :data:`BLOCK_CALLS_CAP` calls, capped by what is left of the caller's wall budget."""
    cap = limit_s * BLOCK_CALLS_CAP
    if wall_left_s is not None:
        cap = min(cap, max(wall_left_s, 0.1))
    return cap


def block_deadline(start: float, limit_s: float, calls: int, cap_s: float) -> float:
    """When a block that has made ``calls`` calls runs out: one wall limit per call made plus one
    for the code around them, never past the cap's wall limit."""
    return start + min(wall_limit(limit_s) * (calls + 1), wall_limit(cap_s))


def call_cpu_limit(used_s: float, limit_s: float, cap_s: float) -> int:
    """The soft ``RLIMIT_CPU`` for the next call of a process that has used ``used_s``: one more
    limit (whole seconds, as the kernel counts), never past the block's cap."""
    return max(1, min(math.ceil(used_s + limit_s), math.ceil(cap_s)))
