"""The program's module globals as an ``assert`` test sees them in the judge: read through.

Why: the test code runs after the solution in one namespace on every judge we mimic (and a
pytest file imports ``solution``), so a name the program binds, rebinds or changes in place
must read as it is now, not as it was when the program's top level ended: ``counter`` after two
calls, ``from solution import counter`` inside a test function, a module-level list a call
appended to. The judge's namespace (:class:`Namespace`) and its ``solution`` module
(:class:`ProgramModule`) hold the program's names as copies, and read a name again from the
program when it may have changed: the program said it rebound it (each reply lists the names a
request rebound), or it holds a mutable value and the program ran since it was read. A mutable
value the test took from the ``solution`` module (``from solution import records``, ``solution.records``)
may sit in a variable the judge never sees read (a test function's local): it is read again after
every request that ran the program's code, into the same object (the wire keeps its identity), so
it holds what the program left there, as the one object would under ``python3``.

Which names are the judge's own, never the program's: the prelude's (``is_same_list``), builtins
(but for the function under test) and standard-library module names, so no program can decide
the test's own checks by defining them.
"""

from __future__ import annotations

import builtins
import importlib
import sys
import types
from typing import Any, Callable

real_import = builtins.__import__
_MUTABLE = (list, dict, set, bytearray)
_GLOBALS: "ProgramGlobals | None" = None


def real_module(name: str):
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


def _volatile(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds something the program can change in place (read it again after a call)."""
    from collections import deque

    if isinstance(value, _MUTABLE) or isinstance(value, deque):
        return True
    if isinstance(value, (tuple, frozenset)) and depth < 3:
        return len(value) > 1000 or any(_volatile(v, depth + 1) for v in value)
    return False


class ProgramGlobals:
    """The program's module globals, as the judge last read them."""

    def __init__(self, link: Any) -> None:
        self.link = link
        self.prelude: frozenset[str] = frozenset()
        self.entry: str | None = None
        self.known: set[str] = set()  # the program's names (the hello's, and those it bound since)
        self.bound: dict[str, Any] = {}  # name -> the copy bound in the namespace
        self.stale: set[str] = set()  # rebound since read
        self.volatile: set[str] = set()  # hold mutable values
        self.synced: dict[str, int] = {}
        self.taken: set[str] = set()  # mutable values handed to the test by the solution module: kept current
        self.activity = 0  # requests the program answered (its code ran)
        self.ns: Namespace | None = None

    def is_judges(self, name: str) -> bool:
        return name in self.prelude

    def _judges(self, name: str) -> bool:
        """A name whose binding is never the program's (see the module doc)."""
        return (name in self.prelude or (hasattr(builtins, name) and name != self.entry)
                or name in sys.stdlib_module_names)

    def bind(self, ns: "Namespace", hello_names: dict, entry_point: str | None) -> None:
        self.ns, self.entry = ns, entry_point
        for name, value in hello_names.items():
            if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
                continue
            self.known.add(name)
            if name in self.prelude or (hasattr(builtins, name) and name != entry_point):
                continue
            if name in sys.stdlib_module_names:
                module = real_module(name)
                if module is not None:
                    dict.__setitem__(ns, name, module)
                continue
            self._keep(name, self.link.decode(value))

    def _keep(self, name: str, value: Any) -> None:
        self.bound[name] = value
        self.synced[name] = self.activity
        self.stale.discard(name)
        if _volatile(value):
            self.volatile.add(name)
        else:
            self.volatile.discard(name)
        if self.ns is not None:
            dict.__setitem__(self.ns, name, value)

    def ran(self, rebound: Any) -> None:
        """The program answered a request: its code ran, and rebound these names."""
        self.activity += 1
        for name in rebound if isinstance(rebound, list) else ():
            if isinstance(name, str) and name.isidentifier() and not name.startswith("__"):
                self.known.add(name)
                self.stale.add(name)

    def needs_read(self, name: str) -> bool:
        return name in self.stale or (name in self.volatile and self.synced.get(name) != self.activity)

    def read(self, name: str) -> Any:
        """The program's binding of ``name`` now (a request)."""
        value = self.link.request("global", None, n=name)[0]
        self._keep(name, value)
        return value

    def value(self, name: str) -> Any:
        """``name`` as the program's module has it now, the judge's own names as themselves."""
        if name in self.prelude and self.ns is not None:
            return dict.__getitem__(self.ns, name)
        if self._judges(name):
            if name in sys.stdlib_module_names:
                module = real_module(name)
                if module is not None:
                    return module
            if hasattr(builtins, name):
                return getattr(builtins, name)
            raise AttributeError(name)
        if name not in self.known:
            raise AttributeError(f"module 'solution' has no attribute {name!r}")
        try:
            value = self.bound[name] if name in self.bound and not self.needs_read(name) else self.read(name)
        except NameError:
            raise AttributeError(f"module 'solution' has no attribute {name!r}") from None
        if name in self.volatile:
            self.taken.add(name)
        return value

    def refresh(self) -> None:
        """The program ran: each mutable value the test took from its module read again, in place
        (see the module doc). A name the program no longer binds is left as the test had it."""
        for name in sorted(self.taken):
            if not self.needs_read(name):
                continue
            try:
                self.read(name)
            except Exception:  # noqa: BLE001 - unbound, or no longer plain data: the test keeps what it had
                self.taken.discard(name)

    def assign(self, name: str, value: Any) -> None:
        """``solution.name = value``: the program's global, rebound."""
        self.link.request("setglobal", None, n=name, v=value)
        self.known.add(name)
        self.stale.add(name)


class Namespace(dict):
    """The test's module namespace: what the test binds is its own; a name still bound to the
    program's copy is read again from the program when it may have changed."""

    __slots__ = ("_globals",)

    def __init__(self, program: ProgramGlobals) -> None:
        super().__init__(__name__="__main__", __builtins__=builtins)
        self._globals = program

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        program = self._globals
        if key in program.bound and program.bound[key] is value and program.needs_read(key):
            value = program.read(key)
        return value

    def __missing__(self, key: Any) -> Any:
        program = self._globals
        if isinstance(key, str) and key in program.known and not program._judges(key):
            return program.read(key)  # a name the program bound after its top level
        raise KeyError(key)


class ProgramModule(types.ModuleType):
    """``import solution`` in the judge: the program's module, read through."""

    def __getattr__(self, name: str) -> Any:
        program = _GLOBALS
        if program is None:
            raise AttributeError(name)
        if name == "__all__":
            return sorted(n for n in program.known if not n.startswith("_"))
        if name.startswith("__"):
            raise AttributeError(name)
        return program.value(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("__") or _GLOBALS is None:
            types.ModuleType.__setattr__(self, name, value)
        else:
            _GLOBALS.assign(name, value)

    def __dir__(self) -> list[str]:
        return sorted(_GLOBALS.known) if _GLOBALS is not None else []


def install_import(program: ProgramGlobals) -> Callable[..., Any]:
    """``import solution`` (and ``from solution import x``) in the judge gives the program's
    module read through, whatever a test harness put in ``sys.modules`` (the pytest shim's copy).
    Returns the new ``__import__``, which the judge never hands to the program."""
    global _GLOBALS
    _GLOBALS = program
    module = ProgramModule("solution")

    def _import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002 - __import__'s signature
        if level == 0 and name == "solution":
            return module
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = _import
    return _import
