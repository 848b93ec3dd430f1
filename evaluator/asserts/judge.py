"""The judge's side of an ``assert`` test: the test code, in a process the candidate never ran in.

Why a second process: a verdict made where candidate code runs can be forged by it (frames,
``gc``, threads, signals, ``atexit``, patched modules). Here the test code runs in its own jailed
child, forked before the candidate's and in a PID namespace the candidate cannot see. The
program's names reach it as proxies (:class:`Remote`) that forward calls over a pipe and get
back plain data (:mod:`evaluator.runtime.wire`), so every comparison the test makes is between values of
base and standard-library value types, on this side. The problem's prelude runs here too: its
helpers (``is_same_list``, ``list_node``) are the judge's own, whatever the program defines.
Only this process writes the report, and only two facts decide it: the test code ran to its
end, or it raised.

Calls the test is predicted to make (:mod:`evaluator.asserts.prefetch`) are sent one at a time, each as
soon as the one before is answered, so the program works while the test compares; the program
cannot tell such a request from any other, and never holds a call before it is sent.
"""

from __future__ import annotations

import builtins
import os
import signal
import sys
import time
import types

from evaluator.asserts import names
from evaluator.asserts.prefetch import canonical, parse
from evaluator.runtime import ops, wire
from evaluator.sandbox import limits

MAX_REPLY = 256 << 20
BUILTIN_EXCEPTIONS = {name: cls for name, cls in vars(builtins).items()
                      if isinstance(cls, type) and issubclass(cls, Exception)}


class CandidateGone(BaseException):
    """The candidate's process stopped answering (it exited, crashed or was killed).

    A ``BaseException``, and remembered on the link: test code that catches broadly
    (``except Exception``, bare ``except``) cannot turn a dead program into a pass."""


class ProgramExit(CandidateGone):
    """The program raised ``SystemExit``, ``KeyboardInterrupt`` or ``GeneratorExit`` inside a call.

    In one process these end the run past any ``except Exception`` of the test; here they fail
    the test the same way, whatever the test code catches."""


class Departed(CandidateGone):
    """The test made a request other than the predicted call the program is answering, or came
    for its answer after the call's wall limit (when it ended, only a run one call at a time can
    tell): nothing here may be decided; the parent judges the test again without prefetching."""


class CallTimeout(CandidateGone):
    """One call of the program took more than the test's time limit (its wall limit, as a
    process would get): the test fails with ``time_limit`` whatever the test code catches."""


# Raised inside a call, these end the run in one process (see ProgramExit); :mod:`.lifted` reads them too.
ENDS_RUN = ("SystemExit", "KeyboardInterrupt", "GeneratorExit")
# Raised by a function, these end the iteration that called it (``all(map(f, xs))`` would pass
# on an empty prefix): they reach the test code as a RuntimeError, as PEP 479 does in generators.
# From ``next()`` of the program's iterator, StopIteration is what ends an iteration: itself.
ENDS_ITERATION = ("StopIteration", "StopAsyncIteration")
# What the program may never hold a handle to: the judge's frames, code and tracebacks (a path to
# its report), and functions that reach past the test's own objects.
_NEVER_PASSED = (types.FrameType, types.TracebackType, types.CodeType, types.ModuleType)
_UNSAFE_BUILTINS = {id(getattr(builtins, n)) for n in (
    "eval", "exec", "compile", "getattr", "setattr", "delattr", "vars", "globals", "locals", "__import__",
    "open", "breakpoint", "input", "exit", "quit", "help", "memoryview", "super", "type", "object")
    if hasattr(builtins, n)} | {id(str.format), id(str.format_map), id(names.real_import)}
_SAFE_MODULES = frozenset(("builtins", "math", "cmath", "operator", "functools", "itertools", "heapq", "bisect",
                           "string", "statistics", "_operator", "_functools", "_heapq", "_bisect", "_string"))
_MUTABLE_ARGS = (list, dict, set, bytearray)


def _passable(obj) -> bool:
    """True for a test object the program may use through a proxy (see :mod:`evaluator.runtime.ops`)."""
    if isinstance(obj, _NEVER_PASSED) or id(obj) in _UNSAFE_BUILTINS:
        return False
    if isinstance(obj, types.BuiltinFunctionType):  # builtins and C functions of modules
        owner = getattr(obj, "__self__", None)
        if isinstance(owner, types.ModuleType) and owner.__name__ not in _SAFE_MODULES:
            return False
    return True


class _Link:
    """The pipe pair to the candidate's process: requests and replies, nested both ways (the
    program may ask about the test's own objects while it answers a call)."""

    def __init__(self, rfd: int, wfd: int, time_s: float | None = None, tick_fd: int | None = None,
                 prefetch: list | None = None) -> None:
        self.rfd, self.wfd, self.buffer = rfd, wfd, bytearray()
        self.identity = wire.Identity()
        self.exceptions: dict[str, type] = {}
        self.messages: dict[int, tuple[BaseException, str]] = {}  # an exception's text, as the program gave it
        self.remotes: dict[int, Remote] = {}
        self.own: list = []  # the test's objects handed to the program (kept alive: ids stay unique)
        self.own_ids: dict[int, int] = {}
        self.broken: str | None = None
        self.exited: str | None = None
        self.timed_out = False
        self.call_wall_s = None if time_s is None else limits.wall_limit(time_s)
        self.tick_fd = tick_fd
        self.calls, self.call_s, self.max_call_s = 0, 0.0, 0.0
        self.prefetch = prefetch or []
        self.predicted = 0  # predicted calls sent
        self.inflight: tuple[int, str, float, float] | None = None  # (ref, arguments, sent, deadline)
        self.targets: dict = {}  # program name -> its reference, from the hello
        self.prefetched = 0
        self.departed = False
        self.globals = names.ProgramGlobals(self)

    def fail(self, reason: str) -> CandidateGone:
        self.broken = self.broken or reason
        cls = (Departed if self.departed else ProgramExit if self.exited else CallTimeout if self.timed_out
               else CandidateGone)
        return cls(self.broken)

    def stats(self) -> dict:
        """The block's calls, for the result: how many, and the time they took; how many of them
        were prefetched, and whether a prefetched call the test never took is pending."""
        return {"calls": self.calls, "call_s": round(self.call_s, 6), "max_call_s": round(self.max_call_s, 6),
                "prefetched": self.prefetched, "pending": int(self.inflight is not None)}

    # -- predicted calls ---------------------------------------------------------------------
    def start_prefetch(self, hello_names: dict) -> None:
        """Note the program's objects the predicted calls name, and send the first."""
        for name, _, _ in self.prefetch:
            ref = hello_names.get(name) if isinstance(hello_names, dict) else None
            body = ref.get("ref") if isinstance(ref, dict) else None
            if isinstance(body, list) and len(body) == 2 and type(body[0]) is int and not self.globals.is_judges(name):
                self.targets[name] = body
        self._send_predicted()

    def _send_predicted(self) -> None:
        if self.predicted >= len(self.prefetch) or self.departed:
            return
        name, args, kwargs = self.prefetch[self.predicted]
        body = self.targets.get(name)
        if body is None:
            self.prefetch = self.prefetch[: self.predicted]  # the rest are not the program's: no more
            return
        self.predicted += 1
        self.send({"op": "call", "o": {"ref": body}, "a": args, "k": kwargs})
        sent = time.monotonic()  # its wall limit counts from here
        self.inflight = (body[0], canonical(args, kwargs), sent,
                         float("inf") if self.call_wall_s is None else sent + self.call_wall_s)
        self._tick()

    def _take_prefetched(self, op: str, target: "Remote | None", fields: dict) -> tuple[dict, float]:
        """The reply to the predicted call in flight, when the test makes exactly that call now;
        :class:`Departed` when it asks anything else first, or comes after the call's deadline
        to find it answered (it may have answered late; only a run one call at a time can say)."""
        ref, args, sent, deadline = self.inflight
        same = False
        if op == "call" and isinstance(target, Remote) and object.__getattribute__(target, "_ref") == ref:
            try:
                plain = wire.dumps(fields.get("a"), self.encode_ref), wire.dumps(fields.get("k"), self.encode_ref)
                same = canonical(*plain) == args
            except (wire.WireError, RecursionError, ValueError):
                same = False
        if not same:
            self.departed = True
            raise self.fail("the test's calls departed from the prefetched ones")
        if time.monotonic() > deadline and wire.ready(self.rfd, self.buffer):
            self.departed = True
            raise self.fail("a prefetched call answered while the test was busy past its limit")
        reply = self.receive(deadline)
        self.inflight = None
        self.prefetched += 1
        self._send_predicted()  # the next one works while the test compares
        return reply, sent

    def _tick(self) -> None:
        """Tell the worker a call starts: it times the program's CPU from here, and the block's
        budget grows by one limit."""
        if self.tick_fd is not None:
            try:
                os.write(self.tick_fd, b".")
            except OSError:
                self.tick_fd = None

    # -- encoding ----------------------------------------------------------------------------
    def encode_ref(self, obj) -> dict:
        if isinstance(obj, Remote):
            return {"ref": [object.__getattribute__(obj, "_ref"), object.__getattribute__(obj, "_type")]}
        if not _passable(obj):
            raise wire.WireError(f"cannot pass a {type(obj).__name__} to the program")
        if id(obj) not in self.own_ids:
            self.own_ids[id(obj)] = len(self.own)
            self.own.append(obj)
        return {"jref": [self.own_ids[id(obj)], type(obj).__name__]}

    def encode(self, value):
        return wire.dumps(value, self.encode_ref, self.identity)

    def decode(self, value):
        try:
            return wire.loads(value, self._stand_in, self.identity)
        except wire.WireError as exc:
            raise self.fail(f"malformed reply: {exc}") from None

    # -- messages ----------------------------------------------------------------------------
    def receive(self, deadline: float | None = None) -> dict:
        """The next reply; the program's own requests that come first are answered here."""
        while True:
            if self.broken:
                raise self.fail(self.broken)
            try:
                msg = wire.read_message(self.rfd, self.buffer, MAX_REPLY, deadline)
            except TimeoutError:
                self.timed_out = True
                raise self.fail(f"a call took more than its time limit ({self.call_wall_s:g} s wall)") from None
            except (OSError, wire.WireError) as exc:
                raise self.fail(f"{type(exc).__name__}: {exc}") from None
            if msg is None:
                raise self.fail("the program's process ended")
            for key, stream in (("out", sys.stdout), ("err", sys.stderr)):
                text = msg.get(key)
                if isinstance(text, str) and text:
                    stream.write(text)  # what the program printed, where the test can read it (capsys)
            if "op" not in msg:
                return msg
            self.send(self._serve(msg))

    def _serve(self, request: dict) -> dict:
        """Answer the program's request about one of the test's objects (only those it was given)."""
        target = request.get("o")
        if not (isinstance(target, dict) and "jref" in target):
            return {"x": {"type": "TypeError", "msg": "only the test's own objects can be asked", "base": "TypeError"}}
        return ops.answer(request, self._resolve_guarded, self.encode, guarded=True)

    def send(self, message: dict) -> None:
        try:
            wire.write_message(self.wfd, message)
        except OSError as exc:
            raise self.fail(f"{type(exc).__name__}: {exc}") from None

    def _resolve_guarded(self, value):
        """Decode what the program sends with a request: its own objects, ours, data; no modules."""
        def stand_in(tagged: dict):
            if "mod" in tagged:
                raise wire.WireError("a module cannot be passed to the test")
            return self._stand_in(tagged)

        try:
            return wire.loads(value, stand_in, self.identity)
        except wire.WireError as exc:
            raise TypeError(str(exc)) from None

    def request(self, op: str, target: "Remote | None", **fields):
        """Ask the program one thing (``target`` None: of its module, ``global``); each request
        gets the test's time limit (a call per test)."""
        if self.inflight is not None:
            reply, start = self._take_prefetched(op, target, fields)
        else:
            message = {"op": op, "o": None if target is None else self.encode_ref(target)}
            message.update({k: self.encode(v) for k, v in fields.items()})
            start = time.monotonic()
            self.send(message)
            self._tick()
            reply = self.receive(None if self.call_wall_s is None else start + self.call_wall_s)
        took = time.monotonic() - start
        if op == "call":
            self.calls += 1
            self.call_s += took
            self.max_call_s = max(self.max_call_s, took)
        if op not in ("global", "setglobal"):
            self.globals.ran(reply.get("g"))
            self.globals.refresh()
        if "x" in reply:
            raise self.exception(reply["x"], op)
        if "r" not in reply:
            raise self.fail("a reply without a result")
        if op in ops.PLAIN_RESULT:
            return ops.check_plain(op, reply["r"])
        return self.decode(reply["r"]), reply.get("args")

    def _stand_in(self, tagged: dict):
        (tag, body), = tagged.items()
        if tag == "ref" and isinstance(body, list) and len(body) == 2 and isinstance(body[0], int):
            if body[0] not in self.remotes:  # one stand-in per object: `is` and `==` keep identity
                self.remotes[body[0]] = Remote(self, body[0], str(body[1]))
            return self.remotes[body[0]]
        if tag == "jref" and isinstance(body, list) and len(body) == 2 and type(body[0]) is int:
            if not 0 <= body[0] < len(self.own):
                raise wire.WireError("unknown test object")
            return self.own[body[0]]
        if tag == "exc" and isinstance(body, list) and len(body) in (2, 3):
            chain = body[2] if len(body) == 3 and isinstance(body[2], list) else []
            return self.exception_class(str(body[0]), str(body[1]), [str(c) for c in chain])
        if tag == "mod" and isinstance(body, str):
            return names.real_module(body)
        raise wire.WireError("malformed reference")

    # -- the program's exceptions ------------------------------------------------------------
    def exception_class(self, name: str, base: str, chain: list[str] | None = None) -> type:
        """A local exception class standing for the program's (``pytest.raises(MyError)``), with
        the program's own classes between it and its built-in base as its ancestors."""
        if BUILTIN_EXCEPTIONS.get(name) is not None:
            return BUILTIN_EXCEPTIONS[name]
        cls = self.exceptions.get(name)
        if cls is None:
            parent = BUILTIN_EXCEPTIONS.get(base, Exception)
            chain = list(chain or [])[:16]
            if chain:
                parent = self.exception_class(chain[0], base, chain[1:])
            link = self

            def __str__(exc) -> str:
                kept = link.messages.get(id(exc))
                return kept[1] if kept is not None and kept[0] is exc else parent.__str__(exc)

            cls = self.exceptions[name] = type(name, (parent,), {"__module__": "solution", "__str__": __str__})
        return cls

    def exception(self, info, op: str = "call") -> BaseException:
        """The exception a request raised in the program, rebuilt here: its class (the program's
        hierarchy), ``args``, attributes and message."""
        if not isinstance(info, dict):
            return RuntimeError("the program raised")
        name, base = str(info.get("type", "Exception")), str(info.get("base", "Exception"))
        msg = str(info.get("msg", ""))
        if name in ENDS_RUN or base in ENDS_RUN:
            self.exited = name
            return self.fail(f"the program raised {name} inside a call: {msg[:200]}")
        if name == "StopIteration" and op == "next":
            return StopIteration()
        if name in ENDS_ITERATION or base in ENDS_ITERATION:
            exc = RuntimeError(f"the program raised {name} inside a call")
            exc.from_program = True
            return exc
        chain = info.get("chain") if isinstance(info.get("chain"), list) else []
        cls = self.exception_class(name, base, [str(c) for c in chain])
        args = None
        if "args" in info:
            try:
                args = wire.loads(info["args"], self._stand_in, self.identity)
            except (wire.WireError, RecursionError):
                args = None
        if not isinstance(args, list):
            args = [msg]
        try:
            exc = cls(*args)
        except Exception:  # noqa: BLE001 - a built-in class whose constructor wants other arguments
            exc = cls.__new__(cls)
            exc.args = tuple(args)
        attrs = None
        if "attrs" in info:
            try:
                attrs = wire.loads(info["attrs"], self._stand_in, self.identity)
            except (wire.WireError, RecursionError):
                attrs = None
        for key, value in (attrs.items() if isinstance(attrs, dict) else ()):
            if isinstance(key, str) and key.isidentifier() and not key.startswith("_"):
                try:
                    setattr(exc, key, value)
                except Exception:  # noqa: BLE001 - a read-only attribute of a built-in class
                    pass
        if cls.__module__ == "solution":
            self.messages[id(exc)] = (exc, msg)
        exc.from_program = True
        if isinstance(exc, OSError) and type(info.get("errno")) is int:
            exc.errno = info["errno"]
        return exc


class Remote:
    """A stand-in for an object that lives in the candidate's process.

    Calls, attributes, items, ``len``, iteration (lazily, an item per request), ``in``, ``str``
    go to the program; the answers come back as plain data. Comparison never does: ``==`` is
    identity, so no object of the program can decide that it equals the expected value.
    """

    __slots__ = ("_link", "_ref", "_type")

    def __init__(self, link: _Link, ref: int, type_name: str) -> None:
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_type", type_name)

    def _ask(self, op: str, **fields):
        return object.__getattribute__(self, "_link").request(op, self, **fields)

    def __call__(self, *args, **kwargs):
        value, after = self._ask("call", a=list(args), k=kwargs)
        _write_back(object.__getattribute__(self, "_link"), args, after)
        return value

    def __getattr__(self, name: str):
        return self._ask("getattr", n=name)[0]

    def __setattr__(self, name: str, value) -> None:
        self._ask("setattr", n=name, v=value)

    def __delattr__(self, name: str) -> None:
        self._ask("delattr", n=name)

    def __getitem__(self, index):
        return self._ask("getitem", i=index)[0]

    def __setitem__(self, index, value) -> None:
        self._ask("setitem", i=index, v=value)

    def __delitem__(self, index) -> None:
        self._ask("delitem", i=index)

    def __len__(self) -> int:
        return self._ask("len")

    def __iter__(self):
        it = self._ask("iter")[0]
        return it if isinstance(it, Remote) else iter(it)

    def __next__(self):
        return self._ask("next")[0]

    def __contains__(self, item) -> bool:
        return self._ask("contains", v=item)

    def __str__(self) -> str:
        return self._ask("str")

    def __repr__(self) -> str:
        return self._ask("repr")

    def __bool__(self) -> bool:
        return self._ask("bool")

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__


def _write_back(link: _Link, args: tuple, after) -> None:
    """Arguments the program changed in place (``sort(a)``, then ``assert a == ...``). Numbered
    values update themselves as they decode; this copies into an argument the program got as a
    predicted call's literal (which is not numbered)."""
    if not isinstance(after, list) or len(after) != len(args):
        return
    for arg, state in zip(args, after):
        if state is None or isinstance(arg, Remote):
            continue
        new = link.decode(state)
        if new is arg or not isinstance(arg, _MUTABLE_ARGS):
            continue
        if isinstance(arg, list) and isinstance(new, list):
            arg[:] = new
        elif isinstance(arg, dict) and isinstance(new, dict):
            arg.clear()
            arg.update(new)
        elif isinstance(arg, set) and isinstance(new, set):
            arg.clear()
            arg.update(new)
        elif isinstance(arg, bytearray) and isinstance(new, (bytes, bytearray)):
            arg[:] = new


def run(test_code: str, rfd: int, wfd: int, report_fd: int, entry_point: str | None = None,
        import_roots: tuple[str, ...] | None = None, *, time_s: float | None = None,
        tick_fd: int | None = None, prefetch: str | None = None, prelude: str | None = None) -> None:
    """Run the test code against the program behind ``rfd``/``wfd``; never returns.
    ``import_roots``: the read-only installation (default: :func:`evaluator.sandbox.jail.import_roots`).
    ``time_s``: each request's time limit (the case's, as the request carried it); ``tick_fd``: where each request sent is told;
    ``prefetch``: the calls the test is predicted to make first (:mod:`evaluator.asserts.prefetch`);
    ``prelude``: the problem's prelude, run here first: its names are the judge's own."""
    from evaluator.runtime.harness import fresh_stdio
    from evaluator.sandbox import jail

    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a closed pipe is CandidateGone, not a death
    # Imports resolve only in the read-only installation, wherever it lives (under /tmp too):
    # never from the shared, writable /tmp or the working directory.
    roots = jail.import_roots() if import_roots is None else import_roots
    sys.path[:] = jail.import_path(sys.path, roots, os.getcwd())
    fresh_stdio()
    link = _Link(rfd, wfd, time_s, tick_fd, parse(prefetch or ""))
    ns = names.Namespace(link.globals)

    def _report(fd: int, report: dict) -> None:
        # Departed: a verdict here could depend on calls the test never made. Passed with a
        # prefetched call in flight: the program ran a call the test did not make; judged again.
        if link.departed or (report.get("status") == "ok" and link.inflight is not None):
            report = {"status": "departed"}
        wire.write_message(fd, {**report, **link.stats()})
        os._exit(0)

    try:
        if prelude:
            exec(compile(prelude, "<prelude>", "exec", dont_inherit=True), ns)
        link.globals.prelude = frozenset(k for k in dict.keys(ns) if not k.startswith("__"))
        hello = link.receive()
        if "fatal" in hello:
            info = hello["fatal"] if isinstance(hello["fatal"], dict) else {}
            _report(report_fd, {"status": "program_error", "type": str(info.get("type", "Exception")),
                                "msg": str(info.get("msg", ""))[:300], "errno": info.get("errno")})
        hello_names = hello.get("names")
        if not isinstance(hello_names, dict):
            raise wire.WireError("no names from the program")
        link.globals.bind(ns, hello_names, entry_point)
        _UNSAFE_BUILTINS.add(id(names.install_import(link.globals)))  # its `import` is no test object
        link.start_prefetch(hello_names)
        exec(compile(test_code, "<test>", "exec", dont_inherit=True), ns)
    except ProgramExit as exc:
        _report(report_fd, {"status": "program_exit", "type": link.exited, "msg": str(exc)[:300]})
    except CallTimeout as exc:
        _report(report_fd, {"status": "call_time_limit", "msg": str(exc)[:300]})
    except CandidateGone as exc:
        _report(report_fd, {"status": "program_gone", "msg": str(exc)[:300]})
    except AssertionError as exc:
        _report(report_fd, {"status": "assert", "type": "AssertionError", "msg": _text(exc)})
    except MemoryError:
        _report(report_fd, {"status": "memory", "type": "MemoryError", "msg": ""})
    except BaseException as exc:  # noqa: BLE001 - the program's exceptions surface here too
        _report(report_fd, {"status": "error", "type": type(exc).__name__, "msg": _text(exc),
                            "from_program": bool(getattr(exc, "from_program", False)),
                            "errno": getattr(exc, "errno", None) if isinstance(exc, OSError) else None})
    if link.exited:  # the test code swallowed it; in one process it would have ended the run
        _report(report_fd, {"status": "program_exit", "type": link.exited, "msg": (link.broken or "")[:300]})
    if link.timed_out:  # the test code swallowed it; the call still ran past its limit
        _report(report_fd, {"status": "call_time_limit", "msg": (link.broken or "")[:300]})
    if link.broken:  # the test code swallowed the failure; the program still did not answer
        _report(report_fd, {"status": "program_gone", "msg": link.broken[:300]})
    _report(report_fd, {"status": "ok"})


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:300]
    except BaseException:  # noqa: BLE001
        return ""
