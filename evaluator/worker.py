"""The fork server: one long-lived process per evaluator slot (``python -m evaluator.worker SLOT``).

It enters its jail once (:class:`evaluator.jail.Jail`), imports common modules once, then forks
fresh, confined children per test case, so each case costs a fork instead of an interpreter
start. Protocol: requests arrive on a ``SOCK_SEQPACKET`` socket (fd 3) as one JSON message with
file descriptors attached: the program's code, the case's input and, for ``assert`` tests, the
test code (checker cases: the checker's files). Replies go out on stdout as JSON lines: a
``{"pid": N}`` line as soon as the children exist, then one result line.

This process never reads the code, the test code or expected outputs: they travel as memfds
straight to the child that needs them, so nothing a later candidate could find in its
(forked) memory was ever in ours. For ``assert`` tests the judge child is forked before the
test code's descriptor is closed here and before the candidate child exists. Its calls of the
program each get the case's time limit; it writes a byte to a pipe of ours per call answered, and
each one extends the block's wall deadline by one limit, up to the cap (:mod:`evaluator.limits`).
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import select
import signal
import socket
import sys
import time

from evaluator import harness, jail, limits, prefetch, sandbox, steps

_REEXEC_FLAG = "MICROCODER_EVAL_WORKER_REEXEC"
REQUEST_FD = 3
TAIL_BYTES = 2000
_MAX_FDS = 8
CHECKER_FILES = ("input.txt", "expected.txt", "output.txt")


def _memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(name, 0)
    if data:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_fd(fd: int, limit: int) -> tuple[bytes, int]:
    size = os.fstat(fd).st_size
    return os.pread(fd, min(size, limit), 0), size


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


def _take_text(fd: int) -> str:
    """Read a payload memfd and close it: the program keeps no descriptor to its own inputs."""
    text = _read_fd(fd, 1 << 30)[0].decode("utf-8", "replace")
    os.close(fd)
    return text


class ForkServer:
    def __init__(self, slot: int, out) -> None:
        sandbox.set_subreaper()
        harness.preload()  # before the jail: our own package is not visible inside it
        self.jail = jail.Jail(slot)
        sandbox.prepare_server()  # after the jail: it reads our environment
        gc.freeze()  # children's collections never touch preloaded objects: their pages stay shared
        self.out = out

    def send(self, obj: dict) -> None:
        self.out.write(json.dumps(obj).encode() + b"\n")
        self.out.flush()

    # ------------------------------------------------------------------ children
    def _spawn(self, keep: list[int], run, limits: dict) -> int:
        """Fork a jailed child whose fds 0.. are ``keep``; it then calls ``run()``."""
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
            sandbox.prepare_child()
            self.jail.enter()
            sandbox.set_limits(**limits)  # the rest it inherits (sandbox.prepare_server); random reseeds itself
            confined = True
            run()
        except BaseException as exc:  # noqa: BLE001 - never run untrusted code unconfined
            try:
                what = "error" if confined else "sandbox setup failed"
                os.write(2, f"microcoder-eval: {what}: {type(exc).__name__}: {exc}\n".encode())
            finally:
                os._exit(1 if confined else sandbox.SETUP_FAILED)
        os._exit(1 if confined else sandbox.SETUP_FAILED)

    def run_case(self, req: dict, fds: dict[str, int]) -> dict:
        timeout = float(req["timeout_s"])  # the request carries its limits (evaluator.api._request)
        kind = req["kind"]
        # An assert block: each call gets `timeout`; the processes the block's cap (see limits).
        cap = float(req.get("block_s") or timeout) if kind in ("assert", "calls") else timeout
        out_cap = int(req["output_mb"]) << 20
        mem = max(int(req["memory_mb"]) << 20, sandbox.vm_size_bytes() + (256 << 20))
        limits = {"memory_bytes": mem, "cpu_s": cap, "output_bytes": out_cap,
                  "nproc": int(req.get("nproc") or 256)}
        if "input" in fds:  # a call's arguments: a memfd, as large as they come (a message has a size cap)
            req = {**req, "input": _take_text(fds.pop("input"))}
        workdir = self.jail.begin_case()
        sandbox.set_home(workdir)
        procs: dict[str, tuple[int, list[int]]] = {}
        ticks = None
        start = time.perf_counter()
        try:
            if kind == "assert":
                c2j_r, c2j_w = os.pipe()
                j2c_r, j2c_w = os.pipe()
                ticks, tick_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
                os.set_blocking(tick_w, True)
                jfds = [_memfd("stdin"), _memfd("stdout"), _memfd("stderr"), _memfd("report")]
                test_fd = fds.pop("test")
                # read here, where it is ours: the judge and the candidate each get a copy
                ahead = prefetch.parse(_take_text(fds.pop("prefetch"))) if "prefetch" in fds else None

                def judge() -> None:
                    jail.prctl(jail.PR_SET_DUMPABLE, 0)
                    from evaluator import judge as judge_mod

                    judge_mod.run(_take_text(4), 5, 6, 3, req.get("fn_name"), self.jail.import_roots,
                                  call_limit_s=timeout, tick_fd=7, prefetch=ahead)

                procs["judge"] = (self._spawn(jfds + [test_fd, c2j_r, j2c_w, tick_w], judge, limits), jfds)
                os.close(test_fd)
                os.close(tick_w)
                cfds = [_memfd("stdin"), _memfd("stdout"), _memfd("stderr"), fds.pop("code"), j2c_r, c2j_w]
                serve = lambda: harness.serve(req, _take_text(3), 4, 5, call_limit_s=timeout, cap_s=cap,  # noqa: E731
                                              prefetch=ahead)
                procs["candidate"] = (self._spawn(cfds, serve, limits), cfds[:3])
                for fd in (c2j_r, c2j_w, j2c_r, j2c_w, cfds[3]):
                    os.close(fd)
            elif kind == "calls":  # a lifted assert test: the candidate alone, its steps in one go
                ticks, tick_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
                os.set_blocking(tick_w, True)
                cfds = [_memfd("stdin"), _memfd("stdout"), _memfd("stderr"), _memfd("value"), fds.pop("code"),
                        fds.pop("steps"), tick_w]
                run = lambda: steps.run_steps(req, _take_text(4), _take_text(5), 3, 6,  # noqa: E731
                                              call_limit_s=timeout, cap_s=cap)
                procs["candidate"] = (self._spawn(cfds, run, limits), cfds[:4])
                for fd in cfds[4:]:
                    os.close(fd)
            else:
                if kind == "checker":  # the checker's own files; never in a candidate's /tmp
                    for name in CHECKER_FILES:
                        _copy_into(fds[name], os.path.join(workdir, name))
                cfds = [fds.pop("stdin", None) or _memfd("stdin"), _memfd("stdout"), _memfd("stderr"),
                        _memfd("value"), fds.pop("code")]
                procs["candidate"] = (self._spawn(cfds, lambda: harness.run(req, _take_text(4), 3), limits), cfds[:4])
                os.close(cfds[4])
            self.send({"pid": procs["candidate"][0]})
            results = self._wait(procs, timeout, cap, ticks, int(req.get("ticks") or 0) if kind == "calls" else 0)
        finally:
            for fd in fds.values():
                os.close(fd)
            if ticks is not None:
                os.close(ticks)
            self.jail.end_case()
        wall = time.perf_counter() - start
        out = {"wall_s": wall, "memory_mb": mem >> 20, "output_cap": out_cap, "timeout_s": timeout,
               "cpu_cap_s": cap}
        for name, (pid, pfds) in procs.items():
            status, usage, timed_out = results[name]
            stdout, out_size = _read_fd(pfds[1], out_cap + 1)
            if out_size >= out_cap:  # the verdict is the output limit: what it printed is never compared
                stdout = stdout[:TAIL_BYTES]
            err, _ = _read_fd(pfds[2], 1 << 20)
            proc = {
                "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                "timed_out": timed_out,
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "maxrss_mb": usage.ru_maxrss / 1024,
                "stdout": stdout.decode("utf-8", "replace") if name == "candidate" else "",
                "stdout_bytes": out_size,
                "stderr_tail": err[-TAIL_BYTES:].decode("utf-8", "replace"),
            }
            if len(pfds) > 3:
                raw, _ = _read_fd(pfds[3], 1 << 28)
                proc["message"] = raw.decode("utf-8", "replace")
            for fd in pfds:
                os.close(fd)
            out[name] = proc
        out["leftovers"] = sandbox.reap_children()
        return out

    def _wait(self, procs: dict[str, tuple[int, list[int]]], limit: float, cap: float,
              ticks: int | None, max_ticks: int = 0) -> dict:
        """Wait for the judge (or the lone candidate) within the wall limit, then end every
        child. A PID namespace dies with its first process, so killing it leaves nothing.
        An assert block's judge writes a byte to ``ticks`` per call it made: each one buys the
        block another wall limit, up to the cap (:func:`evaluator.limits.block_deadline`).
        A lifted test's candidate (``max_ticks`` > 0) ticks per step itself: at most ``max_ticks`` count,
        and each step must also end within one wall limit of the one before."""
        main = "judge" if "judge" in procs else "candidate"
        pidfds = {name: os.pidfd_open(pid) for name, (pid, _) in procs.items()}
        start, calls, ticking = time.monotonic(), 0, ticks is not None
        last = start
        timed_out = False
        try:
            while True:
                deadline = (limits.block_deadline(start, limit, calls, cap) if ticks is not None
                            else start + limits.wall_limit(limit))
                if max_ticks:
                    deadline = min(deadline, last + limits.wall_limit(limit))
                left = deadline - time.monotonic()
                watch = [pidfds[main]] + ([ticks] if ticking else [])
                ready, _, _ = select.select(watch, [], [], max(0.0, left))
                if pidfds[main] in ready:
                    break
                if ticking and ticks in ready:
                    try:
                        got = len(os.read(ticks, 1 << 16))
                    except BlockingIOError:
                        got = -1
                    calls += max(got, 0)
                    if max_ticks:
                        calls = min(calls, max_ticks)
                        last = time.monotonic() if got > 0 else last
                    ticking = got != 0  # end of file: the judge is gone, its pidfd follows
                    continue
                if left <= 0:
                    timed_out = True
                    break
            results = {}
            for name, (pid, _) in procs.items():
                if name != main or timed_out:
                    sandbox.kill_group(pid)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                _, status, usage = os.wait4(pid, 0)
                results[name] = (status, usage, timed_out)
            return results
        finally:
            for fd in pidfds.values():
                os.close(fd)


def _receive(sock: socket.socket) -> tuple[dict, dict[str, int]] | None:
    data, fds, _, _ = socket.recv_fds(sock, 1 << 16, _MAX_FDS)
    if not data:
        return None
    req = json.loads(data)
    names = req.pop("fds", [])
    if len(names) != len(fds):
        for fd in fds:
            os.close(fd)
        raise ValueError("descriptor count does not match the request")
    return req, dict(zip(names, fds))


def main() -> None:
    if os.environ.get(_REEXEC_FLAG) != "1" and sandbox.raise_stack_limit():
        os.environ[_REEXEC_FLAG] = "1"  # the new stack limit shapes the layout only after exec
        os.execv(sys.executable, [sys.executable, "-m", "evaluator.worker", *sys.argv[1:]])
    slot = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    request_fd = int(sys.argv[2]) if len(sys.argv) > 2 else REQUEST_FD
    sock = socket.socket(fileno=request_fd)
    wfd = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    out = os.fdopen(wfd, "wb")
    server = ForkServer(slot, out)
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
        try:
            result = server.run_case(req, fds)
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            result = {"internal_error": f"{type(exc).__name__}: {exc}"}
        server.send(result)


if __name__ == "__main__":
    main()
