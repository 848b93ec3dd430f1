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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evaluator.runtime.request import Request

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


def _open_stdio() -> tuple:
    return (open(0, "r", encoding="utf-8", errors="replace", closefd=False),
            open(1, "w", encoding="utf-8", errors="replace", closefd=False),
            open(2, "w", encoding="utf-8", errors="replace", closefd=False))


_unused_stdio: tuple | None = None  # made by prepare_stdio in the fork server, taken by one child
_server_stdio: tuple = ()  # the server's own, kept: a child that drops the last reference runs their finalizers


def prepare_stdio() -> None:
    """In the fork server, once: stdio objects for fds 0, 1 and 2 made and never used, each
    child's own (its copy) when it calls :func:`fresh_stdio`. Made in each child, they cost about
    80 page copies, a quarter of a millisecond a case. Each is made while its fd is a fresh
    memfd, as a child's fds are, so what it learns of its file (seekable, position 0, block
    size) is what it would learn in the child. The server's own stdio objects stay referenced
    here, so a child replacing them never finalizes them (another 50 pages)."""
    global _unused_stdio, _server_stdio
    _server_stdio = (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__)
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    try:
        for fd in (0, 1, 2):
            stand_in = os.memfd_create("stdio", 0)
            os.dup2(stand_in, fd)
            os.close(stand_in)
        _unused_stdio = _open_stdio()
    except OSError:  # no memfd: each child makes its own
        _unused_stdio = None
    finally:
        for fd, copy in zip((0, 1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)


def fresh_stdio() -> None:
    """``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` on this child's fds 0, 1 and 2 (UTF-8,
    undecodable bytes replaced), never the server's."""
    global _unused_stdio
    stdio, _unused_stdio = _unused_stdio or _open_stdio(), None
    sys.stdin = sys.__stdin__ = stdio[0]
    sys.stdout = sys.__stdout__ = stdio[1]
    sys.stderr = sys.__stderr__ = stdio[2]


def resolve_entry(ns: dict, fn_name: str):
    cls = ns.get("Solution")
    if isinstance(cls, type) and fn_name and hasattr(cls, fn_name):
        return getattr(cls(), fn_name)
    fn = ns.get(fn_name)
    if fn is None:
        raise NameError(f"function {fn_name!r} is not defined")
    return fn


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


def run(req: Request, code: str) -> None:
    """Run a ``stdin`` or ``checker`` program; never returns.

    The verdict is made by the parent from what this process leaves behind: its exit status and
    its stdout. A program that forges either only changes what it answered. (``call`` cases run
    as the steps of :mod:`evaluator.runtime.steps`, one process for a test's calls.)
    """
    exit_ = os._exit
    fresh_stdio()
    kind = req.child
    source = (req.prelude or "") + "\n" + code
    ns: dict = {"__name__": "__main__", "__builtins__": builtins}
    sys.argv = ["checker", *req.argv] if kind == "checker" else ["solution.py"]
    status = 0
    try:
        exec(compile(source, "<solution>", "exec", dont_inherit=True), ns)  # not our __future__ flags
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


def call_value(ns: dict, fn_name: str, args_text: str) -> dict:
    """One ``call`` case in a program's namespace: its entry (:func:`resolve_entry`, a fresh
    ``Solution()`` each time) called on the JSON arguments; ``{"v": JSON of the value}``, or
    ``{"u": why}`` for a value that is not plain data. Exceptions propagate."""
    args = json.loads(args_text)
    result = resolve_entry(ns, fn_name)(*(args if isinstance(args, list) else [args]))
    try:
        return {"v": _dumps(result)}
    except _Unserializable as exc:
        return {"u": str(exc)[:300]}


def run_main(req: Request, code: str, conn, names: bool = True, capture=None) -> tuple[dict, dict, str, str]:
    """Run the solution as ``__main__`` for an ``assert`` test, then encode the names it defines.

    Shared by :func:`serve` (the judge's hello) and :func:`evaluator.runtime.steps.run_steps` (a lifted
    test), because a lifted test must mean what the judge's would: the same prelude, ``sys.argv``,
    captured output, and each name encoded once, with whatever side effects encoding has.
    ``conn`` (a :class:`evaluator.runtime.peer.Conn`) encodes, and watches the namespace from then on.
    Returns the namespace, ``{"names": {name: wire form}}`` (or ``{"fatal": error}`` if running
    or encoding raised), and what the program printed on stdout and stderr. ``names`` False: a
    ``call`` test's process, whose names nobody reads (a process per case never encoded them).
    ``capture``: a :class:`evaluator.runtime.peer.captured` already in place for the whole run (a stdout the
    program keeps a reference to then still reaches the test); else one for the top level.
    """
    from evaluator.runtime import ops, peer

    ns: dict = {"__name__": "__main__", "__builtins__": builtins}
    sys.argv = ["solution.py"]
    scope = peer.captured() if capture is None else peer.kept(capture)
    with scope as out:
        try:
            exec(compile((req.prelude or "") + "\n" + code, "<solution>", "exec", dont_inherit=True), ns)
            encoded = {}
            for k, v in (ns.items() if names else ()):  # ns itself: a name that encoding adds is a fatal RuntimeError
                if not k.startswith("__"):
                    encoded[k] = conn.encode(v)
            message: dict = {"names": encoded}
            conn.watch(ns)
        except BaseException as exc:  # noqa: BLE001
            message = {"fatal": ops.error(exc, conn.encode)}
    return (ns, message, *out.take())


def serve(req: Request, code: str, rfd: int, wfd: int) -> None:
    """The candidate's side of an ``assert`` test; never returns.

    Runs the solution as ``__main__``, sends the names it defines, then answers the judge's
    requests (call, attribute, len, iteration, ...) one at a time with plain data (see
    :mod:`evaluator.runtime.wire` and :mod:`evaluator.runtime.peer`). It never sees the test code, never sees a
    request before the judge sends it (whether the judge predicted it or not: the same path),
    and never reports a result.
    """
    from evaluator.runtime import peer

    fresh_stdio()
    conn = peer.Conn(rfd, wfd)
    conn.capture = peer.captured().__enter__()  # for good: each reply takes what was printed since the last
    _, message, out, err = run_main(req, code, conn, capture=conn.capture)
    message["out"], message["err"] = out, err
    conn.send(message)
    while True:
        request = conn.receive()  # the judge's end of file: os._exit(0)
        conn.handle(request)

