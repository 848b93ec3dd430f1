"""The operations one side of an ``assert`` test asks of an object the other side owns (call,
attribute, item, ``len``, iteration, comparison, hash, text), answered here for both sides.

Why one place: the judge asks them of the program's objects (:class:`evaluator.asserts.judge.Remote`),
and the program asks them of the test's own objects (a callback, a ``key=``, an object of a
class the test defines; :class:`evaluator.runtime.peer.JudgeProxy`). The judge's side is ``guarded``:
the program may only use what the test handed it, through public names, and never reaches the
judge's frames, code or modules (which would let it write the judge's report itself).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from evaluator.runtime import wire

PLAIN_RESULT = {"len": int, "str": str, "repr": str, "bool": bool, "hash": int, "contains": bool}
_COMPARE = {"eq": operator.eq, "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}
# what a call's arguments may be changed into: their state after the call goes back with the reply
MUTABLE = (list, dict, set, bytearray, wire.deque)


def plain_error(exc: BaseException) -> dict:
    """An exception as data; an ``OSError`` keeps its errno (EFBIG: the output cap, read as a number)."""
    try:
        out = {"type": type(exc).__name__, "msg": str(exc)[:300]}
        code = getattr(exc, "errno", None) if isinstance(exc, OSError) else None
    except BaseException:  # noqa: BLE001 - a hostile __str__ or errno
        return {"type": "Exception", "msg": ""}
    if type(code) is int:
        out["errno"] = code
    return out


def error(exc: BaseException, encode: Callable[[Any], Any] | None = None) -> dict:
    """An exception as data: its type name and message (:func:`plain_error`), its
    nearest built-in base class and the program's classes between (``chain``), an ``OSError``'s
    errno (EFBIG: the output cap, read as a number), and with ``encode`` its ``args`` and
    attributes, so the other side can rebuild it (``e.value.code``, ``e.args[0]``)."""
    out = {**plain_error(exc), "base": wire.exception_base(type(exc)), "chain": wire.exception_chain(type(exc))}
    if encode is not None:
        try:
            out["args"] = encode(list(BaseException.args.__get__(exc)))
            attrs = object.__getattribute__(exc, "__dict__")
            out["attrs"] = encode({k: v for k, v in dict.items(attrs)
                                   if isinstance(k, str) and not k.startswith("__")})
        except BaseException:  # noqa: BLE001 - a hostile exception: its name and message still cross
            out.pop("args", None)
            out.pop("attrs", None)
    return out


def _name(request: dict, guarded: bool) -> str:
    name = request.get("n")
    if not isinstance(name, str) or (guarded and name.startswith("_")):
        raise AttributeError(f"no attribute {name!r} may be used across the boundary")
    return name


def answer(request: dict, resolve: Callable[[Any], Any], encode: Callable[[Any], Any], *,
           guarded: bool = False) -> dict:
    """Perform one request on the object it names; the reply holds the result (``r``) or the
    exception (``x``). ``resolve`` decodes wire values, ``encode`` encodes the result.
    Only an ``Exception`` becomes a reply: anything else (the peer is gone) propagates."""
    catch = Exception if guarded else BaseException
    try:
        op = request.get("op")
        target = resolve(request.get("o"))
        if op == "call":
            args = resolve(request.get("a") or [])
            kwargs = resolve(request.get("k") or {"d": []})
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise TypeError("malformed call")
            result = target(*args, **kwargs)
            after = [encode(a) if isinstance(a, MUTABLE) else None for a in args]
            return {"r": encode(result), "args": after}
        if op == "getattr":
            return {"r": encode(getattr(target, _name(request, guarded)))}
        if op == "setattr":
            setattr(target, _name(request, guarded), resolve(request.get("v")))
            return {"r": None}
        if op == "delattr":
            delattr(target, _name(request, guarded))
            return {"r": None}
        if op == "getitem":
            return {"r": encode(target[resolve(request.get("i"))])}
        if op == "setitem":
            target[resolve(request.get("i"))] = resolve(request.get("v"))
            return {"r": None}
        if op == "delitem":
            del target[resolve(request.get("i"))]
            return {"r": None}
        if op in _COMPARE:
            return {"r": encode(_COMPARE[op](target, resolve(request.get("v"))))}
        if op == "contains":
            return {"r": resolve(request.get("v")) in target}
        if op == "len":
            return {"r": len(target)}
        if op == "hash":
            return {"r": hash(target)}
        if op == "iter":
            return {"r": encode(iter(target))}
        if op == "next":
            return {"r": encode(next(target))}
        if op in ("str", "repr"):
            return {"r": (str if op == "str" else repr)(target)}
        if op == "bool":
            return {"r": bool(target)}
        raise ValueError(f"unknown request {op!r}")
    except catch as exc:  # the asking side re-raises it as its own
        return {"x": error(exc, encode)}


def check_plain(op: str, value: Any) -> Any:
    """A ``len``/``str``/``repr``/``bool``/``hash``/``in`` reply must be of the type Python requires."""
    want = PLAIN_RESULT[op]
    if type(value) is not want or (op == "len" and value < 0):
        raise TypeError(f"{op}() of an object across the boundary returned a {type(value).__name__}")
    return value
