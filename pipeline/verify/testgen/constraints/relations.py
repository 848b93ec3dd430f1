"""What a Constraints section says about a call's arguments together (LeetCode's notation).

:func:`pipeline.verify.testgen.constraints.bounds.parse_constraints` keeps numeric ends only: ``1 <= n <= 10^5``
is a bound, while ``edges.length == n - 1``, ``0 <= nums[i] < nums.length``, ``1 <= grid[i][j] <=
n * n`` and ``n == grid.length == grid[i].length`` tie the arguments to each other and are left out
there. A reference answers inputs that break them (a "tree" of 14 edges on 31,734 nodes; ``nums =
[6]`` where ``nums[i] < nums.length``), and a correct program that trusts them fails.
:func:`relations` reads those chains, and the sentences a section uses for guarantees ("s contains
at least one '1'", "nums contains distinct integers", "the input is generated such that edges
represent a valid tree"), into checks on the arguments by name. Element names are read from the
statement's ``edges[i] = [ui, vi]``. A chain it cannot read is left out: nothing here guesses.
Each check is a ``partial`` of a module function (a closure would not pickle: a planned problem
crosses processes).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from pipeline.verify.testgen.structures import connected

__all__ = ["relations"]

Check = Callable[[dict[str, Any]], bool]  # the arguments by name -> the relation holds

_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt, "==": operator.eq, "!=": operator.ne}
_CMP = re.compile(r"(<=|>=|==|!=|<|>)")
_TERM = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?P<index>(?:\[\s*(?:[ijk]|\d+)\s*\])*)(?P<length>\.length|\.size\(\))?$")
_UNREADABLE = object()


class _Cannot(Exception):
    """The term refers to something this reader does not know: the relation is left out."""


def _section(statement: str) -> list[str]:
    """The lines of the Constraints section (up to the examples); where there is none, of the
    "Note:" section (HumanEval's docstrings state theirs there: "0 <= k <= len(arr)")."""
    for header in (r"constraints?:?", r"notes?:"):
        out, inside = [], False
        for line in (statement or "").splitlines():
            t = re.sub(r"^[*•\s]+|^-\s+|^\d+\.\s+", "", line.strip()).strip()  # a bullet, not the sign of "-10 <= x"
            if re.fullmatch(rf"(?i){header}", t):
                inside = True
                continue
            if inside and re.match(r"(?i)^(?:input|output|example|follow[\s-]*up|note)\b", t):
                break
            if inside and t:
                out.append(t)
        if out:
            return out
    return []


def _elements(statement: str) -> dict[str, tuple[str, int]]:
    """``ui -> ("edges", 0)`` from "edges[i] = [ui, vi]"."""
    out: dict[str, tuple[str, int]] = {}
    for m in re.finditer(r"\b([A-Za-z_]\w*)\[i\]\s*==?\s*\[([^\]\n]{1,60})\]", statement or ""):
        for j, name in enumerate(re.split(r"\s*,\s*", m.group(2).strip())):
            if re.fullmatch(r"[A-Za-z_]\w*", name):
                out.setdefault(name, (m.group(1), j))
    return out


class _Terms:
    """Terms of a chain evaluated on one call's arguments: each a list of values (an indexed term
    such as ``nums[i]`` stands for all of them)."""

    def __init__(self, params: list[str], elements: dict[str, tuple[str, int]], aliases: dict[str, str]) -> None:
        self.params, self.elements, self.aliases = set(params), elements, aliases

    def known(self, text: str) -> bool:
        names = re.findall(r"[A-Za-z_]\w*", re.sub(r"\.length|\.size\(\)|\[[^\]]*\]", "", text))
        return bool(names) and all(n in self.params or n in self.elements or n in self.aliases for n in names)

    def values(self, text: str, args: dict[str, Any]) -> list[Any]:
        text = text.strip()
        if "," in text:  # "ui, vi": each of them
            return [v for part in text.split(",") for v in self.values(part, args)]
        if re.fullmatch(r"\d{1,2}", text):
            return [int(text)]
        parts = re.split(r"\s*([-+*])\s*", text)
        if len(parts) > 1:
            vals = [self.values(p, args) for p in parts[::2]]
            if any(len(v) != 1 for v in vals):
                raise _Cannot  # arithmetic on a whole list
            total = vals[0][0]
            for op, v in zip(parts[1::2], vals[1:]):
                total = {"+": operator.add, "-": operator.sub, "*": operator.mul}[op](total, v[0])
            return [total]
        m = _TERM.match(text)
        if m is None or len(set(re.findall(r"\[\s*([ijk])\s*\]", text))) < len(re.findall(r"\[\s*[ijk]\s*\]", text)):
            raise _Cannot  # grid[i][i]: a diagonal, not every element
        name, index, length = m.group("name"), re.findall(r"\[\s*([^\]]+?)\s*\]", m.group("index")), m.group("length")
        if name in self.aliases:
            if index or length:
                raise _Cannot
            return self.values(self.aliases[name], args)
        if name in self.elements and name not in self.params:
            base, j = self.elements[name]
            if index or length:
                raise _Cannot
            return [row[j] for row in args[base]]
        if name not in args:
            raise _Cannot
        found = [args[name]]
        for ix in index:
            found = [v[int(ix)] for v in found] if ix.isdigit() else [x for v in found for x in v]
        return [len(v) for v in found] if length else found


def _chain(line: str, terms: _Terms) -> Check | None:
    """A check for ``a <= b < c == d`` (adjacent pairs whose two sides the reader knows, at least
    one naming an argument, at most one standing for a list); None if none is readable."""
    line = re.sub(r"\blen\(\s*([A-Za-z_]\w*)\s*\)", r"\1.length", line)  # Python's len(arr): arr.length
    parts = [p.strip() for p in _CMP.split(line.replace("≤", "<=").replace("≥", ">=").replace("≠", "!="))]
    if len(parts) < 3:
        return None
    pairs = []
    for k in range(1, len(parts) - 1, 2):
        a, op, b = parts[k - 1], parts[k], parts[k + 1]
        small = [re.fullmatch(r"\d{1,2}", x) is not None for x in (a, b)]  # larger numbers: parse_constraints's
        if (terms.known(a) or small[0]) and (terms.known(b) or small[1]) and not all(small):
            pairs.append((a, _OPS[op], b))
    return partial(_chain_holds, pairs, terms) if pairs else None


def _chain_holds(pairs: list[tuple[str, Callable[[Any, Any], bool], str]], terms: _Terms, args: dict[str, Any]) -> bool:
    for a, op, b in pairs:
        try:
            left, right = terms.values(a, args), terms.values(b, args)
            if len(left) > 1 and len(right) > 1:
                continue
            if not all(op(x, y) for x in left for y in right):
                return False
        except (_Cannot, KeyError, IndexError, TypeError, ValueError):
            continue
    return True


def _tree_holds(name: str, n_name: str | None, args: dict[str, Any]) -> bool:
    edges = args.get(name)
    if not isinstance(edges, list) or not all(isinstance(e, (list, tuple)) and len(e) >= 2 for e in edges):
        return True
    n = args.get(n_name) if n_name else len(edges) + 1
    if not isinstance(n, int) or isinstance(n, bool):
        return True
    ends = [(e[0], e[1]) for e in edges]
    if len(ends) != n - 1 or len({tuple(sorted(e)) for e in ends}) != len(ends) or any(a == b for a, b in ends):
        return False
    base = 0 if all(0 <= a < n and 0 <= b < n for a, b in ends) else 1
    if not all(base <= a < base + n and base <= b < base + n for a, b in ends):
        return False
    return connected(n, ends, base)


def _at_least_one(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"s contains at least one '1'"."""
    m = re.search(r"\b([A-Za-z_]\w*) contains at least one ['\"](.)['\"]", line)
    if m and m.group(1) in params:
        return partial(_contains_char, m.group(1), m.group(2))
    return None


def _contains_char(name: str, ch: str, args: dict[str, Any]) -> bool:
    return not isinstance(args.get(name), str) or ch in args[name]


def _distinct(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"nums contains distinct integers", "all the values of nums are unique"."""
    m = re.search(r"(?i)\b([A-Za-z_]\w*) (?:contains|consists of) (?:only )?(?:pairwise )?distinct\b|"
                  r"\b(?:all|the) (?:the )?(?:values|elements|integers|numbers) (?:of|in) ([A-Za-z_]\w*) are (?:unique|distinct)\b|"
                  r"\b([A-Za-z_]\w*) (?:are|is) (?:pairwise )?(?:distinct|unique)\b", line)
    if m:
        name = next(g for g in m.groups() if g)
        if name in params:
            return partial(_all_distinct, name)
    return None


def _no_duplicates(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"The given array will not contain duplicate values" (HumanEval's prose): the argument it
    names, or the only one where it says "the (given) array/list"."""
    m = re.search(r"(?i)\b(?:the (?:given |input )?(?:array|list)|([A-Za-z_]\w*)) (?:will|does|do|shall) not (?:contain|have) "
                  r"(?:any )?(?:duplicates?|duplicated|repeated)\b", line)
    if not m:
        return None
    name = m.group(1) or (params[0] if len(params) == 1 else None)
    return partial(_all_distinct, name) if name in params else None


def _all_distinct(name: str, args: dict[str, Any]) -> bool:
    return not isinstance(args.get(name), list) or len({repr(v) for v in args[name]}) == len(args[name])


def _tree_sentence(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"the input is generated such that edges represent a valid tree"."""
    if re.search(r"(?i)\btree\b", line) and re.search(r"(?i)generated such that|represents?|\bis a (?:valid )?tree|would be a tree", line):
        named = [p for p in params if re.search(rf"\b{re.escape(p)}\b", line)] or [p for p in params if p == "edges"]
        if len(named) == 1:
            return partial(_tree_holds, named[0], "n" if "n" in params else None)
    return None


def _parity(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"the length of s is even", "n is odd"."""
    m = re.fullmatch(r"(?i)(?:the )?(?:length of )?([A-Za-z_]\w*(?:\.length)?) (?:is|has an?) (even|odd)(?: length)?\.?", line)
    if not (m and terms.known(m.group(1))):
        return None
    return partial(_parity_holds, m.group(1), 0 if m.group(2).lower() == "even" else 1, terms)


def _parity_holds(term: str, parity: int, terms: _Terms, args: dict[str, Any]) -> bool:
    value = terms.values(term, args)[0]
    value = len(value) if isinstance(value, (str, list)) else value
    return not isinstance(value, int) or value % 2 == parity


def _fixed_char(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"s[0] is '0'"."""
    m = re.search(r"\b([A-Za-z_]\w*)\[(\d+)\] is (?:equal to )?(?:the character )?['\"](.)['\"]", line)
    if m and m.group(1) in params:
        return partial(_char_at, m.group(1), int(m.group(2)), m.group(3))
    return None


def _char_at(name: str, k: int, ch: str, args: dict[str, Any]) -> bool:
    return not isinstance(args.get(name), str) or (len(args[name]) > k and args[name][k] == ch)


def _sum(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"the sum of nums is divisible by k", "... is equal to target"."""
    m = re.search(r"(?i)\bsum of (?:all )?(?:the )?(?:elements of |values of |values in )?([A-Za-z_]\w*) is (divisible by|equal to) "
                  r"([A-Za-z_]\w*|\d{1,2})\b", line)
    if not (m and m.group(1) in params and (m.group(3).isdigit() or terms.known(m.group(3)))):
        return None
    return partial(_sum_holds, m.group(1), m.group(2).lower(), m.group(3), terms)


def _sum_holds(name: str, how: str, other: str, terms: _Terms, args: dict[str, Any]) -> bool:
    total, by = sum(_flat(args.get(name))), terms.values(other, args)[0]
    return total % by == 0 if how.startswith("divisible") else total == by


def _primes(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"p and q are prime numbers", "n is a prime"."""
    m = re.fullmatch(r"(?i)([A-Za-z_]\w*)(?:,? and |, )([A-Za-z_]\w*) are prime(?: numbers)?\.?|([A-Za-z_]\w*) is (?:a )?prime(?: number)?\.?", line)
    if m:
        names = [g for g in m.groups() if g]
        if names and all(n in params for n in names):
            return partial(_all_prime, names)
    return None


def _all_prime(names: list[str], args: dict[str, Any]) -> bool:
    return all(_prime(args.get(n)) for n in names)


def _diagonal(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"For all i grid[i][i] is 0."."""
    m = re.search(r"\b([A-Za-z_]\w*)\[i\]\[i\] (?:is|==) (\d{1,2})\b", line)
    if m and m.group(1) in params:
        return partial(_diagonal_is, m.group(1), int(m.group(2)))
    return None


def _diagonal_is(name: str, value: int, args: dict[str, Any]) -> bool:
    return not _matrix(args.get(name)) or all(len(r) <= i or r[i] == value for i, r in enumerate(args[name]))


def _antisymmetric(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"... that i != j, grid[i][j] != grid[j][i]."."""
    m = re.search(r"\b([A-Za-z_]\w*)\[i\]\[j\] (?:!=|≠) \1\[j\]\[i\]", line)
    if not (m and m.group(1) in params and re.search(r"\bi (?:!=|≠) j\b", line)):
        return None
    return partial(_antisymmetric_holds, m.group(1))


def _antisymmetric_holds(name: str, args: dict[str, Any]) -> bool:
    grid = args.get(name)
    if not _matrix(grid) or any(len(r) != len(grid) for r in grid):
        return True  # not square: the size checks' business
    return all(grid[i][j] != grid[j][i] for i in range(len(grid)) for j in range(i + 1, len(grid)))


def _two_distinct(line: str, params: list[str], terms: _Terms) -> Check | None:
    """"two distinct cities a and b"."""
    m = re.search(r"(?i)\btwo distinct [\w ]{0,20}?\b([A-Za-z_]\w*) and ([A-Za-z_]\w*)\b", line)
    if m and m.group(1) in params and m.group(2) in params:
        return partial(_differ, m.group(1), m.group(2))
    return None


def _differ(a: str, b: str, args: dict[str, Any]) -> bool:
    return args.get(a) != args.get(b)


def _not_own_index(line: str, params: list[str], terms: _Terms) -> Check | None:
    """``edges[i] != i``: no element equals its own index (a functional graph without self-loops;
    ``_chain`` reads no bare ``i``, and a generated ``[1, 2, 3, 4, 4]`` broke it)."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\[i\]\s*(?:!=|≠)\s*i", line.strip())
    return partial(_not_own_index_holds, m.group(1)) if m and m.group(1) in params else None


def _not_own_index_holds(name: str, args: dict[str, Any]) -> bool:
    value = args.get(name)
    return not isinstance(value, list) or all(v != k for k, v in enumerate(value))


# the guarantees in words, tried in this order (the first that reads the line wins)
_SENTENCES = (_at_least_one, _distinct, _no_duplicates, _tree_sentence, _parity, _fixed_char, _sum, _primes, _diagonal,
              _antisymmetric, _two_distinct, _not_own_index)


def _sentence(line: str, params: list[str], terms: _Terms) -> Check | None:
    """A guarantee written in words: at least one 'c', distinct, a tree, an even length, a fixed
    character, a sum, primes, a matrix's diagonal and antisymmetry; None where the line is none of these."""
    for reader in _SENTENCES:
        check = reader(line, params, terms)
        if check is not None:
            return check
    return None


def _matrix(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(r, list) for r in value)


def _prime(value: Any) -> bool:
    if not isinstance(value, int) or isinstance(value, bool) or value > 10**12:
        return True  # not a number this check reads
    return value >= 2 and all(value % d for d in range(2, int(value**0.5) + 1))


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def _running_counts(line: str, params: list[str], lines: list[str]) -> Check | None:
    """"The occurrences of an ID will not be negative in any step": keys and signed changes as two
    arrays (the changes: the one whose stated range goes below 0), each key's running total >= 0."""
    if not re.search(r"(?i)\b(?:occurrences?|count|frequency|number) of (?:an?|each|any) \w+ (?:will|does|can) (?:not|never) "
                     r"(?:be(?:come)? )?negative", line):
        return None
    signed = [p for p in params if any(re.match(rf"\s*-\s*\d[^<]*<=?\s*{re.escape(p)}\[i\]", x) for x in lines)]
    arrays = [p for p in params if any(re.search(rf"\b{re.escape(p)}(?:\[i\]|\.length)", x) for x in lines)]
    keys = [p for p in arrays if p not in signed]
    if len(signed) != 1 or len(keys) != 1:
        return None
    return partial(_running_totals_kept, keys[0], signed[0])


def _running_totals_kept(key_name: str, change_name: str, args: dict[str, Any]) -> bool:
    keys, changes = args.get(key_name), args.get(change_name)
    if not isinstance(keys, list) or not isinstance(changes, list):
        return True
    totals: dict[Any, int] = {}
    for key, change in zip(keys, changes):
        if isinstance(change, bool) or not isinstance(change, int):
            return True
        totals[repr(key)] = totals.get(repr(key), 0) + change
        if totals[repr(key)] < 0:
            return False
    return True


def relations(statement: str, params: list[str]) -> list[tuple[str, Check]]:
    """``(the constraint's text, its check)`` for each relation among the arguments the
    Constraints section states (an empty list where it states none this reader can read)."""
    try:
        lines = _section(statement)
        elements = _elements(statement)
        aliases: dict[str, str] = {}
        for name, length in re.findall(r"\b([A-Za-z_]\w*) of (?:length|size) ([A-Za-z_]\w*)\b(?!\s*[-+*]|\s+and\b)", statement or ""):
            if length not in params and name in params:  # "an array nums of length n"
                aliases.setdefault(length, f"{name}.length")
        for line in lines:  # "n == nums.length": n names the length, where n is no argument
            for name, term in re.findall(r"\b([A-Za-z_]\w*)\s*==\s*([A-Za-z_]\w*(?:\[i\])?\.length(?:\s*[-+]\s*\d)?)", line):
                if name not in params and name not in elements and term.split(".")[0].split("[")[0] in params:
                    aliases.setdefault(name, term)
        terms = _Terms(params, elements, aliases)
        out = []
        prose = [m.group(0) for m in re.finditer(r"(?i)\btwo distinct [^.\n]{0,60}", statement or "")]
        prose += [m.group(0) for m in re.finditer(r"(?i)[^.]{0,40}\bnot (?:contain|have) (?:any )?(?:duplicate|repeated)[^.]{0,30}",
                                                  re.sub(r"\s+", " ", statement or ""))]  # a docstring's sentence, across its lines
        for line in lines + prose:
            check = _sentence(line, params, terms) or _running_counts(line, params, lines)
            if check is not None:
                out.append((line, check))
                continue
            if re.search(r"(?i)\bfor\b|\bif\b|\bexcept\b", line):
                continue  # a condition on which elements: not read
            pieces = line.split(",")
            if len(pieces) < 2 or not all(set(_CMP.findall(p)) == {"=="} for p in pieces):
                pieces = [line]  # "0 <= ui, vi < n" is one chain (both in range); "a == b, c == d" two
            for piece in pieces:
                check = _chain(piece, terms) if _CMP.search(piece) else None
                if check is not None:
                    out.append((piece, check))
        return out
    except (re.error, RecursionError):
        return []
