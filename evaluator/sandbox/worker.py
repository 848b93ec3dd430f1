"""The fork server: one long-lived process per evaluator slot (``python -m evaluator.sandbox.worker SLOT``).

It enters its jail once (:class:`evaluator.sandbox.jail.Jail`), imports common modules once, then forks
fresh, confined children per test case, so each case costs a fork instead of an interpreter
start. Protocol: requests arrive on a ``SOCK_SEQPACKET`` socket (fd 3) as one JSON message with
file descriptors attached: the program's code, the case's input and, for ``assert`` tests, the
test code and the calls predicted to come first (checker cases: the checker's files; lifted and
``call`` steps: the steps). A ``{"pid": N}`` line goes out on stdout as soon as the children
exist; the result goes back on the socket, with the children's output memfds attached.

This process never reads a case's data: the code, the test code, the steps, the program's
output and replies travel as memfds and pipes straight between the processes that need them
(``splice``/``sendfile`` move them in the kernel), so nothing a later candidate could find in its
(forked) memory was ever in ours: not an expected value, not another program's answer, not a
call the test has yet to make. For ``assert`` tests the judge child is forked before the
candidate child exists. The judge writes a byte to a pipe of ours per request it sends the
program; each starts a call, and each call gets the case's CPU limit, timed here from outside the
program's process (:func:`_cpu_clock`), and extends the block's wall deadline by one limit, up to
the cap (:mod:`evaluator.sandbox.limits`). Lifted and ``call`` steps are fed here one at a time: the next
only after the program's reply to the one before has left its process.

A ``stdin`` test's cases may come as one request (``sizes``: each case's input length; the inputs
in one memfd, the code in another): each case still runs in a fresh child of its own, its input
copied in the kernel into a memfd of its own (this process never reads it, and no case sees
another's input), and its result goes back as a single case's does; the next case starts only when
the parent, which compares, says so (one byte: ``n`` next, ``s`` stop). Where the children's pids
are the host's (the degraded level) the parent needs each pid line, and sends a request a case.
"""

from __future__ import annotations

import fcntl
import gc
import json
import marshal
import os
import select
import signal
import socket
import sys
import time

from evaluator.runtime import harness, steps
from evaluator.runtime.request import Request
from evaluator.sandbox import jail, layouts, limits, process

_REEXEC_FLAG = "MICROCODER_EVAL_WORKER_REEXEC"
REQUEST_FD = 3
_MAX_FDS = 8
CHECKER_FILES = ("input.txt", "expected.txt", "output.txt")
MAX_REPLIES = 1 << 28  # a step stream's replies, all together
_NONBLOCK = getattr(os, "SPLICE_F_NONBLOCK", 2)
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
PRELOAD_MODULES = (  # what programs commonly import
    "string re datetime collections heapq bisect copy math random statistics itertools functools "
    "operator io json typing decimal fractions array dataclasses enum fnmatch hashlib unittest sortedcontainers"
).split()


def preload() -> None:
    """Import what programs commonly import, so every forked child starts with them loaded."""
    for name in PRELOAD_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass
    # What the children import after entering the jail, where our package is not visible.
    import evaluator.asserts.judge  # noqa: F401 - the assert judge
    import evaluator.compare  # noqa: F401 - the call encoder
    import evaluator.runtime.peer  # noqa: F401 - the candidate's end of the assert pipes
    import evaluator.runtime.steps  # noqa: F401 - the candidate's side of a lifted assert test
    import evaluator.runtime.wire  # noqa: F401


def _memfd(name: str) -> int:
    return os.memfd_create(name, 0)


def _cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time, all its threads (``clock_getcpuclockid``):
    read from here, the program cannot hide or slow it, and PID 1's deafness to SIGXCPU does
    not matter."""
    return ((~pid) << 3) | 2


def _cpu_of(clock: int) -> float | None:
    try:
        return time.clock_gettime(clock)
    except OSError:  # the process is gone
        return None


def _runqueue_wait(pid: int) -> float:
    """Seconds the longest-waiting thread of process ``pid`` spent runnable but not running
    (``/proc/<pid>/task/*/schedstat``): time a loaded machine took from it, not time it used.
    Infinite where the kernel does not say (the wall limit alone decides then)."""
    most = 0.0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as fh:
                most = max(most, int(fh.read().split()[1]) / 1e9)
    except (OSError, ValueError, IndexError):
        return float("inf")
    return most


def _copy_into(src: int, path: str) -> None:
    """Copy a memfd to a file in the kernel (its bytes never pass through our memory)."""
    dst = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        offset, size = 0, os.fstat(src).st_size
        while offset < size:
            sent = os.sendfile(dst, src, offset, size - offset)
            if sent <= 0:
                break
            offset += sent
    finally:
        os.close(dst)


def _slice(src: int, offset: int, size: int) -> int:
    """A fresh memfd holding ``size`` bytes of ``src`` from ``offset``, copied in the kernel (its
    bytes never pass through our memory), positioned at its start: one case's input of a batch."""
    dst = _memfd("stdin")
    try:
        done = 0
        while done < size:
            sent = os.sendfile(dst, src, offset + done, size - done)
            if sent <= 0:
                raise OSError("the inputs memfd is shorter than its sizes say")
            done += sent
        os.lseek(dst, 0, os.SEEK_SET)
    except BaseException:
        os.close(dst)
        raise
    return dst


def _stdio(fds: dict[str, int]) -> list[int]:
    """A child's stdin, stdout and stderr memfds: what its result reads back."""
    return [fds["stdin"], fds["stdout"], fds["stderr"]]


def _take_text(fd: int) -> str:
    """Read a payload memfd and close it (in a child: the program keeps no descriptor to its inputs)."""
    size = os.fstat(fd).st_size
    text = os.pread(fd, size, 0).decode("utf-8", "replace") if size else ""
    os.close(fd)
    return text


class _Feed:
    """The steps of a lifted or ``call`` test, fed to the candidate one at a time: step k only
    once k replies (the hello first) have left its process. Its reply bytes are moved into a
    memfd of ours as they come; ``fed_at`` records how many there were when each step was
    revealed, so the parent can tell a reply written after a later step was seen."""

    def __init__(self, steps_fd: int, lines: list[int], step_w: int, reply_r: int, value: int) -> None:
        self.steps_fd, self.lines, self.step_w, self.reply_r, self.value = steps_fd, lines, step_w, reply_r, value
        self.offset = 0  # in the steps memfd
        self.next = 0  # the next step to reveal
        self.left = 0  # bytes of the step being written
        self.ticks = 0
        self.committed = 0
        self.full = False
        self.fed_at: list[int] = []

    @property
    def writing(self) -> bool:
        return self.left > 0

    def drain(self) -> None:
        """Move what the candidate wrote into our memfd (in the kernel)."""
        while not self.full:
            try:
                n = os.splice(self.reply_r, self.value, 1 << 20, flags=_NONBLOCK)
            except OSError:  # nothing there (EAGAIN), or the pipe is gone
                return
            self.committed += n
            if self.committed > MAX_REPLIES:
                self.full = True
            if n < 1 << 16:  # less than a pipe holds: that was all of it
                return

    def tick(self, count: int) -> bool:
        """``count`` replies announced: reveal as many steps. True when a step starts now."""
        self.drain()
        self.ticks += count
        started = False
        while not self.writing and self.next < len(self.lines) and self.ticks > self.next:
            self.fed_at.append(self.committed)
            self.left = self.lines[self.next]
            self.next += 1
            started = True
            self.write()
        if not self.writing and self.next >= len(self.lines) and self.ticks > self.next and self.step_w >= 0:
            os.close(self.step_w)  # nothing more: the candidate reads the end and exits
            self.step_w = -1
        return started

    def write(self) -> None:
        while self.left > 0 and self.step_w >= 0:
            try:
                n = os.splice(self.steps_fd, self.step_w, self.left, offset_src=self.offset, flags=_NONBLOCK)
            except BlockingIOError:
                return
            except OSError:
                self.left = 0
                return
            if n <= 0:
                self.left = 0
                return
            self.offset += n
            self.left -= n

    def close(self) -> None:
        for fd in (self.steps_fd, self.step_w, self.reply_r):
            if fd >= 0:
                os.close(fd)


def _read_ticks(fd: int) -> int | None:
    """How many call ticks wait on ``fd``: 0 at its end (the writer is gone), None when none yet."""
    try:
        return len(os.read(fd, 1 << 16))
    except BlockingIOError:
        return None


def _watch(procs: dict[str, tuple[int, list[int]]], ticks: int | None) -> tuple[dict[str, int], select.poll]:
    """A pidfd per child and one poller for the whole case, on every child's end and, for a fed
    test, on ``ticks`` (a reply is whole when its tick comes)."""
    pidfds = {name: os.pidfd_open(pid) for name, (pid, _) in procs.items()}
    poller = select.poll()
    for fd in (*pidfds.values(), *(() if ticks is None else (ticks,))):
        poller.register(fd, select.POLLIN)
    return pidfds, poller


def _answered(feed: _Feed, clock: limits.CaseClock, ticks: int, events: list, ticking: bool,
              poller) -> tuple[bool, list, bool]:
    """A fed test's common turn, kept short: the one event is a step's tick (its reply is whole)
    and the next step goes out at once; the CPU clock is read only when a reading is due.
    Returns (the turn is over, the events still to handle, ticks still come)."""
    if clock.top is None or len(events) != 1 or events[0][0] != ticks:
        return False, events, ticking
    got = _read_ticks(ticks)  # None: not yet
    if got and feed.tick(got):
        clock.step_answered(time.monotonic())
    if got != 0 and not (feed.full or feed.writing) and not clock.reading_due(time.monotonic()):
        return True, events, ticking
    if got == 0:  # the end of its ticks: what follows says why
        poller.unregister(ticks)
        return False, events, False
    return False, [], ticking


def _feed_turn(feed: _Feed, got: int, events: list, writing: bool, poller) -> tuple[bool, bool]:
    """A fed test's turn: ``got`` ticks (a whole reply each; the next step goes out) or none (room
    for more of a reply larger than the pipe), and a step larger than the pipe written as room
    comes. Returns (a step started, a step is being written); the caller ends a full stream."""
    if got > 0:
        started = feed.tick(got)  # the reply is whole: its tick comes after it
    else:
        feed.drain()
        started = False
    if feed.full:
        return started, writing
    if feed.writing != writing:  # a step larger than the pipe: the rest when it has room
        writing = feed.writing
        if writing:
            poller.register(feed.step_w, select.POLLOUT)
        else:
            poller.unregister(feed.step_w)
    elif writing and any(fd == feed.step_w for fd, _ in events):
        feed.write()
    return started, writing


class ForkServer:
    def __init__(self, slot: int, out, sock: socket.socket) -> None:
        process.set_subreaper()
        preload()  # before the jail: our own package is not visible inside it
        self.jail = jail.Jail(slot)
        process.prepare_server()  # after the jail: it reads our environment
        harness.prepare_stdio()
        gc.collect()
        jail.release_free_memory()  # fewer pages for each fork to map and each child's exit to unmap
        gc.freeze()  # children's collections never touch preloaded objects: their pages stay shared
        self.out, self.sock = out, sock
        self.pid_sent = False
        self.batch = False  # in a batch every result goes back on the socket, and a pid line only where pids are the host's
        self.batch_vm = 0  # our virtual size, read once a batch (a case's memory limit is counted from it)
        self.home = ""  # the children's HOME and TMPDIR, as last set

    def send(self, obj: dict) -> None:
        self.out.write(json.dumps(obj).encode() + b"\n")
        self.out.flush()
        if "pid" in obj:
            self.pid_sent = True

    def started(self, pid: int) -> None:
        """The case's children exist: the pid line, which the parent reads before the result (in a
        batch only where pids are the host's: elsewhere nothing of a case outlives this process)."""
        if self.batch and self.jail.pidns_fd is not None:
            self.pid_sent = True
        else:
            self.send({"pid": pid})

    def run_batch(self, req: Request, fds: dict[str, int]) -> None:
        """A ``stdin`` test's cases, one request: each as :meth:`run_case` runs one, its result on the
        socket, the next only once the parent says ``n`` (it compares; a failure ends the test)."""
        code, inputs = fds.pop("code"), fds.pop("inputs")
        sizes = req.sizes or []
        self.batch, self.batch_vm, offset = True, process.vm_size_bytes(), 0
        try:
            for k, size in enumerate(sizes):
                self.pid_sent = False
                result, passed = self._case(req, code, inputs, offset, size)
                offset += size
                self.reply(result, passed)
                for fd in passed.values():
                    os.close(fd)
                if k + 1 == len(sizes) or self.sock.recv(16) != b"n":
                    return
        finally:
            self.batch = False
            for fd in (code, inputs, *fds.values()):
                os.close(fd)

    def _case(self, req: Request, code: int, inputs: int, offset: int, size: int) -> tuple[dict, dict[str, int]]:
        """One case of a batch (its own input memfd, its own descriptor of the code); an error of
        ours is that case's internal error, as a request's is."""
        fds: dict[str, int] = {}
        try:
            fds["stdin"] = _slice(inputs, offset, size)
            fds["code"] = os.dup(code)
            return self.run_case(req, fds)
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            if "code" not in fds:  # run_case never had them
                for fd in fds.values():
                    os.close(fd)
            return {"internal_error": f"{type(exc).__name__}: {exc}"}, {}

    def reply(self, obj: dict, fds: dict[str, int] | None = None) -> None:
        """The case's result on the socket, with the memfds its numbers do not say (output, replies);
        in marshal (see :func:`evaluator.sandbox.pool._decode_result`)."""
        fds = fds or {}
        data = marshal.dumps({**obj, "fds": list(fds)})
        socket.send_fds(self.sock, [data], list(fds.values()))

    # ------------------------------------------------------------------ children
    def _spawn(self, layout: type[layouts.Layout], fds: dict[str, int], run, limits: dict) -> int:
        """Fork a jailed child whose fds 0.. are ``fds`` in ``layout``'s order; it then calls ``run()``."""
        keep = layout.arrange(fds)
        pid = self.jail.fork()
        if pid:
            return pid
        confined = False
        try:  # the child
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 1 << 12) for fd in keep]  # above every fd we hold
            for target, fd in enumerate(high):
                os.dup2(fd, target)
            spare = self.jail.ruleset_fd if self.jail.ruleset_fd is not None else 1 << 16
            os.closerange(len(keep), spare)  # everything but the kept fds and the ruleset
            os.closerange(spare + 1, 1 << 16)
            process.prepare_child()
            self.jail.enter()
            process.set_limits(**limits)  # the rest it inherits (process.prepare_server); random reseeds itself
            confined = True
            run()
        except BaseException as exc:  # noqa: BLE001 - never run untrusted code unconfined
            try:
                what = "error" if confined else "sandbox setup failed"
                os.write(2, f"microcoder-eval: {what}: {type(exc).__name__}: {exc}\n".encode())
            finally:
                os._exit(1 if confined else process.SETUP_FAILED)
        os._exit(1 if confined else process.SETUP_FAILED)

    # Each kind of child: the processes a case starts, their descriptors by name in their layout
    # (evaluator.sandbox.layouts), and what the wait needs of them (``procs``: name -> (pid, its
    # stdin, stdout, stderr[, report] memfds)). A descriptor handed to a child is closed here after.
    def _start_assert(self, req: Request, fds: dict[str, int], limits_: dict, time_s: float, tick_w: int,
                      procs: dict[str, tuple[int, list[int]]]) -> None:
        """The judge (the test code; a byte on ``tick_w`` per request it sends), then the candidate
        it calls through two pipes."""
        c2j_r, c2j_w = os.pipe()
        j2c_r, j2c_w = os.pipe()
        J = layouts.Judge
        judge_fds = {"stdin": _memfd("stdin"), "stdout": _memfd("stdout"), "stderr": _memfd("stderr"),
                     "report": _memfd("report"), "test": fds.pop("test"), "from_candidate": c2j_r,
                     "to_candidate": j2c_w, "ticks": tick_w}
        ahead = "prefetch" in fds
        if ahead:  # the predicted calls: the judge's alone (it sends each when the one before is answered)
            judge_fds["prefetch"] = fds.pop("prefetch")

        def judge() -> None:
            jail.prctl(jail.PR_SET_DUMPABLE, 0)
            from evaluator.asserts import judge as judge_mod

            judge_mod.run(_take_text(J.TEST), J.FROM_CANDIDATE, J.TO_CANDIDATE, J.REPORT, req.fn_name,
                          self.jail.import_roots, time_s=time_s, tick_fd=J.TICKS,
                          prefetch=_take_text(J.PREFETCH) if ahead else None, prelude=req.prelude)

        kept = ("stdin", "stdout", "stderr", "report")
        procs["judge"] = (self._spawn(J, judge_fds, judge, limits_), [judge_fds[n] for n in kept])
        for name in ("test", "ticks", "prefetch"):
            if name in judge_fds:
                os.close(judge_fds[name])
        S = layouts.Served
        cand_fds = {"stdin": _memfd("stdin"), "stdout": _memfd("stdout"), "stderr": _memfd("stderr"),
                    "code": fds.pop("code"), "from_judge": j2c_r, "to_judge": c2j_w}
        serve = lambda: harness.serve(req, _take_text(S.CODE), S.FROM_JUDGE, S.TO_JUDGE)  # noqa: E731
        procs["candidate"] = (self._spawn(S, cand_fds, serve, limits_), _stdio(cand_fds))
        for fd in (c2j_r, c2j_w, j2c_r, j2c_w, cand_fds["code"]):
            os.close(fd)

    def _start_calls(self, req: Request, fds: dict[str, int], limits_: dict, tick_w: int,
                     procs: dict[str, tuple[int, list[int]]]) -> _Feed:
        """The candidate alone (a byte on ``tick_w`` per reply), fed its steps here one at a time;
        returns the feed."""
        step_r, step_w = os.pipe2(os.O_CLOEXEC)
        reply_r, reply_w = os.pipe2(os.O_CLOEXEC)
        try:  # a reply up to this size goes out in one write, before its tick
            fcntl.fcntl(reply_w, _F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass
        os.set_blocking(step_w, False)
        os.set_blocking(reply_r, False)
        F = layouts.Fed
        cand_fds = {"stdin": _memfd("stdin"), "stdout": _memfd("stdout"), "stderr": _memfd("stderr"),
                    "code": fds.pop("code"), "steps": step_r, "replies": reply_w, "ticks": tick_w}
        run = lambda: steps.run_steps(req, _take_text(F.CODE), F.STEPS, F.REPLIES, F.TICKS)  # noqa: E731
        procs["candidate"] = (self._spawn(F, cand_fds, run, limits_), _stdio(cand_fds))
        for name in ("code", "steps", "replies", "ticks"):
            os.close(cand_fds[name])
        lines = [int(n) for n in _take_text(fds.pop("lines")).split()]  # read now the candidate exists
        return _Feed(fds.pop("steps"), lines, step_w, reply_r, _memfd("replies"))

    def _start_alone(self, req: Request, fds: dict[str, int], limits_: dict, workdir: str,
                     procs: dict[str, tuple[int, list[int]]]) -> None:
        """A ``stdin`` or ``checker`` program: the candidate alone on its input."""
        if req.child == "checker":  # the checker's own files; never in a candidate's /tmp
            for name in CHECKER_FILES:
                _copy_into(fds[name], os.path.join(workdir, name))
        P = layouts.Program
        cand_fds = {"stdin": fds.pop("stdin", None) or _memfd("stdin"), "stdout": _memfd("stdout"),
                    "stderr": _memfd("stderr"), "code": fds.pop("code")}
        run = lambda: harness.run(req, _take_text(P.CODE))  # noqa: E731
        procs["candidate"] = (self._spawn(P, cand_fds, run, limits_), _stdio(cand_fds))
        os.close(cand_fds["code"])

    def run_case(self, req: Request, fds: dict[str, int]) -> tuple[dict, dict[str, int]]:
        time_s = float(req.time_s)  # the request carries its limits (evaluator.runs.server_request)
        child = req.child
        # An assert block: each call gets `time_s`; the processes the block's cap, `block_s` (see limits).
        block_s = float(req.block_s or time_s) if child in ("assert", "calls") else time_s
        out_cap = int(req.output_mb) << 20
        vm = self.batch_vm if self.batch and self.batch_vm else process.vm_size_bytes()
        mem = max(int(req.memory_mb) << 20, vm + (256 << 20))
        limits_ = {"memory_bytes": mem, "cpu_s": block_s, "output_bytes": out_cap,
                   "nproc": int(req.nproc or 256)}
        workdir = self.jail.begin_case()
        if workdir != self.home:  # the same /tmp each case in a mount namespace: os.environ is slow to ask
            process.set_home(workdir)
            self.home = workdir
        procs: dict[str, tuple[int, list[int]]] = {}
        ticks, feed = None, None
        start = time.perf_counter()
        try:
            if child in ("assert", "calls"):  # each call started is a byte on this pipe
                ticks, tick_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
                os.set_blocking(tick_w, True)
            if child == "assert":
                self._start_assert(req, fds, limits_, time_s, tick_w, procs)
            elif child == "calls":  # lifted asserts, or a call test's cases: the candidate alone, fed a step at a time
                feed = self._start_calls(req, fds, limits_, tick_w, procs)
            else:
                self._start_alone(req, fds, limits_, workdir, procs)
            self.started(procs["candidate"][0])
            results = self._wait(procs, time_s, block_s, ticks, feed, req.charge_top)
        finally:
            for fd in fds.values():
                os.close(fd)
            if ticks is not None:
                os.close(ticks)
            if feed is not None:
                feed.close()
            self.jail.end_case()
        wall = time.perf_counter() - start
        out = {"wall_s": wall, "memory_mb": mem >> 20, "output_cap": out_cap, "timeout_s": time_s,
               "cpu_cap_s": block_s}
        passed: dict[str, int] = {}
        for name, (pid, pfds) in procs.items():
            status, usage, timed_out, cpu_limit = results[name]
            proc = {
                "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                "timed_out": timed_out,
                "cpu_limit": cpu_limit,
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "maxrss_mb": usage.ru_maxrss / 1024,
            }
            if name == "candidate" and feed is not None:
                proc["fed_at"] = feed.fed_at
                proc["stream_full"] = feed.full
                pfds = pfds + [feed.value]
            for what, fd in zip(("stdin", "stdout", "stderr", "message"), pfds):
                if what == "stdin":
                    os.close(fd)
                else:
                    passed[f"{name}.{what}"] = fd
            out[name] = proc
        if self.jail.pidns_fd is None:  # with PID namespaces nothing outlives its case's PID 1
            out["leftovers"] = process.reap_children()
        return out, passed

    def _wait(self, procs: dict[str, tuple[int, list[int]]], time_s: float, block_s: float, ticks: int | None,
              feed: _Feed | None = None, charge_top: bool = False) -> dict:
        """Wait for the judge (or the lone candidate) within its limits, then end every child.
        A PID namespace dies with its first process, so killing it leaves nothing.

        Calls: each byte on ``ticks`` says one started (the judge sent a request; a fed step's
        reply left, and the next step goes out at once). Each call may use ``time_s`` of the
        candidate's CPU, read from its clock (:func:`_cpu_clock`) at least every
        :data:`limits.CPU_POLL_S`, sooner near the limit: past it the candidate dies, a time limit
        whatever the judge does next. Each call buys the block another wall limit, up to the cap;
        a fed step must also end within one wall limit of its start. The judge's bytes are read at
        those readings, not as they come: the judge and the program keep the cores, and a call's
        CPU counts from at most one reading after its start. ``charge_top``: a call test's steps
        each carry the program's top level, as a case in a process of its own would. The rules
        themselves: :class:`evaluator.sandbox.limits.CaseClock`."""
        main = "judge" if "judge" in procs else "candidate"
        cand = procs["candidate"][0]
        cpu = _cpu_clock(cand)
        pidfds, poller = _watch(procs, ticks if feed is not None else None)
        clock = limits.CaseClock(time.monotonic(), time_s, block_s, block=ticks is not None, charge_top=charge_top)
        timed_out = cpu_out = False
        alive, ticking, writing = True, ticks is not None, False
        try:
            while True:
                deadline = clock.deadline(feed is not None and alive)
                events = poller.poll(clock.wait_ms(time.monotonic(), deadline, alive))
                if feed is not None and not writing:
                    again, events, ticking = _answered(feed, clock, ticks, events, ticking, poller)
                    if again:
                        continue
                ready = {fd for fd, _ in events}
                if pidfds[main] in ready:
                    break
                if alive and main != "candidate" and pidfds["candidate"] in ready:
                    poller.unregister(pidfds["candidate"])
                    alive = False
                got = 0
                if ticking and (feed is None or ticks in ready):
                    got = _read_ticks(ticks)
                    if got == 0:  # the writer is gone: its process's end follows
                        ticking = False
                        if feed is not None:
                            poller.unregister(ticks)
                    got = got or 0
                if feed is not None:
                    started, writing = _feed_turn(feed, got, events, writing, poller)
                    if feed.full:
                        self._kill(cand)
                        break
                else:
                    started = got > 0
                    clock.calls_started(got)
                used = _cpu_of(cpu) if alive else None
                if clock.read(used, time.monotonic(), started=started, fed=feed is not None):
                    cpu_out = True
                    self._kill(cand)
                    alive = False
                    if main == "candidate":
                        break
                    poller.unregister(pidfds["candidate"])
                if not started and time.monotonic() >= deadline:
                    timed_out = True
                    break
                if alive and clock.idle(time.monotonic(), lambda: _runqueue_wait(cand)):
                    timed_out = True  # a sleeping or blocked program: it costs its limit, not the slack
                    break
            return self._end(procs, main, timed_out, cpu_out, feed)
        finally:
            for fd in pidfds.values():
                os.close(fd)

    def _end(self, procs: dict[str, tuple[int, list[int]]], main: str, timed_out: bool, cpu_out: bool,
             feed: _Feed | None) -> dict:
        """Every child ended (killed unless it is the one waited for and it ended in time) and reaped."""
        results = {}
        for name, (pid, _) in procs.items():
            if name != main or timed_out or cpu_out:
                self._kill(pid)
            _, status, usage = os.wait4(pid, 0)
            results[name] = (status, usage, timed_out, cpu_out and name == "candidate")
        if feed is not None:
            feed.drain()
        return results

    @staticmethod
    def _kill(pid: int) -> None:
        process.kill_group(pid)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def pin_to_core(slot: int) -> None:
    """Run this worker, and every process of its cases, on one core of those allowed (the slot's).

    Why: a call is a hand-off between two processes (the program and the judge, or the program
    and this server feeding its steps), and only one of them works at a time; on one core a
    hand-off is a switch on that core, where across cores it waits for the other core's
    scheduler, which on a busy machine costs more than the call. Slots are unique on the
    machine (:func:`evaluator.sandbox.pool.claim_slot`), so a pool's workers spread over the cores."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) > 1:
        os.sched_setaffinity(0, {cpus[slot % len(cpus)]})


def _receive(sock: socket.socket) -> tuple[Request, dict[str, int]] | None:
    data, fds, _, _ = socket.recv_fds(sock, 1 << 16, _MAX_FDS)
    if not data:
        return None
    try:
        req, names = Request.read(data)
    except ValueError:
        for fd in fds:
            os.close(fd)
        raise
    if len(names) != len(fds):
        for fd in fds:
            os.close(fd)
        raise ValueError("descriptor count does not match the request")
    return req, dict(zip(names, fds))


def main() -> None:
    if os.environ.get(_REEXEC_FLAG) != "1" and process.raise_stack_limit():
        os.environ[_REEXEC_FLAG] = "1"  # the new stack limit shapes the layout only after exec
        os.execv(sys.executable, [sys.executable, "-m", "evaluator.sandbox.worker", *sys.argv[1:]])
    slot = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    pin_to_core(slot)
    request_fd = int(sys.argv[2]) if len(sys.argv) > 2 else REQUEST_FD
    sock = socket.socket(fileno=request_fd)
    wfd = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    out = os.fdopen(wfd, "wb")
    server = ForkServer(slot, out, sock)
    if server.jail.degraded:
        print(f"microcoder-eval: WARNING sandbox degraded ({server.jail.level}): no private "
              "filesystem or process view on this machine", file=sys.stderr)
    hidden = server.jail.hidden_installation
    if hidden:
        print(f"microcoder-eval: WARNING without a mount namespace the sandbox uid cannot reach "
              f"{', '.join(hidden)} (a parent directory others may not search): programs cannot "
              "import from there", file=sys.stderr)
    server.send({"hello": True, "isolation": server.jail.level, "host_pids": server.jail.pidns_fd is None,
                 "base": server.jail.base})
    while True:
        try:
            got = _receive(sock)
        except (OSError, ValueError) as exc:
            server.send({"internal_error": f"bad request: {exc}"})
            continue
        if got is None:
            server.jail.close()
            return
        req, fds = got
        if req.sizes is not None and req.child == "stdin" and {"code", "inputs"} <= set(fds):
            server.run_batch(req, fds)
            continue
        server.pid_sent = False
        passed: dict[str, int] = {}
        try:
            result, passed = server.run_case(req, fds)
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            result = {"internal_error": f"{type(exc).__name__}: {exc}"}
        if server.pid_sent:
            server.reply(result, passed)
        else:
            server.send(result)
        for fd in passed.values():
            os.close(fd)


if __name__ == "__main__":
    main()
