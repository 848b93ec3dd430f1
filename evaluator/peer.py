"""The candidate's end of an ``assert`` test's pipe pair: its objects as handles for the judge, and
the test's own objects (callbacks, ``key=`` functions, objects of classes the test defines) as
:class:`JudgeProxy` stand-ins that ask the judge.

Why: a test may hand the program a function or an object that lives only in the test; the
program must be able to call it and read it as it would in one process, while the verdict
still comes only from the judge. Requests nest: while the program answers one of the judge's
calls it may ask the judge something (a callback), and the judge may ask back in turn.
"""

from __future__ import annotations

import builtins
import importlib
import io
import os
import resource
import sys
from typing import Any

from evaluator import limits, ops, wire

MAX_MESSAGE = 1 << 30


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
    """Capture ``print`` output during one request, so the judge can replay it (``capsys``)."""

    def __enter__(self) -> _Capped:
        self.saved, sys.stdout = sys.stdout, _Capped()
        return sys.stdout

    def __exit__(self, *exc) -> bool:
        sys.stdout = self.saved
        return False


def _exception(info: Any) -> BaseException:
    if not isinstance(info, dict):
        return RuntimeError("the test raised")
    name, base = str(info.get("type", "Exception")), str(info.get("base", "Exception"))
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        parent = getattr(builtins, base, Exception)
        cls = type(name, (parent if isinstance(parent, type) and issubclass(parent, Exception) else Exception,), {})
    return cls(str(info.get("msg", "")))


class Conn:
    """The pipe pair to the judge, from the candidate's side."""

    def __init__(self, rfd: int, wfd: int, call_limit_s: float | None = None, cap_s: float | None = None) -> None:
        self.rfd, self.wfd, self.buffer = rfd, wfd, bytearray()
        self.handles: list = []
        self.known: dict[int, int] = {}  # id(obj) -> handle: the same object keeps one reference
        self.proxies: dict[int, JudgeProxy] = {}
        self.call_limit_s, self.cap_s = call_limit_s, cap_s
        self.depth = 0  # requests being answered (a callback nests one inside another)

    def next_call(self) -> None:
        """Give the next call (or the program's own top level) the test's CPU limit: past it the
        kernel stops this process (SIGXCPU, a time limit), as it would a program run per test.
        A program that lifts its own soft limit only meets the judge's wall limit per call."""
        if self.call_limit_s is None:
            return
        usage = resource.getrusage(resource.RUSAGE_SELF)
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        soft = limits.call_cpu_limit(usage.ru_utime + usage.ru_stime, self.call_limit_s,
                                     self.cap_s or self.call_limit_s)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))

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
        return wire.loads(value, self._stand_in)

    def encode(self, value: Any) -> Any:
        return wire.dumps(value, self.ref)

    def send(self, msg: dict) -> None:
        wire.write_message(self.wfd, msg)

    def receive(self) -> dict:
        msg = wire.read_message(self.rfd, self.buffer, MAX_MESSAGE)
        if msg is None:  # the judge is done: nothing is left to answer
            os._exit(0)
        return msg

    def handle(self, request: dict) -> None:
        """Answer one of the judge's requests, with what the program printed meanwhile. Each
        outermost request is a call of its own for the time limit (:meth:`next_call`)."""
        if self.depth == 0:
            self.next_call()
        self.depth += 1
        try:
            with captured() as out:
                reply = ops.answer(request, self.resolve, self.encode)
        finally:
            self.depth -= 1
        reply["out"] = out.getvalue()
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
                raise _exception(reply["x"])
            if op in ops.PLAIN_RESULT:
                return ops.check_plain(op, reply.get("r"))
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

    def __getitem__(self, index: Any) -> Any:
        return self._ask("getitem", i=index)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._ask("setitem", i=index, v=value)

    def __len__(self) -> int:
        return self._ask("len")

    def __iter__(self):
        return iter(self._ask("iter"))

    def __contains__(self, item: Any) -> bool:
        return bool(self._ask("contains", v=item))

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
