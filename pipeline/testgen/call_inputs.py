"""New inputs for call tests: type-aware mutation of the examples, after EvalPlus.

EvalPlus (``evalplus/gen/type_mut.py``) grows a test suite by mutating seed inputs by type: ints
by ±1, scaling and boundary values; floats scaled; strings by inserting, deleting, swapping or
replacing characters of their own alphabet; lists by inserting, deleting, swapping or duplicating
elements made from the types already present; tuples, dicts, sets and nested values recursively;
bools flipped; None kept. :func:`mutate_args` does the same for a problem's example calls and adds
two kinds EvalPlus gets from its LLM seeds: inputs at the statement's bounds (smallest size,
values at ``lo`` and ``hi``) and larger inputs scaled toward the stated sizes (at most 1000
elements or characters per argument, 10,000 per input). Expected outputs come from running
reference solutions elsewhere; inputs a reference rejects are dropped there.

Every input keeps each argument's type (an int stays an int, a list of ints a list of ints, a
grid stays rectangular, a square one square), respects the bounds :mod:`constraints` reads from
the statement (bounds that an example breaks are taken for misreadings and ignored), and keeps a
few properties every example shares, since references are only right on valid inputs: sorted,
strictly increasing, distinct, permutation lists; equal lengths of two arguments; an int argument
equal to, or at most, another argument's length. LeetCode's list encodings are kept valid: a
binary tree in level order with None holes (parameter ``root``, or a statement about a binary
tree and a list with None) is mutated as a tree by :func:`_tree_mutation` (a binary search tree
stays one); a linked list is a plain list.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pipeline.testgen.constraints import Bound, alphabet, parse_constraints, size_bound, value_bound

__all__ = ["mutate_args"]

MAX_SCALED_SIZE = 1000  # elements of one list, characters of one string
MAX_TOTAL_ELEMENTS = 10_000  # leaves (characters included) of one input
_MAX_DEPTH = 12
_DEFAULT_CHARS = "abcdefghijklmnopqrstuvwxyz"

Number = int | float


# --- shapes: what the examples' values at one position look like ---------------------------


_KINDS = ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (list, "list"), (tuple, "tuple"),
          (dict, "dict"), ((set, frozenset), "set"))  # bool before int: a bool is an int


def _kind(value: Any) -> str:
    if value is None:
        return "none"
    return next((name for types, name in _KINDS if isinstance(value, types)), "other")


def _sorted_values(values: Any) -> list[Any]:
    """A set's elements in a deterministic order (hash order of str differs between processes)."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=repr)


@dataclass
class _Shape:
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
    elem: _Shape | None = None  # list / set elements, dict values
    key: _Shape | None = None  # dict keys
    items: list[_Shape] = field(default_factory=list)  # fixed-length tuples
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


def _infer(values: list[Any], depth: int = 0, hints: str = "") -> _Shape:
    """The shape of ``values`` (observations of one position, or the elements of its containers);
    ``hints``: the statement, lower case, whose words back order properties of short lists."""
    values = values[:4000]
    present = [v for v in values if v is not None]
    kinds = sorted({_kind(v) for v in present})
    nullable = len(present) < len(values)
    samples = present[:20]
    if not kinds:
        return _Shape("none", nullable=True)
    if kinds == ["float", "int"]:
        kinds, int_too = ["float"], True
    else:
        int_too = False
    if len(kinds) > 1 or depth > _MAX_DEPTH:
        return _Shape("mixed", nullable=nullable, kinds=tuple(kinds), samples=samples)
    kind = kinds[0]
    shape = _Shape(kind, nullable=nullable, kinds=(kind,), samples=samples, int_too=int_too)
    if kind in ("int", "float"):
        finite = [v for v in present if not (isinstance(v, float) and (math.isnan(v) or math.isinf(v)))]
        if finite:
            shape.lo, shape.hi = min(finite), max(finite)
        if kind == "int" and depth > 0 and len(finite) >= 6 and len(set(finite)) <= 3:
            shape.categories = sorted(set(finite))
        if kind == "float":
            shape.decimals = max([_decimals(float(v)) for v in finite] or [1])
    elif kind == "str":
        shape.chars = "".join(sorted(set("".join(present))))
    if kind in ("str", "list", "tuple", "dict", "set"):
        lengths = [len(v) for v in present]
        shape.len_lo, shape.len_hi = min(lengths), max(lengths)
        if len(lengths) > 1 and len(set(lengths)) == 1:
            shape.fixed_len = lengths[0]
    if kind in ("list", "set"):
        elements = [e for v in present for e in (v if kind == "list" else _sorted_values(v))]
        shape.elem = _infer(elements, depth + 1) if elements else None
    if kind == "list" and shape.elem is not None and shape.elem.kind == "list" and not shape.elem.nullable:
        _rows(shape, present)
    if kind == "list" and shape.elem is not None and shape.elem.kind in ("int", "float", "str") and not shape.elem.nullable:
        _properties(shape, present, hints)
    if kind == "tuple":
        if shape.fixed_len is not None or len(present) == 1:
            width = len(present[0])
            shape.items = [_infer([t[i] for t in present], depth + 1) for i in range(width)]
            shape.fixed_len = width
        else:
            elements = [e for v in present for e in v]
            shape.elem = _infer(elements, depth + 1) if elements else None
    if kind == "dict":
        keys = [k for v in present for k in v]
        vals = [x for v in present for x in v.values()]
        shape.key = _infer(keys, depth + 1) if keys else None
        shape.elem = _infer(vals, depth + 1) if vals else None
    return shape


def _rows(shape: _Shape, lists: list[list[Any]]) -> None:
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


def _properties(shape: _Shape, lists: list[list[Any]], hints: str) -> None:
    """Order properties shared by every example list (claimed with some evidence: long enough
    lists, or the statement's words)."""
    try:
        longest = max(len(v) for v in lists)
        pairs = len(lists) >= 4 and sum(1 for v in lists if len(set(v)) > 1) >= 3  # many short rows: [start, end]
        if longest >= 3 or pairs or (longest >= 2 and re.search(r"\bsorted\b|ascending|increasing|decreasing", hints)):
            shape.sorted_asc = all(all(a <= b for a, b in zip(v, v[1:])) for v in lists)
            shape.strict_asc = shape.sorted_asc and all(all(a < b for a, b in zip(v, v[1:])) for v in lists) and (
                longest >= 3 or bool(re.search(r"strictly increasing|distinct|unique", hints)))
            shape.sorted_desc = not shape.sorted_asc and all(all(a >= b for a, b in zip(v, v[1:])) for v in lists)
        if (sum(len(v) for v in lists) >= 4 and longest >= 3) or (longest >= 2 and re.search(r"\bdistinct\b|\bunique\b", hints)):
            shape.distinct = all(len(set(v)) == len(v) for v in lists)
        if shape.elem is not None and shape.elem.kind == "int" and longest >= 2:
            for base in (0, 1):
                if all(sorted(v) == list(range(base, base + len(v))) for v in lists):
                    shape.perm_base = base
                    break
            if shape.perm_base is not None and shape.sorted_asc:
                shape.perm_base = None  # range(n): nothing to permute
    except TypeError:
        pass


# --- the tree encoding -----------------------------------------------------------------------


class _Node:
    __slots__ = ("val", "left", "right")

    def __init__(self, val: Any):
        self.val, self.left, self.right = val, None, None


def _decode_tree(values: list[Any]) -> _Node | None:
    """LeetCode's level order: children of each non-None node in turn; a short list ends the tree."""
    if not values or values[0] is None:
        return None
    root = _Node(values[0])
    queue, i, head = [root], 1, 0
    while head < len(queue) and i < len(values):
        node = queue[head]
        head += 1
        for side in ("left", "right"):
            if i < len(values):
                if values[i] is not None:
                    child = _Node(values[i])
                    setattr(node, side, child)
                    queue.append(child)
                i += 1
    return root


def _encode_tree(root: _Node | None) -> list[Any]:
    if root is None:
        return []
    out, queue, head = [root.val], [root], 0
    while head < len(queue):
        node = queue[head]
        head += 1
        for child in (node.left, node.right):
            out.append(None if child is None else child.val)
            if child is not None:
                queue.append(child)
    while out and out[-1] is None:
        out.pop()
    return out


def _nodes(root: _Node | None) -> list[_Node]:
    out, queue, head = [], [root] if root else [], 0
    while head < len(queue):
        node = queue[head]
        head += 1
        out.append(node)
        queue.extend(c for c in (node.left, node.right) if c is not None)
    return out


def _inorder(root: _Node | None) -> list[_Node]:
    out, stack, node = [], [], root
    while stack or node is not None:
        while node is not None:
            stack.append(node)
            node = node.left
        node = stack.pop()
        out.append(node)
        node = node.right
    return out


def _is_bst(values: list[Any]) -> bool:
    try:
        order = [n.val for n in _inorder(_decode_tree(values))]
        return len(order) >= 2 and all(a < b for a, b in zip(order, order[1:]))
    except TypeError:
        return False


def _relabel_bst(root: _Node, rng: random.Random, lo: Number, hi: Number) -> bool:
    """Make the tree a BST: distinct values, assigned in order. False when the range is too small."""
    nodes = _inorder(root)
    vals = [n.val for n in nodes]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        try:
            vals = sorted(set(vals))
        except TypeError:
            return False
        if len(vals) < len(nodes):
            return False
    else:
        lo, hi = int(lo), int(hi)
        if hi - lo + 1 < len(nodes):
            return False
        unique = sorted(set(v for v in vals if lo <= v <= hi))
        seen = set(unique)
        tries = 0
        while len(unique) < len(nodes) and tries < 50 * len(nodes):
            v = rng.randint(lo, hi)
            tries += 1
            if v not in seen:
                seen.add(v)
                unique.append(v)
        if len(unique) < len(nodes):
            return False
        vals = sorted(unique)
        if len(vals) > len(nodes):
            vals = sorted(rng.sample(vals, len(nodes)))
    for node, v in zip(nodes, vals):
        node.val = v
    return True


def _random_tree(size: int, rng: random.Random, make_value) -> _Node | None:
    if size <= 0:
        return None
    root = _Node(make_value())
    free = [(root, "left"), (root, "right")]
    for _ in range(size - 1):
        i = rng.randrange(len(free))
        node, side = free[i]
        free[i] = free[-1]
        free.pop()
        child = _Node(make_value())
        setattr(node, side, child)
        free += [(child, "left"), (child, "right")]
    return root


def _tree_mutation(values: list[Any], rng: random.Random, make_value, *, min_nodes: int = 1,
                   max_nodes: int | None = None, bst_range: tuple[Number, Number] | None = None) -> tuple[list[Any], str] | None:
    """One mutation of a level-order tree list: (new list, label), or None when none applies."""
    root = _decode_tree(values)
    if root is None:
        if max_nodes is not None and max_nodes < 1:
            return None
        return [make_value()], "mutation:tree_add_leaf"
    nodes = _nodes(root)
    ops = ["value", "swap"]
    if max_nodes is None or len(nodes) < max_nodes:
        ops += ["add", "add"]
    if len(nodes) > max(1, min_nodes):
        ops += ["remove"]
    op = rng.choice(ops)
    if op == "value":
        node = rng.choice(nodes)
        node.val = make_value(node.val)
        label = "mutation:tree_value"
    elif op == "swap":
        inner = [n for n in nodes if n.left is not None or n.right is not None] or nodes
        node = rng.choice(inner)
        node.left, node.right = node.right, node.left
        label = "mutation:tree_swap"
    elif op == "add":
        slots = [(n, s) for n in nodes for s in ("left", "right") if getattr(n, s) is None]
        node, side = rng.choice(slots)
        setattr(node, side, _Node(make_value()))
        label = "mutation:tree_add_leaf"
    else:
        leaves = [(p, s) for p in nodes for s in ("left", "right")
                  if getattr(p, s) is not None and getattr(p, s).left is None and getattr(p, s).right is None]
        if not leaves:
            return None
        parent, side = rng.choice(leaves)
        setattr(parent, side, None)
        label = "mutation:tree_remove_leaf"
    if bst_range is not None and not _relabel_bst(root, rng, *bst_range):
        return None
    return _encode_tree(root), label


# --- one argument position -------------------------------------------------------------------


def _fits(value: Number, lo: Number | None, hi: Number | None) -> bool:
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _leaf_numbers(value: Any, depth: int = 0):
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield value
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _leaf_numbers(v, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaf_numbers(v, depth + 1)


def _size(value: Any, depth: int = 0) -> int:
    """Leaves of a value, string characters counted."""
    if depth > _MAX_DEPTH:
        return 1
    if isinstance(value, str):
        return max(1, len(value))
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(_size(v, depth + 1) for v in value) or 1
    if isinstance(value, dict):
        return sum(_size(k, depth + 1) + _size(v, depth + 1) for k, v in value.items()) or 1
    return 1


class _Position:
    """How to make new values for one argument: its shape, bounds and generators."""

    def __init__(self, key: int | str, name: str | None, values: list[Any], bounds: list[Bound], statement: str):
        self.key, self.name, self.values = key, name, values
        self.shape = _infer(values, hints=(statement or "").lower())
        self.tree = False
        self.bst = False
        self.size_lo: int | None = None
        self.size_hi: int | None = None
        self.inner_lo: int | None = None
        self.inner_hi: int | None = None
        self.val_lo: Number | None = None
        self.val_hi: Number | None = None
        self.chars = ""
        self._ranges: dict[tuple, tuple[Number, Number]] = {}
        self._bounds(bounds, statement)

    # bounds ------------------------------------------------------------------------------

    def _bounds(self, bounds: list[Bound], statement: str) -> None:
        shape, name, present = self.shape, self.name, [v for v in self.values if v is not None]
        lower = statement.lower()
        if shape.kind == "list" and shape.elem is not None and shape.elem.kind in ("int", "float", "none", "str"):
            lists = present
            named_tree = bool(name and re.fullmatch(r"(?i)root\d*|tree\d*", name))
            noneful = any(v is None for lst in lists for v in lst)
            if (named_tree or ("binary tree" in lower and noneful)) and all(not lst or lst[0] is not None for lst in lists) \
                    and any(lists):
                self.tree = True
                self.bst = ("binary search tree" in lower or "bst" in lower) and all(_is_bst(v) for v in lists if len(v) > 1) \
                    and any(len(v) > 1 for v in lists)
        if not name:
            return
        sizes = [len(v) if not self.tree else len(_nodes(_decode_tree(v))) for v in present
                 if isinstance(v, (str, list, tuple, dict, set))]
        b = size_bound(bounds, name)
        if b is not None and sizes and all(_fits(s, b.lo, b.hi) for s in sizes):
            self.size_lo = None if b.lo is None else max(0, math.ceil(b.lo))
            self.size_hi = None if b.hi is None else math.floor(b.hi)
        if shape.kind == "list" and shape.elem is not None and shape.elem.kind in ("list", "str"):
            inner = [len(r) for v in present for r in v if isinstance(r, (list, str))]
            b = size_bound(bounds, name, 1)
            if b is not None and inner and all(_fits(s, b.lo, b.hi) for s in inner):
                self.inner_lo = None if b.lo is None else max(0, math.ceil(b.lo))
                self.inner_hi = None if b.hi is None else math.floor(b.hi)
        numbers = [x for v in present for x in _leaf_numbers(v)]
        b = value_bound(bounds, name)
        if b is not None and numbers and all(_fits(x, b.lo, b.hi) for x in numbers if not math.isnan(x)):
            self.val_lo, self.val_hi = b.lo, b.hi
        if self.val_lo is not None and self.val_hi is not None and self.val_lo > self.val_hi:
            self.val_lo = self.val_hi = None
        text_chars = None
        if shape.kind == "str" or (shape.elem is not None and shape.elem.kind == "str"):
            text_chars = alphabet(statement, name)
        seen = shape.chars if shape.kind == "str" else (shape.elem.chars if shape.elem is not None and shape.elem.kind == "str" else "")
        if text_chars and set(seen) <= set(text_chars):
            self.chars = text_chars
        else:
            self.chars = seen

    # value ranges --------------------------------------------------------------------------

    def num_range(self, leaf: _Shape, scalar: bool) -> tuple[Number, Number]:
        """Where new numbers of this leaf come from: the bound, else the observed range doubled."""
        key = (leaf.kind, leaf.lo, leaf.hi, scalar, tuple(leaf.categories))
        if key not in self._ranges:
            self._ranges[key] = self._num_range(leaf, scalar)
        return self._ranges[key]

    def categorical(self, leaf: _Shape) -> bool:
        """Few values seen and no stated range: new values are drawn from those seen."""
        return bool(leaf.categories) and self.val_lo is None and self.val_hi is None

    def _num_range(self, leaf: _Shape, scalar: bool) -> tuple[Number, Number]:
        if self.categorical(leaf):
            return leaf.categories[0], leaf.categories[-1]
        is_int = leaf.kind == "int"
        olo, ohi = leaf.lo, leaf.hi
        if olo is None or ohi is None:
            olo, ohi = (0, 10) if is_int else (0.0, 1.0)
        if is_int:
            olo, ohi = int(olo), int(ohi)
        span = ohi - olo
        if scalar:
            span = max(span, abs(ohi), 2 if is_int else 1.0)
        half = span // 2 if is_int else span / 2
        lo, hi = olo - half, ohi + half
        if olo >= 0:
            lo = max(lo, 0)
        if olo >= 1 and is_int:
            lo = max(lo, 1)
        if self.val_lo is not None:
            lo = self.val_lo if self.val_hi is not None else max(lo, self.val_lo)
            hi = max(hi, lo)
        if self.val_hi is not None:
            hi = self.val_hi if self.val_lo is not None else min(hi, self.val_hi)
            lo = min(lo, hi)
        if is_int:
            lo = lo if isinstance(lo, int) else math.ceil(lo)
            hi = hi if isinstance(hi, int) else math.floor(hi)
            if lo > hi:
                lo = hi = olo
        return lo, hi

    def clamp(self, x: Number) -> Number:
        if self.val_lo is not None and x < self.val_lo:
            x = self.val_lo if isinstance(x, float) or isinstance(self.val_lo, int) else math.ceil(self.val_lo)
        if self.val_hi is not None and x > self.val_hi:
            x = self.val_hi if isinstance(x, float) or isinstance(self.val_hi, int) else math.floor(self.val_hi)
        return x

    def size_range(self, shape: _Shape, top: bool) -> tuple[int, int]:
        """Allowed sizes of a (top-level or row) container or string."""
        lo, hi = (self.size_lo, self.size_hi) if top else (self.inner_lo, self.inner_hi)
        return (0 if lo is None else lo), (10**9 if hi is None else hi)

    # generation ----------------------------------------------------------------------------

    def gen_leaf(self, leaf: _Shape, rng: random.Random, scalar: bool = False, old: Any = None) -> Any:
        kind = leaf.kind
        if kind == "bool":
            return rng.random() < 0.5
        if kind == "int" and self.categorical(leaf):
            return rng.choice(leaf.categories)
        if kind == "int" or (kind == "float" and leaf.int_too and rng.random() < 0.3):
            lo, hi = self.num_range(_Shape("int", lo=leaf.lo, hi=leaf.hi) if kind == "float" else leaf, scalar)
            return rng.randint(int(lo), int(hi))
        if kind == "float":
            lo, hi = self.num_range(leaf, scalar)
            return self.clamp(round(rng.uniform(lo, hi), max(1, leaf.decimals)))
        if kind == "str":
            chars = self.chars or leaf.chars or _DEFAULT_CHARS
            n = leaf.fixed_len if leaf.fixed_len is not None else rng.randint(max(0, leaf.len_lo), max(leaf.len_lo, leaf.len_hi, 1))
            return "".join(rng.choice(chars) for _ in range(n))
        if kind == "none":
            return None
        return self.gen(leaf, rng, None, depth=1)

    def gen(self, shape: _Shape, rng: random.Random, length: int | None, depth: int = 0, width: int | None = None) -> Any:
        """A new value of ``shape``; ``length`` for the top container (else like the observed ones)."""
        if depth > _MAX_DEPTH:
            raise ValueError("too deep")
        kind = shape.kind
        if kind in ("mixed", "other"):
            return copy.deepcopy(rng.choice(shape.samples)) if shape.samples else None
        if kind in ("bool", "int", "float", "str", "none"):
            if kind == "str" and length is not None:
                chars = self.chars or shape.chars or _DEFAULT_CHARS
                return "".join(rng.choice(chars) for _ in range(length))
            return self.gen_leaf(shape, rng, scalar=depth == 0)
        if length is None:
            length = shape.fixed_len if shape.fixed_len is not None else rng.randint(shape.len_lo, max(shape.len_lo, shape.len_hi, 1))
        if kind == "tuple" and shape.items:
            return tuple(self.gen(item, rng, None, depth + 1) for item in shape.items)
        if kind == "dict":
            out: dict[Any, Any] = {}
            for _ in range(length * 3):
                if len(out) >= length or shape.key is None or shape.elem is None:
                    break
                k = self.gen(shape.key, rng, None, depth + 1)
                if isinstance(k, (list, dict, set)):
                    break
                out[k] = self.gen(shape.elem, rng, None, depth + 1)
            return out
        elem = shape.elem
        if elem is None:
            return [] if kind == "list" else (set() if kind == "set" else ())
        if kind == "set":
            out_set: set[Any] = set()
            for _ in range(length * 3):
                if len(out_set) >= length:
                    break
                out_set.add(self.gen(elem, rng, None, depth + 1))
            return frozenset(out_set) if shape.samples and isinstance(shape.samples[0], frozenset) else out_set
        if shape.rect and elem.kind == "list":
            w = width if width is not None else (shape.fixed_width if shape.fixed_width is not None else
                                                  (length if shape.square else rng.randint(max(1, elem.len_lo), max(1, elem.len_hi))))
            rows = [self.gen(elem, rng, w, depth + 1) for _ in range(length)]
        else:
            if elem.kind == "str" and depth == 0 and width is not None:
                rows = [self.gen(elem, rng, width, depth + 1) for _ in range(length)]
            else:
                rows = [self.element(elem, rng, depth) for _ in range(length)]
        return rows if kind == "list" else tuple(rows)

    def element(self, elem: _Shape, rng: random.Random, depth: int) -> Any:
        if elem.nullable and elem.kind != "none" and rng.random() < 0.15:
            return None
        if elem.kind in ("list", "tuple", "dict", "set"):
            return self.gen(elem, rng, None, depth + 1)
        return self.gen_leaf(elem, rng)

    # fixing ----------------------------------------------------------------------------------

    def fix(self, value: Any, rng: random.Random) -> Any:
        """Clamp numbers to the bound; restore the properties every example has."""
        value = self._clamp_deep(value, 0)
        if self.tree:
            return value
        return _restore(value, self.shape, rng, 0)

    def _clamp_deep(self, value: Any, depth: int) -> Any:
        if self.val_lo is None and self.val_hi is None:
            return value
        if depth > _MAX_DEPTH or isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):
            return self.clamp(value)
        if isinstance(value, list):
            return [self._clamp_deep(v, depth + 1) for v in value]
        if isinstance(value, tuple):
            return tuple(self._clamp_deep(v, depth + 1) for v in value)
        if isinstance(value, dict):
            return {k: self._clamp_deep(v, depth + 1) for k, v in value.items()}
        if isinstance(value, set):
            return {self._clamp_deep(v, depth + 1) for v in value}
        return value

    def valid(self, value: Any) -> bool:
        """Within every parsed bound, and of the examples' type."""
        if not _conforms(value, self.shape, 0):
            return False
        if any(not _fits(x, self.val_lo, self.val_hi) for x in _leaf_numbers(value) if not math.isnan(x)):
            return False
        if isinstance(value, (str, list, tuple, dict, set)):
            n = len(_nodes(_decode_tree(value))) if self.tree else len(value)
            if not _fits(n, self.size_lo, self.size_hi):
                return False
            if self.shape.kind == "list" and (self.inner_lo is not None or self.inner_hi is not None):
                if any(not _fits(len(r), self.inner_lo, self.inner_hi) for r in value if isinstance(r, (list, str))):
                    return False
        if self.tree and isinstance(value, list) and value:
            if value[0] is None or value != _encode_tree(_decode_tree(value)):
                return False
            if self.bst and len(value) > 1 and not _is_bst(value):
                return False
        shape = self.shape
        if shape.kind == "list" and shape.rect and isinstance(value, list) and value:
            widths = {len(r) for r in value}
            if len(widths) != 1:
                return False
            if shape.fixed_width is not None and widths != {shape.fixed_width}:
                return False
            if shape.square and len(value) != len(value[0]):
                return False
        if shape.fixed_len is not None and shape.kind in ("str", "list") and self._fixed_len_kept() and len(value) != shape.fixed_len:
            return False
        return True

    def _fixed_len_kept(self) -> bool:
        """Whether equal lengths in the examples look like a rule (no size range stated that allows others)."""
        if self.size_lo is not None and self.size_hi is not None and self.size_lo < self.size_hi:
            return False
        return len(self.values) >= 2


def _restore(value: Any, shape: _Shape, rng: random.Random, depth: int, keep_len: bool = False) -> Any:
    """Order properties of lists (and of the rows of lists of lists) that every example has."""
    if not isinstance(value, list) or shape.kind != "list" or shape.elem is None or depth > 2:
        return value
    if shape.elem.kind == "list":
        return [_restore(row, shape.elem, rng, depth + 1, keep_len=shape.rect) for row in value]
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


def _conforms(value: Any, shape: _Shape, depth: int) -> bool:
    """``value`` has the shape's type (containers: element types seen at that position)."""
    if depth > _MAX_DEPTH:
        return True
    if value is None:
        return shape.nullable or shape.kind == "none"
    kind = _kind(value)
    if shape.kind == "mixed":
        return kind in shape.kinds or (kind == "int" and "float" in shape.kinds)
    if shape.kind == "other":
        return True
    if kind != shape.kind and not (shape.kind == "float" and kind == "int" and shape.int_too):
        return False
    if kind in ("list", "set") or (kind == "tuple" and not shape.items):
        if shape.elem is None:
            return len(value) == 0
        if kind == "list" and shape.elem.kind in _SCALAR_KINDS:
            allowed = _SCALAR_KINDS[shape.elem.kind] + ((type(None),) if shape.elem.nullable else ()) + ((int,) if shape.elem.int_too else ())
            return all(type(v) in allowed for v in value)
        return all(_conforms(v, shape.elem, depth + 1) for v in (value if kind != "set" else _sorted_values(value)))
    if kind == "tuple":
        return len(value) == len(shape.items) and all(_conforms(v, s, depth + 1) for v, s in zip(value, shape.items))
    if kind == "dict":
        if not value:
            return True
        if shape.key is None or shape.elem is None:
            return False
        return all(_conforms(k, shape.key, depth + 1) and _conforms(v, shape.elem, depth + 1) for k, v in value.items())
    return True


# --- mutations ---------------------------------------------------------------------------------


class _Mutator:
    """EvalPlus-style single mutations of a value of one position."""

    def __init__(self, pos: _Position, rng: random.Random):
        self.pos, self.rng = pos, rng

    def mutate(self, value: Any, shape: _Shape, depth: int = 0, top: bool = True) -> tuple[Any, str] | None:
        if depth > _MAX_DEPTH or value is None:
            return None
        kind = _kind(value)
        if kind == "bool":
            return (not value), "mutation:bool_flip"
        if kind == "int":
            return self.mutate_int(value, shape, top)
        if kind == "float":
            return self.mutate_float(value, shape)
        if kind == "str":
            return self.mutate_str(value, shape, top)
        if kind == "list":
            if top and self.pos.tree:
                return self.mutate_tree(value)
            return self.mutate_list(value, shape, depth, top)
        if kind == "tuple":
            return self.mutate_tuple(value, shape, depth)
        if kind == "dict":
            return self.mutate_dict(value, shape, depth)
        if kind == "set":
            return self.mutate_set(value, shape, depth)
        return None

    def mutate_int(self, value: int, shape: _Shape, top: bool) -> tuple[int, str]:
        rng, pos = self.rng, self.pos
        if shape.kind == "int" and pos.categorical(shape):
            others = [c for c in shape.categories if c != value]
            return (rng.choice(others) if others else value), "mutation:int_replace"
        lo, hi = pos.num_range(shape if shape.kind == "int" else _Shape("int", lo=value, hi=value), scalar=top)
        op = rng.choice(("delta", "delta", "scale", "boundary", "random"))
        if op == "delta":
            new, label = value + rng.choice((-1, 1)) * rng.choice((1, 1, 1, 2, 3)), "mutation:int_delta"
        elif op == "scale":
            choices = [value * 2, value // 2, -value] if value else [rng.choice((1, -1)) * 2]
            new, label = rng.choice(choices), "mutation:int_scale"
        elif op == "boundary":
            cands = [c for c in (0, 1, -1, lo, hi, shape.lo, shape.hi, pos.val_lo, pos.val_hi) if isinstance(c, int) and not isinstance(c, bool)]
            new, label = rng.choice(cands), "mutation:int_boundary"
        else:
            new, label = rng.randint(int(lo), int(hi)), "mutation:int_random"
        if pos.val_lo is None and pos.val_hi is None and shape.lo is not None and shape.lo >= 0 and new < 0:
            new = abs(new)
        return pos.clamp(new), label

    def mutate_float(self, value: float, shape: _Shape) -> tuple[float, str]:
        rng, pos = self.rng, self.pos
        digits = max(1, shape.decimals)
        if math.isnan(value) or math.isinf(value):
            return pos.clamp(0.0), "mutation:float_boundary"
        op = rng.choice(("scale", "scale", "delta", "boundary"))
        if op == "scale":
            new, label = value * rng.choice((0.5, 2.0, rng.uniform(0.5, 2.0), -1.0)), "mutation:float_scale"
        elif op == "delta":
            new, label = value + rng.choice((-1, 1)) * 10 ** (-digits) * rng.randint(1, 10), "mutation:float_delta"
        else:
            new, label = rng.choice([0.0, 1.0, -1.0] + [float(x) for x in (pos.val_lo, pos.val_hi) if x is not None]), "mutation:float_boundary"
        if pos.val_lo is None and pos.val_hi is None and shape.lo is not None and shape.lo >= 0 and new < 0:
            new = -new
        return pos.clamp(round(new, digits)), label

    def mutate_str(self, value: str, shape: _Shape, top: bool) -> tuple[str, str] | None:
        rng, pos = self.rng, self.pos
        own = sorted(set(value)) or sorted(set(pos.chars or shape.chars or _DEFAULT_CHARS))
        lo, hi = pos.size_range(shape, top)
        fixed = shape.fixed_len is not None and (not top or pos._fixed_len_kept())
        ops = ["replace", "swap"] if len(value) >= 1 else []
        if not fixed and len(value) < hi:
            ops += ["insert"]
        if not fixed and len(value) > lo and value:
            ops += ["delete"]
        if not ops:
            return None
        op = rng.choice(ops)
        chars = list(value)
        if op == "insert":
            chars.insert(rng.randint(0, len(chars)), rng.choice(own))
        elif op == "delete":
            del chars[rng.randrange(len(chars))]
        elif op == "swap":
            if len(set(chars)) < 2:
                pool = sorted(set(pos.chars or shape.chars)) or own
                chars[rng.randrange(len(chars))] = rng.choice(pool)
                op = "replace"
            else:
                i, j = rng.randrange(len(chars)), rng.randrange(len(chars))
                while chars[i] == chars[j]:
                    i, j = rng.randrange(len(chars)), rng.randrange(len(chars))
                chars[i], chars[j] = chars[j], chars[i]
        else:
            pool = sorted(set(pos.chars or shape.chars)) if rng.random() < 0.3 else own
            chars[rng.randrange(len(chars))] = rng.choice(pool or own)
        return "".join(chars), f"mutation:str_{op}"

    def mutate_list(self, value: list[Any], shape: _Shape, depth: int, top: bool) -> tuple[list[Any], str] | None:
        rng, pos = self.rng, self.pos
        elem = shape.elem if shape.kind in ("list", "tuple") else None
        lo, hi = pos.size_range(shape, top) if depth <= 1 else (0, 10**9)
        rect = shape.rect and elem is not None and elem.kind == "list"
        fixed = shape.fixed_len is not None and (not top or pos._fixed_len_kept())
        ops: list[str] = []
        if value:
            ops += ["element", "element", "swap"]
        if not fixed and len(value) < hi and (elem is not None or value):
            ops += ["insert", "duplicate"] if value else ["insert"]
        if not fixed and len(value) > lo and value:
            ops += ["delete"]
        if rect and value and not shape.square and shape.fixed_width is None and value[0]:
            width = len(value[0])
            ilo, ihi = pos.size_range(elem, False) if top else (0, 10**9)
            ops += (["column_insert"] if width < ihi else []) + (["column_delete"] if width > max(ilo, 1) else [])
        if rect and value and shape.square and not fixed:
            ops = [o for o in ops if o in ("element", "swap")] + (["grow"] if len(value) < hi else []) + (["shrink"] if len(value) > max(lo, 1) else [])
        if not ops:
            return None
        op = rng.choice(ops)
        out = copy.deepcopy(value)
        if op == "element":
            i = rng.randrange(len(out))
            sub = shape.elem if shape.elem is not None else _infer([out[i]])
            if rect and isinstance(out[i], list):
                sub = dataclasses.replace(sub, fixed_len=len(out[i]))  # a grid row keeps its width
            if out[i] is None:
                if not sub.nullable:
                    return None
                out[i] = pos.element(sub, rng, depth)
                return out, "mutation:list_element"
            result = self.mutate(out[i], sub, depth + 1, top=False)
            if result is None:
                return None
            out[i] = result[0]
            return out, result[1]
        if op == "swap":
            if len(out) < 2:
                return None
            i, j = rng.sample(range(len(out)), 2)
            out[i], out[j] = out[j], out[i]
        elif op == "insert":
            if rect and out:
                new = pos.gen(elem, rng, len(out[0]), depth + 1)
            elif elem is not None and (not out or rng.random() < 0.6):
                new = pos.element(elem, rng, depth)
            else:
                new = copy.deepcopy(rng.choice(out))
                sub = self.mutate(new, elem or _infer([new]), depth + 1, top=False)
                new = sub[0] if sub else new
            out.insert(rng.randint(0, len(out)), new)
        elif op == "duplicate":
            i = rng.randrange(len(out))
            out.insert(rng.randint(0, len(out)), copy.deepcopy(out[i]))
        elif op == "delete":
            del out[rng.randrange(len(out))]
        elif op == "grow":  # square grid: a row and a column
            n = len(out)
            for row in out:
                row.insert(rng.randint(0, n), pos.element(elem.elem, rng, depth + 1) if elem.elem else 0)
            out.insert(rng.randint(0, n), pos.gen(elem, rng, n + 1, depth + 1))
            return out, "mutation:grid_grow"
        elif op == "column_insert":
            j = rng.randint(0, len(out[0]))
            for row in out:
                row.insert(j, pos.element(elem.elem, rng, depth + 1) if elem.elem else 0)
            return out, "mutation:grid_column_insert"
        elif op == "column_delete":
            j = rng.randrange(len(out[0]))
            for row in out:
                del row[j]
            return out, "mutation:grid_column_delete"
        elif op == "shrink":
            i, j = rng.randrange(len(out)), rng.randrange(len(out))
            del out[i]
            for row in out:
                del row[j]
            return out, "mutation:grid_shrink"
        return out, f"mutation:list_{op}"

    def mutate_tuple(self, value: tuple, shape: _Shape, depth: int) -> tuple[tuple, str] | None:
        if shape.items and len(shape.items) == len(value):
            idx = [i for i, v in enumerate(value) if v is not None]
            if not idx:
                return None
            i = self.rng.choice(idx)
            result = self.mutate(value[i], shape.items[i], depth + 1, top=False)
            if result is None:
                return None
            out = list(value)
            out[i] = result[0]
            return tuple(out), result[1]
        result = self.mutate_list(list(value), shape, depth, top=depth == 0)
        return (tuple(result[0]), result[1].replace("list_", "tuple_")) if result else None

    def mutate_dict(self, value: dict, shape: _Shape, depth: int) -> tuple[dict, str] | None:
        rng, pos = self.rng, self.pos
        ops = []
        if value:
            ops += ["value", "value", "delete"]
        if shape.key is not None and shape.elem is not None:
            ops += ["insert"]
        if not ops:
            return None
        op = rng.choice(ops)
        out = copy.deepcopy(value)
        keys = list(out)
        if op == "value":
            k = rng.choice(keys)
            sub = shape.elem or _infer([out[k]])
            result = self.mutate(out[k], sub, depth + 1, top=False)
            if result is None:
                return None
            out[k] = result[0]
            return out, result[1]
        if op == "delete":
            del out[rng.choice(keys)]
            return out, "mutation:dict_delete"
        if keys and rng.random() < 0.5:
            sub = self.mutate(rng.choice(keys), shape.key, depth + 1, top=False)
            k = sub[0] if sub else None
        else:
            k = pos.gen(shape.key, rng, None, depth + 1)
        if k is None or isinstance(k, (list, dict, set)) or k in out:
            return None
        out[k] = pos.gen(shape.elem, rng, None, depth + 1)
        return out, "mutation:dict_insert"

    def mutate_set(self, value: set, shape: _Shape, depth: int) -> tuple[set, str] | None:
        rng, pos = self.rng, self.pos
        items = _sorted_values(value)
        if items and (shape.elem is None or rng.random() < 0.4):
            items.pop(rng.randrange(len(items)))
            out, label = set(items), "mutation:set_remove"
        elif shape.elem is not None:
            out = set(items)
            out.add(pos.gen(shape.elem, rng, None, depth + 1))
            label = "mutation:set_add"
        else:
            return None
        out = frozenset(out) if isinstance(value, frozenset) else out
        return out, label

    def mutate_tree(self, value: list[Any]) -> tuple[list[Any], str] | None:
        pos, rng = self.pos, self.rng
        leaf = pos.shape.elem
        lo, hi = pos.num_range(leaf, scalar=False) if leaf is not None and leaf.kind in ("int", "float") else (0, 100)

        def make_value(old: Any = None) -> Any:
            if leaf is None or leaf.kind not in ("int", "float"):
                return copy.deepcopy(old) if old is not None else pos.gen_leaf(leaf, rng) if leaf else 0
            if old is not None and rng.random() < 0.5 and isinstance(old, int):
                return pos.clamp(old + rng.choice((-1, 1)))
            return pos.gen_leaf(leaf, rng)

        return _tree_mutation(value, rng, make_value, min_nodes=max(1, pos.size_lo or 1), max_nodes=pos.size_hi,
                              bst_range=(lo, hi) if pos.bst else None)


# --- the generator -----------------------------------------------------------------------------


_SCALARS = (int, float, str, bool, type(None))


def _canon(value: Any, depth: int = 0) -> str:
    """repr, with sets and dicts in a fixed order (equal values give equal keys)."""
    if depth > _MAX_DEPTH:
        return repr(value)
    if type(value) is list and all(type(v) in _SCALARS for v in value):
        return repr(value)
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}({sorted(_canon(v, depth + 1) for v in value)})"
    if isinstance(value, dict):
        return "{" + ", ".join(sorted(f"{_canon(k, depth + 1)}: {_canon(v, depth + 1)}" for k, v in value.items())) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_canon(v, depth + 1) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


def _leaf_cost(leaf: _Shape | None) -> int:
    """Leaves one generated element of ``leaf`` is worth (a string: its usual length)."""
    if leaf is None or not leaf.samples:
        return 1
    sizes = [_size(v) for v in leaf.samples]
    return max(1, round(sum(sizes) / len(sizes)))


class _Generator:
    def __init__(self, examples, n: int, seed: int, statement: str, param_names: list[str] | None):
        self.rng = random.Random(seed)
        self.n = n
        self.statement = statement or ""
        self.examples = self._clean(examples)
        self.seen: set[str] = {self._key(a, k) for a, k in self.examples}
        self.largest = max((sum(_size(v) for v in a) + sum(_size(v) for v in k.values()) for a, k in self.examples), default=0)
        sig = Counter((len(a), tuple(sorted(k))) for a, k in self.examples)
        self.templates: list[tuple[tuple, dict]] = []
        self.positions: list[_Position] = []
        if not sig:
            return
        (n_pos, kw_keys), _ = max(sig.items(), key=lambda item: (item[1], -item[0][0]))
        self.templates = [(a, k) for a, k in self.examples if len(a) == n_pos and tuple(sorted(k)) == kw_keys]
        first_kw = list(self.templates[0][1])
        bounds = parse_constraints(self.statement)
        names = list(param_names or [])
        keys: list[int | str] = list(range(n_pos)) + first_kw
        for key in keys:
            name = (names[key] if key < len(names) else None) if isinstance(key, int) else key
            values = [self._get(t, key) for t in self.templates]
            self.positions.append(_Position(key, name, values, bounds, self.statement))
        self._relations()

    @staticmethod
    def _clean(examples) -> list[tuple[tuple, dict]]:
        out = []
        for ex in examples or []:
            try:
                args, kwargs = ex
                args = tuple(args) if isinstance(args, (list, tuple)) else (args,)
                kwargs = dict(kwargs or {})
            except (TypeError, ValueError):
                continue
            out.append((args, kwargs))
        return out

    @staticmethod
    def _get(example: tuple[tuple, dict], key: int | str) -> Any:
        return example[0][key] if isinstance(key, int) else example[1][key]

    def _key(self, args: tuple, kwargs: dict) -> str:
        return _canon((tuple(args), kwargs))

    def _relations(self) -> None:
        """Length equalities and int-vs-length relations every example shares."""
        self.equal_len: list[list[int]] = []
        self.int_is_len: list[tuple[int, int, int]] = []  # (int position, container position, depth 0 / 1)
        self.int_le_len: list[tuple[int, int, int]] = []  # (int position, container position, slack 0 / 1)
        pos, tpl = self.positions, self.templates
        sized = [i for i, p in enumerate(pos) if p.shape.kind in ("str", "list") and not p.tree]
        strong = len(tpl) >= 2
        group_of: dict[int, list[int]] = {}
        for a_i, a in enumerate(sized):
            for b in sized[a_i + 1:]:
                lens = [(len(pos[a].values[t]), len(pos[b].values[t])) for t in range(len(tpl))
                        if pos[a].values[t] is not None and pos[b].values[t] is not None]
                if lens and all(x == y for x, y in lens) and (strong or lens[0][0] > 1):
                    group = group_of.get(a) or group_of.get(b)
                    if group is None:
                        group = [a]
                        self.equal_len.append(group)
                    for x in (a, b):
                        if x not in group:
                            group.append(x)
                        group_of[x] = group
        ints = [i for i, p in enumerate(pos) if p.shape.kind == "int"]
        for i in ints:
            for c in sized:
                pairs = [(pos[i].values[t], pos[c].values[t]) for t in range(len(tpl))]
                if any(v is None or s is None for v, s in pairs):
                    continue
                if all(v == len(s) for v, s in pairs) and (strong or len(pairs[0][1]) > 1):
                    self.int_is_len.append((i, c, 0))
                elif pos[c].shape.rect and all(s and v == len(s[0]) for v, s in pairs) and (strong or len(pairs[0][1]) > 1):
                    self.int_is_len.append((i, c, 1))
                elif all(v < len(s) for v, s in pairs):
                    self.int_le_len.append((i, c, 1))
                elif all(v <= len(s) for v, s in pairs):
                    self.int_le_len.append((i, c, 0))

    def _apply_relations(self, values: list[Any], changed: set[int]) -> list[Any] | None:
        rng, pos = self.rng, self.positions
        for group in self.equal_len:
            leader = next((g for g in group if g in changed), None)
            if leader is None:
                continue
            target = len(values[leader])
            for g in group:
                if g == leader or values[g] is None:
                    continue
                values[g] = self._resize(g, values[g], target)
                if values[g] is None:
                    return None
                changed.add(g)
        for i, c, depth in self.int_is_len:
            container = values[c]
            if depth == 0:
                values[i] = len(container)
            elif container:
                values[i] = len(container[0])
            changed.add(i)
        for i, c, slack in self.int_le_len:
            limit = len(values[c]) - slack
            if values[i] > limit:
                low = pos[i].val_lo if pos[i].val_lo is not None else pos[i].shape.lo
                if low is not None and limit < low:
                    return None
                values[i] = limit if low is None or rng.random() < 0.5 else rng.randint(math.ceil(low), limit)
        return values

    def _resize(self, g: int, value: Any, target: int) -> Any:
        p = self.positions[g]
        if isinstance(value, str):
            chars = p.chars or p.shape.chars or _DEFAULT_CHARS
            return value[:target] + "".join(self.rng.choice(chars) for _ in range(max(0, target - len(value))))
        if isinstance(value, list):
            out = value[:target]
            while len(out) < target:
                if p.shape.elem is None:
                    return None
                if p.shape.rect and out:
                    out.append(p.gen(p.shape.elem, self.rng, len(out[0]), 1))
                else:
                    out.append(p.element(p.shape.elem, self.rng, 0))
            return p.fix(out, self.rng)
        return value

    # candidates -------------------------------------------------------------------------------

    def _finish(self, values: list[Any], changed: set[int], label: str) -> tuple[tuple, dict, str] | None:
        for i in changed:
            values[i] = self.positions[i].fix(values[i], self.rng)
        values = self._apply_relations(values, changed)
        if values is None:
            return None
        if any(not p.valid(v) for p, v in zip(self.positions, values)):
            return None
        limit = MAX_TOTAL_ELEMENTS if label.startswith("scale:") else max(MAX_TOTAL_ELEMENTS, self.largest + 8)
        if sum(_size(v) for v in values) > limit:
            return None
        args = tuple(v for p, v in zip(self.positions, values) if isinstance(p.key, int))
        kwargs = {p.key: v for p, v in zip(self.positions, values) if isinstance(p.key, str)}
        key = self._key(args, kwargs)
        if key in self.seen:
            return None
        self.seen.add(key)
        return args, kwargs, label

    def _base(self, pool: list[tuple[tuple, dict]] | None = None) -> list[Any]:
        t = self.rng.choice(pool or self.templates)
        return [copy.deepcopy(self._get(t, p.key)) for p in self.positions]

    def mutation(self, pool: list[tuple[tuple, dict]]) -> tuple[tuple, dict, str] | None:
        rng = self.rng
        values = self._base(pool if pool and rng.random() < 0.3 else None)
        mutable = [i for i, v in enumerate(values) if v is not None and self.positions[i].shape.kind not in ("other", "none")]
        if not mutable:
            return None
        count = 2 if len(mutable) > 1 and rng.random() < 0.2 else 1
        labels, changed = [], set()
        for i in rng.sample(mutable, count):
            p = self.positions[i]
            shape = p.shape if p.shape.kind != "mixed" else _infer([values[i]])
            result = _Mutator(p, rng).mutate(values[i], shape)
            if result is None:
                continue
            values[i] = result[0]
            labels.append(result[1])
            changed.add(i)
        if not labels:
            return None
        return self._finish(values, changed, labels[0])

    def _budget(self) -> int:
        containers = sum(1 for p in self.positions if p.shape.kind in ("list", "str", "dict", "set", "tuple"))
        return max(1, MAX_TOTAL_ELEMENTS // max(1, containers))

    def _target_size(self, p: _Position, shape: _Shape, top: bool = True) -> tuple[int, int]:
        lo, hi = p.size_range(shape, top)
        observed = shape.len_hi if top else (shape.elem.len_hi if shape.elem else 1)
        if (p.size_hi if top else p.inner_hi) is None:
            hi = min(hi, max(20, 4 * observed))
        return lo, min(hi, MAX_SCALED_SIZE)

    def scaled(self) -> tuple[tuple, dict, str] | None:
        rng = self.rng
        values = self._base()
        budget = self._budget()
        changed, labels = set(), []
        for i, p in enumerate(self.positions):
            shape = p.shape
            if values[i] is None and not p.values:
                continue
            kind = shape.kind
            try:
                if p.tree:
                    lo, hi = self._target_size(p, shape)
                    if p.size_hi is None:
                        hi = min(hi, max(20, 4 * len(_nodes(_decode_tree(values[i] or [])))))
                    size = rng.randint(max(lo, 1, (hi + 1) // 4), max(lo, 1, min(hi, budget)))
                    leaf = shape.elem if shape.elem is not None and shape.elem.kind != "none" else _Shape("int", lo=0, hi=100)
                    root = _random_tree(size, rng, lambda: p.gen_leaf(leaf, rng))
                    if p.bst:
                        nlo, nhi = p.num_range(leaf, scalar=False)
                        if not _relabel_bst(root, rng, nlo, nhi):
                            continue
                    values[i] = _encode_tree(root)
                    labels.append("scale:tree_size")
                elif kind in ("list", "str", "dict", "set") or (kind == "tuple" and not shape.items):
                    lo, hi = self._target_size(p, shape)
                    if shape.fixed_len is not None and p._fixed_len_kept():
                        lo = hi = shape.fixed_len
                    if shape.rect and shape.elem is not None and shape.elem.kind == "list":
                        ilo, ihi = self._target_size(p, shape.elem, top=False)
                        if shape.fixed_width is not None:
                            ilo = ihi = shape.fixed_width
                        cell = _leaf_cost(shape.elem.elem)
                        if shape.square:
                            side_hi = min(hi, ihi, math.isqrt(budget // cell))
                            side = rng.randint(max(lo, ilo, (side_hi + 1) // 2), max(lo, ilo, side_hi))
                            rows, width = side, side
                        else:
                            width = rng.randint(max(ilo, (ihi + 1) // 2, 1), max(ilo, ihi, 1)) if shape.fixed_width is None else shape.fixed_width
                            rows_hi = min(hi, max(1, budget // (max(1, width) * cell)))
                            rows = rng.randint(max(lo, (rows_hi + 1) // 2), max(lo, rows_hi))
                        if rows * max(1, width) * cell > budget + 10:
                            continue
                        values[i] = p.gen(shape, rng, rows, width=width)
                        labels.append("scale:grid_size")
                    elif kind == "list" and shape.elem is not None and shape.elem.kind == "str":
                        ilo, ihi = self._target_size(p, shape.elem, top=False)
                        fixed = shape.elem.fixed_len
                        width = fixed if fixed is not None else rng.randint(max(ilo, 1), max(ilo, 1, min(ihi, 50)))
                        rows_hi = min(hi, max(1, budget // max(1, width)))
                        rows = rng.randint(max(lo, (rows_hi + 1) // 2), max(lo, rows_hi))
                        if fixed is None:
                            values[i] = [p.gen(shape.elem, rng, rng.randint(max(ilo, 1), width)) for _ in range(rows)]
                        else:
                            values[i] = p.gen(shape, rng, rows, width=width)
                        labels.append("scale:list_size")
                    else:
                        hi = min(hi, budget)
                        size = rng.randint(max(lo, (hi + 1) // 4), max(lo, hi))
                        if kind == "list" and shape.elem is not None and shape.elem.kind in ("list", "tuple", "dict"):
                            per = max(1, _size(shape.elem.samples[0]) if shape.elem.samples else 1)
                            size = min(size, max(lo, budget // per))
                        values[i] = p.gen(shape, rng, size)
                        labels.append("scale:str_size" if kind == "str" else f"scale:{kind}_size")
                elif kind in ("int", "float") and rng.random() < 0.5:
                    values[i] = p.gen_leaf(shape, rng, scalar=True)
                    labels.append("scale:value_range")
                else:
                    continue
            except (ValueError, TypeError, IndexError, RecursionError):
                continue
            changed.add(i)
        if not labels:
            return None
        label = next((lbl for lbl in labels if lbl != "scale:value_range"), labels[0])
        return self._finish(values, changed, label)

    def boundaries(self) -> list[tuple[list[Any], set[int], str]]:
        """Deterministic boundary candidates: each position at its smallest size / extreme values."""
        out: list[tuple[list[Any], set[int], str]] = []
        for i, p in enumerate(self.positions):
            for t in self.templates:
                self._boundaries_at(i, p, [copy.deepcopy(self._get(t, q.key)) for q in self.positions], out)
        return out

    def _boundaries_at(self, i: int, p: _Position, base: list[Any], out: list[tuple[list[Any], set[int], str]]) -> None:
        """Boundary candidates of position ``i`` made from one example."""
        shape, kind = p.shape, p.shape.kind
        if base[i] is None or kind == "bool":
            return

        def put(value: Any, label: str) -> None:
            vals = list(base)
            vals[i] = value
            out.append((vals, {i}, label))

        if kind in ("int", "float"):
            lo, hi = p.num_range(shape, scalar=True)
            for value, tag in ((p.val_lo, "lo"), (p.val_hi, "hi"), (lo, "lo"), (hi, "hi")):
                if value is not None:
                    put((math.ceil(value) if tag == "lo" else math.floor(value)) if kind == "int" else float(value), f"boundary:{kind}_{tag}")
            return
        if p.tree:
            leaf = shape.elem if shape.elem is not None and shape.elem.kind in ("int", "float") else None
            if leaf is not None:
                lo, hi = p.num_range(leaf, scalar=False)
                for v, tag in ((lo, "lo"), (hi, "hi")):
                    put([v], f"boundary:tree_single_{tag}")
                    if not p.bst:
                        put([v if x is not None else None for x in base[i]], f"boundary:value_{tag}")
            if p.size_lo == 0:
                put([], "boundary:min_size")
            return
        if kind in ("list", "str") and not (shape.fixed_len is not None and p._fixed_len_kept()):
            smallest = p.size_lo if p.size_lo is not None else (0 if shape.len_lo == 0 else 1)
            if len(base[i]) > smallest:
                put(base[i][:smallest], "boundary:min_size")
        if kind == "str" and base[i]:
            put(base[i][0] * len(base[i]), "boundary:str_repeat")
        if kind == "list" and base[i]:
            leaf = shape.elem
            deep = leaf is not None and leaf.kind == "list" and leaf.elem is not None and leaf.elem.kind in ("int", "float")
            if deep:
                leaf = leaf.elem
            if leaf is None or leaf.kind not in ("int", "float") or leaf.nullable:
                return
            lo, hi = p.num_range(leaf, scalar=False)
            if leaf.kind == "float":
                lo, hi = float(lo), float(hi)
            rng = self.rng
            for tag, pick in (("lo", lambda: lo), ("hi", lambda: hi), ("mixed", lambda: rng.choice((lo, hi)))):
                put([[pick() for _ in row] for row in base[i]] if deep else [pick() for _ in base[i]], f"boundary:value_{tag}")

    # driver -------------------------------------------------------------------------------

    def run(self) -> list[tuple[tuple, dict, str]]:
        if self.n <= 0 or not self.positions and not self.templates:
            return []
        n_bnd = self.n // 4
        n_scale = self.n // 4
        bnd: list[tuple[tuple, dict, str]] = []
        candidates = self.boundaries()
        self.rng.shuffle(candidates)
        for values, changed, label in candidates:
            if len(bnd) >= n_bnd:
                break
            got = self._safe(lambda v=values, c=changed, lbl=label: self._finish(v, set(c), lbl))
            if got:
                bnd.append(got)
        scl: list[tuple[tuple, dict, str]] = []
        for _ in range(8 * max(1, n_scale)):
            if len(scl) >= n_scale:
                break
            got = self._safe(self.scaled)
            if got:
                scl.append(got)
        mut: list[tuple[tuple, dict, str]] = []
        need = self.n - len(bnd) - len(scl)
        pool: list[tuple[tuple, dict]] = []
        for _ in range(30 * max(1, need)):
            if len(mut) >= need:
                break
            got = self._safe(lambda: self.mutation(pool))
            if got:
                mut.append(got)
                pool.append((got[0], got[1]))
        return _interleave(mut, bnd, scl)[: self.n]

    @staticmethod
    def _safe(make):
        try:
            return make()
        except Exception:  # noqa: BLE001 - contract: odd inputs (huge ints, odd nesting, unhashables) skip one candidate, never raise
            return None


def _interleave(mut: list, bnd: list, scl: list) -> list:
    """Mutations, boundaries and scaled inputs mixed 2:1:1, so a prefix has all kinds."""
    out, lists, pattern = [], [mut, bnd, scl], [0, 0, 1, 2]
    idx = [0, 0, 0]
    while any(idx[k] < len(lists[k]) for k in range(3)):
        for k in pattern:
            if idx[k] < len(lists[k]):
                out.append(lists[k][idx[k]])
                idx[k] += 1
    return out


def mutate_args(examples: list[tuple[tuple, dict]], *, n: int, seed: int = 0, statement: str = "",
                param_names: list[str] | None = None) -> list[tuple[tuple, dict, str]]:
    """Up to ``n`` new inputs ``(args, kwargs, label)`` made from the example inputs.

    ``examples`` are ``(positional args, keyword args)`` of plain Python values; ``param_names``
    the function's parameter names in order (keyword args are named by their keys), used with the
    statement's constraints. About half are mutations of examples (``mutation:int_delta``,
    ``mutation:list_insert``, ``mutation:str_swap``, ``mutation:tree_add_leaf``, ...), a quarter
    inputs at the bounds (``boundary:min_size``, ``boundary:value_hi``, ...) and a quarter larger
    inputs (``scale:list_size``, ``scale:grid_size``, ``scale:value_range``, ...). None equals an
    example or another (compared by repr, sets and dicts order-free). Deterministic for a seed;
    never raises (what cannot be mutated is skipped, so fewer than ``n`` may come back).
    """
    try:
        return _Generator(examples, int(n), seed, statement if isinstance(statement, str) else "", param_names).run()
    except Exception:  # noqa: BLE001 - contract: never raise on odd example values; no inputs is the safe answer
        return []
