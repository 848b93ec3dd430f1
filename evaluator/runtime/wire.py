"""Exact plain data between a candidate's process and the process that judges it.

Why its own format: the judge must hold only values of base and standard-library value types
(``==`` then means what the test means), yet keep what Python tests compare on (``(1, 2) !=
[1, 2]``, sets, ``bytes``, non-string dict keys, huge ints, ``nan``, exact ``Fraction`` and
``Decimal`` values, ``datetime``, ``Counter``, ``deque``, ``OrderedDict``, ``defaultdict``, named
tuples). Every value is JSON; every non-list container is an object with exactly one tag key.

What crosses by value, what by reference (the contract of :mod:`evaluator.model`):

- Plain data crosses by value. A mutable container (list, dict, set, bytearray, deque and the
  dict family) carries a number, ``{"m": [n, value]}``, so its identity is kept for the case
  (:class:`Identity`): the same object sent twice arrives as one object, and an object sent back
  to the side that owns it arrives as that side's own object, updated in place to what it holds
  now (``sort(a)`` then ``assert a == ...``; ``r is a``; ``f() is f()``).
- Anything else stays in the process that owns it and crosses as a reference:
  ``{"ref": [id, type name]}`` for the program's objects (functions, classes, instances,
  iterators and generators), which the judge can call or ask but never compares by anything but
  identity, and ``{"jref": [id, type name]}`` for the test's own (a callback, a ``key=``, an
  object of a class the test defines), which the program uses through a proxy that asks the judge.

:func:`dumps` runs on either side; :func:`loads` decodes only into base and standard-library
value types (plus the caller's reference objects), whatever the text, so a hostile peer can
send only data, and can only change in place objects it was sent.
"""

from __future__ import annotations

import builtins
import collections
import datetime
import json
import sys
from collections import Counter, OrderedDict, defaultdict, deque
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Callable

BIG_INT_BITS = 4096  # past this, an int crosses as hex text: JSON's decimal form has a 4300-digit limit
READ_CHUNK = 1 << 16  # bytes a message read asks for: a larger request costs a fresh allocation each time
NUMBERED_DEPTH = 256  # containers nested deeper cross as plain values (no identity: no test compares it there)
MAX_TEXT = 1 << 26
_EXCEPTIONS = {name: cls for name, cls in vars(builtins).items()
               if isinstance(cls, type) and issubclass(cls, BaseException)}
# default_factory values that cross as themselves (anything else crosses as a reference)
_FACTORIES = {cls.__name__: cls for cls in (list, dict, set, int, float, str, bytes, tuple, frozenset, bool,
                                            complex, bytearray, Counter, OrderedDict, deque)}
# what collections.namedtuple (and typing.NamedTuple) put in a class: a class with more is the
# program's own (methods of its own), and crosses as what it derives from, a tuple
_NAMEDTUPLE_ATTRS = frozenset((
    "__doc__", "__slots__", "_fields", "_field_defaults", "__new__", "_make", "_replace", "__repr__", "_asdict",
    "__getnewargs__", "__match_args__", "__module__", "__qualname__", "__annotations__", "__orig_bases__",
    "__dict__", "__weakref__", "__getstate__"))
_TUPLEGETTER = type(collections.namedtuple("_P", "a").a)


class WireError(ValueError):
    """Text that is not a well-formed message of this format."""


class Identity:
    """One side's record of the mutable values that crossed in a case, by number.

    A number is this side's key: positive for its own objects it has sent, negative for its
    copies of the peer's (the peer's number, negated). A sender writes its key; the receiver
    negates it. Entries keep their objects alive, so an ``id`` is never reused while its number
    stands; entries nothing else refers to any more are dropped now and then (:meth:`sweep`):
    such an object can no longer be compared by identity.
    """

    def __init__(self) -> None:
        self.objects: dict[int, Any] = {}  # key -> object
        self.keys: dict[int, int] = {}  # id(object) -> key
        self.classes: dict[tuple, type] = {}  # named tuple classes, by (name, fields)
        self.next = 1
        self.sweep_at = 4096

    def number(self, obj: Any) -> int:
        """The wire number of ``obj``: its key here (a new one for an object never sent)."""
        key = self.keys.get(id(obj))
        if key is None:
            key = self.next
            self.next += 1
            self.objects[key] = obj
            self.keys[id(obj)] = key
            if key >= self.sweep_at:
                self.sweep()
        return key

    def lookup(self, n: int) -> Any:
        """The object a received number names (the sender's key, so negated here)."""
        return self.objects.get(-n)

    def adopt(self, n: int, obj: Any) -> None:
        """``obj`` is what the received number ``n`` names from now on (one of ours dropped since:
        the peer's copy still names it, so it is ours again)."""
        self.objects[-n] = obj
        self.keys[id(obj)] = -n

    def sweep(self) -> None:
        """Drop what only this table still refers to (the table, the list's tuple, the loop
        variable and ``getrefcount``'s argument)."""
        for key, obj in list(self.objects.items()):
            if sys.getrefcount(obj) <= 4:
                del self.objects[key]
                self.keys.pop(id(obj), None)
        self.sweep_at = self.next + max(4096, len(self.objects))


def exception_base(cls: type) -> str:
    """Name of the nearest built-in exception class ``cls`` derives from."""
    for klass in getattr(cls, "__mro__", ()):
        if _EXCEPTIONS.get(klass.__name__) is klass:
            return klass.__name__
    return "Exception"


def exception_chain(cls: type) -> list[str]:
    """The program's own classes between ``cls`` and its built-in base, nearest first
    (``MyError(AppError)``: ``["AppError"]``), so the judge's stand-ins keep their hierarchy."""
    out = []
    for klass in getattr(cls, "__mro__", ())[1:]:
        if _EXCEPTIONS.get(klass.__name__) is klass:
            break
        out.append(str(klass.__name__))
    return out[:16]


def _plain_namedtuple(cls: type) -> bool:
    try:
        if cls.__bases__ != (tuple,) or not isinstance(cls.__dict__.get("_fields"), tuple):
            return False
        fields = set(cls.__dict__["_fields"])
        return all(k in _NAMEDTUPLE_ATTRS or (k in fields and type(v) is _TUPLEGETTER) for k, v in cls.__dict__.items())
    except Exception:  # noqa: BLE001 - a hostile class
        return False


def _field(cls: type, name: str, obj: Any) -> Any:
    """The C type's own field, whatever a subclass says."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name].__get__(obj, cls)
    raise AttributeError(name)


def _tz(tz: Any) -> Any:
    if tz is None:
        return None
    if type(tz) is datetime.timezone:
        off = datetime.timezone.utcoffset(tz, None)
        name = datetime.timezone.tzname(tz, None)
        return ["fixed", off.days, off.seconds, off.microseconds, name]
    if type(tz).__module__ == "zoneinfo" and type(tz).__name__ == "ZoneInfo":
        return ["zone", str(type(tz).key.__get__(tz))]
    raise _ByReference


class _ByReference(Exception):
    """The value holds something only its owner can say (a tzinfo of the program's)."""


class _State:
    __slots__ = ("ref", "identity", "active", "sent", "depth")

    def __init__(self, ref: Callable[[Any], Any], identity: Identity | None) -> None:
        self.ref, self.identity = ref, identity
        self.active: set[int] = set()  # containers being encoded (a cycle without identity)
        self.sent: set[int] = set()  # numbered containers already written in this message
        self.depth = 0  # containers being encoded: past NUMBERED_DEPTH they cross unnumbered


def _mutable(obj: Any, body: Callable[[], Any], st: _State) -> Any:
    st.depth += 1
    try:
        if st.identity is None or st.depth > NUMBERED_DEPTH:
            if id(obj) in st.active:
                raise WireError("value contains a reference cycle")
            st.active.add(id(obj))
            try:
                return body()
            finally:
                st.active.discard(id(obj))
        n = st.identity.number(obj)
        if n in st.sent:
            return {"m": [n]}  # already in this message (or being written: a cycle)
        st.sent.add(n)
        return {"m": [n, body()]}
    finally:
        st.depth -= 1


def _list(obj: list, st: _State) -> Any:
    """A list (the commonest container, and the deepest: kept to two frames a level)."""
    identity = st.identity
    st.depth += 1
    if identity is None or st.depth > NUMBERED_DEPTH:
        key = id(obj)
        if key in st.active:
            raise WireError("value contains a reference cycle")
        st.active.add(key)
        items = [_encode(x, st) for x in list.__iter__(obj)]
        st.active.discard(key)
        st.depth -= 1
        return items
    n = identity.number(obj)
    if n in st.sent:
        st.depth -= 1
        return {"m": [n]}
    st.sent.add(n)
    out = {"m": [n, [_encode(x, st) for x in list.__iter__(obj)]]}
    st.depth -= 1
    return out


def _pairs(obj: dict, st: _State) -> list:
    return [[_encode(k, st), _encode(v, st)] for k, v in dict.items(obj)]


_BIG = 1 << BIG_INT_BITS


def _encode(obj: Any, st: _State) -> Any:
    cls = type(obj)  # exact built-in types first: most data is nothing else
    if cls is int:
        return obj if -_BIG < obj < _BIG else {"i": hex(obj)}
    if cls is str or cls is float or obj is None or cls is bool:
        return obj
    if cls is list:
        return _list(obj, st)
    if cls is tuple:
        return {"t": [_encode(x, st) for x in obj]}
    if cls is dict:
        return _mutable(obj, lambda: {"d": _pairs(obj, st)}, st)
    return _encode_other(obj, cls, st)


def _encode_other(obj: Any, cls: type, st: _State) -> Any:
    """A value of no exact base type (a subclass, a standard-library value, a class): its own form,
    asked in this order (a subclass is encoded as the first base it has here), else a reference."""
    for encode in (_encode_scalar, _encode_container, _encode_class):
        got = encode(obj, cls, st)
        if got is not _NOT_MINE:
            return got
    if cls.__name__ == "module":
        return {"mod": obj.__name__}
    return st.ref(obj)


_NOT_MINE = object()  # an encoder's answer for a value it does not encode: the next one is asked


def _encode_scalar(obj: Any, cls: type, st: _State) -> Any:
    if isinstance(obj, int):
        value = int.__int__(obj)
        return value if -_BIG < value < _BIG else {"i": hex(value)}
    if isinstance(obj, float):
        return float.__float__(obj)
    if isinstance(obj, str):
        return str.__str__(obj)
    if isinstance(obj, bytes):
        return {"b": bytes(obj).hex()}
    if isinstance(obj, bytearray):
        return _mutable(obj, lambda: {"ba": bytes(obj).hex()}, st)
    if isinstance(obj, complex):
        return {"c": [complex.real.__get__(obj), complex.imag.__get__(obj)]}
    if isinstance(obj, Fraction):  # the exact value, whatever a subclass says about itself
        num, den = Fraction.numerator.fget(obj), Fraction.denominator.fget(obj)
        if isinstance(num, int) and isinstance(den, int):
            return {"fr": [_encode(int.__int__(num), st), _encode(int.__int__(den), st)]}
    if isinstance(obj, Decimal):
        return {"dec": Decimal.__str__(obj)}
    if isinstance(obj, (datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo)):
        try:
            return _encode_time(obj)
        except _ByReference:
            return st.ref(obj)
    if getattr(cls, "__module__", "") == "numpy" and hasattr(obj, "tolist"):
        return _encode(obj.tolist(), st)
    return _NOT_MINE


def _encode_container(obj: Any, cls: type, st: _State) -> Any:
    if isinstance(obj, tuple):
        items = [_encode(x, st) for x in tuple.__iter__(obj)]
        if _plain_namedtuple(cls):
            return {"nt": [_encode(cls, st), items]}
        return {"t": items}
    if isinstance(obj, list):
        return _mutable(obj, lambda: [_encode(x, st) for x in list.__iter__(obj)], st)
    if isinstance(obj, frozenset):
        return {"fs": [_encode(x, st) for x in frozenset.__iter__(obj)]}
    if isinstance(obj, set):
        return _mutable(obj, lambda: {"s": [_encode(x, st) for x in set.__iter__(obj)]}, st)
    if isinstance(obj, deque):
        def body() -> Any:
            items = [_encode(x, st) for x in deque.__iter__(obj)]
            maxlen = deque.maxlen.__get__(obj)
            return {"dq": items} if maxlen is None else {"dqm": [maxlen, items]}
        return _mutable(obj, body, st)
    if isinstance(obj, dict):
        if isinstance(obj, defaultdict):
            factory = defaultdict.default_factory.__get__(obj)
            return _mutable(obj, lambda: {"dd": [_factory(factory, st), _pairs(obj, st)]}, st)
        if isinstance(obj, OrderedDict):
            return _mutable(obj, lambda: {"od": [[_encode(k, st), _encode(dict.__getitem__(obj, k), st)]
                                                 for k in OrderedDict.__iter__(obj)]}, st)
        tag = "ctr" if isinstance(obj, Counter) else "d"
        return _mutable(obj, lambda: {tag: _pairs(obj, st)}, st)
    return _NOT_MINE


def _encode_class(obj: Any, cls: type, st: _State) -> Any:
    if isinstance(obj, type):
        if issubclass(obj, BaseException):
            return {"exc": [obj.__name__, exception_base(obj), exception_chain(obj)]}
        if _plain_namedtuple(obj):
            if st.identity is not None:  # its instances that come back are of this very class
                st.identity.classes.setdefault((str(obj.__name__), tuple(str(f) for f in obj._fields)), obj)
            defaults = dict.items(obj.__dict__.get("_field_defaults") or {})
            return {"ntc": [str(obj.__name__), [str(f) for f in obj._fields], [[str(k), _encode(v, st)] for k, v in defaults]]}
    return _NOT_MINE


def _encode_time(obj: Any) -> Any:
    D = datetime
    if isinstance(obj, D.datetime):
        f = [_field(D.datetime, n, obj) for n in ("year", "month", "day", "hour", "minute", "second", "microsecond",
                                                  "fold")]
        return {"dt": f + [_tz(_field(D.datetime, "tzinfo", obj))]}
    if isinstance(obj, D.date):
        return {"date": [_field(D.date, n, obj) for n in ("year", "month", "day")]}
    if isinstance(obj, D.time):
        f = [_field(D.time, n, obj) for n in ("hour", "minute", "second", "microsecond", "fold")]
        return {"time": f + [_tz(_field(D.time, "tzinfo", obj))]}
    if isinstance(obj, D.timedelta):
        return {"td": [_field(D.timedelta, n, obj) for n in ("days", "seconds", "microseconds")]}
    return {"tz": _tz(obj)}


def _factory(factory: Any, st: _State) -> Any:
    if factory is None:
        return None
    for name, cls in _FACTORIES.items():
        if factory is cls:
            return {"bt": name}
    return _encode(factory, st)


def dumps(obj: Any, ref: Callable[[Any], Any] | None = None, identity: Identity | None = None) -> Any:
    """JSON-ready form of ``obj``; ``ref(obj)`` returns the tagged reference (``{"ref": ...}`` or
    ``{"jref": ...}``) for what is not plain data (default: refuse). With ``identity`` mutable
    containers carry their numbers (a case's link); without, they are plain values."""
    def refuse(value: Any) -> Any:
        raise WireError(f"a {type(value).__name__} is not plain data")

    return _encode(obj, _State(ref or refuse, identity))


# ----------------------------------------------------------------------------- decoding
class _Decoding:
    __slots__ = ("ref", "identity", "filled")

    def __init__(self, ref: Callable[[dict], Any], identity: Identity | None) -> None:
        self.ref, self.identity = ref, identity or Identity()
        self.filled: set[int] = set()


_EMPTY = {"d": dict, "s": set, "ba": bytearray, "dq": deque, "ctr": Counter, "od": OrderedDict, "dd": defaultdict}
_KIND = {dict: "d", set: "s", bytearray: "ba", deque: "dq", Counter: "ctr", OrderedDict: "od", defaultdict: "dd",
         list: "l"}


def _kind_of(body: Any) -> str:
    if isinstance(body, list):
        return "l"
    if isinstance(body, dict) and len(body) == 1:
        tag = next(iter(body))
        tag = "dq" if tag == "dqm" else tag
        if tag in _EMPTY:
            return tag
    raise WireError("malformed numbered value")


def _base_kind(obj: Any) -> str | None:
    for cls in type(obj).__mro__:
        if cls in _KIND:
            return _KIND[cls]
    return None


def _numbered(value: list, st: _Decoding) -> Any:
    if not value or type(value[0]) is not int or len(value) > 2 or value[0] == 0:
        raise WireError("malformed numbered value")
    n = value[0]
    target = st.identity.lookup(n)
    if len(value) == 1:
        if target is None:
            raise WireError("unknown numbered value")
        return target
    if n in st.filled:
        raise WireError("a numbered value written twice")
    st.filled.add(n)
    body, kind = value[1], _kind_of(value[1])
    if target is None:
        if kind == "l":
            target = []
        elif kind == "dq":
            maxlen = body["dqm"][0] if "dqm" in body and isinstance(body["dqm"], list) and body["dqm"] else None
            if maxlen is not None and (type(maxlen) is not int or maxlen < 0):
                raise WireError("malformed deque")
            target = deque(maxlen=maxlen)
        else:
            target = _EMPTY[kind]()
        st.identity.adopt(n, target)
    elif _base_kind(target) != kind:
        raise WireError("a numbered value changed its type")
    _fill(target, kind, body, st)
    return target


def _fill(target: Any, kind: str, body: Any, st: _Decoding) -> None:
    """Decode ``body`` and make ``target`` hold it (in place: it may be an object others hold)."""
    if kind == "l":
        list.__setitem__(target, slice(None), [_decode(v, st) for v in body])
        return
    (tag, inner), = body.items()
    if kind == "ba":
        if not isinstance(inner, str) or len(inner) > MAX_TEXT:
            raise WireError("malformed bytes")
        bytearray.__setitem__(target, slice(None), bytes.fromhex(inner))
    elif kind == "s":
        items = [_decode(v, st) for v in _checked_list(inner)]
        set.clear(target)
        set.update(target, items)
    elif kind == "dq":
        if tag == "dqm":
            parts = _checked_list(inner)
            if len(parts) != 2:
                raise WireError("malformed deque")
            inner = parts[1]
        items = [_decode(v, st) for v in _checked_list(inner)]
        deque.clear(target)
        deque.extend(target, items)
    elif kind == "dd":
        parts = _checked_list(inner)
        if len(parts) != 2:
            raise WireError("malformed defaultdict")
        factory = _decode_factory(parts[0], st)
        pairs = _decode_pairs(parts[1], st)
        dict.clear(target)
        dict.update(target, pairs)
        defaultdict.default_factory.__set__(target, factory)
    elif kind == "od":
        pairs = _decode_pairs(inner, st)
        OrderedDict.clear(target)
        for k, v in pairs:
            OrderedDict.__setitem__(target, k, v)
    else:  # "d", "ctr"
        pairs = _decode_pairs(inner, st)
        dict.clear(target)
        dict.update(target, pairs)


def _checked_list(value: Any) -> list:
    if not isinstance(value, list):
        raise WireError("malformed container")
    return value


def _decode_pairs(body: Any, st: _Decoding) -> list:
    if not isinstance(body, list) or not all(isinstance(p, list) and len(p) == 2 for p in body):
        raise WireError("malformed dict")
    return [(_decode(k, st), _decode(v, st)) for k, v in body]


def _decode_factory(value: Any, st: _Decoding) -> Any:
    if value is None:
        return None
    if isinstance(value, dict) and set(value) == {"bt"}:
        factory = _FACTORIES.get(value["bt"])
        if factory is None:
            raise WireError("unknown factory")
        return factory
    factory = _decode(value, st)
    if not callable(factory):
        raise WireError("a default factory that is not callable")
    return factory


def _decode_tz(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, list) and len(value) == 5 and value[0] == "fixed" and all(type(x) is int for x in value[1:4]):
        name = value[4]
        offset = datetime.timedelta(value[1], value[2], value[3])
        if offset == datetime.timedelta(0) and name == "UTC":
            return datetime.timezone.utc
        return datetime.timezone(offset) if not isinstance(name, str) or name.startswith("UTC") \
            else datetime.timezone(offset, name)
    if isinstance(value, list) and len(value) == 2 and value[0] == "zone" and isinstance(value[1], str):
        import zoneinfo

        return zoneinfo.ZoneInfo(value[1])
    raise WireError("malformed time zone")


def _ints(value: Any, n: int) -> list[int]:
    if not isinstance(value, list) or len(value) < n or not all(type(x) is int for x in value[:n]):
        raise WireError("malformed date or time")
    return value


def _namedtuple_class(spec: Any, st: _Decoding) -> type:
    if not (isinstance(spec, list) and len(spec) == 3 and isinstance(spec[0], str) and isinstance(spec[1], list)
            and all(isinstance(f, str) for f in spec[1]) and isinstance(spec[2], list)):
        raise WireError("malformed named tuple class")
    key = (spec[0], tuple(spec[1]))
    cls = st.identity.classes.get(key)
    if cls is None:
        defaults = {str(k): v for k, v in _decode_pairs(spec[2], st)}
        try:
            cls = collections.namedtuple(spec[0], spec[1], rename=False,
                                         defaults=[defaults[f] for f in spec[1] if f in defaults] or None)
        except (TypeError, ValueError) as exc:
            raise WireError(f"malformed named tuple class: {exc}") from None
        cls.__module__ = "solution"
        st.identity.classes[key] = cls
    return cls


def _decode(value: Any, st: _Decoding) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode(v, st) for v in value]
    if not isinstance(value, dict) or len(value) != 1:
        raise WireError("malformed value")
    (tag, body), = value.items()
    if tag in _EMPTY:  # a plain (unnumbered) mutable value
        target = _EMPTY[tag]()
        _fill(target, tag, value, st)
        return target
    decoder = _DECODERS.get(tag)
    got = _UNKNOWN if decoder is None else decoder(body, value, st)
    if got is _UNKNOWN:
        raise WireError(f"unknown tag {tag!r}")
    return got


# One decoder a tag: (body, the whole tagged value, the decoding's state) -> the value, or
# _UNKNOWN where the body is not that tag's (the tag is then unknown, as a tag no one knows).
_UNKNOWN = object()


def _decode_numbered_list(body: Any, value: Any, st: _Decoding) -> Any:
    if type(body) is list and len(body) == 2 and type(body[1]) is list and type(body[0]) is int \
            and body[0] not in st.filled:  # a list: two frames a level, as deep as it comes
        n = body[0]
        target = st.identity.lookup(n)
        if target is None and n:
            target = []
            st.identity.adopt(n, target)
        if type(target) is list or (target is not None and _base_kind(target) == "l"):
            st.filled.add(n)
            list.__setitem__(target, slice(None), [_decode(v, st) for v in body[1]])
            return target
    return _numbered(_checked_list(body), st)


def _decode_maxlen_deque(body: Any, value: Any, st: _Decoding) -> Any:
    parts = _checked_list(body)
    if len(parts) != 2 or type(parts[0]) is not int or parts[0] < 0:
        raise WireError("malformed deque")
    target = deque(maxlen=parts[0])
    _fill(target, "dq", value, st)
    return target


def _decode_text(parse: Callable[[str], Any], limit: int = MAX_TEXT) -> Callable[[Any, Any, _Decoding], Any]:
    return lambda body, value, st: parse(body) if isinstance(body, str) and len(body) < limit else _UNKNOWN


def _decode_complex(body: Any, value: Any, st: _Decoding) -> Any:
    if isinstance(body, list) and len(body) == 2 and all(isinstance(x, (int, float)) for x in body):
        return complex(body[0], body[1])
    return _UNKNOWN


def _decode_fraction(body: Any, value: Any, st: _Decoding) -> Any:
    if isinstance(body, list) and len(body) == 2:
        num, den = _decode(body[0], st), _decode(body[1], st)
        if type(num) is int and type(den) is int:
            return Fraction(num, den)
    return _UNKNOWN


def _parse_decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation:
        raise WireError("malformed decimal") from None


def _decode_datetime(body: Any, value: Any, st: _Decoding) -> Any:
    f = _ints(body, 8)
    if len(f) != 9:
        raise WireError("malformed datetime")
    return datetime.datetime(*f[:7], tzinfo=_decode_tz(f[8]), fold=f[7])


def _decode_time(body: Any, value: Any, st: _Decoding) -> Any:
    f = _ints(body, 5)
    if len(f) != 6:
        raise WireError("malformed time")
    return datetime.time(*f[:4], tzinfo=_decode_tz(f[5]), fold=f[4])


def _decode_namedtuple(body: Any, value: Any, st: _Decoding) -> Any:
    if not (isinstance(body, list) and len(body) == 2):
        return _UNKNOWN
    cls = _decode(body[0], st)
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        raise WireError("malformed named tuple")
    items = [_decode(v, st) for v in _checked_list(body[1])]
    if len(items) != len(cls._fields):
        raise WireError("malformed named tuple")
    return tuple.__new__(cls, items)


_DECODERS: dict[str, Callable[[Any, Any, _Decoding], Any]] = {
    "m": _decode_numbered_list,
    "t": lambda body, value, st: tuple(_decode(v, st) for v in _checked_list(body)),
    "fs": lambda body, value, st: frozenset([_decode(v, st) for v in _checked_list(body)]),
    "dqm": _decode_maxlen_deque,
    "i": _decode_text(lambda text: int(text, 16)),
    "b": _decode_text(bytes.fromhex),
    "c": _decode_complex,
    "fr": _decode_fraction,
    "dec": _decode_text(_parse_decimal, 1 << 16),
    "date": lambda body, value, st: datetime.date(*_ints(body, 3)[:3]),
    "dt": _decode_datetime,
    "time": _decode_time,
    "td": lambda body, value, st: datetime.timedelta(*_ints(body, 3)[:3]),
    "tz": lambda body, value, st: _decode_tz(body),
    "nt": _decode_namedtuple,
    "ntc": lambda body, value, st: _namedtuple_class(body, st),
    **dict.fromkeys(("ref", "jref", "exc", "mod"), lambda body, value, st: st.ref(value)),  # a stand-in of the caller's
}


def loads(value: Any, ref: Callable[[dict], Any], identity: Identity | None = None) -> Any:
    """Decode :func:`dumps` output (already parsed JSON) into base and standard-library value
    types; ``ref`` builds the local stand-in for a ``ref``/``jref``/``exc``/``mod`` entry;
    ``identity``: the case's, where numbered values keep theirs (else a throwaway one).
    Raises :class:`WireError` on anything else."""
    try:
        return _decode(value, _Decoding(ref, identity))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, KeyError, IndexError) as exc:
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
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            return None
        buffer += chunk


def ready(fd: int, buffer: bytearray) -> bool:
    """Whether a whole message, or at least the start of one, is there to read now."""
    import select

    return b"\n" in buffer or bool(select.select([fd], [], [], 0)[0])


def write_message(fd: int, msg: dict) -> None:
    import os

    data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
