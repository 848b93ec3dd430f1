"""The candidate's side of a lifted ``assert`` test (:mod:`evaluator.asserts.lift`) and of a ``call`` test's
cases: run the program, then answer its steps as the fork server reveals them, one at a time.

Why it mirrors :func:`evaluator.runtime.harness.serve` so closely: a lifted test must mean what the
judge's would. So the program runs by the same :func:`evaluator.runtime.harness.run_main` (prelude,
``__main__``, its names encoded once after the top level, side effects included), its output is
captured per step, and each request is answered by the same :func:`evaluator.runtime.ops.answer`. It
never sees an expected value, never compares and never reports success: each line is only what
a step returned or raised. And it never holds a step before answering the one before: the fork
server writes step k to ``step_fd`` only after the reply to step k-1 has left this process
(:class:`evaluator.sandbox.worker._Feed`), so no call can be answered with another's arguments.

Reply stream on ``reply_fd`` (a pipe the fork server empties): ``{"names": [...]}`` or
``{"fatal": error}``, then per step ``{"r": value, "t": seconds}`` or ``{"x": error}`` (for a
``call`` case, ``{"v": JSON text}`` or ``{"u": why}``), each followed by a byte on ``tick_fd``.
A step that raises ends a lifted test; a ``call`` case that raises fails alone, and so does any
step of a request that says its calls are ``independent`` (the call oracle's,
:func:`evaluator.values.call_values`: each call answers alone, as a call test's case does).
"""

from __future__ import annotations

import errno
import json
import os
import time
from typing import TYPE_CHECKING

from evaluator.runtime import ops, peer, wire

if TYPE_CHECKING:
    from evaluator.runtime.request import Request

STREAM_FULL = 121  # kept for the parent's classification: a reply stream past its cap (the parent asks the judge)
MAX_HELLO = 256 << 20  # the judge's limit on one message (judge.MAX_REPLY)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _efbig() -> dict:
    return {"type": "OSError", "msg": f"[Errno {errno.EFBIG}] File too large", "base": "OSError", "errno": errno.EFBIG}


class _Steps:
    """Step lines from the fork server, read as they come."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer = fd, bytearray()

    def next(self) -> dict | None:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                return json.loads(line)
            chunk = os.read(self.fd, wire.READ_CHUNK)
            if not chunk:
                return None
            self.buffer += chunk


def run_steps(req: Request, code: str, step_fd: int, reply_fd: int, tick_fd: int) -> None:
    """Run the program and its steps; never returns (``os._exit``)."""
    from evaluator.runtime.harness import call_value, fresh_stdio, resolve_entry, run_main

    fresh_stdio()
    conn = peer.Conn(-1, -1)
    cases = req.cases  # a call test: the names are not the test's business

    def emit(line: dict, out: str, err: str) -> None:
        """Forward what the step printed (to our capped stdout, as the judge forwards it to its
        own), then the reply, then the tick that asks for the next step."""
        for fd, text in ((1, out), (2, err)):
            if text:
                try:
                    _write_all(fd, text.encode("utf-8", "replace"))
                except OSError as exc:
                    if exc.errno != errno.EFBIG:
                        raise
                    if fd == 1:
                        line = {"x": _efbig()}
        try:
            _write_all(reply_fd, (json.dumps(line, separators=(",", ":")) + "\n").encode())
            os.write(tick_fd, b".")
        except OSError:
            os._exit(STREAM_FULL)

    capture = peer.captured().__enter__()  # for good: each step takes what it printed
    ns, hello, out, err = run_main(req, code, conn, names=not cases, capture=capture)
    if "names" in hello:
        try:
            if len(json.dumps(hello["names"])) > MAX_HELLO:
                hello = {"x": {"type": "WireError", "msg": "message too large", "base": "ValueError"}}
            else:
                hello = {"names": sorted(hello["names"])}
        except BaseException as exc:  # noqa: BLE001 - a MemoryError: the program's fatal error
            hello = {"fatal": ops.plain_error(exc)}
    emit(hello, out, err)
    if "names" not in hello:
        os._exit(0)
    reader = _Steps(step_fd)
    independent = req.independent  # a raise fails its step alone: the next ones run
    values: dict[int, object] = {}
    names: dict[int, str] = {}
    i = -1
    while True:
        step = reader.next()
        if step is None:
            break
        i += 1
        start = time.perf_counter()
        op = step.get("op")
        try:
            if op == "name":
                name = step.get("n")
                if isinstance(name, str) and name in ns:
                    names[i] = name
                    line = {"r": None}
                else:
                    line = {"x": {"type": "NameError", "msg": f"name {name!r} is not defined", "base": "NameError"}}
            elif op == "case":
                try:
                    if "p" in step:  # the oracle's call: arguments and the value as plain data
                        args, kwargs = (conn.resolve(p) for p in step["p"])
                        line = {"r": conn.encode(resolve_entry(ns, str(step.get("n")))(*args, **kwargs))}
                    else:
                        line = call_value(ns, str(step.get("n")), str(step.get("a")))
                except BaseException as exc:  # noqa: BLE001 - the case fails; the next one runs
                    line = {"x": ops.error(exc)}
                line["t"] = round(time.perf_counter() - start, 6)
            else:  # as ops.answer does it (the arguments' state after a call: nobody reads it here)
                ref = step["o"]
                target = ns[names[ref]] if ref in names else values[ref]  # a name reads its binding now
                try:
                    if op == "call":
                        args = conn.resolve(step.get("a") or [])
                        kwargs = conn.resolve(step.get("k") or {"d": []})
                        if not isinstance(args, list) or not isinstance(kwargs, dict):
                            raise TypeError("malformed call")
                        result = conn.encode(target(*args, **kwargs))
                    elif op == "getattr" and isinstance(step.get("n"), str):
                        result = conn.encode(getattr(target, step["n"]))
                    else:
                        raise ValueError(f"unknown step {op!r}")
                    line = {"r": result, "t": round(time.perf_counter() - start, 6)}
                    if isinstance(result, dict) and "ref" in result:  # an object a later step may use
                        values[i] = conn.resolve(result)
                except BaseException as exc:  # noqa: BLE001 - the call raised: the reply says what
                    line = {"x": ops.error(exc, conn.encode)}
        except BaseException as exc:  # noqa: BLE001 - whatever it is, it ends the test here
            line = {"x": ops.error(exc)}
        emit(line, *capture.take())
        if "x" in line and op != "case" and not independent:
            break
    os._exit(0)
