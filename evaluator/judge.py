"""The judge's side of an ``assert`` test: the test code, in a process the candidate never ran in.

Why a second process: a verdict made where candidate code runs can be forged by it (frames,
``gc``, threads, signals, ``atexit``, patched modules). Here the test code runs in its own jailed
child, forked before the candidate's and in a PID namespace the candidate cannot see. The
program's names reach it as proxies (:class:`Remote`) that forward calls over a pipe and get
back plain data (:mod:`evaluator.wire`), so every comparison the test makes is between values of
base types, on this side. Only this process writes the report, and only two facts decide it:
the test code ran to its end, or it raised.
"""

from __future__ import annotations

import builtins
import importlib
import os
import signal
import sys

from evaluator import wire

MAX_REPLY = 256 << 20
_BUILTIN_EXC = {name: cls for name, cls in vars(builtins).items()
                if isinstance(cls, type) and issubclass(cls, Exception)}


class CandidateGone(BaseException):
    """The candidate's process stopped answering (it exited, crashed or was killed).

    A ``BaseException``, and remembered on the link: test code that catches broadly
    (``except Exception``, bare ``except``) cannot turn a dead program into a pass."""


class _Link:
    """The pipe pair to the candidate's process: one request, one reply, in order."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd, self.wfd, self.buffer = rfd, wfd, bytearray()
        self.exceptions: dict[str, type] = {}
        self.remotes: dict[int, Remote] = {}
        self.broken: str | None = None

    def fail(self, reason: str) -> CandidateGone:
        self.broken = self.broken or reason
        return CandidateGone(self.broken)

    def receive(self) -> dict:
        if self.broken:
            raise CandidateGone(self.broken)
        try:
            msg = wire.read_message(self.rfd, self.buffer, MAX_REPLY)
        except (OSError, wire.WireError) as exc:
            raise self.fail(f"{type(exc).__name__}: {exc}") from None
        if msg is None:
            raise self.fail("the program's process ended")
        out = msg.get("out")
        if isinstance(out, str) and out:
            sys.stdout.write(out)  # what the program printed, where the test can read it (capsys)
        return msg

    def request(self, op: str, target: "Remote", **fields):
        message = {"op": op, "o": {"ref": [target._ref, target._type]}}
        message.update({k: wire.dumps(v, _encode_ref) for k, v in fields.items()})
        try:
            wire.write_message(self.wfd, message)
        except OSError as exc:
            raise self.fail(f"{type(exc).__name__}: {exc}") from None
        reply = self.receive()
        if "x" in reply:
            raise self.exception(reply["x"])
        if "r" not in reply:
            raise self.fail("a reply without a result")
        if op in ("len", "str", "repr", "bool"):
            return self.checked(op, reply["r"])
        return self.decode(reply["r"]), reply.get("args")

    def checked(self, op: str, value):
        want = {"len": int, "str": str, "repr": str, "bool": bool}[op]
        if type(value) is not want or (op == "len" and value < 0):
            raise TypeError(f"{op}() of the program's object returned a {type(value).__name__}")
        return value

    def decode(self, value):
        try:
            return wire.loads(value, self._stand_in)
        except wire.WireError as exc:
            raise self.fail(f"malformed reply: {exc}") from None

    def _stand_in(self, tagged: dict):
        (tag, body), = tagged.items()
        if tag == "ref" and isinstance(body, list) and len(body) == 2 and isinstance(body[0], int):
            if body[0] not in self.remotes:  # one stand-in per object: `is` and `==` keep identity
                self.remotes[body[0]] = Remote(self, body[0], str(body[1]))
            return self.remotes[body[0]]
        if tag == "exc" and isinstance(body, list) and len(body) == 2:
            return self.exception_class(str(body[0]), str(body[1]))
        if tag == "mod" and isinstance(body, str):
            return _real_module(body)
        raise wire.WireError("malformed reference")

    def exception_class(self, name: str, base: str) -> type:
        """A local exception class standing for the program's (``pytest.raises(MyError)``)."""
        if _BUILTIN_EXC.get(name) is not None:
            return _BUILTIN_EXC[name]
        cls = self.exceptions.get(name)
        if cls is None:
            parent = _BUILTIN_EXC.get(base, Exception)
            cls = self.exceptions[name] = type(name, (parent,), {"__module__": "solution"})
        return cls

    def exception(self, info) -> Exception:
        if not isinstance(info, dict):
            return RuntimeError("the program raised")
        name, base = str(info.get("type", "Exception")), str(info.get("base", "Exception"))
        exc = self.exception_class(name, base)(str(info.get("msg", "")))
        exc.from_program = True
        return exc


def _real_module(name: str):
    """The judge's own copy of a module the program imported (stdlib or already loaded here),
    never one the program names into existence; None otherwise."""
    if name in sys.modules:
        return sys.modules[name]
    if name.split(".")[0] not in sys.stdlib_module_names:
        return None
    try:
        return importlib.import_module(name)
    except BaseException:  # noqa: BLE001
        return None


def program_names(link: "_Link", names: dict, entry_point: str | None = None) -> dict:
    """The program's top-level names as the test code may see them.

    The test code runs after the solution in one namespace on every judge we mimic, so it may use
    what the solution defines or imports. Two kinds of names would let the program decide the
    test's own checks, and are not taken from it: builtins (a program's ``sorted`` or ``len``) and
    standard-library module names (a program's fake ``math`` answering ``math.isclose``), which
    are bound to the judge's real modules instead."""
    out = {}
    for name, value in names.items():
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
            continue
        if hasattr(builtins, name) and name != entry_point:  # the function under test may be `sum`
            continue
        if name in sys.stdlib_module_names:
            module = _real_module(name)
            if module is not None:
                out[name] = module
            continue
        out[name] = link.decode(value)
    return out


def _encode_ref(obj):
    if isinstance(obj, Remote):
        return object.__getattribute__(obj, "_ref")
    raise wire.WireError(f"cannot pass a {type(obj).__name__} to the program")


class Remote:
    """A stand-in for an object that lives in the candidate's process.

    Calls, attributes, ``len``, iteration, indexing, ``str`` go to the program; the answers come
    back as plain data. Comparison never does: ``==`` is identity, so no object of the program
    can decide that it equals the expected value.
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

    def __getitem__(self, index):
        return self._ask("getitem", i=index)[0]

    def __len__(self) -> int:
        return self._ask("len")

    def __iter__(self):
        return iter(list(self._ask("iter")[0]))

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
    """Arguments the program changed in place (``sort(a)``, then ``assert a == ...``)."""
    if not isinstance(after, list) or len(after) != len(args):
        return
    for arg, state in zip(args, after):
        if state is None or isinstance(arg, Remote):
            continue
        new = link.decode(state)
        if isinstance(arg, list) and isinstance(new, list):
            arg[:] = new
        elif isinstance(arg, dict) and isinstance(new, dict):
            arg.clear()
            arg.update(new)
        elif isinstance(arg, set) and isinstance(new, (set, list)):
            arg.clear()
            arg.update(new)
        elif isinstance(arg, bytearray) and isinstance(new, (bytes, bytearray)):
            arg[:] = new


def _report(fd: int, report: dict) -> None:
    wire.write_message(fd, report)
    os._exit(0)


def run(test_code: str, rfd: int, wfd: int, report_fd: int, entry_point: str | None = None) -> None:
    """Run the test code against the program behind ``rfd``/``wfd``; never returns."""
    from evaluator.harness import _fresh_stdio

    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a closed pipe is CandidateGone, not a death
    # Imports resolve only in the read-only installation: never from the shared, writable /tmp.
    sys.path[:] = [p for p in sys.path if p and os.path.isabs(p) and not p.startswith(("/tmp", os.getcwd()))]
    _fresh_stdio()
    link = _Link(rfd, wfd)
    try:
        hello = link.receive()
        if "fatal" in hello:
            info = hello["fatal"] if isinstance(hello["fatal"], dict) else {}
            _report(report_fd, {"status": "program_error", "type": str(info.get("type", "Exception")),
                                "msg": str(info.get("msg", ""))[:300]})
        names = hello.get("names")
        if not isinstance(names, dict):
            raise wire.WireError("no names from the program")
        ns: dict = {"__name__": "__main__", "__builtins__": builtins}
        ns.update(program_names(link, names, entry_point))
        exec(compile(test_code, "<test>", "exec"), ns)
    except CandidateGone as exc:
        _report(report_fd, {"status": "program_gone", "msg": str(exc)[:300]})
    except AssertionError as exc:
        _report(report_fd, {"status": "assert", "type": "AssertionError", "msg": _text(exc)})
    except MemoryError:
        _report(report_fd, {"status": "memory", "type": "MemoryError", "msg": ""})
    except BaseException as exc:  # noqa: BLE001 - the program's exceptions surface here too
        _report(report_fd, {"status": "error", "type": type(exc).__name__, "msg": _text(exc),
                            "from_program": bool(getattr(exc, "from_program", False))})
    if link.broken:  # the test code swallowed the failure; the program still did not answer
        _report(report_fd, {"status": "program_gone", "msg": link.broken[:300]})
    _report(report_fd, {"status": "ok"})


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:300]
    except BaseException:  # noqa: BLE001
        return ""
