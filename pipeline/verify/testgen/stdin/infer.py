"""Inference of a stdin grammar from a problem's example inputs (:func:`infer`).

Competitive-programming problems (TACO, CodeContests) are often judged only by the samples their
statements print. Following the generators of HardTests / CodeContests+, but *inferred* rather
than written by a model, :func:`infer` reads the example inputs together: the search
(:mod:`pipeline.verify.testgen.stdin.search`) finds the structure that explains all of them, the
examples are parsed again to collect what they show, and each token position gets its kind and
value range: the statement's constraints (:mod:`pipeline.verify.testgen.stdin.statement`) mapped to the
grammar's variables in the order the input section names them, kept only where the examples lie
inside them; otherwise the examples' range, extended (x2, ``lo >= 0`` when the examples are).
"The sum of n over all test cases does not exceed ..." bounds the blocks together. Relations seen
in every example are kept: a value never above an earlier integer (``1 <= u, v <= n``), ordered
pairs (``l <= r``), permutations, distinct or sorted arrays, trees (``n - 1`` edges that connect
``1..n``), simple graphs.
"""

from __future__ import annotations

import math
import re
import string

from pipeline.verify.testgen.constraints.layout import sum_bounds as _sum_bounds
from pipeline.verify.testgen.constraints.words import mentions, says
from pipeline.verify.testgen.stdin.grammar import MAX_BYTES, Count, Grammar, Line, Recorder, Repeat, Scalar, all_elements, one_form, parse_seq, token_rows
from pipeline.verify.testgen.stdin.search import NoStructure, search
from pipeline.verify.testgen.stdin.statement import count_hints, layout_names, stated_alphabet, stated_bounds

__all__ = ["NoStructure", "infer"]


def _line_scalars(line: Line) -> list[Scalar]:
    out = list(line.prefix)
    if line.vec is not None:
        out.append(line.vec)
    if line.switch is not None:
        for key in sorted(line.switch):
            out.extend(line.switch[key])
    return out


def _round_cap(x: float) -> bool:
    """A value that looks like a stated bound itself (10^k, 2·10^5, 10^9+7)."""
    x = abs(x)
    if x < 100:
        return False
    s = str(int(x))
    return bool(re.fullmatch(r"[1-9]0+", s) or re.fullmatch(r"[1-9]0+[1-9]", s) or x in (2**31 - 1, 2**63 - 1, 2**32, 2**31))


def _solo_sids(elems: list) -> set[int]:
    """Scalars that are alone on their line (no vector, no switch)."""
    return {e.prefix[0].sid for e in all_elements(elems) if isinstance(e, Line) and len(e.prefix) == 1 and e.vec is None and e.switch is None}


def _collect_scalars(g: Grammar) -> dict[int, Scalar]:
    """Every scalar by id; marks the variables that count something (lines, repeats, lengths)."""
    scalars: dict[int, Scalar] = {}
    for e in all_elements(g.elems):
        if isinstance(e, Repeat):
            if e.count.var is not None:
                g.counted.add(e.count.var)
            continue
        for s in _line_scalars(e):
            scalars[s.sid] = s
            if s.length is not None and s.length.var is not None:
                g.counted.add(s.length.var)
        if e.count is not None and e.count.var is not None:
            g.counted.add(e.count.var)
    return scalars


def _set_unseen(s: Scalar) -> None:
    """A position no example reaches (an empty vector everywhere): the smallest shape."""
    s.kind = "int" if s.numeric else "str"
    s.vmin = s.vmax = 1 if s.numeric else None
    s.lo = s.hi = s.small_hi = 1
    s.alphabet = "ab"
    s.len_min = s.len_max = s.len_min or 1


def _looks_binary(s: Scalar, g: Grammar, whole_line: set[int]) -> bool:
    """"0110": bits, not a number (long enough, and not a count)."""
    return (s.sid not in g.counted and all(set(v) <= {"0", "1"} for v in s.values)
            and max(len(v) for v in s.values) >= (4 if s.sid in whole_line else 8))


def _set_kind(s: Scalar, g: Grammar, whole_line: set[int], named: dict) -> None:
    if s.n == 0:
        _set_unseen(s)
        return
    binary = _looks_binary(s, g, whole_line)
    stated_string = named.get(s.sid, ("", False, ""))[2] == "str" and s.sid not in g.counted  # "the string s": 1231
    if s.n_int == s.n and s.length is None and not binary and not stated_string:
        s.kind = "int"
    elif s.n_int + s.n_float == s.n and s.n_float:
        s.kind = "float"
    else:
        s.kind = "str"


def _apply_stated_bounds(scalars: dict[int, Scalar], bounds: dict) -> None:
    for sid, b in bounds.items():
        s = scalars[sid]
        s.bounded = True
        s.lo = b.lo if b.lo is not None else None
        s.hi = s.stated_hi = b.hi if b.hi is not None else None


def _rel_var(s: Scalar, scalars: dict[int, Scalar]) -> int | None:
    """The earlier integer variable ``s`` is never above, if any: the best-supported one."""
    best = None
    for order, (k, (ratio, eq, total)) in enumerate(s.rel.items()):
        if k not in scalars or scalars[k].kind != "int" or (ratio < 0.5 and not eq) or s.n < 2:
            continue
        r = scalars[k]
        if s.stated_hi is not None and r.hi is not None and r.hi < s.stated_hi:
            continue  # the statement gives this value a wider range than that variable's: chance
        key = (eq > 0, ratio, -total, order)  # ties: the tightest, then the variable read last (n before T)
        if best is None or key > best[1]:
            best = (k, key)
    return None if best is None else best[0]


def _is_test_block(e) -> bool:
    """A top-level repeat of several lines (or of vectors, or nested repeats): one test case each."""
    return isinstance(e, Repeat) and e.count.var is not None and (len(e.body) > 1 or any(isinstance(x, Repeat) or x.vec is not None for x in e.body))


def _bound_sums(g: Grammar, body: list, sums: dict[str, int]) -> None:
    """Variables of a test block whose sum over the tests the statement bounds (name, or its case)."""
    for x in all_elements(body):
        if not isinstance(x, Line):
            continue
        for s in x.prefix:
            name = g.names.get(s.sid)
            if not s.var or name is None:
                continue
            if name in sums:
                g.sum_bounds[s.sid] = sums[name]
            elif name.lower() in {k.lower() for k in sums}:
                g.sum_bounds[s.sid] = next(v for k, v in sums.items() if k.lower() == name.lower())


def _mark_tests(g: Grammar, statement: str) -> None:
    sums = _sum_bounds(statement) if statement else {}
    for e in g.elems:
        if _is_test_block(e):
            g.tlike.add(e.count.var)
            _bound_sums(g, e.body, sums)


def _floors_count(cnt: Count | None, lengths: list, scalars: dict[int, Scalar]) -> bool:
    return cnt is not None and cnt.var in scalars and (cnt.off < 0 or cnt in lengths) and scalars[cnt.var].kind == "int"


def _floor_counts(g: Grammar, scalars: dict[int, Scalar]) -> None:
    """A count of n - 1 needs n >= 1; a string's length, n >= 1."""
    for e in all_elements(g.elems):
        lengths = [p.length for p in e.prefix if p.length is not None] if isinstance(e, Line) else []
        for cnt in [e.count] + lengths:
            if _floors_count(cnt, lengths, scalars):
                v = scalars[cnt.var]
                v.lo = max(v.lo, 1 - cnt.off if cnt in lengths else -cnt.off)
                v.hi = max(v.hi, v.lo)
                v.small_hi = max(v.small_hi, v.lo)


def _tests_nonzero(g: Grammar, scalars: dict[int, Scalar]) -> None:
    """Zero test cases is no test."""
    for sid in g.tlike:
        s = scalars.get(sid)
        if s is not None and s.kind == "int" and s.hi >= 1:
            s.lo = max(s.lo, 1)
            s.small_hi = max(s.small_hi, s.lo)


def _finish(g: Grammar, statement: str, rec: Recorder) -> None:
    scalars = _collect_scalars(g)
    g.scalars = scalars
    whole_line = _solo_sids(g.elems)
    named = layout_names(g, statement) if statement else {}
    for s in scalars.values():  # kinds and observed ranges
        _set_kind(s, g, whole_line, named)
    _apply_stated_bounds(scalars, stated_bounds(g, statement, named))
    for s in scalars.values():
        if s.kind in ("int", "float"):
            _numeric_range(s, s.sid in g.counted)
        else:
            _string_shape(s, statement, g)
    for s in scalars.values():  # relations: a value never above an earlier variable
        if s.kind != "int" or not s.rel:
            continue
        best = _rel_var(s, scalars)
        if best is not None:
            s.rel_var = best
    _mark_tests(g, statement)
    _floor_counts(g, scalars)
    _tests_nonzero(g, scalars)
    _edges(g, rec)


def _numeric_range(s: Scalar, counted: bool) -> None:
    omin, omax = s.vmin, s.vmax
    if s.kind == "int":
        omin, omax = int(omin), int(omax)
    lo = s.lo if s.bounded and s.lo is not None else None
    hi = s.hi if s.bounded and s.hi is not None else None
    if lo is None:
        if omin >= 1:
            lo = 1 if (counted or omin <= 2) else min(omin, max(1, omin // 2))
        elif omin >= 0:
            lo = 0
        else:
            lo = omin if _round_cap(omin) else omin * 2
    if hi is None:
        if omax <= 0:
            hi = 0 if omin < 0 else omax + 2
        elif _round_cap(omax) or omax >= 10**5:
            hi = omax
        else:
            hi = max(omax * 2, omax + 2)
    if s.kind == "int":
        lo = math.ceil(lo)
        hi = math.floor(hi)
        if counted:
            hi = min(hi, 10**6)
            lo = max(lo, 0)
    if hi < lo:
        lo, hi = min(lo, omin), max(hi, omax)
    s.lo, s.hi = lo, hi
    if counted:
        s.small_hi = min(hi, max(omax, lo + 9))
    else:
        s.small_hi = min(hi, max(omax * 2 if omax > 0 else omax, lo + 10))


_STRING_NAMES = ("s", "S", "t", "T", "str", "word", "a", "b", "x")


def _statement_alphabet(statement: str) -> str | None:
    """The alphabet the statement gives the first usual string name it mentions that has one."""
    stated = None
    for name in _STRING_NAMES:
        if stated:
            break
        if mentions(statement, name):
            stated = stated_alphabet(statement, name)
    return stated


def _alphabet(chars: list[str], statement: str) -> str:
    """The statement's alphabet when the examples fit it; else a standard one the examples suggest
    (lowercase, uppercase, digits); else the characters seen."""
    lower = all(c in string.ascii_lowercase for c in chars)
    upper = all(c in string.ascii_uppercase for c in chars)
    digits = all(c in string.digits for c in chars)
    stated = _statement_alphabet(statement)
    if stated and set(chars) <= set(stated):
        return stated
    if lower and (len(chars) >= 5 or says(statement, "lowercase")):
        return string.ascii_lowercase
    if upper and (len(chars) >= 5 or says(statement, "uppercase")):
        return string.ascii_uppercase
    if digits and len(chars) >= 4:
        return string.digits
    return "".join(chars) or "ab"


def _is_category(s: Scalar, distinct: int) -> bool:
    """A few short values, each seen repeatedly: a choice among words (``YES``/``NO``, ``L``/``R``)."""
    return s.length is None and distinct <= 6 and s.n >= 2 * distinct and s.n >= 3 and not (s.len_max and s.len_max > 12 and distinct > 2)


def _fixed_width(s: Scalar, distinct: int) -> bool:
    """Every line of every example this long: the rows of a schedule."""
    repeated = sum(1 for c in s.per_example.values() if c >= 2)
    return s.length is None and s.n >= 4 and s.len_min == s.len_max and (s.len_min or 0) >= 2 and distinct >= 2 and repeated >= 2


def _free_length(s: Scalar, distinct: int) -> None:
    """Length range of a string no count gives: the examples' range, extended."""
    lo, hi = s.len_min or 1, s.len_max or 1
    if lo != hi or distinct > 1:
        lo = max(1, min(lo, 1 if hi > 3 else lo))
        hi = hi if hi >= 1000 else max(hi * 2, hi + 2)
    s.lo, s.hi = lo, min(hi, MAX_BYTES // 2)
    s.small_hi = min(s.hi, max(s.len_max or 1, lo + 5))


def _string_shape(s: Scalar, statement: str, g: Grammar) -> None:
    chars = sorted(s.chars)
    vals = list(s.values)
    distinct = len(s.values)
    if _is_category(s, distinct):
        s.cats = sorted(vals)
    if vals and all(re.fullmatch(r"[+-]?\d+", v) for v in vals):  # long numbers, digit strings: no sign inside
        s.signed = any(v.startswith("-") for v in vals)
        chars = sorted(set(chars) - {"+", "-"})
    s.alphabet = _alphabet(chars, statement)
    s.kind = "str"
    s.form = None if s.cats else one_form(list(s.values.elements()))
    if _fixed_width(s, distinct):
        s.fixed = s.lo = s.hi = s.small_hi = s.len_min
        return
    if s.length is None:
        _free_length(s, distinct)


def _edges(g: Grammar, rec: Recorder) -> None:
    """Edge lists: ``[u v w?]`` lines repeated, both ends bounded by one node-count variable."""
    facts: dict[int, dict] = {}
    for rep, rows, env, k in rec.repeats:
        if len(rep.body) != 1 or not isinstance(rep.body[0], Line):
            continue
        line = rep.body[0]
        if line.vec is not None or line.switch is not None or len(line.prefix) < 2:
            continue
        u, v = line.prefix[0], line.prefix[1]
        # both ends bounded by one node count; or one end, where the other never reaches it in an
        # example (a tree rooted at 1: "1 2", "1 3", "1 4" under n = 4)
        nv = u.rel_var if u.rel_var is not None else v.rel_var
        if u.kind != "int" or v.kind != "int" or nv is None or None not in (u.rel_var, v.rel_var) and u.rel_var != v.rel_var:
            continue
        n = env.get(nv)
        if n is None:
            continue
        f = facts.setdefault(id(rep), {"rep": rep, "nv": nv, "tree": True, "simple": True, "connected": True, "seen": 0})
        edges = [(int(r[0]), int(r[1])) for r in rows]
        base = min(u.vmin, v.vmin)
        if n > 10 * len(edges) + 10:  # far more nodes than edges: no graph on them to speak of
            f["tree"] = f["connected"] = False
            continue
        parent = {}

        def find(x):
            while parent.get(x, x) != x:
                x = parent[x]
            return x

        for a, b in edges:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
        roots = {find(x) for x in range(base, base + n)}
        connected = len(roots) == 1
        pairs = [tuple(sorted(e)) for e in edges]
        simple = all(a != b for a, b in edges) and len(set(pairs)) == len(pairs)
        f["tree"] &= connected and len(edges) == n - 1
        f["connected"] &= connected
        f["simple"] &= simple
        f["seen"] += 1 if len(edges) >= 2 else 0
    for f in facts.values():
        if not f["seen"]:
            continue
        rep = f["rep"]
        rep.edges = {"nv": f["nv"], "tree": f["tree"], "simple": f["simple"], "connected": f["connected"],
                     "base": int(min(rep.body[0].prefix[0].vmin, rep.body[0].prefix[1].vmin)) if rep.body[0].prefix[0].vmin is not None else 1}
        if not f["tree"] and rep.count.var is not None and rep.count.off == 0:
            g.edge_cap[rep.count.var] = (f["nv"], f["simple"], f["connected"])



def _unlink_constants(elems: list, rec: Recorder, hints: dict) -> None:
    """Counts inferred inside a block from one block alone, that turn out 1 or 2 in every example and
    block, are read as constants when their variable shares its line: the link was a coincidence
    (``n m`` with ``n = 2`` everywhere, then a pair of values)."""
    nested = {id(x) for e in elems if isinstance(e, Repeat) for x in all_elements(e.body)}
    solo = _solo_sids(elems)
    for e in all_elements(elems):
        if hints.get("numbers"):
            break
        if (isinstance(e, Line) and e.vec is not None and e.count.var is not None and id(e) in nested and e.count.var not in solo
                and e.count.var not in {p.sid for p in e.prefix}):
            lens = rec.lens.get(id(e), set())
            if len(lens) == 1 and min(lens) < 3:
                e.count = Count(const=min(lens))
    ks: dict[int, set] = {}
    for rep, _, _, k in rec.repeats:
        ks.setdefault(id(rep), set()).add(k)
    for e in all_elements(elems):
        if hints.get("lines"):
            break
        if isinstance(e, Repeat) and id(e) in nested and e.count.var is not None and e.count.var not in solo:
            seen = ks.get(id(e), set())
            if len(seen) == 1 and 0 < min(seen) < 3:
                e.count = Count(const=min(seen))


def _reject_prose(texts: list[str]) -> None:
    """Prose is no grammar: a row of words with sentence punctuation."""
    for t in texts:
        for row in token_rows(t)[:50]:
            words = [x for x in row if re.search(r"[A-Za-z]{2}", x)]
            if len(words) >= 3 and any(re.search(r"[A-Za-z][,.!?;:\"']|^[\"'(]", x) for x in words):
                raise NoStructure("free text input")


def _reject_free_lines(elems: list) -> None:
    """Lines whose length no count explains: one numeric such line is fine, text or two are not."""
    free = [e for e in all_elements(elems) if isinstance(e, Line) and e.vec is not None and e.count.free]
    if any(not e.vec.numeric for e in free):
        raise NoStructure("free text input")
    if len(free) >= 2:
        raise NoStructure("examples disagree on line structure: no counts explain the line lengths")


def _parse_examples(g: Grammar, texts: list[str], rec: Recorder) -> None:
    """Parse every example again, recording what it shows; keep those the structure reads whole."""
    for i, t in enumerate(texts):
        rec.example = i
        rows = token_rows(t)
        tree: list = []
        end = parse_seq(g.elems, rows, 0, {}, rec, tree)
        if end == len(rows):
            g.examples.append(t)
            g.trees.append(tree)


def _sort_switches(elems: list) -> None:
    for e in all_elements(elems):
        if isinstance(e, Line) and e.switch is not None:
            e.switch = {k: e.switch[k] for k in sorted(e.switch)}


def infer(examples: list[str], statement: str = "") -> Grammar:
    """The structure shared by all ``examples`` (input texts), with ranges from the ``statement``."""
    texts = [e for e in (examples or []) if isinstance(e, str)]
    if not texts:
        raise NoStructure("no examples")
    if all(not t.strip() for t in texts):
        raise NoStructure("empty example input")
    _reject_prose(texts)
    hints = count_hints(statement or "")
    elems = search(texts, says(statement, "test_cases"), hints)
    _reject_free_lines(elems)
    g = Grammar(elems=elems, scalars={}, examples=[], trees=[])
    rec = Recorder()
    _parse_examples(g, texts, rec)
    if not g.examples:
        raise NoStructure("examples disagree on line structure")
    _sort_switches(elems)
    _unlink_constants(elems, rec, hints)
    _finish(g, statement or "", rec)
    return g
