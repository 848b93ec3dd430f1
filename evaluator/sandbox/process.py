"""Per-process confinement for a forked child, and cleaning up after it: session, signals,
resource limits, group kill. The namespaces and the filesystem view live in :mod:`evaluator.sandbox.jail`.

Stdlib only (``ctypes`` for ``prctl``, which Python 3.11's ``os`` lacks).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SETUP_FAILED = 125  # a child's exit status when confinement failed (it never ran the program)

STACK_BYTES = 1 << 30  # main-thread stack, so deep recursion works as on judges
THREAD_STACK_BYTES = 64 << 20
RECURSION_LIMIT = 1_000_000

_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl  # looked up here, in the fork server: in each child the lookup costs a few dozen page faults


def _prctl(option: int, arg: int) -> bool:
    return _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) == 0


def set_subreaper() -> bool:
    """Orphaned descendants (setsid/double-fork escapers) reparent to us, so we can kill them
    (what a PID namespace does by itself; this covers the degraded level that has none)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def vm_size_bytes() -> int:
    """Current virtual size of this process (what RLIMIT_AS is measured against)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def raise_stack_limit() -> bool:
    """Raise RLIMIT_STACK; True if it changed (the caller re-execs so the layout follows)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    want = STACK_BYTES if hard == resource.RLIM_INFINITY else min(STACK_BYTES, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
        return True
    return False


def prepare_server() -> None:
    """Once, in the fork server before its first child: what every child inherits as it is.
    Default signal dispositions, an environment that carries nothing of ours, the recursion
    limit, the thread stack size, no cap on int digits (judges print big integers). Set in each
    child instead, this cost half a millisecond: a forked child's every write to a page it still
    shares with the server copies that page."""
    for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGXCPU, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"})
    sys.setrecursionlimit(RECURSION_LIMIT)
    sys.set_int_max_str_digits(0)
    threading.stack_size(THREAD_STACK_BYTES)


def set_home(path: str) -> None:
    """``HOME`` and ``TMPDIR`` of the children to come: their working directory (see prepare_server)."""
    if os.environ.get("HOME") != path:
        os.environ.update({"HOME": path, "TMPDIR": path})


def prepare_child() -> None:
    """In the forked child, first: its own session (one group to kill) and death with the worker."""
    os.setsid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def set_limits(*, memory_bytes: int, cpu_s: float, output_bytes: int, nproc: int) -> None:
    """Last step before untrusted code: rlimits and no_new_privs (exec gains no privilege)."""
    cpu = max(1, int(cpu_s + 0.999))
    limits = {
        resource.RLIMIT_AS: (memory_bytes, memory_bytes),
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_FSIZE: (output_bytes, output_bytes),
        resource.RLIMIT_NPROC: (nproc, nproc),
        resource.RLIMIT_NOFILE: (256, 256),
        resource.RLIMIT_CORE: (0, 0),
    }
    for which, value in limits.items():
        try:
            resource.setrlimit(which, value)
        except (ValueError, OSError):
            pass
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def reap_children(max_rounds: int = 10_000) -> int:
    """SIGKILL and reap every process still parented to us; returns how many were found.

    With PID namespaces there are none (a namespace dies with its first process); at the
    degraded level, escapers reparent to us (we are a subreaper) and die here.
    """
    me, killed = os.getpid(), 0
    for _ in range(max_rounds):
        kids = _children(me)
        for kid in kids:
            for fn in (os.killpg, os.kill):
                try:
                    fn(kid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        killed += len(kids)
        reaped = 0
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return killed
            if pid == 0:
                break
            reaped += 1
        if not kids and not reaped:
            return killed
        if not reaped:
            time.sleep(0.0005)
    return killed
