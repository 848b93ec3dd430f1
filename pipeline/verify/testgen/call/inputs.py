"""New inputs for call tests: type-aware mutation of the examples, after EvalPlus.

:func:`mutate_args` grows a problem's example calls as EvalPlus grows its seed inputs, by
mutation (:mod:`.mutation`), and adds two kinds EvalPlus gets from its LLM seeds: inputs at
the statement's bounds (smallest size, values at ``lo`` and ``hi``) and larger inputs scaled
toward the stated sizes (at most 1000 elements or characters per argument, 10,000 per input).
Expected outputs come from running reference solutions elsewhere; inputs a reference rejects are
dropped there.

Every input keeps each argument's type and respects the bounds :mod:`constraints.bounds` reads from the
statement (:mod:`.positions`), keeps the order properties every example shares
(:mod:`.shapes`), and keeps the relations between arguments every example shares: equal
lengths of two arguments; an int argument equal to, or at most, another argument's length.
LeetCode's list encodings are kept valid: a binary tree list stays a tree (:mod:`.trees`); a
linked list is a plain list. The modules import in one direction: shapes, trees,
positions, mutation, inputs.
"""

from __future__ import annotations

import copy
import itertools
import math
import random
from typing import Any, Callable

from pipeline.verify.testgen.call.mutation import Mutator
from pipeline.verify.testgen.call.positions import DEFAULT_CHARS, Position
from pipeline.verify.testgen.call.profile import CallProfile, argument
from pipeline.verify.testgen.call.shapes import MAX_DEPTH, Shape, infer
from pipeline.verify.testgen.call.trees import decode_tree, encode_tree, inorder_nodes, random_tree, relabel_bst, tree_nodes, tree_shapes

__all__ = ["mutate_args"]

MAX_SCALED_SIZE = 1000  # elements of one list, characters of one string
MAX_TOTAL_ELEMENTS = 10_000  # leaves (characters included) of one input
# a slow-program input's largest list or string (and its leaves in all): a quadratic program takes
# some 10^8 steps on it, past a second in Python, where the references' linear ones take milliseconds;
# larger ones cost every released row and every reward more text than they add
MAX_SLOW_SIZE = 20_000
SLOW_ARRANGEMENTS = ("equal", "ascending", "descending")
SMALL_LENGTHS = 3  # small exhaustive: lists and strings of the least allowed length and the next two
SMALL_SYMBOLS = 3  # ... over this many values or characters
SMALL_VALUES = 40  # ... at most this many values of one argument, the shortest first
SMALL_TREE_NODES = 5  # ... and every tree up to this many nodes (as many of them as SMALL_VALUES lets)
SMALL_PRODUCT = 64  # every combination of the arguments' small values up to this many, else one argument at a time


def _size(value: Any, depth: int = 0) -> int:
    """Leaves of a value, string characters counted."""
    if depth > MAX_DEPTH:
        return 1
    if isinstance(value, str):
        return max(1, len(value))
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(_size(v, depth + 1) for v in value) or 1
    if isinstance(value, dict):
        return sum(_size(k, depth + 1) + _size(v, depth + 1) for k, v in value.items()) or 1
    return 1


_SCALARS = (int, float, str, bool, type(None))


def _canon(value: Any, depth: int = 0) -> str:
    """repr, with sets and dicts in a fixed order (equal values give equal keys)."""
    if depth > MAX_DEPTH:
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


def _leaf_cost(leaf: Shape | None) -> int:
    """Leaves one generated element of ``leaf`` is worth (a string: its usual length)."""
    if leaf is None or not leaf.samples:
        return 1
    sizes = [_size(v) for v in leaf.samples]
    return max(1, round(sum(sizes) / len(sizes)))


_Put = Callable[[Any, str], None]  # records one boundary candidate: the position's new value, its label


def _number_boundaries(p: Position, put: _Put) -> None:
    """A number at the stated bounds and at its range's ends (ints rounded inward)."""
    shape, kind = p.shape, p.shape.kind
    lo, hi = p.num_range(shape, scalar=True)
    for value, tag in ((p.val_lo, "lo"), (p.val_hi, "hi"), (lo, "lo"), (hi, "hi")):
        if value is not None:
            put((math.ceil(value) if tag == "lo" else math.floor(value)) if kind == "int" else float(value), f"boundary:{kind}_{tag}")


def _tree_boundaries(p: Position, value: list[Any], put: _Put) -> None:
    """A one-node tree at each value bound, every node at a bound (not for a BST), the empty tree."""
    shape = p.shape
    leaf = shape.elem if shape.elem is not None and shape.elem.kind in ("int", "float") else None
    if leaf is not None:
        lo, hi = p.num_range(leaf, scalar=False)
        for v, tag in ((lo, "lo"), (hi, "hi")):
            put([v], f"boundary:tree_single_{tag}")
            if not p.bst:
                put([v if x is not None else None for x in value], f"boundary:value_{tag}")
    if p.size_lo == 0:
        put([], "boundary:min_size")


def _join_group(groups: list[list[int]], group_of: dict[int, list[int]], a: int, b: int) -> None:
    """Put positions ``a`` and ``b`` in one equal-length group, joining the group either is in."""
    group = group_of.get(a) or group_of.get(b)
    if group is None:
        group = [a]
        groups.append(group)
    for x in (a, b):
        if x not in group:
            group.append(x)
        group_of[x] = group


class _Generator:
    def __init__(self, profile: CallProfile, n: int, seed: int):
        self.rng = random.Random(seed)
        self.n = n
        self.statement = profile.statement
        self.examples = profile.examples
        self.seen: set[str] = {self._key(a, k) for a, k in self.examples}
        self.largest = max((sum(_size(v) for v in a) + sum(_size(v) for v in k.values()) for a, k in self.examples), default=0)
        self.templates = profile.templates
        self.positions: list[Position] = []
        if not self.templates:
            return
        if profile.shapes is None:
            raise ValueError("the examples' argument shapes did not read")
        names = profile.params
        for key, shape in zip(profile.keys, profile.shapes):
            name = (names[key] if key < len(names) else None) if isinstance(key, int) else key
            values = [argument(t, key) for t in self.templates]
            self.positions.append(Position(key, name, values, shape, profile.bounds, self.statement))
        self._relations()

    def _key(self, args: tuple, kwargs: dict) -> str:
        return _canon((tuple(args), kwargs))

    def _relations(self) -> None:
        """Length equalities and int-vs-length relations every example shares."""
        self.equal_len: list[list[int]] = []
        self.int_is_len: list[tuple[int, int, int]] = []  # (int position, container position, depth 0 / 1)
        self.int_le_len: list[tuple[int, int, int]] = []  # (int position, container position, slack 0 / 1)
        pos = self.positions
        sized = [i for i, p in enumerate(pos) if p.shape.kind in ("str", "list") and not p.tree]
        strong = len(self.templates) >= 2
        group_of: dict[int, list[int]] = {}
        for a_i, a in enumerate(sized):
            for b in sized[a_i + 1:]:
                if self._lengths_match(a, b, strong):
                    _join_group(self.equal_len, group_of, a, b)
        ints = [i for i, p in enumerate(pos) if p.shape.kind == "int"]
        for i in ints:
            for c in sized:
                relation = self._int_len_relation(i, c, strong)
                if relation is not None:
                    table = self.int_is_len if relation[0] == "is" else self.int_le_len
                    table.append((i, c, relation[1]))

    def _lengths_match(self, a: int, b: int, strong: bool) -> bool:
        """Positions ``a`` and ``b`` have equal lengths in every example (one example: only if longer than 1)."""
        pos = self.positions
        lens = [(len(pos[a].values[t]), len(pos[b].values[t])) for t in range(len(self.templates))
                if pos[a].values[t] is not None and pos[b].values[t] is not None]
        return bool(lens and all(x == y for x, y in lens) and (strong or lens[0][0] > 1))

    def _int_len_relation(self, i: int, c: int, strong: bool) -> tuple[str, int] | None:
        """How int position ``i`` relates to the length of container ``c`` in every example:
        ``("is", depth)`` equals it (depth 1: the first row's length), ``("le", slack)`` is at most
        the length minus ``slack``; None for no relation."""
        pos = self.positions
        pairs = [(pos[i].values[t], pos[c].values[t]) for t in range(len(self.templates))]
        if any(v is None or s is None for v, s in pairs):
            return None
        if all(v == len(s) for v, s in pairs) and (strong or len(pairs[0][1]) > 1):
            return "is", 0
        if pos[c].shape.rect and all(s and v == len(s[0]) for v, s in pairs) and (strong or len(pairs[0][1]) > 1):
            return "is", 1
        if all(v < len(s) for v, s in pairs):
            return "le", 1
        if all(v <= len(s) for v, s in pairs):
            return "le", 0
        return None

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
            chars = p.chars or p.shape.chars or DEFAULT_CHARS
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
        limit = (MAX_TOTAL_ELEMENTS if label.startswith("scale:") else 2 * MAX_SLOW_SIZE if label.startswith("slow:")
                 else max(MAX_TOTAL_ELEMENTS, self.largest + 8))
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
        return [copy.deepcopy(argument(t, p.key)) for p in self.positions]

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
            shape = p.shape if p.shape.kind != "mixed" else infer([values[i]])
            result = Mutator(p, rng).mutate(values[i], shape)
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

    def _target_size(self, p: Position, shape: Shape, top: bool = True) -> tuple[int, int]:
        lo, hi = p.size_range(shape, top)
        observed = shape.len_hi if top else (shape.elem.len_hi if shape.elem else 1)
        if (p.size_hi if top else p.inner_hi) is None:
            hi = min(hi, max(20, 4 * observed))
        return lo, min(hi, MAX_SCALED_SIZE)

    def scaled(self) -> tuple[tuple, dict, str] | None:
        values = self._base()
        budget = self._budget()
        changed, labels = set(), []
        for i, p in enumerate(self.positions):
            if values[i] is None and not p.values:
                continue
            try:
                got = self._scale_one(p, values[i], budget)
            except (ValueError, TypeError, IndexError, RecursionError):
                continue
            if got is None:
                continue
            values[i] = got[0]
            labels.append(got[1])
            changed.add(i)
        if not labels:
            return None
        label = next((lbl for lbl in labels if lbl != "scale:value_range"), labels[0])
        return self._finish(values, changed, label)

    def _scale_one(self, p: Position, value: Any, budget: int) -> tuple[Any, str] | None:
        """A larger value for position ``p`` and its label; None leaves the position as it is."""
        shape, kind = p.shape, p.shape.kind
        if p.tree:
            return self._scale_tree(p, value, budget)
        if kind in ("list", "str", "dict", "set") or (kind == "tuple" and not shape.items):
            return self._scale_container(p, budget)
        if kind in ("int", "float") and self.rng.random() < 0.5:
            return p.gen_leaf(shape, self.rng, scalar=True), "scale:value_range"
        return None

    def _scale_tree(self, p: Position, value: Any, budget: int) -> tuple[Any, str] | None:
        """A random tree of about the stated size (a BST keeps its order); None if no BST fits."""
        rng, shape = self.rng, p.shape
        lo, hi = self._target_size(p, shape)
        if p.size_hi is None:
            hi = min(hi, max(20, 4 * len(tree_nodes(decode_tree(value or [])))))
        size = rng.randint(max(lo, 1, (hi + 1) // 4), max(lo, 1, min(hi, budget)))
        leaf = shape.elem if shape.elem is not None and shape.elem.kind != "none" else Shape("int", lo=0, hi=100)
        root = random_tree(size, rng, lambda: p.gen_leaf(leaf, rng))
        if p.bst:
            nlo, nhi = p.num_range(leaf, scalar=False)
            if not relabel_bst(root, rng, nlo, nhi):
                return None
        return encode_tree(root), "scale:tree_size"

    def _scale_container(self, p: Position, budget: int) -> tuple[Any, str] | None:
        """A larger list, string, dict, set or tuple: grids and string lists sized by rows and width."""
        rng, shape, kind = self.rng, p.shape, p.shape.kind
        lo, hi = self._target_size(p, shape)
        if shape.fixed_len is not None and p.fixed_len_kept():
            lo = hi = shape.fixed_len
        if shape.rect and shape.elem is not None and shape.elem.kind == "list":
            return self._scale_grid(p, lo, hi, budget)
        if kind == "list" and shape.elem is not None and shape.elem.kind == "str":
            return self._scale_str_list(p, lo, hi, budget)
        hi = min(hi, budget)
        size = rng.randint(max(lo, (hi + 1) // 4), max(lo, hi))
        if kind == "list" and shape.elem is not None and shape.elem.kind in ("list", "tuple", "dict"):
            per = max(1, _size(shape.elem.samples[0]) if shape.elem.samples else 1)
            size = min(size, max(lo, budget // per))
        return p.gen(shape, rng, size), ("scale:str_size" if kind == "str" else f"scale:{kind}_size")

    def _scale_grid(self, p: Position, lo: int, hi: int, budget: int) -> tuple[Any, str] | None:
        """A larger rectangular (or square) grid; None if it would pass the budget."""
        rng, shape = self.rng, p.shape
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
            return None
        return p.gen(shape, rng, rows, width=width), "scale:grid_size"

    def _scale_str_list(self, p: Position, lo: int, hi: int, budget: int) -> tuple[Any, str]:
        """A longer list of strings: fixed-length strings stay fixed, others vary up to a drawn width."""
        rng, shape = self.rng, p.shape
        ilo, ihi = self._target_size(p, shape.elem, top=False)
        fixed = shape.elem.fixed_len
        width = fixed if fixed is not None else rng.randint(max(ilo, 1), max(ilo, 1, min(ihi, 50)))
        rows_hi = min(hi, max(1, budget // max(1, width)))
        rows = rng.randint(max(lo, (rows_hi + 1) // 2), max(lo, rows_hi))
        if fixed is None:
            return [p.gen(shape.elem, rng, rng.randint(max(ilo, 1), width)) for _ in range(rows)], "scale:list_size"
        return p.gen(shape, rng, rows, width=width), "scale:list_size"

    def small(self) -> list[tuple[list[Any], set[int], str]]:
        """Small exhaustive candidates (after AutoCode): every small value of each argument whose
        bounds the statement states (an integer near the least its range allows; every list of
        integers and every string of the least allowed length and the next two, over three small
        values or characters), in every combination where there are few, else one argument at a
        time (each in turn) with the others as in each example. The smallest inputs a program can
        get wrong (ties, one item, zero); the validator still refuses what the statement rules out."""
        options = [self._small_values(p) for p in self.positions]
        enumerable = [i for i, values in enumerate(options) if values]
        if not enumerable:
            return []
        out: list[tuple[list[Any], set[int], str]] = []
        if math.prod(len(options[i]) for i in enumerable) <= SMALL_PRODUCT:
            base = [copy.deepcopy(argument(self.templates[0], p.key)) for p in self.positions]
            for combo in itertools.product(*(options[i] for i in enumerable)):
                values = list(base)
                for i, value in zip(enumerable, combo):
                    values[i] = copy.deepcopy(value)
                out.append((values, set(enumerable), "small:exhaustive"))
            return out
        per_argument = []
        for i in enumerable:
            made = []
            for value in options[i]:
                for t in self.templates:
                    values = [copy.deepcopy(argument(t, p.key)) for p in self.positions]
                    values[i] = copy.deepcopy(value)
                    made.append((values, {i}, f"small:{self.positions[i].shape.kind}"))
            per_argument.append(made)
        return [c for row in itertools.zip_longest(*per_argument) for c in row if c is not None]  # each argument in turn

    def _small_values(self, p: Position) -> list[Any]:
        """One argument's small values, the shortest first, where the statement states its bounds
        (a number's range; a list's or string's size, and a list's values): none elsewhere, nor for
        kinds not enumerated here. Why only there: where the statement is silent, a small input is
        one the examples never show, and a reference may answer it wrongly with nothing to tell
        (MBPP's ``max_subarray_product([0, -1])`` is 1; the 7 correct programs that say 0 would fail)."""
        shape = p.shape
        if p.tree:
            return self._small_trees(p)
        if shape.nullable:
            return []
        if shape.kind == "int":
            if p.val_lo is None or p.val_hi is None:
                return []
            return _smallest_numbers(*p.num_range(shape, scalar=True), SMALL_SYMBOLS + 1)
        if p.size_lo is None:
            return []
        if shape.kind == "str":
            symbols = _symbols(p.chars or shape.chars or DEFAULT_CHARS, [v for v in p.values if isinstance(v, str)])
        elif (shape.kind == "list" and shape.elem is not None and shape.elem.kind == "int" and not shape.rect
              and p.val_lo is not None and p.val_hi is not None):
            symbols = _smallest_numbers(*p.num_range(shape.elem, scalar=False), SMALL_SYMBOLS)
        else:
            return []
        lo, hi = p.size_range(shape, top=True)
        if shape.fixed_len is not None and p.fixed_len_kept():
            lo = hi = shape.fixed_len
        out: list[Any] = []
        for length in range(lo, min(hi, lo + SMALL_LENGTHS - 1) + 1):
            for combo in itertools.product(symbols, repeat=length):
                if len(out) >= SMALL_VALUES:
                    return out
                out.append("".join(combo) if shape.kind == "str" else list(combo))
        return out

    def slow(self) -> list[tuple[list[Any], set[int], str]]:
        """Slow-program candidates (after AutoCode): every list of numbers and every string whose size
        the statement states, at its largest (up to :data:`MAX_SLOW_SIZE`), all equal, ascending or
        descending (``slow:equal``, ...): ties and sorted runs are where a quadratic search or a naive
        sort is slowest. Only where the statement states the size: a larger input than it allows
        would fail a correct program that trusts it; and only past every example's size. The
        oracle keeps one only where every reference answers it within a tenth of the time limit."""
        sized = [i for i, p in enumerate(self.positions) if self._slow_size(p) is not None]
        if not sized:
            return []
        out = []
        for arrangement in SLOW_ARRANGEMENTS:
            values = [copy.deepcopy(argument(self.templates[0], p.key)) for p in self.positions]
            for i in sized:
                values[i] = self._slow_value(self.positions[i], self._slow_size(self.positions[i]), arrangement)
            out.append((values, set(sized), f"slow:{arrangement}"))
        return out

    def _slow_size(self, p: Position) -> int | None:
        """A list of numbers' or a string's largest stated size, where it is past every example's."""
        shape = p.shape
        if p.tree or p.size_hi is None or shape.fixed_len is not None:
            return None
        if not (shape.kind == "str" or (shape.kind == "list" and shape.elem is not None and shape.elem.kind == "int")):
            return None
        size = min(p.size_hi, MAX_SLOW_SIZE)
        return size if size > max((len(v) for v in p.values if isinstance(v, (str, list))), default=0) else None

    def _slow_value(self, p: Position, size: int, arrangement: str) -> Any:
        if p.shape.kind == "str":
            chars = sorted(p.chars or p.shape.chars or DEFAULT_CHARS)
            if arrangement == "equal":
                return chars[0] * size
            text = "".join(chars[j * len(chars) // size] for j in range(size))  # each character in a run
            return text if arrangement == "ascending" else text[::-1]
        lo, hi = p.num_range(p.shape.elem, scalar=False)
        if arrangement == "equal":
            return [int(hi)] * size
        values = sorted(self.rng.randint(int(lo), int(hi)) for _ in range(size))
        return values if arrangement == "ascending" else values[::-1]

    def _small_trees(self, p: Position) -> list[Any]:
        """Every tree of the least stated node count and up (each shape, the least first: 1, 2, 5, 14
        of them), its values the smallest its stated range allows, distinct in level order (in order
        for a search tree), and all equal (a mirror, a path of ties): where the statement states both.
        At most :data:`SMALL_VALUES`, and a fifth of the inputs are small: every tree of up to 3
        nodes, and some of 4."""
        if p.size_lo is None or p.val_lo is None or p.val_hi is None:
            return []
        leaf = p.shape.elem if p.shape.elem is not None and p.shape.elem.kind != "none" else Shape("int", lo=0, hi=100)
        lo, hi = p.size_range(p.shape, top=True)
        values = _smallest_numbers(*p.num_range(leaf, scalar=False), SMALL_TREE_NODES)
        out: list[Any] = []
        for size in range(lo, min(hi, SMALL_TREE_NODES, len(values)) + 1):
            for root in tree_shapes(size):
                nodes = inorder_nodes(root) if p.bst else tree_nodes(root)
                for labels in ([sorted(values[:size])] if p.bst else [values, values[:1] * size])[: 1 if size < 2 else 2]:
                    for node, value in zip(nodes, labels):
                        node.val = value
                    out.append(encode_tree(root))
                if len(out) >= SMALL_VALUES:
                    return out[:SMALL_VALUES]
        return out

    def boundaries(self) -> list[tuple[list[Any], set[int], str]]:
        """Deterministic boundary candidates: each position at its smallest size / extreme values."""
        out: list[tuple[list[Any], set[int], str]] = []
        for i, p in enumerate(self.positions):
            for t in self.templates:
                self._boundaries_at(i, p, [copy.deepcopy(argument(t, q.key)) for q in self.positions], out)
        return out

    def _boundaries_at(self, i: int, p: Position, base: list[Any], out: list[tuple[list[Any], set[int], str]]) -> None:
        """Boundary candidates of position ``i`` made from one example."""
        kind = p.shape.kind
        if base[i] is None or kind == "bool":
            return

        def put(value: Any, label: str) -> None:
            vals = list(base)
            vals[i] = value
            out.append((vals, {i}, label))

        if kind in ("int", "float"):
            _number_boundaries(p, put)
        elif p.tree:
            _tree_boundaries(p, base[i], put)
        else:
            self._sequence_boundaries(p, base[i], put)

    def _sequence_boundaries(self, p: Position, value: Any, put: _Put) -> None:
        """A list or string at its smallest size, a string of one repeated character, a list of extreme values."""
        shape, kind = p.shape, p.shape.kind
        if kind in ("list", "str") and not (shape.fixed_len is not None and p.fixed_len_kept()):
            smallest = p.size_lo if p.size_lo is not None else (0 if shape.len_lo == 0 else 1)
            if len(value) > smallest:
                put(value[:smallest], "boundary:min_size")
        if kind == "str" and value:
            put(value[0] * len(value), "boundary:str_repeat")
        if kind == "list" and value:
            self._list_value_boundaries(p, value, put)

    def _list_value_boundaries(self, p: Position, value: list[Any], put: _Put) -> None:
        """Every number of a list (or of a list of number rows) at ``lo``, at ``hi``, or each at either."""
        leaf = p.shape.elem
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
            put([[pick() for _ in row] for row in value] if deep else [pick() for _ in value], f"boundary:value_{tag}")

    # driver -------------------------------------------------------------------------------

    def run(self) -> list[tuple[tuple, dict, str]]:
        if self.n <= 0 or not self.positions and not self.templates:
            return []
        n_small = self.n // 5
        n_bnd = self.n // 4
        n_scale = self.n // 4
        candidates = self.boundaries()
        self.rng.shuffle(candidates)
        bnd = self._finished(candidates, n_bnd)
        scl: list[tuple[tuple, dict, str]] = []
        for _ in range(8 * max(1, n_scale)):
            if len(scl) >= n_scale:
                break
            got = self._safe(self.scaled)
            if got:
                scl.append(got)
        small = self._finished(self.small(), n_small)
        slow = self._finished(self.slow(), len(SLOW_ARRANGEMENTS))
        mut: list[tuple[tuple, dict, str]] = []
        need = self.n - len(bnd) - len(scl) - len(small) - len(slow)
        pool: list[tuple[tuple, dict]] = []
        for _ in range(30 * max(1, need)):
            if len(mut) >= need:
                break
            got = self._safe(lambda: self.mutation(pool))
            if got:
                mut.append(got)
                pool.append((got[0], got[1]))
        return _interleave(mut, bnd, scl, small, slow)[: self.n]

    def _finished(self, candidates: list[tuple[list[Any], set[int], str]], limit: int) -> list[tuple[tuple, dict, str]]:
        """The first ``limit`` candidates that finish as new inputs (:meth:`_finish`), in order."""
        out: list[tuple[tuple, dict, str]] = []
        for values, changed, label in candidates:
            if len(out) >= limit:
                break
            got = self._safe(lambda v=values, c=changed, lbl=label: self._finish(v, set(c), lbl))
            if got:
                out.append(got)
        return out

    @staticmethod
    def _safe(make):
        try:
            return make()
        except Exception:  # noqa: BLE001 - contract: odd inputs (huge ints, odd nesting, unhashables) skip one candidate, never raise
            return None


def _smallest_numbers(lo: Any, hi: Any, count: int) -> list[int]:
    """The ``count`` integers of ``[lo, hi]`` nearest zero (the least ones where the range is all
    positive or all negative), in that order."""
    lo, hi = math.ceil(lo), math.floor(hi)
    if lo > hi:
        return []
    start = min(max(0, lo), hi)
    out = [start]
    step = 1
    while len(out) < count and (start - step >= lo or start + step <= hi):
        out += [v for v in (start + step, start - step) if lo <= v <= hi]
        step += 1
    return out[:count]


def _symbols(chars: str, examples: list[str]) -> list[str]:
    """Three characters for small strings: the examples' most frequent ones of the allowed, then the allowed in order."""
    counts: dict[str, int] = {}
    for text in examples:
        for c in text:
            if c in chars:
                counts[c] = counts.get(c, 0) + 1
    ranked = sorted(counts, key=lambda c: -counts[c]) + [c for c in chars if c not in counts]
    return ranked[:SMALL_SYMBOLS]


def _interleave(mut: list, bnd: list, scl: list, small: list, slow: list) -> list:
    """Mutations, boundaries, scaled, small and slow inputs mixed 2:1:1:1:1, so a prefix has all kinds."""
    out, lists, pattern = [], [mut, bnd, scl, small, slow], [0, 0, 1, 2, 3, 4]
    idx = [0] * len(lists)
    while any(idx[k] < len(lists[k]) for k in range(len(lists))):
        for k in pattern:
            if idx[k] < len(lists[k]):
                out.append(lists[k][idx[k]])
                idx[k] += 1
    return out


def mutate_args(profile: CallProfile, *, n: int, seed: int = 0) -> list[tuple[tuple, dict, str]]:
    """Up to ``n`` new inputs ``(args, kwargs, label)`` made from the example inputs of ``profile``.

    The examples are ``(positional args, keyword args)`` of plain Python values; the profile's
    parameter names (keyword args are named by their keys) find the statement's bounds. About half
    are mutations of examples (``mutation:int_delta``, ``mutation:list_insert``,
    ``mutation:str_swap``, ``mutation:tree_add_leaf``, ...), a quarter inputs at the bounds
    (``boundary:min_size``, ``boundary:value_hi``, ...), a quarter larger inputs
    (``scale:list_size``, ``scale:grid_size``, ``scale:value_range``, ...), up to a fifth, taken
    from the mutations' share, small exhaustive ones (``small:exhaustive``, ``small:list``, ...),
    and up to three slow-program ones at the largest stated size (``slow:equal``, ...). None equals an example
    or another (compared by repr, sets and dicts order-free). Deterministic for a seed; never
    raises (what cannot be mutated is skipped, so fewer than ``n`` may come back).
    """
    try:
        return _Generator(profile, int(n), seed).run()
    except Exception:  # noqa: BLE001 - contract: never raise on odd example values; no inputs is the safe answer
        return []
