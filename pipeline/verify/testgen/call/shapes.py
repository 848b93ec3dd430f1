"""What the examples' values at one argument position look like, so that new values keep it.

References are only right on valid inputs, so every input :mod:`.inputs` makes keeps each
argument's type (an int stays an int, a list of ints a list of ints, a grid stays rectangular, a
square one square) and the order properties every example shares: sorted, strictly increasing,
distinct, permutation lists. :func:`infer` reads that :class:`Shape` from the values seen at one
position (an order property is claimed only with some evidence: long enough lists, or the
statement's words); :func:`conforms` checks a new value against it and :func:`restore` puts the
order properties back after a change.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from pipeline.verify.testgen.constraints.words import says

MAX_DEPTH = 12

Number = int | float


_KINDS = ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (list, "list"), (tuple, "tuple"),
          (dict, "dict"), ((set, frozenset), "set"))  # bool before int: a bool is an int


def type_of(value: Any) -> str:
    """A value's type, the one type table of test generation: the shapes, the examples' envelope and
    the answer checks all name kinds by it."""
    if value is None:
        return "none"
    return next((name for types, name in _KINDS if isinstance(value, types)), "other")


def number_type(value: Any) -> str:
    """:func:`type_of`, with ints and floats one type ("num"): where a number may be either."""
    kind = type_of(value)
    return "num" if kind in ("int", "float") else kind


def sorted_values(values: Any) -> list[Any]:
    """A set's elements in a deterministic order (hash order of str differs between processes)."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=repr)


@dataclass
class Shape:
    kind: str
    nullable: bool = False  # None seen beside other values
    kinds: tuple[str, ...] = ()  # the kinds seen ("mixed" positions)
    samples: list[Any] = field(default_factory=list)  # a few observed values
    lo: Number | None = None  # observed numeric range (int / float)
    hi: Number | None = None
    int_too: bool = False  # float position where ints were seen too
    decimals: int = 0
    chars: str = ""  # str: the characters seen
    len_lo: int = 0  # str / containers: observed lengths
    len_hi: int = 0
    fixed_len: int | None = None  # every observed length equal (and more than one observation)
    elem: Shape | None = None  # list / set elements, dict values
    key: Shape | None = None  # dict keys
    items: list[Shape] = field(default_factory=list)  # fixed-length tuples
    rect: bool = False  # list of lists: rows of equal length in every example
    square: bool = False  # ... and as many rows as columns
    fixed_width: int | None = None  # ... and the same width in all examples
    sorted_asc: bool = False
    strict_asc: bool = False
    sorted_desc: bool = False
    distinct: bool = False
    perm_base: int | None = None  # a permutation of base..base+n-1 in every example
    categories: list[Any] = field(default_factory=list)  # ints: few values, often repeated (0/1 grids)


def _decimals(x: float) -> int:
    text = repr(x)
    if "e" in text or "E" in text or "." not in text:
        return 0 if float(x).is_integer() else 6
    return min(6, len(text.split(".")[1].rstrip("0")))


def infer(values: list[Any], depth: int = 0, hints: str = "") -> Shape:
    """The shape of ``values`` (observations of one position, or the elements of its containers);
    ``hints``: the statement, lower case, whose words back order properties of short lists."""
    values = values[:4000]
    present = [v for v in values if v is not None]
    kinds = sorted({type_of(v) for v in present})
    nullable = len(present) < len(values)
    samples = present[:20]
    if not kinds:
        return Shape("none", nullable=True)
    int_too = kinds == ["float", "int"]
    if int_too:
        kinds = ["float"]
    if len(kinds) > 1 or depth > MAX_DEPTH:
        return Shape("mixed", nullable=nullable, kinds=tuple(kinds), samples=samples)
    kind = kinds[0]
    shape = Shape(kind, nullable=nullable, kinds=(kind,), samples=samples, int_too=int_too)
    fill = _FILLS.get(kind)
    if fill is not None:
        fill(shape, present, depth, hints)
    return shape


def _fill_number(shape: Shape, present: list[Any], depth: int, hints: str) -> None:
    """Observed range (NaN and infinities aside), categories of nested ints, decimals of floats."""
    finite = [v for v in present if not (isinstance(v, float) and (math.isnan(v) or math.isinf(v)))]
    if finite:
        shape.lo, shape.hi = min(finite), max(finite)
    if shape.kind == "int" and depth > 0 and len(finite) >= 6 and len(set(finite)) <= 3:
        shape.categories = sorted(set(finite))
    if shape.kind == "float":
        shape.decimals = max([_decimals(float(v)) for v in finite] or [1])


def _fill_lengths(shape: Shape, present: list[Any]) -> None:
    lengths = [len(v) for v in present]
    shape.len_lo, shape.len_hi = min(lengths), max(lengths)
    if len(lengths) > 1 and len(set(lengths)) == 1:
        shape.fixed_len = lengths[0]


def _infer_or_none(values: list[Any], depth: int) -> Shape | None:
    return infer(values, depth) if values else None


def _fill_str(shape: Shape, present: list[Any], depth: int, hints: str) -> None:
    shape.chars = "".join(sorted(set("".join(present))))
    _fill_lengths(shape, present)


def _fill_list(shape: Shape, present: list[Any], depth: int, hints: str) -> None:
    _fill_lengths(shape, present)
    shape.elem = _infer_or_none([e for v in present for e in v], depth + 1)
    elem = shape.elem
    if elem is None or elem.nullable:
        return
    if elem.kind == "list":
        _rows(shape, present)
    if elem.kind in ("int", "float", "str"):
        _properties(shape, present, hints)


def _fill_set(shape: Shape, present: list[Any], depth: int, hints: str) -> None:
    _fill_lengths(shape, present)
    shape.elem = _infer_or_none([e for v in present for e in sorted_values(v)], depth + 1)


def _fill_tuple(shape: Shape, present: list[Any], depth: int, hints: str) -> None:
    """Tuples of one length (or a single one) are records, one shape per item; others sequences."""
    _fill_lengths(shape, present)
    if shape.fixed_len is not None or len(present) == 1:
        width = len(present[0])
        shape.items = [infer([t[i] for t in present], depth + 1) for i in range(width)]
        shape.fixed_len = width
    else:
        shape.elem = _infer_or_none([e for v in present for e in v], depth + 1)


def _fill_dict(shape: Shape, present: list[Any], depth: int, hints: str) -> None:
    _fill_lengths(shape, present)
    keys = [k for v in present for k in v]
    vals = [x for v in present for x in v.values()]
    shape.key = _infer_or_none(keys, depth + 1)
    shape.elem = _infer_or_none(vals, depth + 1)


_FILLS = {"int": _fill_number, "float": _fill_number, "str": _fill_str, "list": _fill_list, "set": _fill_set,
          "tuple": _fill_tuple, "dict": _fill_dict}


def _rows(shape: Shape, lists: list[list[Any]]) -> None:
    """Row structure of lists of lists: rectangular, square, fixed width."""
    widths = [{len(r) for r in grid} for grid in lists if grid]
    if not widths or any(len(w) != 1 for w in widths):
        return
    shape.rect = True
    all_widths = {next(iter(w)) for w in widths}
    grids = [g for g in lists if g]
    shape.square = all(len(g) == len(g[0]) for g in grids) and any(len(g) > 1 for g in grids)
    if len(all_widths) == 1 and not shape.square:
        shape.fixed_width = next(iter(all_widths))


def _properties(shape: Shape, lists: list[list[Any]], hints: str) -> None:
    """Order properties shared by every example list (claimed with some evidence: long enough
    lists, or the statement's words)."""
    try:
        longest = max(len(v) for v in lists)
        if _order_evidence(lists, longest, hints):
            _order(shape, lists, longest, hints)
        if _distinct_evidence(lists, longest, hints):
            shape.distinct = all(len(set(v)) == len(v) for v in lists)
        if shape.elem is not None and shape.elem.kind == "int" and longest >= 2:
            _permutation(shape, lists)
    except TypeError:
        pass


def _order_evidence(lists: list[list[Any]], longest: int, hints: str) -> bool:
    pairs = len(lists) >= 4 and sum(1 for v in lists if len(set(v)) > 1) >= 3  # many short rows: [start, end]
    return bool(longest >= 3 or pairs or (longest >= 2 and says(hints, "sorted")))


def _order(shape: Shape, lists: list[list[Any]], longest: int, hints: str) -> None:
    """Sorted, strictly increasing (with long lists or the statement's word for it), or descending."""
    shape.sorted_asc = all(all(a <= b for a, b in zip(v, v[1:])) for v in lists)
    shape.strict_asc = shape.sorted_asc and all(all(a < b for a, b in zip(v, v[1:])) for v in lists) and (
        longest >= 3 or says(hints, "strictly_increasing"))
    shape.sorted_desc = not shape.sorted_asc and all(all(a >= b for a, b in zip(v, v[1:])) for v in lists)


def _distinct_evidence(lists: list[list[Any]], longest: int, hints: str) -> bool:
    return bool((sum(len(v) for v in lists) >= 4 and longest >= 3)
                or (longest >= 2 and says(hints, "distinct")))


def _permutation(shape: Shape, lists: list[list[Any]]) -> None:
    """A permutation of 0..n-1 or 1..n in every example (not when sorted: nothing to permute)."""
    for base in (0, 1):
        if all(sorted(v) == list(range(base, base + len(v))) for v in lists):
            shape.perm_base = base
            break
    if shape.perm_base is not None and shape.sorted_asc:
        shape.perm_base = None  # range(n): nothing to permute


def restore(value: Any, shape: Shape, rng: random.Random, depth: int, keep_len: bool = False) -> Any:
    """Order properties of lists (and of the rows of lists of lists) that every example has."""
    if not isinstance(value, list) or shape.kind != "list" or shape.elem is None or depth > 2:
        return value
    if shape.elem.kind == "list":
        return [restore(row, shape.elem, rng, depth + 1, keep_len=shape.rect) for row in value]
    try:
        if shape.perm_base is not None:
            value = list(range(shape.perm_base, shape.perm_base + len(value)))
            rng.shuffle(value)
            return value
        if (shape.distinct or shape.strict_asc) and shape.fixed_len is None and not keep_len:
            seen: set[Any] = set()
            value = [v for v in value if not (v in seen or seen.add(v))]
        if shape.sorted_asc or shape.strict_asc:
            value.sort()
        elif shape.sorted_desc:
            value.sort(reverse=True)
    except TypeError:
        pass
    return value


_SCALAR_KINDS = {"int": (int,), "float": (float,), "str": (str,), "bool": (bool,), "none": (type(None),)}


def conforms(value: Any, shape: Shape, depth: int) -> bool:
    """``value`` has the shape's type (containers: element types seen at that position)."""
    if depth > MAX_DEPTH:
        return True
    if value is None:
        return shape.nullable or shape.kind == "none"
    kind = type_of(value)
    if shape.kind == "mixed":
        return kind in shape.kinds or (kind == "int" and "float" in shape.kinds)
    if shape.kind == "other":
        return True
    if kind != shape.kind and not (shape.kind == "float" and kind == "int" and shape.int_too):
        return False
    if kind in ("list", "set") or (kind == "tuple" and not shape.items):
        return _elements_conform(value, kind, shape, depth)
    if kind == "tuple":
        return len(value) == len(shape.items) and all(conforms(v, s, depth + 1) for v, s in zip(value, shape.items))
    if kind == "dict":
        return _dict_conforms(value, shape, depth)
    return True


def _scalar_types(elem: Shape) -> tuple[type, ...]:
    """The exact types a list's scalar elements may have (None where seen, int in float lists)."""
    return _SCALAR_KINDS[elem.kind] + ((type(None),) if elem.nullable else ()) + ((int,) if elem.int_too else ())


def _elements_conform(value: Any, kind: str, shape: Shape, depth: int) -> bool:
    """A list, set or sequence tuple whose elements all have the element shape (empty when none seen)."""
    if shape.elem is None:
        return len(value) == 0
    if kind == "list" and shape.elem.kind in _SCALAR_KINDS:
        allowed = _scalar_types(shape.elem)
        return all(type(v) in allowed for v in value)
    return all(conforms(v, shape.elem, depth + 1) for v in (value if kind != "set" else sorted_values(value)))


def _dict_conforms(value: dict[Any, Any], shape: Shape, depth: int) -> bool:
    if not value:
        return True
    if shape.key is None or shape.elem is None:
        return False
    return all(conforms(k, shape.key, depth + 1) and conforms(v, shape.elem, depth + 1) for k, v in value.items())


def leaf_strings(value: Any, depth: int = 0):
    """The strings of a value: itself, or its lists' and tuples' items', three levels down (a list
    of words keeps the words' alphabet)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)) and depth < 3:
        for v in value:
            yield from leaf_strings(v, depth + 1)


def leaf_numbers(value: Any, depth: int = 0, max_depth: int = MAX_DEPTH):
    """The numbers inside a value (bools aside), down to ``max_depth`` levels."""
    if depth > max_depth or isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield value
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from leaf_numbers(v, depth + 1, max_depth)
    elif isinstance(value, dict):
        for v in value.values():
            yield from leaf_numbers(v, depth + 1, max_depth)
