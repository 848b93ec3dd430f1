"""Client side of the fork servers: start, talk to, restart, and pool them.

A worker that dies (a candidate killed it, or it crashed) is restarted transparently and
the case it was running is reported as a crash; the evaluator carries on. Code, test code
and checker files go to the worker as memfds over a ``SOCK_SEQPACKET`` socket (see
:mod:`evaluator.sandbox.worker`), never as bytes it reads.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import logging
import marshal
import os
import queue
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from evaluator.runtime.request import Request
from evaluator.sandbox import limits

_PKG_PARENT = str(Path(__file__).resolve().parents[2])  # the directory holding the evaluator package


_warned = threading.Event()


class WorkerDied(RuntimeError):
    pass


def _memfd(name: str, text: str | bytes) -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


TAIL_BYTES = 2000  # of a child's stderr
MAX_MESSAGE = 1 << 28  # a child's message channel (replies of a step stream, a judge's report)
MAX_SLOTS = 1000  # root mode: sandbox uids SANDBOX_UID_BASE .. + MAX_SLOTS - 1


def _decode_result(data: bytes) -> dict:
    """A case's result as the fork server sent it (:meth:`evaluator.sandbox.worker.ForkServer.reply`):
    marshal, not JSON, because the server is ours, on this interpreter, and JSON's encoder cost it
    about 30 page copies a case (each fork makes the server's pages copy-on-write again)."""
    try:
        result = marshal.loads(data)
    except (EOFError, TypeError, ValueError) as exc:
        raise ValueError(f"unreadable result from the worker: {exc}") from None
    if not isinstance(result, dict):
        raise ValueError("unreadable result from the worker: not a mapping")
    return result


def claim_slot() -> tuple[int, int]:
    """A worker slot that no other live worker on this machine holds, and the descriptor whose
    ``flock`` holds it (released when closed, or when the holding process ends).

    Why machine-wide: a slot is a sandbox uid, and the kernel counts ``RLIMIT_NPROC`` per uid.
    Two pools (of two sizes, or in two processes: Dagster's step processes, verl's reward
    workers) numbering their slots from 0 would share uids, so one case's fork bomb could make
    another program's fork fail."""
    folder = Path(tempfile.gettempdir()) / f"microcoder-eval-slots-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    for slot in range(MAX_SLOTS):
        fd = os.open(folder / f"{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return slot, fd
        except BlockingIOError:
            os.close(fd)
    raise RuntimeError(f"all {MAX_SLOTS} evaluator worker slots of this machine are taken")


def _children(pid: int) -> list[int]:
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            pass
    return children


def kill_children(pid: int) -> None:
    """SIGKILL every child of ``pid`` (a case's processes; each is its PID namespace's init where
    there are namespaces, so its whole namespace goes with it), then ``pid`` itself. ``pid`` is
    stopped first: it cannot reap a child meanwhile, so no pid read here is reused by then."""
    try:
        os.kill(pid, signal.SIGSTOP)
    except (ProcessLookupError, PermissionError):
        return
    for child in _children(pid):
        try:
            os.kill(child, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Worker:
    """One fork-server process; not thread-safe (the pool hands each to one thread at a time).
    ``slot`` None: a slot no other live worker on this machine holds (:func:`claim_slot`)."""

    def __init__(self, slot: int | None = None) -> None:
        self._slot_lock: int | None = None
        if slot is None:
            slot, self._slot_lock = claim_slot()
        self.slot = slot
        self.proc: subprocess.Popen | None = None
        self.isolation = "unknown"
        self.start()

    def start(self, timeout: float = 60.0) -> None:
        self._buf = b""
        env = dict(os.environ)
        env["PYTHONPATH"] = _PKG_PARENT + os.pathsep + env.get("PYTHONPATH", "")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "evaluator.sandbox.worker", str(self.slot), str(theirs.fileno())],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env, close_fds=True, bufsize=0,
                pass_fds=(theirs.fileno(),), cwd=_PKG_PARENT,  # `-m` puts the working directory first on sys.path
            )
        finally:
            theirs.close()
        self.sock = ours
        hello = self._read_line(timeout)
        self.isolation = hello.get("isolation", "unknown")
        if str(self.isolation).startswith("degraded") and not _warned.is_set():
            _warned.set()
            logging.getLogger("microcoder.evaluator").warning(
                "sandbox degraded (%s): no private filesystem or process view here; files, TCP and "
                "signals are walled by Landlock only (see `microcoder-eval doctor`)", self.isolation)
        self.host_pids = bool(hello.get("host_pids", True))
        self.base = str(hello.get("base") or "")

    def _read_line(self, timeout: float) -> dict:
        """Next JSON line from the worker, reading the raw fd (a buffered reader would hide
        an already-received second line from select)."""
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            chunk = os.read(fd, 1 << 16) if ready else b""  # a larger request costs a fresh allocation
            if not chunk:
                raise WorkerDied("worker exited or stopped answering")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def run(self, req: Request, payload: dict[str, str], deadline: float | None = None) -> dict:
        """Run one case; returns the worker's raw result (see worker.ForkServer.run_case), with
        what the children left in their memfds read here (``stdout``, ``stderr_tail``, ``message``).

        ``payload`` (name -> text: ``code``, ``stdin``, ``test``, checker files) travels as
        memfds. ``deadline`` (a ``time.monotonic()`` value) bounds the wait whatever happens:
        past it the worker is killed and restarted and the case reads as timed out.
        """
        pid = None
        fds = [_memfd(name, text) for name, text in payload.items()]
        timeout = req.wall_s  # the request carries its limits (evaluator.runs.server_request)
        try:
            if self.proc is None:  # died on an earlier case of this call: a new one, on this call's time
                self.start(timeout=self._budget(60.0, deadline))
            message = req.wire(list(payload))
            socket.send_fds(self.sock, [message], fds)
            for fd in fds:
                os.close(fd)
            fds = []
            first = self._read_line(self._budget(30.0, deadline))
            if "pid" not in first:
                return first  # the worker refused the request
            pid = first["pid"]
            return self._result(self._budget(limits.wall_limit(timeout) + 30.0, deadline))
        except (WorkerDied, BrokenPipeError, OSError, ValueError, KeyError) as exc:
            overdue = deadline is not None and time.monotonic() >= deadline
            self._discard(pid)
            return {"deadline": True} if overdue else {"worker_died": str(exc)}
        finally:
            for fd in fds:
                os.close(fd)

    def run_each(self, req: Request, code: str, inputs: list[str], deadline: float | None,
                 judged: Callable[[dict], bool]) -> None:
        """A ``stdin`` test's cases in one request: each case's raw result (as :meth:`run` gives it)
        goes to ``judged`` as it comes, and the next case runs only when ``judged`` says True.

        Why: a request a case sent the code again, and waited for a pid line and a result; here the
        code and the limits travel once, the inputs in one memfd, and a case costs one result and
        one byte back. Only where the children have a PID namespace (:attr:`host_pids` False): the
        degraded level needs each case's pid line, and goes a request a case (:meth:`run`)."""
        data = [text.encode("utf-8", "surrogatepass") for text in inputs]
        message = dataclasses.replace(req, sizes=[len(d) for d in data]).wire(["code", "inputs"])
        wait = limits.wall_limit(req.time_s) + 30.0
        failed = self._guarded(lambda: self._send_batch(message, code, b"".join(data), deadline), deadline)
        if failed is not None:
            judged(failed)
            return
        for k in range(len(data)):
            got: list = []
            failed = self._guarded(lambda: got.extend(self._result(self._budget(wait, deadline), lines=True)), deadline)
            raw, alone = (failed, True) if failed is not None else got
            if not judged(raw) or alone:  # `alone`: the batch is over (refused, or the worker is gone)
                if k + 1 < len(data) and not alone:
                    self._guarded(lambda: self.sock.send(b"s"), deadline)
                return
            if k + 1 < len(data) and self._guarded(lambda: self.sock.send(b"n"), deadline) is not None:
                return  # the worker is gone: the next case reads as that (the caller runs the rest again)

    def stop_case(self) -> None:
        """SIGKILL the case this worker runs now (its fork server's children, each its PID
        namespace's init), not the worker: the case ends as killed, the batch goes on as after any
        case. For a case whose result no longer counts (:mod:`evaluator.tail`); the caller makes
        sure this worker cannot have started another case meanwhile. Only where the children have
        PID namespaces: elsewhere a case's pids are the host's, and nothing is killed."""
        proc = self.proc
        if proc is None or self.host_pids:
            return
        server = proc.pid
        if not str(self.isolation).startswith("root"):  # the process started here waits for the server, its child
            started = _children(proc.pid)
            if len(started) != 1:
                return
            server = started[0]
        for child in _children(server):
            try:
                os.kill(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _send_batch(self, message: bytes, code: str, inputs: bytes, deadline: float | None) -> None:
        if self.proc is None:  # died on an earlier case of this call: a new one, on this call's time
            self.start(timeout=self._budget(60.0, deadline))
        fds = [_memfd("code", code), _memfd("inputs", inputs)]
        try:
            socket.send_fds(self.sock, [message], fds)
        finally:
            for fd in fds:
                os.close(fd)

    def _guarded(self, step: Callable[[], object], deadline: float | None) -> dict | None:
        """Run a step of the exchange; if the worker broke (or the deadline passed) meanwhile, it is
        discarded and the answer is what :meth:`run` says then, else None."""
        try:
            step()
            return None
        except (WorkerDied, BrokenPipeError, OSError, ValueError, KeyError) as exc:
            overdue = deadline is not None and time.monotonic() >= deadline
            self._discard(None)
            return {"deadline": True} if overdue else {"worker_died": str(exc)}

    def _result(self, timeout: float, lines: bool = False) -> dict | tuple[dict, bool]:
        """The case's result on the socket, and the output its memfds hold. ``lines``: a line on
        stdout (a refused request) answers too; returns (result, whether it came as a line)."""
        out = self.proc.stdout.fileno() if lines and self.proc and self.proc.stdout else None
        if out is not None and b"\n" in self._buf:
            return self._read_line(timeout), True
        ready, _, _ = select.select([self.sock] + ([out] if out is not None else []), [], [], timeout)
        if not ready:
            raise WorkerDied("worker stopped answering")
        if self.sock not in ready:
            return self._read_line(timeout), True
        data, fds, _, _ = socket.recv_fds(self.sock, 1 << 20, 16)
        try:
            if not data:
                raise WorkerDied("worker exited")
            result = _decode_result(data)
            names = result.pop("fds", [])
            if len(names) != len(fds):
                raise ValueError("descriptor count does not match the result")
            cap = int(result.get("output_cap") or 0)
            for name, fd in zip(names, fds):
                proc, _, what = name.partition(".")
                entry = result.get(proc)
                if not isinstance(entry, dict):
                    continue
                size = os.fstat(fd).st_size
                if what == "stdout":
                    data = os.pread(fd, min(size, cap + 1), 0)
                    if size >= cap:  # the verdict is the output limit: what it printed is never compared
                        data = data[:TAIL_BYTES]
                    entry["stdout"] = data.decode("utf-8", "replace") if proc == "candidate" else ""
                    entry["stdout_bytes"] = size
                elif what == "stderr":
                    start = max(0, size - TAIL_BYTES)
                    entry["stderr_tail"] = os.pread(fd, size - start, start).decode("utf-8", "replace")
                elif what == "message":
                    entry["message"] = os.pread(fd, min(size, MAX_MESSAGE), 0).decode("utf-8", "surrogateescape")
            return (result, False) if lines else result
        finally:
            for fd in fds:
                os.close(fd)

    @staticmethod
    def _budget(wait: float, deadline: float | None) -> float:
        return wait if deadline is None else max(0.0, min(wait, deadline - time.monotonic()))

    def _discard(self, child_pid: int | None) -> None:
        """Kill a broken worker and what it is running; the pool starts a new one when it is next
        lent (no waiting here). A candidate left behind would run on to its own CPU limit (or, a
        sleeping one, for ever) beside the next programs, so its processes die first."""
        if child_pid and self.host_pids:  # only where the worker's pids are ours (degraded level)
            try:
                os.killpg(child_pid, signal.SIGKILL)  # the orphaned candidate, if any
            except (ProcessLookupError, PermissionError):
                pass
        if self.proc is not None:
            kill_children(self.proc.pid)
        self.close()

    def close(self) -> None:
        if self.proc is None:
            return
        try:
            self.proc.kill()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001
            pass
        if os.path.basename(self.base).startswith("mc-eval-"):  # the killed worker's empty mount points
            shutil.rmtree(self.base, ignore_errors=True)
        for stream in (self.proc.stdout, self.sock):
            try:
                stream.close()
            except Exception:  # noqa: BLE001
                pass
        self.proc = None

    def release_slot(self) -> None:
        """Give the slot back (after :meth:`close`: a restart keeps its slot until then)."""
        if self._slot_lock is not None:
            os.close(self._slot_lock)
            self._slot_lock = None


class WorkerPool:
    """A fixed set of workers, lent out one per thread."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._free: queue.Queue[Worker] = queue.Queue()
        self._all: list[Worker] = []
        self._lock = threading.Lock()

    def _grow(self) -> None:
        with self._lock:
            if len(self._all) < self.size:
                w = Worker()
                self._all.append(w)
                self._free.put(w)

    @contextmanager
    def worker(self, deadline: float | None = None):
        """Lend a worker; raises TimeoutError when none is free by ``deadline`` (monotonic)."""
        if self._free.empty() and len(self._all) < self.size:
            self._grow()
        try:
            w = self._free.get(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError("no free evaluator worker before the deadline") from None
        try:
            if w.proc is None:  # died on an earlier case: restarted here, on this call's time
                w.start(timeout=60.0 if deadline is None else max(1.0, deadline - time.monotonic()))
            yield w
        finally:
            self._free.put(w)

    @property
    def isolation(self) -> str:
        with self.worker() as w:
            return w.isolation

    def close(self) -> None:
        for w in self._all:
            w.close()
            w.release_slot()
        self._all.clear()


_shared: dict[tuple[int, int], WorkerPool] = {}
_shared_lock = threading.Lock()


def shared_pool(size: int) -> WorkerPool:
    """A process-wide pool per size, reused across calls (workers start once). Keyed by pid
    too: a forked process (e.g. a reward manager's process pool) must not share its parent's
    worker pipes."""
    key = (os.getpid(), size)
    with _shared_lock:
        pool = _shared.get(key)
        if pool is None:
            pool = _shared[key] = WorkerPool(size)
        return pool
