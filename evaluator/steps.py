"""The candidate's side of a lifted ``assert`` test (:mod:`evaluator.lift`): run the program, then
its calls in one go, and leave one reply line per step for the parent to judge.

Why it mirrors :func:`evaluator.harness.serve` so closely: a lifted test must mean what the
judge's would. So the program runs by the same :func:`evaluator.harness.run_main` (prelude,
``__main__``, its names encoded once after the top level, side effects included), each call
gets the test's CPU limit (:meth:`evaluator.peer.Conn.next_call`), its output is captured per call, and
each request is answered by the same :func:`evaluator.ops.answer`. It never sees an expected
value, never compares and never reports success: each line is only what a call returned or raised.

Reply stream on ``value_fd``: ``{"names": [...]}`` or ``{"fatal": error}``, then per step
``{"r": value, "t": seconds}`` or ``{"x": error}`` (the last line). A byte on ``tick_fd`` after
each line lets the fork server grant the next step its wall limit.
"""

from __future__ import annotations

import errno
import json
import os
import time

from evaluator import ops, peer

STREAM_FULL = 121  # exit status: the reply stream hit the file-size limit (the parent asks the judge)
MAX_HELLO = 256 << 20  # the judge's limit on one message (judge.MAX_REPLY)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _efbig() -> dict:
    return {"type": "OSError", "msg": f"[Errno {errno.EFBIG}] File too large", "base": "OSError", "errno": errno.EFBIG}


def run_steps(req: dict, code: str, steps_text: str, value_fd: int, tick_fd: int,
              call_limit_s: float | None = None, cap_s: float | None = None) -> None:
    """Run the program and its lifted steps; never returns (``os._exit``)."""
    from evaluator.harness import _error, _fresh_stdio, run_main

    _fresh_stdio()
    conn = peer.Conn(-1, -1, call_limit_s, cap_s)
    steps = json.loads(steps_text)
    targets = {s.get("o") for s in steps}

    def emit(line: dict, printed: str) -> bool:
        """Forward what the step printed (to our capped stdout, as the judge forwards it to its
        own), then the reply; False once nothing more may follow."""
        if printed:
            try:
                _write_all(1, printed.encode("utf-8", "replace"))
            except OSError as exc:
                if exc.errno != errno.EFBIG:
                    raise
                line = {"x": _efbig()}
        try:
            _write_all(value_fd, (json.dumps(line, separators=(",", ":")) + "\n").encode())
        except OSError:
            os._exit(STREAM_FULL)
        try:
            os.write(tick_fd, b".")
        except OSError:
            pass
        return "x" not in line and "fatal" not in line

    snapshot, hello, printed = run_main(req, code, conn)  # as the judge's hello: same effects
    if "names" in hello:
        try:
            if len(json.dumps(hello["names"])) > MAX_HELLO:
                hello = {"x": {"type": "WireError", "msg": "message too large", "base": "ValueError"}}
            else:
                hello = {"names": sorted(hello["names"])}
        except BaseException as exc:  # noqa: BLE001 - a MemoryError: the program's fatal error
            hello = {"fatal": _error(exc)}
    if not emit(hello, printed):
        os._exit(0)
    values: dict[int, object] = {}
    for i, step in enumerate(steps):
        printed = ""
        start = time.perf_counter()
        try:
            if step.get("op") == "name":
                name = step.get("n")
                if name in snapshot:
                    values[i] = snapshot[name]
                    line = {"r": None}
                else:
                    line = {"x": {"type": "NameError", "msg": f"name {name!r} is not defined", "base": "NameError"}}
            else:
                conn.next_call()
                request = {**step, "o": conn.ref(values[step["o"]])}
                with peer.captured() as out:
                    reply = ops.answer(request, conn.resolve, conn.encode)
                printed = out.getvalue()
                if "x" in reply:
                    line = {"x": reply["x"]}
                else:
                    line = {"r": reply["r"], "t": round(time.perf_counter() - start, 6)}
                    if i in targets:
                        values[i] = conn.resolve(reply["r"])
        except BaseException as exc:  # noqa: BLE001 - whatever it is, it ends the test here
            line = {"x": ops.error(exc)}
        if not emit(line, printed):
            break
    os._exit(0)
