"""What runs inside the candidate's forked, jailed child: the program, per test kind.

The child never learns what a right answer is and never reports success: it leaves its exit
status, its stdout and (for ``call``) the JSON of the returned value, and the parent judges
those. For ``assert`` tests it only answers the judge process's requests (:func:`serve`); the
test code runs in that other process. Exits with ``os._exit``: ``atexit`` hooks never run.
"""

from __future__ import annotations

import builtins
import errno
import json
import os
import sys
import threading
import traceback

# LiveCodeBench's import prelude for functional (call) problems.
CALL_PRELUDE = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\n"
    "from random import *\nfrom statistics import *\nfrom itertools import *\nfrom functools import *\n"
    "from operator import *\nfrom io import *\nfrom sys import *\nfrom json import *\n"
    "from builtins import *\nfrom typing import *\n"
    "import string, re, datetime, collections, heapq, bisect, copy, math, random, statistics\n"
    "import itertools, functools, operator, io, sys, json\n"
)
PRELOAD_MODULES = (
    "string re datetime collections heapq bisect copy math random statistics itertools functools "
    "operator io json typing decimal fractions array dataclasses enum fnmatch hashlib unittest sortedcontainers"
).split()


class _Unserializable(TypeError):
    pass


def _linked_to_plain(value):
    """LeetCode ``ListNode``/``TreeNode`` results as lists (level order for trees)."""
    get = object.__getattribute__
    try:
        attrs = get(value, "__dict__")
    except AttributeError:
        raise _Unserializable(f"cannot serialize a {type(value).__name__} return value") from None
    if "val" in attrs and "next" in attrs:
        out, node = [], value
        while node is not None and len(out) < 10**6:
            out.append(get(node, "val"))
            node = get(node, "next")
        return out
    if "val" in attrs and "left" in attrs and "right" in attrs:
        out, queue, i = [], [value], 0
        while i < len(queue) and len(out) < 10**6:
            node = queue[i]
            i += 1
            if node is None:
                out.append(None)
                continue
            out.append(get(node, "val"))
            queue += [get(node, "left"), get(node, "right")]
        while out and out[-1] is None:
            out.pop()
        return out
    raise _Unserializable(f"cannot serialize a {type(value).__name__} return value")


def _dumps(value) -> str:
    """JSON of a return value via the comparison module's encoder (base-type methods only)."""
    from evaluator.compare import encode_value

    try:
        return encode_value(value)
    except TypeError:
        pass
    try:
        return encode_value(_linked_to_plain(value))
    except TypeError as exc:
        raise _Unserializable(str(exc)) from None


def _join_threads() -> None:
    main = threading.main_thread()
    for t in threading.enumerate():
        if t is not main and not t.daemon:
            t.join()


def _fresh_stdio() -> None:
    sys.stdin = sys.__stdin__ = open(0, "r", encoding="utf-8", errors="replace", closefd=False)
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", errors="replace", closefd=False)
    sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="replace", closefd=False)


def _resolve(ns: dict, fn_name: str):
    cls = ns.get("Solution")
    if isinstance(cls, type) and fn_name and hasattr(cls, fn_name):
        return getattr(cls(), fn_name)
    fn = ns.get(fn_name)
    if fn is None:
        raise NameError(f"function {fn_name!r} is not defined")
    return fn


def _error(exc: BaseException) -> dict:
    """An exception as data; an ``OSError`` keeps its errno (EFBIG: the output cap, read as a number)."""
    try:
        out = {"type": type(exc).__name__, "msg": str(exc)[:300]}
        code = getattr(exc, "errno", None) if isinstance(exc, OSError) else None
    except BaseException:  # noqa: BLE001 - a hostile __str__ or errno
        return {"type": "Exception", "msg": ""}
    if type(code) is int:
        out["errno"] = code
    return out


# Exit statuses that say which limit ended the program, so the parent classifies from the status
# and never from stderr text (a program choosing them only picks how it fails).
EXIT_OUTPUT_LIMIT = 120  # a write past the output cap failed (EFBIG: a PID namespace's init gets no SIGXFSZ)
EXIT_MEMORY = 122  # MemoryError


def exit_status_of(exc: BaseException) -> int:
    """The exit status for an uncaught exception: a limit's own status, else 1 (as python3)."""
    try:
        if isinstance(exc, MemoryError):
            return EXIT_MEMORY
        if isinstance(exc, OSError) and getattr(exc, "errno", None) == errno.EFBIG:
            return EXIT_OUTPUT_LIMIT
    except BaseException:  # noqa: BLE001 - a hostile errno property
        pass
    return 1


def _flush_stdio() -> int:
    """Flush what the program printed; 1 when stdout hit the output cap (EFBIG), else 0."""
    status = 0
    try:
        sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - EFBIG past the output cap, closed fd, ...
        status = 1 if exit_status_of(exc) == EXIT_OUTPUT_LIMIT else 0
    try:
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    return status


def run(req: dict, code: str, value_fd: int) -> None:
    """Run a ``stdin``/``checker`` program, or one ``call`` case; never returns.

    The verdict is made by the parent from what this process leaves behind: its exit status,
    its stdout, and for ``call`` the JSON of the returned value on ``value_fd`` (data, not a
    claim of success). A program that forges either only changes what it answered.
    """
    write, exit_ = os.write, os._exit
    _fresh_stdio()
    kind = req["kind"]
    source = (req.get("prelude") or "") + "\n" + code
    if kind == "call":
        source = CALL_PRELUDE + source
    ns: dict = {"__name__": "__main__", "__builtins__": builtins}
    sys.argv = ["checker", *req.get("argv", ())] if kind == "checker" else ["solution.py"]
    status = 0
    try:
        exec(compile(source, "<solution>", "exec"), ns)
        if kind == "call":
            args = json.loads(req["input"])
            result = _resolve(ns, req["fn_name"])(*(args if isinstance(args, list) else [args]))
            try:
                message = {"value": _dumps(result)}
            except _Unserializable as exc:
                message = {"unserializable": str(exc)[:300]}
            data = (json.dumps(message) + "\n").encode()
            while data:
                data = data[write(value_fd, data):]
        _join_threads()
    except SystemExit as exc:
        status = 0 if exc.code is None or exc.code == 0 else exc.code if isinstance(exc.code, int) else 1
        if status == 0:
            _join_threads()
    except BaseException as exc:  # noqa: BLE001 - the program may raise anything: report like python3 does
        status = exit_status_of(exc)
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    if _flush_stdio():
        exit_(EXIT_OUTPUT_LIMIT)
    exit_(status & 0xFF if isinstance(status, int) else 1)


def run_main(req: dict, code: str, conn) -> tuple[dict, dict, str]:
    """Run the solution as ``__main__`` for an ``assert`` test, then encode the names it defines.

    Shared by :func:`serve` (the judge's hello) and :func:`evaluator.steps.run_steps` (a lifted
    test), because a lifted test must mean what the judge's would: the same prelude, ``sys.argv``,
    call limit for the top level (``conn``, a :class:`evaluator.peer.Conn`), captured output, and
    each name encoded once, with whatever side effects encoding has. Returns the names' values,
    ``{"names": {name: wire form}}`` (or ``{"fatal": error}`` if running or encoding raised), and
    what the program printed.
    """
    from evaluator import peer

    conn.next_call()
    ns: dict = {"__name__": "__main__", "__builtins__": builtins}
    sys.argv = ["solution.py"]
    values: dict = {}
    with peer.captured() as out:
        try:
            exec(compile((req.get("prelude") or "") + "\n" + code, "<solution>", "exec"), ns)
            names = {}
            for k, v in ns.items():  # ns itself: a name that encoding adds is a fatal RuntimeError
                if not k.startswith("__"):
                    values[k], names[k] = v, conn.encode(v)
            message: dict = {"names": names}
        except BaseException as exc:  # noqa: BLE001
            message = {"fatal": _error(exc)}
    return values, message, out.getvalue()


def serve(req: dict, code: str, rfd: int, wfd: int, call_limit_s: float | None = None,
          cap_s: float | None = None, prefetch: list | None = None) -> None:
    """The candidate's side of an ``assert`` test; never returns.

    Runs the solution as ``__main__``, sends the names it defines, then answers the judge's
    requests (call, attribute, len, iteration, ...) one at a time with plain data (see
    :mod:`evaluator.wire` and :mod:`evaluator.peer`). It never sees the test code and never
    reports a result. ``call_limit_s``: the CPU limit of each call and of the program's own top
    level; ``cap_s``: the block's (see :mod:`evaluator.limits`). ``prefetch``: the calls the test
    is predicted to make first (:mod:`evaluator.prefetch`); their replies follow the hello
    unasked, in order, as many as it says, each call under its own limit.
    """
    from evaluator import peer

    _fresh_stdio()
    conn = peer.Conn(rfd, wfd, call_limit_s, cap_s)
    _, message, printed = run_main(req, code, conn)
    message["out"] = printed
    names = message.get("names") or {}
    ahead = 0
    for name, _, _ in prefetch or ():
        if not (isinstance(names.get(name), dict) and "ref" in names[name]):
            break
        ahead += 1
    if prefetch is not None and "names" in message:
        message["prefetch"] = ahead
    conn.send(message)
    for name, args, kwargs in (prefetch or [])[:ahead]:
        conn.handle({"op": "call", "o": names[name], "a": args, "k": kwargs})
    while True:
        request = conn.receive()  # the judge's end of file: os._exit(0)
        conn.handle(request)


def preload() -> None:
    """Import what programs commonly import, so every forked child starts with them loaded."""
    for name in PRELOAD_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass
    # What the children import after entering the jail, where our package is not visible.
    import evaluator.compare  # noqa: F401 - the call encoder
    import evaluator.judge  # noqa: F401 - the assert judge
    import evaluator.peer  # noqa: F401 - the candidate's end of the assert pipes
    import evaluator.steps  # noqa: F401 - the candidate's side of a lifted assert test
    import evaluator.wire  # noqa: F401
