"""One type-aware mutation of one argument's value, after EvalPlus.

EvalPlus (``evalplus/gen/type_mut.py``) grows a test suite by mutating seed inputs by type: ints
by ±1, scaling and boundary values; floats scaled; strings by inserting, deleting, swapping or
replacing characters of their own alphabet; lists by inserting, deleting, swapping or duplicating
elements made from the types already present; tuples, dicts, sets and nested values recursively;
bools flipped; None kept. :class:`Mutator` makes one such change within the argument's
:class:`~.positions.Position`: grids keep their rows rectangular (a column goes in or out of
every row, a square grid grows and shrinks by a row and a column), and a tree list is mutated as
a tree (:mod:`.trees`).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
from typing import Any

from pipeline.verify.testgen.call.positions import DEFAULT_CHARS, Position
from pipeline.verify.testgen.call.shapes import MAX_DEPTH, Shape, infer, sorted_values, type_of
from pipeline.verify.testgen.call.trees import tree_mutation


class Mutator:
    """EvalPlus-style single mutations of a value of one position."""

    def __init__(self, pos: Position, rng: random.Random):
        self.pos, self.rng = pos, rng

    def mutate(self, value: Any, shape: Shape, depth: int = 0, top: bool = True) -> tuple[Any, str] | None:
        if depth > MAX_DEPTH or value is None:
            return None
        kind = type_of(value)
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

    def mutate_int(self, value: int, shape: Shape, top: bool) -> tuple[int, str]:
        rng, pos = self.rng, self.pos
        if shape.kind == "int" and pos.categorical(shape):
            others = [c for c in shape.categories if c != value]
            return (rng.choice(others) if others else value), "mutation:int_replace"
        lo, hi = pos.num_range(shape if shape.kind == "int" else Shape("int", lo=value, hi=value), scalar=top)
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

    def mutate_float(self, value: float, shape: Shape) -> tuple[float, str]:
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

    def mutate_str(self, value: str, shape: Shape, top: bool) -> tuple[str, str] | None:
        rng, pos = self.rng, self.pos
        own = sorted(set(value)) or sorted(set(pos.chars or shape.chars or DEFAULT_CHARS))
        lo, hi = pos.size_range(shape, top)
        fixed = shape.fixed_len is not None and (not top or pos.fixed_len_kept())
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

    def mutate_list(self, value: list[Any], shape: Shape, depth: int, top: bool) -> tuple[list[Any], str] | None:
        pos = self.pos
        elem = shape.elem if shape.kind in ("list", "tuple") else None
        lo, hi = pos.size_range(shape, top) if depth <= 1 else (0, 10**9)
        rect = shape.rect and elem is not None and elem.kind == "list"
        fixed = shape.fixed_len is not None and (not top or pos.fixed_len_kept())
        ops = self._list_ops(value, shape, elem, lo, hi, rect, fixed, top)
        if not ops:
            return None
        op = self.rng.choice(ops)
        out = copy.deepcopy(value)
        return self._LIST_OPS[op](self, out, shape, elem, depth, rect)

    def _list_ops(self, value: list[Any], shape: Shape, elem: Shape | None, lo: int, hi: int, rect: bool, fixed: bool,
                  top: bool) -> list[str]:
        """The list operations that keep ``value`` within its sizes, weighted by repetition."""
        ops: list[str] = []
        if value:
            ops += ["element", "element", "swap"]
        if not fixed and len(value) < hi and (elem is not None or value):
            ops += ["insert", "duplicate"] if value else ["insert"]
        if not fixed and len(value) > lo and value:
            ops += ["delete"]
        if rect and value:
            ops = self._grid_ops(ops, value, shape, elem, lo, hi, fixed, top)
        return ops

    def _grid_ops(self, ops: list[str], value: list[Any], shape: Shape, elem: Shape, lo: int, hi: int, fixed: bool,
                  top: bool) -> list[str]:
        """``ops`` for a grid: a column goes in or out of every row; a square grid keeps only element
        changes and swaps, and grows or shrinks by a row and a column."""
        if not shape.square and shape.fixed_width is None and value[0]:
            width = len(value[0])
            ilo, ihi = self.pos.size_range(elem, False) if top else (0, 10**9)
            return ops + (["column_insert"] if width < ihi else []) + (["column_delete"] if width > max(ilo, 1) else [])
        if shape.square and not fixed:
            return [o for o in ops if o in ("element", "swap")] + (["grow"] if len(value) < hi else []) + (["shrink"] if len(value) > max(lo, 1) else [])
        return ops

    # one list operation each: (copy of the list, shape, its element shape, depth, is a grid) -> (list, label) or None

    def _list_element(self, out: list[Any], shape: Shape, elem: Shape | None, depth: int, rect: bool) -> tuple[list[Any], str] | None:
        rng = self.rng
        i = rng.randrange(len(out))
        sub = shape.elem if shape.elem is not None else infer([out[i]])
        if rect and isinstance(out[i], list):
            sub = dataclasses.replace(sub, fixed_len=len(out[i]))  # a grid row keeps its width
        if out[i] is None:
            if not sub.nullable:
                return None
            out[i] = self.pos.element(sub, rng, depth)
            return out, "mutation:list_element"
        result = self.mutate(out[i], sub, depth + 1, top=False)
        if result is None:
            return None
        out[i] = result[0]
        return out, result[1]

    def _list_swap(self, out: list[Any], shape: Shape, elem: Shape | None, depth: int, rect: bool) -> tuple[list[Any], str] | None:
        if len(out) < 2:
            return None
        i, j = self.rng.sample(range(len(out)), 2)
        out[i], out[j] = out[j], out[i]
        return out, "mutation:list_swap"

    def _list_insert(self, out: list[Any], shape: Shape, elem: Shape | None, depth: int, rect: bool) -> tuple[list[Any], str]:
        rng, pos = self.rng, self.pos
        if rect and out:
            new = pos.gen(elem, rng, len(out[0]), depth + 1)
        elif elem is not None and (not out or rng.random() < 0.6):
            new = pos.element(elem, rng, depth)
        else:
            new = copy.deepcopy(rng.choice(out))
            sub = self.mutate(new, elem or infer([new]), depth + 1, top=False)
            new = sub[0] if sub else new
        out.insert(rng.randint(0, len(out)), new)
        return out, "mutation:list_insert"

    def _list_duplicate(self, out: list[Any], shape: Shape, elem: Shape | None, depth: int, rect: bool) -> tuple[list[Any], str]:
        rng = self.rng
        i = rng.randrange(len(out))
        out.insert(rng.randint(0, len(out)), copy.deepcopy(out[i]))
        return out, "mutation:list_duplicate"

    def _list_delete(self, out: list[Any], shape: Shape, elem: Shape | None, depth: int, rect: bool) -> tuple[list[Any], str]:
        del out[self.rng.randrange(len(out))]
        return out, "mutation:list_delete"

    def _grid_cell(self, elem: Shape, depth: int) -> Any:
        """A new cell for a grid whose rows have shape ``elem``."""
        return self.pos.element(elem.elem, self.rng, depth + 1) if elem.elem else 0

    def _grid_grow(self, out: list[Any], shape: Shape, elem: Shape, depth: int, rect: bool) -> tuple[list[Any], str]:
        """A square grid gains a row and a column."""
        rng = self.rng
        n = len(out)
        for row in out:
            row.insert(rng.randint(0, n), self._grid_cell(elem, depth))
        out.insert(rng.randint(0, n), self.pos.gen(elem, rng, n + 1, depth + 1))
        return out, "mutation:grid_grow"

    def _grid_column_insert(self, out: list[Any], shape: Shape, elem: Shape, depth: int, rect: bool) -> tuple[list[Any], str]:
        j = self.rng.randint(0, len(out[0]))
        for row in out:
            row.insert(j, self._grid_cell(elem, depth))
        return out, "mutation:grid_column_insert"

    def _grid_column_delete(self, out: list[Any], shape: Shape, elem: Shape, depth: int, rect: bool) -> tuple[list[Any], str]:
        j = self.rng.randrange(len(out[0]))
        for row in out:
            del row[j]
        return out, "mutation:grid_column_delete"

    def _grid_shrink(self, out: list[Any], shape: Shape, elem: Shape, depth: int, rect: bool) -> tuple[list[Any], str]:
        """A square grid loses a row and a column."""
        rng = self.rng
        i, j = rng.randrange(len(out)), rng.randrange(len(out))
        del out[i]
        for row in out:
            del row[j]
        return out, "mutation:grid_shrink"

    _LIST_OPS = {
        "element": _list_element, "swap": _list_swap, "insert": _list_insert, "duplicate": _list_duplicate,
        "delete": _list_delete, "grow": _grid_grow, "column_insert": _grid_column_insert,
        "column_delete": _grid_column_delete, "shrink": _grid_shrink,
    }

    def mutate_tuple(self, value: tuple, shape: Shape, depth: int) -> tuple[tuple, str] | None:
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

    def mutate_dict(self, value: dict, shape: Shape, depth: int) -> tuple[dict, str] | None:
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
            sub = shape.elem or infer([out[k]])
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

    def mutate_set(self, value: set, shape: Shape, depth: int) -> tuple[set, str] | None:
        rng, pos = self.rng, self.pos
        items = sorted_values(value)
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

        return tree_mutation(value, rng, make_value, min_nodes=max(1, pos.size_lo or 1), max_nodes=pos.size_hi,
                              bst_range=(lo, hi) if pos.bst else None)
