"""The stdin kind's validator: a generated input reaches the oracle only when the statement allows it.

Why: a reference answers any input, also one its statement rules out (a line of 0s and 1s of
any length where each line holds exactly seven; ``l = 8910`` where ``1 ≤ l ≤ 100``; a "tree" with
a repeated edge; a string of the digits 0–9 where it holds only 1, 2 and 3). A correct program
that trusts the statement fails such a test, and in RL that is a reward of 0 for a right answer.
After CodeContests+ and Klear-CodeTest (a generator and a validator per problem), every input is
checked by a validator derived from two readings of the problem, independently of how the
input was made:

- **the statement** (:mod:`pipeline.verify.testgen.constraints.layout`, :mod:`pipeline.verify.testgen.constraints.bounds`):
  how many tokens each line holds (``n`` then ``n`` integers), the stated range of each named
  value, a string's stated length and alphabet, the test-case count and "the sum of n over all
  test cases", and what the section guarantees (distinct, a permutation, sorted, a tree, a
  connected graph, a regular bracket sequence);
- **what every example shares** (the grammar :mod:`pipeline.verify.testgen.stdin.inputs` infers, the one
  profile the generator reads too): the line structure, fixed string lengths, character sets and
  categories, the relations every example keeps (distinct, permutation, sorted, ``l ≤ r``), and
  edge lists that are trees, simple or connected graphs.

Where the statement states a constraint, the statement wins; where neither says, an input stays
inside what the examples show (a value in the examples' range, a size as the generator scales
it). A statement reading that an example breaks is a misreading and is not used. Each refusal has
a reason, counted per problem in the ``inputs_invalid`` column. The call kind's validator
(:mod:`pipeline.verify.testgen.call.validate`) keeps the bounds the statement states per argument
and, where it states none, the examples' envelope.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

from pipeline.verify.testgen import structures
from pipeline.verify.testgen.constraints import bounds as cx
from pipeline.verify.testgen.constraints.layout import Invalid as _Invalid
from pipeline.verify.testgen.constraints.layout import Layout, Read, guarantees, input_section, read_layout, rows_of, sum_bounds, walk
from pipeline.verify.testgen.constraints.layout import lookup as env_lookup
from pipeline.verify.testgen.constraints.words import says
from pipeline.verify.testgen.proof import MAX_VARIANT_SIZE, RuleProof, Variant, outside_char, prove
from pipeline.verify.testgen.stdin.grammar import Line, written_form
from pipeline.verify.testgen.structures import balanced

__all__ = ["StdinValidator"]

_INT = re.compile(r"[+-]?\d+")
_NUM = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _number(tok: str) -> float | None:
    if len(tok) > 300:  # a digit string, not a number to compare
        return None
    if _INT.fullmatch(tok):
        return int(tok)
    if _NUM.fullmatch(tok):
        return float(tok)
    return None


# ----------------------------------------------------------------------------- the statement
def _numbers(toks: list[str]) -> list[float] | None:
    """The tokens as numbers (None where one is not a number)."""
    try:
        return [int(t) for t in toks]
    except ValueError:
        pass
    values = [_number(t) for t in toks]
    return None if any(v is None for v in values) else values


def _outside(values: list[float], lo: float | None, hi: float | None) -> float | None:
    """A value outside ``[lo, hi]`` (None: all inside)."""
    if values and lo is not None and min(values) < lo:
        return min(values)
    if values and hi is not None and max(values) > hi:
        return max(values)
    return None


class _Spans:
    """Per row, the column spans some statement fact covers (where the examples' own reading of
    those tokens does not apply)."""

    def __init__(self) -> None:
        self.rows: dict[int, list[tuple[int, int]]] = {}

    def add(self, row: int, start: int, end: int) -> None:
        self.rows.setdefault(row, []).append((start, end))

    def covers(self, row: int, start: int, end: int | None = None) -> bool:
        spans = self.rows.get(row)
        if not spans:
            return False
        end = start + 1 if end is None else end
        for a, b in spans:
            if a <= start and end <= b:
                return True
        return False


def _not_permutation(values: list[float]) -> bool:
    return sorted(values) not in (list(range(1, len(values) + 1)), list(range(len(values))))


# a guarantee of the statement -> the rule it is counted under, what breaking it is, whether values break it
_PROMISES: tuple[tuple[str, str, str, Callable[[list[float]], bool]], ...] = (
    ("distinct", "distinct", "repeats a value", lambda values: len(set(values)) != len(values)),
    ("permutation", "permutation", "is no permutation", _not_permutation),
    ("strict", "sorted", "not increasing", lambda values: any(a >= b for a, b in zip(values, values[1:]))),
    ("sorted", "sorted", "not sorted", lambda values: any(a > b for a, b in zip(values, values[1:]))),
)


class _StatementRules:
    """What the statement says, kept only where every example agrees with it."""

    def __init__(self, statement: str, examples: list[str]) -> None:
        self.layout = read_layout(statement)
        self.bounds = cx.parse_constraints(statement) if statement else []
        self.sums = sum_bounds(statement) if statement else {}
        self.promised = guarantees(statement) if statement else {}
        self.statement = statement
        self._memo: dict[tuple[str, int], Any] = {}
        self.dropped: set[tuple[str, str]] = set()  # (rule, name) an example breaks
        if self.layout.items:
            try:
                reads = [walk(self.layout, rows_of(t)) for t in examples]
            except _Invalid:
                self.layout = Layout()  # the layout misreads the section: not used at all
                reads = []
            for read in reads:
                for rule, name, _ in self._broken(read):
                    self.dropped.add((rule, name))

    def _cached(self, what: str, f: Any, compute: Any) -> Any:
        key = (what, id(f))
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def _value_bound(self, f) -> Any:
        if not f.name:
            return None
        key = ("value", id(f))
        if key in self._memo:
            return self._memo[key]
        return self._cached("value", f, lambda: cx.value_bound(self.bounds, f.name) if f.count is not None else (
            cx.lookup(self.bounds, f.name) or cx.value_bound(self.bounds, f.name)))

    def _size_bound(self, f) -> Any:
        key = ("size", id(f))
        if key in self._memo:
            return self._memo[key]
        return self._cached("size", f, lambda: cx.size_bound(self.bounds, f.name) if f.name else None)

    def alphabet(self, f) -> str | None:
        if f.alphabet:
            return f.alphabet
        key = ("alphabet", id(f))
        if key in self._memo:
            return self._memo[key]
        return self._cached("alphabet", f, lambda: cx.alphabet(self.statement, f.name) if f.name and self.statement else None)

    def _broken(self, read: Read) -> list[tuple[str, str, str]]:
        """Every (rule, name, what) this walk breaks."""
        out = []
        by_case: dict[tuple[int, str], list[float] | None] = {}
        for f, toks, case, _, length in read.tokens:
            values = _numbers(toks) if f.kind != "str" else None
            out += self._token_broken(f, toks, values, length)
            if f.name:
                have = by_case.setdefault((case, f.name), [])
                if have is None or values is None:
                    by_case[(case, f.name)] = None
                else:
                    have.extend(values)  # the case's list, grown in place (not copied a line at a time)
        out += self._sums_broken(by_case)
        for (_, name), values in by_case.items():
            if values is not None and len(values) >= 2:
                out += self._promises_broken(name, values)
        return out

    def _token_broken(self, f: Any, toks: list[str], values: list[float] | None,
                      length: int | None) -> list[tuple[str, str, str]]:
        """What one field's tokens break: its stated value range, and a string's rules."""
        name, out = f.name or "", []
        b = self._value_bound(f)
        if b is not None and values is not None:
            bad = _outside(values, b.lo, b.hi)
            if bad is not None:
                out.append(("value_range", name, f"{name}={bad} outside [{b.lo}, {b.hi}]"))
        if f.kind in ("str", "chars") or (f.kind == "any" and values is None):
            out += self._strings(f, toks, length)
        return out

    def _sums_broken(self, by_case: dict[tuple[int, str], list[float] | None]) -> list[tuple[str, str, str]]:
        """A sum above its stated bound ("the sum of n over all test cases")."""
        out = []
        for name, total in self.sums.items():
            values = [v for (_, n), vs in by_case.items() if vs and env_lookup({n: 0}, name) is not None for v in vs]
            if values and sum(values) > total:
                out.append(("sum_bound", name, f"sum of {name} {sum(values)} > {total}"))
        return out

    def _promises_broken(self, name: str, values: list[float]) -> list[tuple[str, str, str]]:
        """The guarantees (distinct, a permutation, sorted) one test case's values of ``name`` break."""
        return [(rule, name, f"{name} {what}") for promise, rule, what, breaks in _PROMISES
                if name in self.promised.get(promise, ()) and breaks(values)]

    def _strings(self, f: Any, toks: list[str], length: int | None) -> list[tuple[str, str, str]]:
        name, out = f.name or "", []
        lengths = {len(t) for t in toks}
        if length is not None and lengths != {length}:
            out.append(("length", name, f"{name or 'string'} of length {max(lengths)}, stated {length}"))
        size = self._size_bound(f)
        if size is not None and _outside(list(lengths), size.lo, size.hi) is not None:
            out.append(("length", name, f"|{name}| outside [{size.lo}, {size.hi}]"))
        chars = self.alphabet(f)
        used = set().union(*toks) if toks else set()
        if chars and not used <= set(chars):
            out.append(("alphabet", name, f"{name or 'string'} holds {''.join(sorted(used - set(chars)))[:10]!r}, outside {chars!r}"))
        if self.promised.get("brackets") and used <= set("()[]{}<>") and not all(map(balanced, toks)):
            out.append(("brackets", name, "an unbalanced bracket sequence"))
        return out

    def illegal_variants(self, texts: list[str]) -> Iterator[Variant]:
        """For each rule the first example the layout reads uses, that example made just illegal
        for it (:mod:`pipeline.verify.testgen.proof`): a value one past each stated end, a string one
        character longer than its stated length or with a character outside its stated alphabet, a
        counted run one token short (a promised tree's repeated edge:
        :meth:`StdinValidator.tree_variants`)."""
        if not self.layout.items:
            return
        for text in texts:
            rows = rows_of(text)
            try:
                read = walk(self.layout, rows)
            except _Invalid:
                continue
            break
        else:
            return
        seen: set[str] = set()

        def first(key: str) -> bool:
            new = key not in seen and tuple(key.split(":", 1)) not in self.dropped
            seen.add(key)
            return new
        for f, toks, _, (row, col), length in read.tokens:
            name = f.name or ""
            if not name or not toks or row >= len(rows) or col + len(toks) > len(rows[row]):
                continue
            values = _numbers(toks) if f.kind != "str" else None
            b = self._value_bound(f)
            if b is not None and values is not None and first(f"value_range:{name}"):
                for end, step in ((b.hi, 1), (b.lo, -1)):
                    if end is not None:
                        yield f"value_range:{name}", _edited(rows, row, col, _as_token(end + step, toks[0]))
            if f.kind == "str" and toks[0]:
                size = self._size_bound(f)
                if (length is not None or (size is not None and size.hi is not None and size.hi < MAX_VARIANT_SIZE)) \
                        and first(f"length:{name}"):
                    longer = length + 1 if length is not None else int(size.hi) + 1
                    yield f"length:{name}", _edited(rows, row, col, (toks[0] * (longer // len(toks[0]) + 1))[:longer])
                chars = self.alphabet(f)
                bad = outside_char(chars) if chars else None
                if bad is not None and first(f"alphabet:{name}"):
                    yield f"alphabet:{name}", _edited(rows, row, col, bad + toks[0][1:])
            if f.count is not None and len(toks) >= 2 and first(f"count:{name}"):
                yield f"count:{name}", _edited(rows, row, col + len(toks) - 1, None)

    def check(self, rows: list[list[str]]) -> Read | None:
        """The walk of an input (None: no layout); raises :class:`_Invalid` with the first rule it breaks."""
        if not self.layout.items:
            return None
        read = walk(self.layout, rows)
        for rule, name, what in self._broken(read):
            if (rule, name) not in self.dropped:
                raise _Invalid(rule, what)
        return read

    def stated(self, read: Read | None) -> tuple[_Spans, _Spans, _Spans]:
        """Where the statement states a value range, a length, an alphabet (the examples' own
        reading of those tokens does not apply: the statement wins)."""
        ranges, lengths, alphabets = _Spans(), _Spans(), _Spans()
        facts: dict[tuple[int, bool], tuple[bool, bool, bool]] = {}  # per field (and whether a length is given): the three below
        for f, toks, _, (row, col), length in (read.tokens if read else []):
            key = (id(f), length is None)
            fact = facts.get(key)
            if fact is None:
                name = f.name or ""
                fact = facts[key] = (
                    bool((self._value_bound(f) is not None and ("value_range", name) not in self.dropped) or f.kind in ("str", "chars")),
                    bool((length is not None or self._size_bound(f)) and ("length", name) not in self.dropped),
                    bool(self.alphabet(f) and ("alphabet", name) not in self.dropped))
            ranged, sized, lettered = fact
            end = col + len(toks)
            if ranged:
                ranges.add(row, col, end)  # stated, or a string: the grammar's reading of it as a number does not apply
            if sized:
                lengths.add(row, col, end)
            if lettered:
                alphabets.add(row, col, end)
        return ranges, lengths, alphabets


# ----------------------------------------------------------------------------- what the examples share
def _alphabet_seen(toks: list[str], statement: str) -> str:
    """The characters the examples show, each class they use widened to the whole class where it is
    more than a coincidence (three letters of a case, three digits, or the statement naming the
    case); other characters as they are (``.#``, ``->``); 0 and 1 alone stay bits."""
    chars = set("".join(toks))
    out = set(chars)
    for cls, phrase in ((string.ascii_lowercase, "lowercase_letters"), (string.ascii_uppercase, "uppercase")):
        mine = chars & set(cls)
        if len(mine) >= 3 or (mine and says(statement, phrase)):
            out |= set(cls)
    digits = chars & set(string.digits)
    if len(digits) >= 3 and not digits <= {"0", "1"}:
        out |= set(string.digits)
    return "".join(sorted(out))


def _edge_list(iterations: list) -> list[tuple[int, int]] | None:
    """The (u, v) of each line of an edge list; None where a line does not start with two integers."""
    edges = []
    for it in iterations:
        row = it[0] if it else []
        if len(row) < 2 or not all(len(x) <= 18 and _INT.fullmatch(x) for x in row[:2]):
            return None
        edges.append((int(row[0]), int(row[1])))
    return edges


def _check_graph(edges: list[tuple[int, int]], n: int, base: int, tree: Any, simple: Any, connected: Any) -> None:
    """Raises :class:`_Invalid` where the edges break a fact the examples and the statement share."""
    if any(not (base <= a < base + n and base <= b < base + n) for a, b in edges):
        raise _Invalid("graph", "a node outside 1..n")
    pairs = [tuple(sorted(e)) for e in edges]
    if simple and (any(a == b for a, b in edges) or len(set(pairs)) != len(pairs)):
        raise _Invalid("tree" if tree else "graph", "a repeated edge or a loop")
    if tree and len(edges) != n - 1:
        raise _Invalid("tree", f"{len(edges)} edges on {n} nodes")
    if connected and not structures.connected(n, edges, base):
        raise _Invalid("tree" if tree else "graph", "not connected")


class _ExampleRules:
    """What every example shares, read from the grammar's parse of them."""

    def __init__(self, g: Any, statement: str, promised: dict) -> None:
        self.g, self.statement, self.promised = g, statement, promised
        # edge lists are checked where the statement speaks of a graph: pairs of numbers are not always edges
        self.graph = bool(promised.get("tree") or promised.get("connected") or promised.get("simple")
                          or says(input_section(statement), "graph"))
        self.seen: dict[int, list[str]] = {}
        for text in g.examples:
            parsed = g.parse_tree(text)
            if parsed is not None:
                self._visit(parsed, None)
        self._ranges: dict[int, tuple[float | None, float | None]] = {}
        strings = {sid: ts for sid, ts in self.seen.items() if g.scalars[sid].kind == "str"}
        # a fixed length: lines of one input that all hold as many characters (rows, schedules), in every example
        self.fixed_len = {sid: s.fixed for sid, s in g.scalars.items() if s.kind == "str" and s.fixed}
        self.alphabets = {sid: set(_alphabet_seen(ts, statement)) for sid, ts in strings.items()}
        self.balanced = {sid for sid, ts in strings.items() if all(set(t) <= set("()[]{}<>") and balanced(t) for t in ts)
                         and (promised.get("brackets") or len(ts) >= 2)}
        self.forms = {sid: s.form for sid, s in g.scalars.items() if s.kind == "str" and s.form}  # "XXX->YYY"

    def _visit(self, parsed: tuple[list, list], check: Any) -> None:
        rows, tree = parsed
        where = {id(r): i for i, r in enumerate(rows)}
        sums: Counter = Counter()
        self._seq(self.g.elems, tree, {}, where, check, sums)
        if check is not None:
            for sid, bound in self.g.sum_bounds.items():
                if sums[sid] > bound:
                    raise _Invalid("sum_bound", f"the sum of {self.g.names.get(sid, 'n')} over the test cases exceeds {bound}")

    def _seq(self, elems: list, nodes: list, env: dict, where: dict, check: Any, sums: Counter) -> None:
        for e, node in zip(elems, nodes):
            if isinstance(e, Line):
                self._line(e, node, env, where.get(id(node), -1), check, sums)
                continue
            if check is not None and e.edges is not None and self.graph:
                self._edges(e, node, env)
            if len(e.body) == 1 and isinstance(e.body[0], Line):  # a block of one line: no call per block
                line, get = e.body[0], where.get
                scalars = list(line.prefix) + ([line.vec] if line.vec is not None else [])
                scalars += [s for shape in (line.switch or {}).values() for s in shape]
                binds = any(s.var for s in scalars)  # else the line only reads env: no copy a block
                for it in node:
                    if it:
                        self._line(line, it[0], dict(env) if binds else env, get(id(it[0]), -1), check, sums)
                continue
            for it in node:
                self._seq(e.body, it, dict(env), where, check, sums)

    def _line(self, e: Any, toks: list[str], env: dict, row: int, check: Any, sums: Counter) -> None:
        """The line's runs of tokens, scalar by scalar: the prefix one by one, the list at once."""
        p = len(e.prefix)
        if e.switch is not None:
            shape = e.switch.get(toks[0]) if toks else None
            if shape is None:
                return  # a query type no example shows: the statement may allow it
            runs = [(e.prefix[0], toks[:1], 0)] + [(s, [t], j + 1) for j, (s, t) in enumerate(zip(shape, toks[1:]))]
        elif check is not None:
            self._checked_prefix(e, toks, env, row, check, sums)
            runs = [(e.vec, toks[p:], p)] if e.vec is not None and len(toks) > p else []
        else:
            runs = [(s, [t], j) for j, (s, t) in enumerate(zip(e.prefix, toks))]
            if e.vec is not None and len(toks) > p:
                runs.append((e.vec, toks[p:], p))
        for s, run, col in runs:
            if check is None:
                self.seen.setdefault(s.sid, []).extend(run)
            else:
                self._run(s, run, row, col, check, env)
            self._bind(s, run, env, sums)
        if check is not None and e.vec is not None and (e.vec.vprops or {}).get("long") and e.vec.vprops.get("perm"):
            values = _numbers(toks[p:])
            if values and len(values) >= 2 and sorted(values) not in (list(range(1, len(values) + 1)), list(range(len(values)))):
                raise _Invalid("permutation", "every example's list is a permutation")

    def _checked_prefix(self, e: Any, toks: list[str], env: dict, row: int, check: Any, sums: Counter) -> None:
        """A checked line's prefix, token by token, without a run each (validation's hot path)."""
        spans = check[0].rows.get(row)  # where the statement states a range on this row
        sum_bounds = self.g.sum_bounds
        for j, (s, t) in enumerate(zip(e.prefix, toks)):
            if s.kind == "int" or s.kind == "float":
                self._prefix_number(s, t, row, j, check, env, bool(spans))
            else:
                self._run(s, [t], row, j, check, env)
            if s.var and len(t) <= 18 and _INT.fullmatch(t):
                env[s.sid] = int(t)
            if s.sid in sum_bounds:
                self._add_sum(s, [t], sums)

    def _prefix_number(self, s: Any, t: str, row: int, col: int, check: Any, env: dict, spans: bool) -> None:
        """:meth:`_number`, asked only where a plain unsigned integer could be out of range."""
        if spans or len(t) > 300 or not t.isdigit() or not t.isascii():
            self._number(s, t, row, col, check, env)
        elif not (s.vprops or {}).get("perm"):  # _number of an unsigned integer, no span on its row
            v = int(t)
            lo, hi = self._ranges[s.sid] if s.sid in self._ranges else self._range(s)
            if s.rel_var is not None and env.get(s.rel_var) is not None and hi is not None and not s.bounded:
                hi = max(hi, env[s.rel_var])
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                self._number(s, t, row, col, check, env)  # raises

    def _bind(self, s: Any, run: list[str], env: dict, sums: Counter) -> None:
        """After a run: the variable it sets, and its share of a sum over the test cases."""
        if s.var and len(run[0]) <= 18 and _INT.fullmatch(run[0]):
            env[s.sid] = int(run[0])
        if s.sid in self.g.sum_bounds:
            self._add_sum(s, run, sums)

    @staticmethod
    def _add_sum(s: Any, run: list[str], sums: Counter) -> None:
        sums[s.sid] += sum(v for v in (_numbers(run) or []) if isinstance(v, int))

    def _number(self, s: Any, tok: str, row: int, col: int, check: Any, env: dict) -> None:
        """:meth:`_run` of one token of a number scalar, where it is an integer: no list, no generator."""
        try:
            v = int(tok)  # what _numbers reads first
        except ValueError:
            self._run(s, [tok], row, col, check, env)
            return
        if check[0].covers(row, col, col + 1) or (s.vprops or {}).get("perm"):
            return
        lo, hi = self._ranges[s.sid] if s.sid in self._ranges else self._range(s)
        if s.rel_var is not None and env.get(s.rel_var) is not None and hi is not None and not s.bounded:
            hi = max(hi, env[s.rel_var])
        bad = v if (lo is not None and v < lo) or (hi is not None and v > hi) else None
        if bad is not None:
            raise _Invalid("value_range" if s.bounded else "outside_examples",
                           f"{self.g.names.get(s.sid, 'value')}={bad} outside [{lo}, {hi}] on line {row + 1}")

    def _run(self, s: Any, run: list[str], row: int, col: int, check: Any, env: dict) -> None:
        ranges, lengths, alphabets = check
        end = col + len(run)
        if s.kind in ("int", "float"):
            self._numbers_run(s, run, row, col, end, ranges, env)
        else:
            self._text_run(s, run, row, col, end, lengths, alphabets)

    def _numbers_run(self, s: Any, run: list[str], row: int, col: int, end: int, ranges: Any, env: dict) -> None:
        """A run of a number slot: numbers of its kind, inside the stated or the examples' range."""
        try:
            values = [int(t) for t in run]  # what _numbers reads first: all of them integers
            ints = True
        except ValueError:
            values = _numbers(run)
            ints = values is not None and all(isinstance(v, int) for v in values)
        if values is None or (s.kind == "int" and not ints):
            if not ranges.covers(row, col, end):
                raise _Invalid("token_kind", f"{run[0][:20]!r} where every example holds a number")
            return
        if ranges.covers(row, col, end) or (s.vprops or {}).get("perm"):
            return  # stated; or a permutation, whose values its length decides
        lo, hi = self._range(s)
        if s.rel_var is not None and env.get(s.rel_var) is not None and hi is not None and not s.bounded:
            hi = max(hi, env[s.rel_var])  # never above an earlier value (a node id, at most n)
        bad = _outside(values, lo, hi)
        if bad is not None:
            raise _Invalid("value_range" if s.bounded else "outside_examples",
                           f"{self.g.names.get(s.sid, 'value')}={bad} outside [{lo}, {hi}] on line {row + 1}")

    def _text_run(self, s: Any, run: list[str], row: int, col: int, end: int, lengths: Any, alphabets: Any) -> None:
        """A run of a text slot: its categories, length, alphabet and brackets, as the examples keep them."""
        if s.cats and not alphabets.covers(row, col, end) and not set(run) <= set(s.cats):
            raise _Invalid("category", f"{sorted(set(run) - set(s.cats))[0][:20]!r} is none of {s.cats}")
        fixed = self.fixed_len.get(s.sid)
        if fixed and not lengths.covers(row, col, end) and {len(t) for t in run} != {fixed}:
            raise _Invalid("length", f"a line of other than {fixed} characters, the length of every example's")
        chars = self.alphabets.get(s.sid)
        if chars and not alphabets.covers(row, col, end):
            extra = set().union(*run) - chars
            if extra:
                raise _Invalid("alphabet", f"{''.join(sorted(extra))[:10]!r} outside {''.join(sorted(chars))!r}")
        if s.sid in self.balanced and not all(map(balanced, run)):
            raise _Invalid("brackets", "an unbalanced bracket sequence where every example's is balanced")
        form = self.forms.get(s.sid)
        if form is not None and not alphabets.covers(row, col, end) and any(written_form(t) != form for t in run):
            raise _Invalid("form", f"{next(t for t in run if written_form(t) != form)[:20]!r} where every example writes {form!r}")

    def _range(self, s: Any) -> tuple[float | None, float | None]:
        """Stated ends where the grammar mapped a bound; else the examples' envelope, as far as the
        generator scales it."""
        if s.sid not in self._ranges:
            values = _numbers([t for t in self.seen.get(s.sid, []) if _number(t) is not None]) or []
            omin, omax = (min(values), max(values)) if values else (s.lo, s.hi)
            self._ranges[s.sid] = (s.lo, s.stated_hi) if s.bounded else (min(s.lo, omin), max(s.hi, omax))
        return self._ranges[s.sid]

    def _edges(self, rep: Any, iterations: list, env: dict) -> None:
        info = rep.edges
        n = env.get(info["nv"])
        if n is None:
            return
        base = info["base"]
        edges = _edge_list(iterations)
        if edges is None:
            return
        tree, simple, connected = self._graph_facts(info, len(edges), n)
        if tree or simple or connected:
            _check_graph(edges, n, base, tree, simple, connected)

    def _graph_facts(self, info: dict, m: int, n: int) -> tuple[Any, Any, Any]:
        """Tree, simple, connected: the examples' facts where the statement backs them (a tree in
        every example of a statement that promises a tree or a connected graph; simple or connected
        where it says so)."""
        tree = (info["tree"] and (self.promised.get("tree") or self.promised.get("connected"))) or \
            (self.promised.get("tree") and m == n - 1)
        simple = tree or (info["simple"] and self.promised.get("simple"))
        connected = tree or (info["connected"] and self.promised.get("connected"))
        return tree, simple, connected

    def check(self, text: str, stated: tuple[_Spans, _Spans, _Spans], parsed: tuple[list, list] | None = None) -> None:
        """Raises :class:`_Invalid` where ``text`` breaks what every example shares (``parsed``: its
        parse, where the caller has it)."""
        parsed = parsed if parsed is not None else self.g.parse_tree(text)
        if parsed is not None:  # a text the grammar does not parse: the grammar may be what is wrong
            self._visit(parsed, stated)


class StdinValidator:
    """Whether a ``stdin`` input is one the problem allows: :meth:`reason` is None, or why not."""

    def __init__(self, grammar: Any, statement: str = "", examples: list[str] | None = None) -> None:
        texts = list(examples if examples is not None else (grammar.examples if grammar is not None else []))
        self.grammar = grammar
        self.statement = _StatementRules(statement or "", texts)
        self.examples = _ExampleRules(grammar, statement or "", self.statement.promised) if grammar is not None else None
        self._parsed: dict[str, tuple[list, list]] = {}  # text -> its parse, from :meth:`parses` to its check
        # each statement rule tested on just-illegal variants of an example (:mod:`pipeline.verify.testgen.proof`):
        # one that lets its variant through is dropped, and its tokens keep to what the examples show
        self.proof: RuleProof = prove(chain(self.statement.illegal_variants(texts), self.tree_variants(texts)),
                                      lambda text: self.explain(text) is not None)
        for dropped in self.proof.dropped:  # a count's or a tree's is only counted: the grammar keeps those
            part, name = dropped.split(":", 1)
            if part in ("value_range", "length", "alphabet"):
                self.statement.dropped.add((part, name))

    def tree_variants(self, texts: list[str]) -> Iterator[Variant]:
        """Where the statement promises a tree: the first example whose edge list holds two different
        edges, its last edge made a copy of its first (a repeated edge, no tree). The edge list is the
        one the grammar reads; where it reads none, the example's last run of lines of two integers."""
        if not self.statement.promised.get("tree"):
            return
        for text in texts:
            rows = rows_of(text)
            edges = _edge_rows(self.grammar, text) if self.grammar is not None else None
            if edges is None:
                edges = _last_pairs(rows)
            if edges is not None and rows[edges[0]][:2] != rows[edges[1]][:2]:
                out = [list(r) for r in rows]
                out[edges[1]] = list(rows[edges[0]])
                yield "tree:edges", _text(out)
                return

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_parsed": {}}  # parses kept for a check to come are no part of the validator

    def parses(self, text: str) -> bool:
        """Whether the grammar parses ``text`` (:meth:`~pipeline.verify.testgen.stdin.grammar.Grammar.parses`);
        the parse is kept for its check (:meth:`reason`), which would read the text again: a
        generated input is tokenized and parsed once, not three times and twice."""
        parsed = self.grammar.parse_tree(text) if self.grammar is not None else None
        if parsed is not None:
            self._parsed[text] = parsed
        return parsed is not None

    def forget(self) -> None:
        """Drop the parses kept for checks that did not come (texts past the count wanted)."""
        self._parsed.clear()

    def reason(self, text: str) -> str | None:
        why = self.explain(text)
        return None if why is None else why.split(":", 1)[0]

    def explain(self, text: str) -> str | None:
        """``reason: what`` (``value_range: l=8910 outside [1, 100]``), or None where the input is valid."""
        parsed = self._parsed.pop(text, None)
        try:
            read = self.statement.check(parsed[0] if parsed is not None else rows_of(text))
            if self.examples is not None:
                self.examples.check(text, self.statement.stated(read), parsed)
        except _Invalid as why:
            return ": ".join(str(a) for a in why.args)
        except Exception as exc:  # noqa: BLE001 - a validator bug refuses the input, never the problem
            return f"validator_error: {type(exc).__name__}: {exc}"[:200]
        return None


def _text(rows: list[list[str]]) -> str:
    """Token rows as an input text."""
    return "\n".join(" ".join(r) for r in rows) + "\n"


def _edited(rows: list[list[str]], row: int, col: int, tok: str | None) -> str:
    """The text of ``rows`` with one token replaced (None: taken out)."""
    out = [list(r) for r in rows]
    if tok is None:
        del out[row][col]
    else:
        out[row][col] = tok
    return _text(out)


def _as_token(value: float, like: str) -> str:
    """``value`` written as a token like ``like`` (an integer where both are whole)."""
    return str(int(value)) if _INT.fullmatch(like) and float(value).is_integer() else repr(float(value))


def _edge_rows(g: Any, text: str) -> tuple[int, int] | None:
    """The first and last row of the first edge list the grammar reads in ``text``."""
    parsed = g.parse_tree(text)
    if parsed is None:
        return None
    rows, tree = parsed
    where = {id(r): i for i, r in enumerate(rows)}

    def find(elems: list, nodes: list) -> tuple[int, int] | None:
        for e, node in zip(elems, nodes):
            if isinstance(e, Line):
                continue
            if e.edges is not None and len(e.body) == 1 and len(node) >= 2:
                first, last = where.get(id(node[0][0])), where.get(id(node[-1][0]))
                if first is not None and last is not None:
                    return first, last
            for it in node:
                got = find(e.body, it)
                if got is not None:
                    return got
        return None
    return find(g.elems, tree)


def _last_pairs(rows: list[list[str]]) -> tuple[int, int] | None:
    """The first and last row of the example's last run of two or more lines of two integers (never
    its first line: a header such as ``n k``)."""
    end = len(rows) - 1
    start = end + 1
    while start > 1 and len(rows[start - 1]) == 2 and all(_INT.fullmatch(t) for t in rows[start - 1]):
        start -= 1
    return (start, end) if end - start >= 1 else None
