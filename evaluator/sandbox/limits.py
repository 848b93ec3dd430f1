"""Time limits of one test: a process's wall slack, and an ``assert`` block's limits per call.

Why per call: an ``assert`` test of a hundred calls (LeetCode's ``check(candidate)``) is a hundred
tests to a judge, each with the test's limit. One limit for the whole block failed correct
programs; no limit on the block would let one looping call stall a caller. So each call gets the
limit (its CPU timed by the fork server, :mod:`evaluator.sandbox.worker`; its wall time by the judge,
:func:`wall_limit`), and the block a budget of one limit per call made, capped (:func:`block_cap`).

How exact: the fork server reads the program's CPU clock from outside its process every
:data:`CPU_POLL_S` and stops it at the first reading past the limit plus :data:`CPU_MARGIN_S`, so
a CPU limit of L seconds stops a program within L + 0.1 s of CPU on a free machine (more only
where the server itself waits for a core, and never past the kernel's hard ``RLIMIT_CPU``, the
block's cap + 1 s, whatever the program does to its own signals and limits).
"""

from __future__ import annotations

from collections.abc import Callable

BLOCK_CALLS_CAP = 100  # without a wall budget, a block's budget stops growing after this many limits
CPU_POLL_S = 0.05  # how often the fork server reads a running program's CPU clock
CPU_MARGIN_S = 0.05  # CPU past the limit a reading tolerates (the clock is exact; this is slack, not error)


def wall_limit(cpu_s: float) -> float:
    """Wall time a process (or one call) may take for ``cpu_s`` of CPU: slack for a loaded machine."""
    return cpu_s * 1.5 + 0.5


def idle_past_limit(wall_s: float, limit_s: float, runqueue_wait_s: Callable[[], float]) -> bool:
    """Whether a process has taken more than its limit of the wall clock that was its own: the wall
    time less what it spent waiting for a core (``runqueue_wait_s``, read only once the wall
    passes the limit). A program that sleeps or blocks is stopped at its limit, not at
    :func:`wall_limit`, whose slack is for a loaded machine; a starved one keeps the slack."""
    return wall_s > limit_s + CPU_MARGIN_S and wall_s - runqueue_wait_s() > limit_s + CPU_MARGIN_S


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


def call_share(limit_s: float, top_cpu_s: float, top_wall_s: float) -> tuple[float, float]:
    """CPU and wall seconds a ``call`` case may use in a process that ran the program's top level
    once for every case: what a process of its own would have left after its top level (one
    limit for both), so running the cases together never passes one that alone fails."""
    return max(0.0, limit_s - top_cpu_s), max(0.0, wall_limit(limit_s) - top_wall_s)
