"""Every process a command started, and stopping them all when it is interrupted.

A run's processes are not all in its process group: the vLLM worker and Ray start sessions of
their own, sandboxes make new namespaces, and a process whose parent dies is re-parented away from
the tree (an ingest worker killed mid-step leaves its evaluator pool behind). So the command
becomes a child subreaper (Linux): orphans re-parent to it and stay its descendants. On an
interrupt it asks every descendant to stop (SIGTERM), waits a few seconds, then kills what is left
(SIGKILL: multiprocessing's resource tracker ignores SIGTERM, and a busy worker may not get to it).
"""

from __future__ import annotations

import ctypes
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psutil

PR_SET_CHILD_SUBREAPER = 36
TERMINATING = (signal.SIGTERM, signal.SIGHUP)  # stop as Ctrl-C does
GRACE_S, KILL_S = 4.0, 3.0  # SIGTERM, then SIGKILL: under 10 s in all


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the main thread is, as Ctrl-C raises KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def adopt_orphans() -> bool:
    """Make this process a child subreaper, so that no descendant leaves the tree when its parent
    dies first; False where the kernel has no such option (then orphans go to init)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants() -> list[psutil.Process]:
    """This process's living descendants (zombies excluded), children first."""
    try:
        found = psutil.Process().children(recursive=True)
    except psutil.Error:
        return []
    alive = []
    for process in found:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.Error:
            continue
    return alive


def _signal_all(processes: list[psutil.Process], sig: int) -> None:
    for process in processes:
        try:
            process.send_signal(sig)
        except psutil.Error:
            continue


def _reap() -> None:
    """Collect the exit status of dead children (they stay zombies, listed by ``ps``, until then)."""
    for child in psutil.Process().children():
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                child.wait(timeout=0)
        except (psutil.Error, psutil.TimeoutExpired, ChildProcessError):
            continue


def _resource_tracker(process: psutil.Process) -> bool:
    """multiprocessing's resource tracker: it ignores SIGTERM by design and holds nothing to save."""
    try:
        return "multiprocessing.resource_tracker" in " ".join(process.cmdline())
    except psutil.Error:
        return False


def _ours_to_keep(process: psutil.Process) -> bool:
    """This process's own resource tracker: it ends when we do (its pipe closes); killing it first
    only makes multiprocessing warn and start another."""
    try:
        return process.ppid() == psutil.Process().pid and _resource_tracker(process)
    except psutil.Error:
        return False


def stop_descendants(grace_s: float = GRACE_S, kill_s: float = KILL_S, poll_s: float = 0.1) -> tuple[int, int]:
    """SIGTERM every descendant, again to any that appears, until none is left or ``grace_s``
    passed; then SIGKILL the rest until none is left (at most ``kill_s``). Resource trackers go
    last: they ignore SIGTERM, and one killed while its clients still run makes them warn and start
    another. Returns how many were asked to stop and how many had to be killed."""
    asked: set[int] = set()
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        alive = [p for p in descendants() if not _ours_to_keep(p) and not _resource_tracker(p)]
        if not alive:
            break
        fresh = [p for p in alive if p.pid not in asked]
        _signal_all(fresh, signal.SIGTERM)
        asked.update(p.pid for p in fresh)
        time.sleep(poll_s)
        _reap()
    killed: set[int] = set()
    deadline = time.monotonic() + kill_s
    while (alive := [p for p in descendants() if not _ours_to_keep(p)]) and time.monotonic() < deadline:
        _signal_all(alive, signal.SIGKILL)
        killed.update(p.pid for p in alive)
        time.sleep(poll_s)
        _reap()
    _reap()
    return len(asked | killed), len(killed)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise :class:`Terminated` (a KeyboardInterrupt)
    in the main thread, so one ``except KeyboardInterrupt`` cleans up after all three."""

    def handler(signum: int, _frame: object) -> None:
        raise Terminated(signum)

    previous = {sig: signal.signal(sig, handler) for sig in TERMINATING}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def ignoring_interrupts() -> Iterator[None]:
    """While the block runs (the clean-up after an interrupt), a second Ctrl-C or SIGTERM does not
    cut it short and leave processes behind: it takes seconds, never more than ``GRACE_S + KILL_S``."""
    signals = (signal.SIGINT, *TERMINATING)
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in signals}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
