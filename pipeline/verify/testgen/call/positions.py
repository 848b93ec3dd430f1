"""One argument of a call: its bounds, and how new values for it are made and checked.

A :class:`Position` joins what the examples show (their :class:`~.shapes.Shape`) with the
bounds :mod:`constraints.bounds` reads from the statement: sizes, row sizes, values, the alphabet of
strings. Bounds that an example breaks are taken for misreadings and ignored. It also tells a
LeetCode tree list (parameter ``root``, or a statement about a binary tree and a list with None)
and a binary search tree. New numbers come from the bound, else from the observed range widened;
:meth:`Position.fix` and :meth:`Position.valid` keep a new value of the examples' type and inside
the bounds, since references are only right on valid inputs.
"""

from __future__ import annotations

import copy
import math
import random
import re
from typing import Any

from pipeline.verify.testgen.call.shapes import MAX_DEPTH, Number, Shape, conforms, leaf_numbers, restore
from pipeline.verify.testgen.call.trees import decode_tree, encode_tree, is_bst, tree_nodes
from pipeline.verify.testgen.constraints.bounds import Bound, alphabet, size_bound, value_bound
from pipeline.verify.testgen.constraints.words import says

DEFAULT_CHARS = "abcdefghijklmnopqrstuvwxyz"


def _fits(value: Number, lo: Number | None, hi: Number | None) -> bool:
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _all_fit(sizes: list[int], b: Bound | None) -> bool:
    """A stated bound that every observed size keeps (one that an example breaks is a misreading)."""
    return b is not None and bool(sizes) and all(_fits(s, b.lo, b.hi) for s in sizes)


def _size_limits(b: Bound) -> tuple[int | None, int | None]:
    """A size bound as whole, non-negative sizes."""
    return (None if b.lo is None else max(0, math.ceil(b.lo))), (None if b.hi is None else math.floor(b.hi))


def _elem_kind_in(shape: Shape, kinds: tuple[str, ...]) -> bool:
    return shape.elem is not None and shape.elem.kind in kinds


def _tree_lists(name: str | None, lists: list[Any], lower: str) -> bool:
    """LeetCode tree lists: parameter ``root``/``tree``, or a binary tree statement and a None in a list;
    never a list that starts with None, and not only empty lists."""
    named_tree = bool(name and re.fullmatch(r"(?i)root\d*|tree\d*", name))
    noneful = any(v is None for lst in lists for v in lst)
    return bool((named_tree or (says(lower, "binary_tree") and noneful)) and all(not lst or lst[0] is not None for lst in lists)
                and any(lists))


def _bst_lists(lists: list[Any], lower: str) -> bool:
    """A binary search tree: the statement says so and every example with more than one node is one."""
    return bool(says(lower, "binary_search_tree") and all(is_bst(v) for v in lists if len(v) > 1)
                and any(len(v) > 1 for v in lists))


class Position:
    """How to make new values for one argument: its shape, bounds and generators."""

    def __init__(self, key: int | str, name: str | None, values: list[Any], shape: Shape, bounds: list[Bound],
                 statement: str):
        self.key, self.name, self.values, self.shape = key, name, values, shape
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
        if shape.kind == "list" and _elem_kind_in(shape, ("int", "float", "none", "str")) and _tree_lists(name, present, lower):
            self.tree = True
            self.bst = _bst_lists(present, lower)
        if not name:
            return
        self._size_bounds(bounds, name, present)
        self._value_bounds(bounds, name, present)
        self._alphabet(statement, name)

    def _size_bounds(self, bounds: list[Bound], name: str, present: list[Any]) -> None:
        """Sizes of the value (nodes of a tree) and of its rows or strings."""
        sizes = [len(v) if not self.tree else len(tree_nodes(decode_tree(v))) for v in present
                 if isinstance(v, (str, list, tuple, dict, set))]
        b = size_bound(bounds, name)
        if _all_fit(sizes, b):
            self.size_lo, self.size_hi = _size_limits(b)
        if self.shape.kind == "list" and _elem_kind_in(self.shape, ("list", "str")):
            inner = [len(r) for v in present for r in v if isinstance(r, (list, str))]
            b = size_bound(bounds, name, 1)
            if _all_fit(inner, b):
                self.inner_lo, self.inner_hi = _size_limits(b)

    def _value_bounds(self, bounds: list[Bound], name: str, present: list[Any]) -> None:
        """Bounds on the numbers inside the value (NaN aside); an empty range is dropped."""
        numbers = [x for v in present for x in leaf_numbers(v)]
        b = value_bound(bounds, name)
        if b is not None and numbers and all(_fits(x, b.lo, b.hi) for x in numbers if not math.isnan(x)):
            self.val_lo, self.val_hi = b.lo, b.hi
        if self.val_lo is not None and self.val_hi is not None and self.val_lo > self.val_hi:
            self.val_lo = self.val_hi = None

    def _alphabet(self, statement: str, name: str) -> None:
        """The statement's alphabet when it holds every character seen, else the characters seen."""
        shape = self.shape
        elem_str = _elem_kind_in(shape, ("str",))
        text_chars = alphabet(statement, name) if shape.kind == "str" or elem_str else None
        seen = shape.chars if shape.kind == "str" else (shape.elem.chars if elem_str else "")
        self.chars = text_chars if text_chars and set(seen) <= set(text_chars) else seen

    # value ranges --------------------------------------------------------------------------

    def num_range(self, leaf: Shape, scalar: bool) -> tuple[Number, Number]:
        """Where new numbers of this leaf come from: the bound, else the observed range doubled."""
        key = (leaf.kind, leaf.lo, leaf.hi, scalar, tuple(leaf.categories))
        if key not in self._ranges:
            self._ranges[key] = self._num_range(leaf, scalar)
        return self._ranges[key]

    def categorical(self, leaf: Shape) -> bool:
        """Few values seen and no stated range: new values are drawn from those seen."""
        return bool(leaf.categories) and self.val_lo is None and self.val_hi is None

    def _num_range(self, leaf: Shape, scalar: bool) -> tuple[Number, Number]:
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

    def size_range(self, shape: Shape, top: bool) -> tuple[int, int]:
        """Allowed sizes of a (top-level or row) container or string."""
        lo, hi = (self.size_lo, self.size_hi) if top else (self.inner_lo, self.inner_hi)
        return (0 if lo is None else lo), (10**9 if hi is None else hi)

    # generation ----------------------------------------------------------------------------

    def gen_leaf(self, leaf: Shape, rng: random.Random, scalar: bool = False, old: Any = None) -> Any:
        kind = leaf.kind
        if kind == "bool":
            return rng.random() < 0.5
        if kind == "int" and self.categorical(leaf):
            return rng.choice(leaf.categories)
        if kind == "int" or (kind == "float" and leaf.int_too and rng.random() < 0.3):
            lo, hi = self.num_range(Shape("int", lo=leaf.lo, hi=leaf.hi) if kind == "float" else leaf, scalar)
            return rng.randint(int(lo), int(hi))
        if kind == "float":
            lo, hi = self.num_range(leaf, scalar)
            return self.clamp(round(rng.uniform(lo, hi), max(1, leaf.decimals)))
        if kind == "str":
            chars = self.chars or leaf.chars or DEFAULT_CHARS
            n = leaf.fixed_len if leaf.fixed_len is not None else rng.randint(max(0, leaf.len_lo), max(leaf.len_lo, leaf.len_hi, 1))
            return "".join(rng.choice(chars) for _ in range(n))
        if kind == "none":
            return None
        return self.gen(leaf, rng, None, depth=1)

    def gen(self, shape: Shape, rng: random.Random, length: int | None, depth: int = 0, width: int | None = None) -> Any:
        """A new value of ``shape``; ``length`` for the top container (else like the observed ones)."""
        if depth > MAX_DEPTH:
            raise ValueError("too deep")
        kind = shape.kind
        if kind in ("mixed", "other"):
            return copy.deepcopy(rng.choice(shape.samples)) if shape.samples else None
        if kind in ("bool", "int", "float", "str", "none"):
            return self._gen_scalar(shape, rng, length, depth)
        if length is None:
            length = shape.fixed_len if shape.fixed_len is not None else rng.randint(shape.len_lo, max(shape.len_lo, shape.len_hi, 1))
        if kind == "tuple" and shape.items:
            return tuple(self.gen(item, rng, None, depth + 1) for item in shape.items)
        if kind == "dict":
            return self._gen_dict(shape, rng, length, depth)
        elem = shape.elem
        if elem is None:
            return [] if kind == "list" else (set() if kind == "set" else ())
        if kind == "set":
            return self._gen_set(shape, elem, rng, length, depth)
        rows = self._gen_rows(shape, elem, rng, length, depth, width)
        return rows if kind == "list" else tuple(rows)

    def _gen_scalar(self, shape: Shape, rng: random.Random, length: int | None, depth: int) -> Any:
        """A leaf value; a string of ``length`` characters when one is asked for."""
        if shape.kind == "str" and length is not None:
            chars = self.chars or shape.chars or DEFAULT_CHARS
            return "".join(rng.choice(chars) for _ in range(length))
        return self.gen_leaf(shape, rng, scalar=depth == 0)

    def _gen_dict(self, shape: Shape, rng: random.Random, length: int, depth: int) -> dict[Any, Any]:
        """Up to ``length`` entries (a few tries, since keys repeat); stops at an unhashable key."""
        out: dict[Any, Any] = {}
        for _ in range(length * 3):
            if len(out) >= length or shape.key is None or shape.elem is None:
                break
            k = self.gen(shape.key, rng, None, depth + 1)
            if isinstance(k, (list, dict, set)):
                break
            out[k] = self.gen(shape.elem, rng, None, depth + 1)
        return out

    def _gen_set(self, shape: Shape, elem: Shape, rng: random.Random, length: int, depth: int) -> set[Any] | frozenset[Any]:
        """Up to ``length`` elements (a few tries, since they repeat), frozen where the examples are."""
        out_set: set[Any] = set()
        for _ in range(length * 3):
            if len(out_set) >= length:
                break
            out_set.add(self.gen(elem, rng, None, depth + 1))
        return frozenset(out_set) if shape.samples and isinstance(shape.samples[0], frozenset) else out_set

    def _gen_rows(self, shape: Shape, elem: Shape, rng: random.Random, length: int, depth: int,
                  width: int | None) -> list[Any]:
        """``length`` elements: rows of one width for a rectangular grid, strings of ``width`` at the top."""
        if shape.rect and elem.kind == "list":
            w = self._row_width(shape, elem, rng, length, width)
            return [self.gen(elem, rng, w, depth + 1) for _ in range(length)]
        if elem.kind == "str" and depth == 0 and width is not None:
            return [self.gen(elem, rng, width, depth + 1) for _ in range(length)]
        return [self.element(elem, rng, depth) for _ in range(length)]

    @staticmethod
    def _row_width(shape: Shape, elem: Shape, rng: random.Random, length: int, width: int | None) -> int:
        """The asked width, else the examples' fixed one, else square, else drawn from the rows seen."""
        if width is not None:
            return width
        if shape.fixed_width is not None:
            return shape.fixed_width
        return length if shape.square else rng.randint(max(1, elem.len_lo), max(1, elem.len_hi))

    def element(self, elem: Shape, rng: random.Random, depth: int) -> Any:
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
        return restore(value, self.shape, rng, 0)

    def _clamp_deep(self, value: Any, depth: int) -> Any:
        if self.val_lo is None and self.val_hi is None:
            return value
        if depth > MAX_DEPTH or isinstance(value, bool):
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
        if not conforms(value, self.shape, 0):
            return False
        if any(not _fits(x, self.val_lo, self.val_hi) for x in leaf_numbers(value) if not math.isnan(x)):
            return False
        return self._sizes_ok(value) and self._tree_ok(value) and self._grid_ok(value) and self._fixed_len_ok(value)

    def _sizes_ok(self, value: Any) -> bool:
        """The value's size (nodes of a tree) and its rows' sizes within their bounds."""
        if not isinstance(value, (str, list, tuple, dict, set)):
            return True
        n = len(tree_nodes(decode_tree(value))) if self.tree else len(value)
        if not _fits(n, self.size_lo, self.size_hi):
            return False
        if self.shape.kind == "list" and (self.inner_lo is not None or self.inner_hi is not None):
            return all(_fits(len(r), self.inner_lo, self.inner_hi) for r in value if isinstance(r, (list, str)))
        return True

    def _tree_ok(self, value: Any) -> bool:
        """A tree list is one in canonical LeetCode form (and a search tree where the examples are)."""
        if not (self.tree and isinstance(value, list) and value):
            return True
        if value[0] is None or value != encode_tree(decode_tree(value)):
            return False
        return not (self.bst and len(value) > 1 and not is_bst(value))

    def _grid_ok(self, value: Any) -> bool:
        """Rectangular grids stay rectangular, of the examples' fixed width, square where they are."""
        shape = self.shape
        if not (shape.kind == "list" and shape.rect and isinstance(value, list) and value):
            return True
        widths = {len(r) for r in value}
        if len(widths) != 1:
            return False
        if shape.fixed_width is not None and widths != {shape.fixed_width}:
            return False
        return not (shape.square and len(value) != len(value[0]))

    def _fixed_len_ok(self, value: Any) -> bool:
        shape = self.shape
        return not (shape.fixed_len is not None and shape.kind in ("str", "list") and self.fixed_len_kept()
                    and len(value) != shape.fixed_len)

    def fixed_len_kept(self) -> bool:
        """Whether equal lengths in the examples look like a rule (no size range stated that allows others)."""
        if self.size_lo is not None and self.size_hi is not None and self.size_lo < self.size_hi:
            return False
        return len(self.values) >= 2
