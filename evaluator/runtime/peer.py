"""The candidate's end of an ``assert`` test's pipe pair: its objects as handles for the judge, and
the test's own objects (callbacks, ``key=`` functions, objects of classes the test defines) as
:class:`JudgeProxy` stand-ins that ask the judge.

Why: a test may hand the program a function or an object that lives only in the test; the
program must be able to call it and read it as it would in one process, while the verdict
still comes only from the judge. Requests nest: while the program answers one of the judge's
calls it may ask the judge something (a callback), and the judge may ask back in turn.

Each outermost request is answered with what the program printed meanwhile (``out``, ``err``),
and the names of its module globals that the request rebound (``g``), so the judge reads them
afresh when the test next does (:mod:`evaluator.asserts.judge`). Limits are not this process's
business: the fork server times each request from outside (:mod:`evaluator.sandbox.worker`).
"""

from __future__ import annotations

import builtins
import ctypes
import importlib
import io
import os
import sys
from typing import Any

from evaluator.runtime import ops, wire

MAX_MESSAGE = 1 << 30
_MISSING = object()


def _version_reader():
    """A reader of a dict's version tag (CPython 3.11-3.12 keep it after the object header and
    the item count): one integer that changes with every write to the dict. None where that
    does not hold: then every request looks at every name."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] not in ((3, 11), (3, 12)):
        return None
    probe: dict = {}
    tag = ctypes.c_uint64.from_address(id(probe) + 3 * ctypes.sizeof(ctypes.c_ssize_t))
    before = tag.value
    probe["x"] = 1
    after = tag.value
    probe["x"] = 2
    return (lambda d: ctypes.c_uint64.from_address(id(d) + 3 * ctypes.sizeof(ctypes.c_ssize_t))) \
        if before != after != tag.value else None


_VERSION = _version_reader()


class _Capped(io.TextIOBase):
    """A text sink for one request's output, capped like stdout (EFBIG past the cap)."""

    encoding, errors = "utf-8", "replace"

    def __init__(self, cap: int = 16 << 20) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.size, self.cap = 0, cap

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.size += len(text)
        if self.size > self.cap:
            raise OSError(27, "File too large")
        self.parts.append(str(text))
        return len(text)

    def flush(self) -> None:
        pass

    def getvalue(self) -> str:
        return "".join(self.parts)


class captured:
    """Capture ``print`` output and ``sys.stderr`` during one request, so the judge can replay
    them where the test reads them (``capsys``)."""

    def __enter__(self) -> "captured":
        self.saved = sys.stdout, sys.stderr
        self.out, self.err = _Capped(), _Capped()
        sys.stdout, sys.stderr = self.out, self.err
        return self

    def __exit__(self, *exc) -> bool:
        sys.stdout, sys.stderr = self.saved
        return False

    def getvalue(self) -> str:
        return self.out.getvalue()

    def take(self) -> tuple[str, str]:
        """What was printed since the last take (a long capture that serves many requests)."""
        out, err = self.out.getvalue(), self.err.getvalue()
        for sink in (self.out, self.err):
            sink.parts.clear()
            sink.size = 0
        return out, err


class kept:
    """A :class:`captured` already in place, used as a context (leaves it in place)."""

    def __init__(self, capture: captured) -> None:
        self.capture = capture

    def __enter__(self) -> captured:
        return self.capture

    def __exit__(self, *exc) -> bool:
        return False


def _exception(info: Any, resolve=None) -> BaseException:
    if not isinstance(info, dict):
        return RuntimeError("the test raised")
    name, base = str(info.get("type", "Exception")), str(info.get("base", "Exception"))
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        parent = getattr(builtins, base, Exception)
        cls = type(name, (parent if isinstance(parent, type) and issubclass(parent, Exception) else Exception,), {})
    args = None
    if resolve is not None and "args" in info:
        try:
            args = resolve(info["args"])
        except Exception:  # noqa: BLE001
            args = None
    try:
        exc = cls(*args) if isinstance(args, list) else cls(str(info.get("msg", "")))
    except Exception:  # noqa: BLE001 - a class whose constructor wants other arguments
        exc = cls.__new__(cls)
        exc.args = tuple(args) if isinstance(args, list) else (str(info.get("msg", "")),)
    return exc


class Conn:
    """The pipe pair to the judge, from the candidate's side."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd, self.wfd, self.buffer = rfd, wfd, bytearray()
        self.handles: list = []
        self.known: dict[int, int] = {}  # id(obj) -> handle: the same object keeps one reference
        self.proxies: dict[int, JudgeProxy] = {}
        self.identity = wire.Identity()
        self.depth = 0  # requests being answered (a callback nests one inside another)
        self.ns: dict | None = None
        self.capture: captured | None = None  # stdout and stderr from the hello on (serve)
        self.bound: dict = {}
        self.version: Any = None
        self.version_of = None

    # -- the program's module globals -------------------------------------------------------
    def watch(self, ns: dict) -> None:
        """Report, with each reply, which of ``ns``'s names a request rebound (the hello sent them all)."""
        self.ns, self.bound = ns, dict(ns)
        if _VERSION is not None:
            self.version_of = _VERSION(ns)
            self.version = self.version_of.value

    def rebound(self) -> list[str]:
        ns = self.ns
        if ns is None:
            return []
        if self.version_of is not None:
            now = self.version_of.value
            if now == self.version:
                return []
            self.version = now
        bound = self.bound
        names = [k for k, v in ns.items() if bound.get(k, _MISSING) is not v]
        names += [k for k in bound if k not in ns]
        self.bound = dict(ns)
        return [k for k in names if isinstance(k, str) and not k.startswith("__")]

    def _global(self, request: dict) -> dict:
        name = request.get("n")
        ns = self.ns or {}
        try:
            if request.get("op") == "setglobal":
                ns[str(name)] = self.resolve(request.get("v"))
                return {"r": None}
            if not isinstance(name, str) or name not in ns:
                raise NameError(f"name {name!r} is not defined")
            return {"r": self.encode(ns[name])}
        except BaseException as exc:  # noqa: BLE001
            return {"x": ops.error(exc, self.encode)}

    # -- references ------------------------------------------------------------------------
    def ref(self, obj: Any) -> dict:
        if type(obj) is JudgeProxy:  # the test's own object goes back as itself
            return {"jref": [object.__getattribute__(obj, "_ref"), object.__getattribute__(obj, "_type")]}
        if id(obj) not in self.known:
            self.known[id(obj)] = len(self.handles)
            self.handles.append(obj)  # kept alive, so its id is never reused
        return {"ref": [self.known[id(obj)], type(obj).__name__]}

    def _stand_in(self, tagged: dict) -> Any:
        (tag, body), = tagged.items()
        if tag == "ref":
            if not (isinstance(body, list) and body and type(body[0]) is int and 0 <= body[0] < len(self.handles)):
                raise wire.WireError("unknown reference")
            return self.handles[body[0]]
        if tag == "jref" and isinstance(body, list) and len(body) == 2 and type(body[0]) is int:
            if body[0] not in self.proxies:
                self.proxies[body[0]] = JudgeProxy(self, body[0], str(body[1]))
            return self.proxies[body[0]]
        if tag == "exc" and isinstance(body, list) and body:
            cls = getattr(builtins, str(body[0]), None)
            return cls if isinstance(cls, type) and issubclass(cls, BaseException) else type(str(body[0]), (Exception,), {})
        if tag == "mod" and isinstance(body, str):
            return importlib.import_module(body)
        raise wire.WireError("malformed reference")

    def resolve(self, value: Any) -> Any:
        return wire.loads(value, self._stand_in, self.identity)

    def encode(self, value: Any) -> Any:
        return wire.dumps(value, self.ref, self.identity)

    # -- messages ----------------------------------------------------------------------------
    def send(self, msg: dict) -> None:
        wire.write_message(self.wfd, msg)

    def receive(self) -> dict:
        msg = wire.read_message(self.rfd, self.buffer, MAX_MESSAGE)
        if msg is None:  # the judge is done: nothing is left to answer
            os._exit(0)
        return msg

    def handle(self, request: dict) -> None:
        """Answer one of the judge's requests, with what the program printed meanwhile and the
        globals it rebound."""
        outermost = self.depth == 0
        self.depth += 1
        try:
            with (captured() if self.capture is None else kept(self.capture)) as out:
                if request.get("op") in ("global", "setglobal"):
                    reply = self._global(request)
                else:
                    reply = ops.answer(request, self.resolve, self.encode)
        finally:
            self.depth -= 1
        reply["out"], reply["err"] = out.take()  # in order: a callback's reply carries what came before it
        if outermost:
            changed = self.rebound()
            if changed:
                reply["g"] = changed
        self.send(reply)

    def ask(self, op: str, proxy: "JudgeProxy", **fields: Any) -> Any:
        """Ask the judge about one of the test's objects, answering its own requests meanwhile."""
        message = {"op": op, "o": self.ref(proxy)}
        message.update({k: self.encode(v) for k, v in fields.items()})
        self.send(message)
        while True:
            reply = self.receive()
            if "op" in reply:
                self.handle(reply)
                continue
            if "x" in reply:
                raise _exception(reply["x"], self.resolve)
            if op in ops.PLAIN_RESULT:
                return ops.check_plain(op, reply.get("r"))
            if op == "call" and isinstance(reply.get("args"), list):
                for state in reply["args"]:
                    if state is not None:
                        self.resolve(state)  # the test's callback changed an argument in place
            return self.resolve(reply.get("r"))


class JudgeProxy:
    """One of the test's objects, as the program sees it: every use is a question to the judge."""

    __slots__ = ("_conn", "_ref", "_type")

    def __init__(self, conn: Conn, ref: int, type_name: str) -> None:
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_type", type_name)

    def _ask(self, op: str, **fields: Any) -> Any:
        return object.__getattribute__(self, "_conn").ask(op, self, **fields)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._ask("call", a=list(args), k=kwargs)

    def __getattr__(self, name: str) -> Any:
        return self._ask("getattr", n=name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._ask("setattr", n=name, v=value)

    def __delattr__(self, name: str) -> None:
        self._ask("delattr", n=name)

    def __getitem__(self, index: Any) -> Any:
        return self._ask("getitem", i=index)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._ask("setitem", i=index, v=value)

    def __delitem__(self, index: Any) -> None:
        self._ask("delitem", i=index)

    def __len__(self) -> int:
        return self._ask("len")

    def __iter__(self):
        it = self._ask("iter")
        return self if it is self else iter(it)

    def __next__(self) -> Any:
        return self._ask("next")

    def __contains__(self, item: Any) -> bool:
        return self._ask("contains", v=item)

    def __eq__(self, other: Any) -> Any:
        return self._ask("eq", v=other)

    def __ne__(self, other: Any) -> Any:
        return not self._ask("eq", v=other)

    def __lt__(self, other: Any) -> Any:
        return self._ask("lt", v=other)

    def __le__(self, other: Any) -> Any:
        return self._ask("le", v=other)

    def __gt__(self, other: Any) -> Any:
        return self._ask("gt", v=other)

    def __ge__(self, other: Any) -> Any:
        return self._ask("ge", v=other)

    def __hash__(self) -> int:
        return self._ask("hash")

    def __bool__(self) -> bool:
        return self._ask("bool")

    def __str__(self) -> str:
        return self._ask("str")

    def __repr__(self) -> str:
        return self._ask("repr")
