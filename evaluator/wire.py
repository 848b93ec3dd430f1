"""Exact plain data between a candidate's process and the process that judges it.

Why its own format: the judge must hold only values of base types (``==`` then means what the
test means), yet keep what Python tests compare on (``(1, 2) != [1, 2]``, sets, ``bytes``,
non-string dict keys, huge ints, ``nan``, exact ``Fraction`` and ``Decimal`` values). Every value
is JSON; every non-list container is an object with exactly one tag key. Anything that is not
plain data (an instance of a class, a function, a class) stays in the process that owns it and
crosses as a reference: ``{"ref": [id, type name]}`` for the program's objects, which the judge
can call or ask attributes of but never compares by anything but identity, and
``{"jref": [id, type name]}`` for the test's own (a callback, a ``key=``, an object of a class
the test defines), which the program uses through a proxy that asks the judge.

:func:`dumps` runs on either side; :func:`loads` decodes only into base types (plus the
caller's reference objects), whatever the text, so a hostile peer can send only data.
"""

from __future__ import annotations

import builtins
import json
from collections import deque
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Callable

MAX_ITEMS = 10**6  # items taken from a returned iterator (an endless one times out first)
_EXCEPTIONS = {name: cls for name, cls in vars(builtins).items()
               if isinstance(cls, type) and issubclass(cls, BaseException)}


class WireError(ValueError):
    """Text that is not a well-formed message of this format."""


def exception_base(cls: type) -> str:
    """Name of the nearest built-in exception class ``cls`` derives from."""
    for klass in getattr(cls, "__mro__", ()):
        if _EXCEPTIONS.get(klass.__name__) is klass:
            return klass.__name__
    return "Exception"


def _encode(obj: Any, ref: Callable[[Any], Any], active: set[int]) -> Any:
    if obj is None or obj is True or obj is False:
        return obj
    cls = type(obj)
    if cls is bool:
        return bool(obj)
    if isinstance(obj, int) and not isinstance(obj, bool):
        return int.__int__(obj)
    if isinstance(obj, float):
        return float.__float__(obj)
    if isinstance(obj, str):
        return str.__str__(obj)
    if isinstance(obj, (bytes, bytearray)):
        return {"ba" if isinstance(obj, bytearray) else "b": bytes(obj).hex()}
    if isinstance(obj, complex):
        return {"c": [obj.real, obj.imag]}
    if isinstance(obj, Fraction):  # the exact value, whatever a subclass says about itself
        num, den = Fraction.numerator.fget(obj), Fraction.denominator.fget(obj)
        if isinstance(num, int) and isinstance(den, int):
            return {"fr": [int.__int__(num), int.__int__(den)]}
    if isinstance(obj, Decimal):
        return {"dec": Decimal.__str__(obj)}
    if getattr(cls, "__module__", "") == "numpy" and hasattr(obj, "tolist"):
        return _encode(obj.tolist(), ref, active)
    if isinstance(obj, (list, tuple, dict, set, frozenset, deque)):
        if id(obj) in active:
            raise WireError("value contains a reference cycle")
        active.add(id(obj))
        try:
            if isinstance(obj, dict):
                return {"d": [[_encode(k, ref, active), _encode(v, ref, active)] for k, v in dict.items(obj)]}
            items = [_encode(x, ref, active) for x in obj]
        finally:
            active.discard(id(obj))
        if isinstance(obj, list):
            return items
        tag = "t" if isinstance(obj, tuple) else "s" if isinstance(obj, set) else "fs" if isinstance(obj, frozenset) else "dq"
        return {tag: items}
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return {"exc": [obj.__name__, exception_base(obj)]}
    if cls.__name__ == "module":
        return {"mod": obj.__name__}
    if hasattr(cls, "__next__") and hasattr(cls, "__iter__") and not isinstance(obj, type):
        items = []
        for item in obj:
            items.append(_encode(item, ref, active))
            if len(items) > MAX_ITEMS:
                raise WireError("returned iterator is too long")
        return {"it": items}
    return ref(obj)


def dumps(obj: Any, ref: Callable[[Any], Any] | None = None) -> Any:
    """JSON-ready form of ``obj``; ``ref(obj)`` returns the tagged reference (``{"ref": ...}`` or
    ``{"jref": ...}``) for what is not plain data (default: refuse)."""
    def refuse(value: Any) -> Any:
        raise WireError(f"a {type(value).__name__} is not plain data")

    return _encode(obj, ref or refuse, set())


def _decode(value: Any, ref: Callable[[Any], Any]) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode(v, ref) for v in value]
    if not isinstance(value, dict) or len(value) != 1:
        raise WireError("malformed value")
    (tag, body), = value.items()
    if tag in ("t", "s", "fs", "dq", "it"):
        if not isinstance(body, list):
            raise WireError("malformed container")
        items = [_decode(v, ref) for v in body]
        return {"t": tuple, "s": set, "fs": frozenset, "dq": deque, "it": iter}[tag](items)
    if tag == "d":
        if not isinstance(body, list) or not all(isinstance(p, list) and len(p) == 2 for p in body):
            raise WireError("malformed dict")
        return {_decode(k, ref): _decode(v, ref) for k, v in body}
    if tag in ("b", "ba") and isinstance(body, str):
        data = bytes.fromhex(body)
        return bytearray(data) if tag == "ba" else data
    if tag == "c" and isinstance(body, list) and len(body) == 2 and all(isinstance(x, (int, float)) for x in body):
        return complex(body[0], body[1])
    if tag == "fr" and isinstance(body, list) and len(body) == 2 and all(type(x) is int for x in body):
        return Fraction(body[0], body[1])
    if tag == "dec" and isinstance(body, str) and len(body) < 1 << 16:
        try:
            return Decimal(body)
        except InvalidOperation:
            raise WireError("malformed decimal") from None
    if tag in ("ref", "jref", "exc", "mod"):
        return ref({tag: body})
    raise WireError(f"unknown tag {tag!r}")


def loads(value: Any, ref: Callable[[dict], Any]) -> Any:
    """Decode :func:`dumps` output (already parsed JSON) into base types; ``ref`` builds the
    local stand-in for a ``ref``/``jref``/``exc``/``mod`` entry. Raises :class:`WireError` on
    anything else."""
    try:
        return _decode(value, ref)
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise WireError(str(exc)) from None


def read_message(fd: int, buffer: bytearray, limit: int, deadline: float | None = None) -> dict | None:
    """Next JSON-object line from ``fd`` (None at end of file). Raises WireError past ``limit``,
    TimeoutError when nothing complete came by ``deadline`` (a ``time.monotonic()`` value)."""
    import os
    import select
    import time

    while True:
        end = buffer.find(b"\n")
        if end >= 0:
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            try:
                msg = json.loads(line)
            except (ValueError, RecursionError):
                raise WireError("message is not JSON") from None
            if not isinstance(msg, dict):
                raise WireError("message is not an object")
            return msg
        if len(buffer) > limit:
            raise WireError("message too large")
        if deadline is not None:
            left = deadline - time.monotonic()
            if not select.select([fd], [], [], max(left, 0.0))[0]:  # past it, what already came still counts
                raise TimeoutError("no reply within the time limit")
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return None
        buffer += chunk


def write_message(fd: int, msg: dict) -> None:
    import os

    data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
