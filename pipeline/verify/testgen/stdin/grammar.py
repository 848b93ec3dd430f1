"""The grammar of a problem's stdin input: what :mod:`pipeline.verify.testgen.stdin.infer` infers from the
examples, :mod:`pipeline.verify.testgen.stdin.generate` writes new inputs from, and the stdin validator
checks inputs against.

A grammar is a sequence of elements:

* lines of tokens, each token an ``int``, a ``float`` or a string (a word, a ``"abac"`` /
  ``"0110"`` / ``"#.#"`` row, with its alphabet);
* counts that later tokens depend on: ``n`` then ``n`` numbers (on one line, or ``k a_1..a_k`` on
  the same line), ``n`` then ``n`` lines, ``n m`` then ``n`` rows of ``m`` tokens or characters,
  ``n`` then ``n - 1`` edges, ``T`` then ``T`` test-case blocks of one inferred shape, a string
  whose length is an earlier integer, query lines whose length depends on their first token.

Every token position is a :class:`Scalar` that holds what the examples show about it (the parser's
collect mode, :class:`Recorder`) and the kind and range inference settles on. The one parser here
reads a text by a grammar for the search, the collection, mutations and validation alike.
"""

from __future__ import annotations

import functools
import itertools
import re
import string
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["MAX_BYTES", "MAX_TOKENS", "NUMERIC", "Count", "Grammar", "Line", "Recorder", "Repeat", "Scalar",
           "all_elements", "count_value", "new_sid", "parse_seq", "token_class", "token_rows"]


MAX_TOKENS = 200_000  # a generated input's size cap: reference runs stay fast
MAX_BYTES = 200_000


# ----------------------------------------------------------------------------- tokens
_INT_RE = re.compile(r"[+-]?\d+")
_FLOAT_RE = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+")
NUMERIC = ("int", "float", "digits")


@functools.lru_cache(maxsize=1 << 16)
def token_class(tok: str) -> str:
    """``int``, ``float``, ``digits`` (a digit string: leading zero, or a number of more than 30 digits) or ``str``."""
    if _INT_RE.fullmatch(tok):
        digits = tok.lstrip("+-")
        if (len(digits) > 1 and digits[0] == "0") or len(digits) > 30:
            return "digits"
        return "int"
    if _FLOAT_RE.fullmatch(tok):
        return "float"
    return "str"


def token_rows(text: str) -> list[list[str]]:
    rows = [line.split() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while rows and not rows[-1]:
        rows.pop()
    return rows


# ----------------------------------------------------------------------------- grammar
@dataclass(frozen=True)
class Count:
    """How many: ``const``; or an earlier integer variable ``var`` plus ``off``; neither: free."""

    var: int | None = None
    off: int = 0
    const: int | None = None

    @property
    def free(self) -> bool:
        return self.var is None and self.const is None


@dataclass(eq=False)
class Scalar:
    """One token position (a prefix token of a line, or every element of a line's vector)."""

    sid: int
    numeric: bool = True  # inference: the token must look numeric
    var: bool = False  # an integer later counts may refer to
    length: Count | None = None  # strings: length tied to a variable (None: free / observed)
    # observed (collect)
    n: int = 0
    n_int: int = 0
    n_float: int = 0
    n_digits: int = 0
    vmin: float | None = None
    vmax: float | None = None
    decimals: int = 0
    values: Counter = field(default_factory=Counter)
    chars: set = field(default_factory=set)
    len_min: int | None = None
    len_max: int | None = None
    lead_zero: bool = False
    rel: dict | None = None  # var sid -> [max value/var ratio, times equal, sum of the variable's values]
    vprops: dict | None = None  # vectors: perm / distinct / sorted / strict -> still true, "long": evidence
    # final
    kind: str = "int"
    lo: float = 0
    hi: float = 0
    small_hi: float = 0
    rel_var: int | None = None
    alphabet: str = ""
    cats: list | None = None
    bounded: bool = False  # lo/hi come from the statement
    stated_hi: float | None = None  # the statement's upper bound, where it gives a number
    signed: bool = False  # digit strings: some are negative
    per_example: Counter = field(default_factory=Counter)  # example index -> tokens it holds here
    fixed: int | None = None  # strings: the one length every line of every example shows (rows, schedules)
    form: str | None = None  # strings: the one written form every example's token has ("XXX->YYY": :func:`one_form`)


@dataclass(eq=False)
class Line:
    """One input line: ``prefix`` tokens, then optionally a list of ``count`` tokens (``vec``); or a
    query line (``switch``: its first token says which tokens follow)."""

    prefix: list
    vec: Scalar | None = None
    count: Count | None = None
    switch: dict | None = None  # key token -> scalars after it (prefix is [key])
    order: list = field(default_factory=list)  # observed (i, strict, ok, evidence) over adjacent prefix pairs


@dataclass(eq=False)
class Repeat:
    """``count`` times the lines of ``body`` (n lines, a grid's rows, T test cases)."""

    count: Count
    body: list
    edges: dict | None = None  # observed graph facts of a [u v ...] body


@dataclass(eq=False)
class Grammar:
    """The inferred structure of a problem's input, with observed and stated ranges."""

    elems: list
    scalars: dict
    examples: list  # example texts the grammar parses
    trees: list  # their parse trees (for mutations)
    counted: set = field(default_factory=set)  # var sids some count refers to
    tlike: set = field(default_factory=set)  # var sids counting test-case blocks
    sum_bounds: dict = field(default_factory=dict)  # var sid -> bound on its sum over the blocks
    edge_cap: dict = field(default_factory=dict)  # edge-count var sid -> (node-count var sid, simple, connected)
    names: dict = field(default_factory=dict)  # var sid -> statement name

    def parses(self, text: str) -> bool:
        """Whether ``text`` has this structure (counts and token kinds; not value ranges)."""
        rows = token_rows(text)
        return parse_seq(self.elems, rows, 0, {}) == len(rows)

    def parse_tree(self, text: str) -> tuple[list, list] | None:
        """``(rows, tree)``: the text's token rows and its parse (per element: a line's row, a
        repeat's list of iterations); None where the text does not have this structure."""
        rows = token_rows(text)
        tree: list = []
        return (rows, tree) if parse_seq(self.elems, rows, 0, {}, None, tree) == len(rows) else None

    def positions(self, text: str) -> dict[tuple[int, int], int] | None:
        """``(row, column) -> scalar id`` of every token of a text this grammar parses (None: it does not)."""
        parsed = self.parse_tree(text)
        if parsed is None:
            return None
        rows, tree = parsed
        where = {id(r): i for i, r in enumerate(rows)}
        out: dict[tuple[int, int], int] = {}

        def seq(elems: list, nodes: list) -> None:
            for e, node in zip(elems, nodes):
                if isinstance(e, Repeat):
                    for it in node:
                        seq(e.body, it)
                    continue
                row = where.get(id(node))
                if row is None or not node:
                    continue
                if e.switch is not None:
                    scalars = [e.prefix[0]] + list(e.switch.get(node[0], []))
                else:
                    scalars = list(e.prefix) + [e.vec] * (len(node) - len(e.prefix)) if e.vec is not None else list(e.prefix)
                for j, sc in enumerate(scalars[:len(node)]):
                    out[(row, j)] = sc.sid

        seq(self.elems, tree)
        return out

    def describe(self) -> str:
        """A compact text of the structure: ``v0 ; rep(v0){v1 ; int*v1}``."""
        label: dict[int, str] = {}

        def cnt(c: Count) -> str:
            if c.const is not None:
                return str(c.const)
            if c.var is None:
                return "?"
            return label.get(c.var, "?") + (f"{c.off:+d}" if c.off else "")

        def sc(s: Scalar) -> str:
            if s.var:
                label[s.sid] = f"v{len(label)}"
                return label[s.sid]
            if s.kind == "str":
                return f"str[{cnt(s.length)}]" if s.length else ("cat" if s.cats else "str")
            return s.kind

        def seq(elems: list) -> str:
            parts = []
            for e in elems:
                if isinstance(e, Repeat):
                    head = f"rep({cnt(e.count)})"
                    parts.append(head + "{" + seq(e.body) + "}")
                elif e.switch is not None:
                    parts.append("switch(" + ",".join(sorted(e.switch)) + ")")
                else:
                    toks = [sc(s) for s in e.prefix]
                    if e.vec is not None:
                        toks.append(f"{sc(e.vec)}*{cnt(e.count)}")
                    parts.append(" ".join(toks) if toks else "<blank>")
            return " ; ".join(parts)

        return seq(self.elems)


# ----------------------------------------------------------------------------- parsing
class Recorder:
    """Collect mode of the parser: what the examples show about every scalar."""

    def __init__(self) -> None:
        self.repeats: list = []
        self.lens: dict[int, set] = {}  # id(line) -> lengths of its list
        self.example = 0  # which example is being read

    def token(self, s: Scalar, tok: str, env: dict) -> None:
        s.n += 1
        s.per_example[self.example] += 1
        c = token_class(tok)
        if len(s.values) < 64 or tok in s.values:
            s.values[tok] += 1
        s.chars.update(tok)
        ln = len(tok)
        s.len_min = ln if s.len_min is None else min(s.len_min, ln)
        s.len_max = ln if s.len_max is None else max(s.len_max, ln)
        if c == "digits" or (c == "int" and len(tok) > 1 and tok[0] == "0"):
            s.n_digits += 1
            if tok[0] == "0":
                s.lead_zero = True
            return
        if c not in ("int", "float"):
            return
        if c == "int":
            s.n_int += 1
            v = int(tok)
        else:
            s.n_float += 1
            v = float(tok)
            if "." in tok and "e" not in tok.lower():
                s.decimals = max(s.decimals, len(tok.split(".")[1]))
        s.vmin = v if s.vmin is None else min(s.vmin, v)
        s.vmax = v if s.vmax is None else max(s.vmax, v)
        if c == "int":
            if s.rel is None:
                s.rel = {k: [0.0, 0, 0] for k, x in env.items() if k != s.sid and x > 0}
            for k in list(s.rel):
                x = env.get(k)
                if x is None or v > x or k == s.sid:
                    del s.rel[k]
                else:
                    r = s.rel[k]
                    r[0] = max(r[0], v / x if x else 1.0)
                    r[1] += v == x
                    r[2] += x

    def vector(self, s: Scalar, toks: list[str]) -> None:
        if s.vprops is None:
            s.vprops = {"perm": True, "distinct": True, "sorted": True, "strict": True, "long": False}
        p = s.vprops
        try:
            vals = [int(t) for t in toks]
        except ValueError:
            p.update(perm=False, distinct=False, sorted=False, strict=False)
            return
        p["total"] = p.get("total", 0) + len(vals)
        if len(vals) >= 4 and p["total"] >= 6:
            p["long"] = True
        if p["perm"] and sorted(vals) != list(range(1, len(vals) + 1)) and sorted(vals) != list(range(len(vals))):
            p["perm"] = False
        if p["distinct"] and len(set(vals)) != len(vals):
            p["distinct"] = False
        if p["sorted"] and any(a > b for a, b in zip(vals, vals[1:])):
            p["sorted"] = False
        if p["strict"] and any(a >= b for a, b in zip(vals, vals[1:])):
            p["strict"] = False

    def pairs(self, line: Line, toks: list[str]) -> None:
        if not line.order:
            line.order = [[i, True, True, 0] for i in range(len(line.prefix) - 1)
                          if line.prefix[i].numeric and line.prefix[i + 1].numeric]
        for o in line.order:
            i = o[0]
            try:
                a, b = float(toks[i]), float(toks[i + 1])
            except (ValueError, IndexError):
                o[2] = False
                continue
            if a > b:
                o[2] = False
            if a >= b:
                o[1] = False
            o[3] += 1


def count_value(c: Count | None, env: dict) -> int | None:
    if c is None:
        return None
    if c.const is not None:
        return c.const
    if c.var is None:
        return None
    v = env.get(c.var)
    return None if v is None else v + c.off


def _fits(s: Scalar, tok: str) -> bool:
    return not s.numeric or (tok.isdigit() and tok.isascii()) or token_class(tok) in NUMERIC


def _all_fit(s: Scalar, toks: list[str]) -> bool:
    """Every token fits ``s`` (:func:`_fits`): a list of plain digit strings at once, any other one by one."""
    if not s.numeric:
        return True
    joined = "".join(toks)
    if joined.isdigit() and joined.isascii() and all(toks):
        return True  # every token a digit string: an int or digits, both numeric
    return all(_fits(s, t) for t in toks)


def _digits_class(tok: str) -> str:
    """:func:`token_class` of a non-empty ASCII digit string."""
    return "digits" if (len(tok) > 1 and tok[0] == "0") or len(tok) > 30 else "int"


def _parse_line(line: Line, toks: list[str], env: dict, rec: Recorder | None) -> bool:
    if line.switch is not None:
        return _parse_switch(line, toks, env, rec)
    p = len(line.prefix)
    if len(toks) < p or not _parse_prefix(line, toks, env, rec):
        return False
    ok = len(toks) == p if line.vec is None else _parse_list(line, toks[p:], env, rec)
    if ok and rec is not None and p >= 2:
        rec.pairs(line, toks)
    return ok


def _parse_switch(line: Line, toks: list[str], env: dict, rec: Recorder | None) -> bool:
    """A query line: its key picks the shape of the rest (collect mode learns keys it has not seen)."""
    if not toks:
        return False
    key, rest = toks[0], toks[1:]
    shape = line.switch.get(key)
    if shape is None:
        if rec is None:
            return True
        shape = line.switch[key] = [Scalar(sid=new_sid(), numeric=token_class(t) in NUMERIC) for t in rest]
    if len(shape) != len(rest) or not all(_fits(s, t) for s, t in zip(shape, rest)):
        return False
    if rec is not None:
        rec.token(line.prefix[0], key, env)
        for s, t in zip(shape, rest):
            rec.token(s, t, env)
    return True


def _parse_prefix(line: Line, toks: list[str], env: dict, rec: Recorder | None) -> bool:
    """The line's leading scalars; binds the variables among them in ``env`` as it goes."""
    for s, tok in zip(line.prefix, toks):
        cls = _digits_class(tok) if tok.isdigit() and tok.isascii() else None  # the common case without the regexes
        if s.numeric and cls is None and token_class(tok) not in NUMERIC:
            return False
        if s.length is not None:
            k = count_value(s.length, env)
            if k is None or len(tok) != k:
                return False
        if rec is not None:
            rec.token(s, tok, env)
        if s.var:
            if (cls or token_class(tok)) == "int":
                env[s.sid] = int(tok)
            else:
                env.pop(s.sid, None)
    return True


def _parse_list(line: Line, rest: list[str], env: dict, rec: Recorder | None) -> bool:
    """The line's list after its prefix: as long as its count says (any length if free)."""
    k = count_value(line.count, env)
    if k is None and not line.count.free:
        return False
    ok = (k is None or len(rest) == k) and _all_fit(line.vec, rest)
    if ok and rec is not None:
        for t in rest:
            rec.token(line.vec, t, env)
        if line.vec.numeric:
            rec.vector(line.vec, rest)
        rec.lens.setdefault(id(line), set()).add(len(rest))
    return ok


def parse_seq(elems: list, lines: list, pos: int, env: dict, rec: Recorder | None = None, out: list | None = None) -> int | None:
    for e in elems:
        if isinstance(e, Line):
            if e.vec is not None and not e.prefix and e.count.var is not None and pos >= len(lines) and count_value(e.count, env) == 0:
                if out is not None:  # an empty list at the end, whose empty line the input leaves out
                    out.append([])
                continue
            if pos >= len(lines) or not _parse_line(e, lines[pos], env, rec):
                return None
            if out is not None:
                out.append(lines[pos])
            pos += 1
        else:
            k = count_value(e.count, env)
            if k is None or k < 0 or k > len(lines) - pos + 1:
                return None  # every block takes a line (but an empty list left out at the very end)
            iters: list | None = [] if out is not None else None
            start = pos
            if len(e.body) == 1 and isinstance(e.body[0], Line):
                pos = _parse_lines(e.body[0], k, lines, pos, env, rec, iters)
                if pos is None:
                    return None
            else:
                for i in range(k):
                    benv = dict(env)
                    sub: list | None = [] if out is not None else None
                    before = pos
                    pos = parse_seq(e.body, lines, pos, benv, rec, sub)
                    if pos is None or (pos == before and (before < len(lines) or i < k - 1)):
                        return None
                    if iters is not None:
                        iters.append(sub)
            if rec is not None:
                rec.repeats.append((e, lines[start:pos], dict(env), k))
            if out is not None:
                out.append(iters)
    return pos


def _parse_lines(e: Line, k: int, lines: list, pos: int, env: dict, rec: Recorder | None, iters: list | None) -> int | None:
    """:func:`parse_seq`'s ``k`` blocks of a repeat whose body is the one line ``e``, without a call
    per block (nor a copy of ``env`` where the line binds no variable: nothing else writes it)."""
    n = len(lines)
    trailing = e.vec is not None and not e.prefix and e.count.var is not None  # an empty list the input may leave out at the end
    binds = any(s.var for s in e.prefix)
    plain = rec is None and e.switch is None  # _parse_line's work done here
    p = len(e.prefix)
    for i in range(k):
        benv = dict(env) if binds else env
        if trailing and pos >= n and count_value(e.count, benv) == 0:
            if i < k - 1:
                return None  # a block that takes no line before the last
            if iters is not None:
                iters.append([[]])
            continue
        if pos >= n:
            return None
        toks = lines[pos]
        if not plain:
            if not _parse_line(e, toks, benv, rec):
                return None
        elif len(toks) < p or not _parse_prefix(e, toks, benv, None) or not (
                len(toks) == p if e.vec is None else _parse_list(e, toks[p:], benv, None)):
            return None
        if iters is not None:
            iters.append([toks])
        pos += 1
    return pos


_SIDS = itertools.count(1)


def new_sid() -> int:
    return next(_SIDS)



def all_elements(elems: list):
    for e in elems:
        if isinstance(e, Repeat):
            yield e
            yield from all_elements(e.body)
        else:
            yield e


FORM_CLASSES = {"A": string.ascii_uppercase, "a": string.ascii_lowercase, "9": string.digits}  # a written form's letters


def written_form(token: str) -> str:
    """A token's written form: each capital letter ``A``, small letter ``a``, digit ``9``
    (:data:`FORM_CLASSES`), the rest as it is."""
    return "".join("A" if c.isupper() else "a" if c.islower() else "9" if c.isdigit() else c for c in token)


def one_form(tokens: list[str]) -> str | None:
    """The one form every example's token of a string slot is written in ("XXX->YYY": ``AAA->AAA``,
    a time ``99:99``), where it mixes letters or digits with other characters and two or more
    tokens show it; None elsewhere (a grid row of ``#`` and ``.`` has no form; a word's letters vary).
    Where a form binds an input the statement would allow ("1+2" and "3+4", then "12+345"), it costs
    the tests that input; where it is the statement's ("in form XXX->YYY"), a correct program that
    trusts it is not failed on ``OO->DCOA``."""
    forms = {written_form(t) for t in tokens}
    if len(tokens) < 2 or len(forms) != 1:
        return None
    form = forms.pop()
    return form if any(c in "Aa9" for c in form) and any(c not in "Aa9" for c in form) else None
