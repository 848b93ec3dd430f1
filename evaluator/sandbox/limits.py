"""Time limits of one test: a process's wall slack, and an ``assert`` block's limits per call.

Why per call: an ``assert`` test of a hundred calls (LeetCode's ``check(candidate)``) is a hundred
tests to a judge, each with the test's limit. One limit for the whole block failed correct
programs; no limit on the block would let one looping call stall a caller. So each call gets the
limit (its CPU timed by the fork server, :mod:`evaluator.sandbox.worker`; its wall time by the judge,
:func:`wall_limit`), and the block a budget of one limit per call made, capped (:func:`block_cap`).

How exact: the fork server reads the program's CPU clock from outside its process every
:data:`CPU_POLL_S`, and sooner as the limit nears (:func:`next_reading_s`), and stops it at the first
reading past the limit plus :data:`CPU_MARGIN_S`, so a CPU limit of L seconds stops a one-thread
program within L + 0.015 s of CPU on a free machine (a program of several threads within a poll;
more only where the server itself waits for a core, and never past the kernel's hard
``RLIMIT_CPU``, the block's cap + 1 s, whatever the program does to its own signals and limits).
"""

from __future__ import annotations

from collections.abc import Callable

BLOCK_CALLS_CAP = 100  # without a wall budget, a block's budget stops growing after this many limits
CPU_POLL_S = 0.05  # the longest between two readings of a running program's CPU clock
CPU_MARGIN_S = 0.01  # CPU past the limit a reading tolerates (the clock is exact; this is slack, not error)
CPU_POLL_MIN_S = 0.002  # the shortest


def next_reading_s(cpu_left_s: float) -> float:
    """Seconds to the next reading of a program's CPU clock, ``cpu_left_s`` before its limit: no
    later than one thread could spend what is left, so a program that runs out of time stops a few
    milliseconds past its limit rather than up to a poll past it (each time limit costs its wall)."""
    return min(CPU_POLL_S, max(cpu_left_s + CPU_MARGIN_S, CPU_POLL_MIN_S))


def wall_limit(cpu_s: float) -> float:
    """Wall time a process (or one call) may take for ``cpu_s`` of CPU: slack for a loaded machine."""
    return cpu_s * 1.5 + 0.5


def idle_past_limit(wall_s: float, time_s: float, runqueue_wait_s: Callable[[], float]) -> bool:
    """Whether a process has taken more than its limit of the wall clock that was its own: the wall
    time less what it spent waiting for a core (``runqueue_wait_s``, read only once the wall
    passes the limit). A program that sleeps or blocks is stopped at its limit, not at
    :func:`wall_limit`, whose slack is for a loaded machine; a starved one keeps the slack."""
    return wall_s > time_s + CPU_MARGIN_S and wall_s - runqueue_wait_s() > time_s + CPU_MARGIN_S


def block_cap(time_s: float, wall_left_s: float | None) -> float:
    """CPU seconds an ``assert`` block may use at most: one limit per call up to
    :data:`BLOCK_CALLS_CAP` calls, capped by what is left of the caller's wall budget."""
    cap = time_s * BLOCK_CALLS_CAP
    if wall_left_s is not None:
        cap = min(cap, max(wall_left_s, 0.1))
    return cap


def block_deadline(start: float, time_s: float, calls: int, block_s: float) -> float:
    """When a block that has made ``calls`` calls runs out: one wall limit per call made plus one
    for the code around them, never past the cap's wall limit."""
    return start + min(wall_limit(time_s) * (calls + 1), wall_limit(block_s))


def call_share(time_s: float, top_cpu_s: float, top_wall_s: float) -> tuple[float, float]:
    """CPU and wall seconds a ``call`` case may use in a process that ran the program's top level
    once for every case: what a process of its own would have left after its top level (one
    limit for both), so running the cases together never passes one that alone fails."""
    return max(0.0, time_s - top_cpu_s), max(0.0, wall_limit(time_s) - top_wall_s)


class CaseClock:
    """The time limits of one case as the fork server enforces them, in one place: the wall
    deadline (:func:`block_deadline` for a block of calls, one :func:`wall_limit` otherwise, and
    a fed step's own), the running call's CPU allowance, and when to read the program's CPU
    clock next. Pure: the server reads the clocks and kills; this says when and whether.

    ``block``: calls are counted (an ``assert`` block or a test's fed steps); ``charge_top``: a
    call test's steps each carry the program's top level (:func:`call_share`)."""

    def __init__(self, start: float, time_s: float, block_s: float, *, block: bool, charge_top: bool = False) -> None:
        self.start, self.time_s, self.block_s = start, time_s, block_s
        self.block, self.charge_top = block, charge_top
        self.calls = 0
        self.window = start  # when the running fed step started
        self.cpu0 = 0.0  # the program's CPU when the running call started
        self.cpu_limit, self.wall_step = time_s, wall_limit(time_s)
        self.top: tuple[float, float] | None = None  # (CPU, wall) of the top level, once it is over
        self.fresh = False  # a call started since the last reading: its CPU counts from the next
        self.next_read = start  # when the CPU clock is read next

    def deadline(self, fed_step: bool) -> float:
        """When the case runs out of wall time; ``fed_step``: a fed step is under way."""
        end = (block_deadline(self.start, self.time_s, self.calls, self.block_s) if self.block
               else self.start + wall_limit(self.time_s))
        return min(end, self.window + self.wall_step) if fed_step else end

    def wait_ms(self, now: float, deadline: float, reading: bool) -> int:
        """Milliseconds to wait for an event: to the deadline, or to the next reading (``reading``:
        the program is alive, so its clock is read)."""
        wait = (min(deadline, self.next_read) if reading else deadline) - now
        return max(0, int(wait * 1000) + 1)

    def reading_due(self, now: float) -> bool:
        return now >= self.next_read

    def step_answered(self, now: float) -> None:
        """A fed step's reply is whole and the next step went out: a call starts now."""
        self.calls += 1
        self.window, self.fresh = now, True

    def calls_started(self, count: int) -> None:
        """The judge sent ``count`` requests since the last look."""
        self.calls += count

    def read(self, used: float | None, now: float, *, started: bool, fed: bool) -> bool:
        """One reading of the program's CPU clock (``used``; None: the program is gone), at
        ``now``; ``started``: a call started since the last look (``fed``: a fed step's). True when
        the running call is past its CPU limit. Sets the next reading: no later than one
        thread could spend what is left (and, outside a block, the wall limit)."""
        over = False
        if started and used is not None:
            if fed:
                self.calls += 1
            if self.top is None:
                self.top = (used, now - self.start)
                if self.charge_top:
                    self.cpu_limit, self.wall_step = call_share(self.time_s, *self.top)
            self.window, self.cpu0, self.fresh = now, used, False
        elif self.fresh and used is not None:
            self.cpu0, self.fresh = used, False
        elif used is not None and used - self.cpu0 > self.cpu_limit + CPU_MARGIN_S:
            over = True
        left = self.cpu_limit - (used - self.cpu0) if used is not None and not self.fresh else self.cpu_limit
        if not self.block:  # a sleeping program's wall limit comes no later (see idle_past_limit)
            left = min(left, self.time_s - (now - self.start))
        self.next_read = now + next_reading_s(left)
        return over

    def idle(self, now: float, runqueue_wait_s: Callable[[], float]) -> bool:
        """Outside a block: the program has taken its limit of the wall clock that was its own."""
        return not self.block and idle_past_limit(now - self.start, self.time_s, runqueue_wait_s)
