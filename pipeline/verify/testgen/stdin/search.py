"""The search for a grammar's shape: the lines, counts and repeated blocks that parse every example.

Depth-first over the candidate elements at each parse state, within node budgets; the
best-scoring grammar wins (fewer lines and repeats, counts tied to variables, no guessed lengths).
Kinds and ranges come afterwards (:mod:`pipeline.verify.testgen.stdin.infer`). When no structure explains
the examples, :class:`NoStructure` says why rather than guessing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from pipeline.verify.testgen.stdin.grammar import NUMERIC, Count, Grammar, Line, Repeat, Scalar, all_elements, new_sid, parse_seq, token_class, token_rows, written_form

__all__ = ["NoStructure", "search"]


MAX_BODY = 8  # lines (elements) in a multi-line repeated block
SEARCH_NODES = 12_000  # inference search budget, per search order
SEARCH_SECONDS = 3.0  # per search order (up to three orders): a safety net; the node budgets decide
SETTLE_NODES = 1500  # after a first solution, search this much further for a better one
_MAX_SOLUTIONS = 8
BODY_NODES = 400  # search budget of one multi-line block hypothesis
EXAMPLE_LINES = 3000  # larger examples are left out of inference (they are still parsed afterwards)
EXAMPLE_CHARS = 200_000


class NoStructure(Exception):
    """Why no generator could be inferred (the message is the reason, recorded per problem)."""


class _Budget(Exception):
    pass


class _SubBudget(Exception):
    pass


@dataclass
class _Inst:
    lines: list
    pos: int
    env: dict


class _LineFit:
    """The rows of one grammar line across the instances, and the candidate shapes they allow, each
    with a rank (lower first): :meth:`_Infer.line_cands` concatenates them."""

    def __init__(self, rows: list[list[str]], envs: list[dict], recent: list[int], local_vars: set, partial: bool) -> None:
        self.rows, self.envs, self.recent, self.local_vars, self.partial = rows, envs, recent, local_vars, partial
        self.cs = [len(r) for r in rows]
        self.classes = [[token_class(t) for t in r] for r in rows]

    def refs(self, values: list[int], offs: tuple = (0, -1)) -> list[Count]:
        """Counts tied to a recent variable (or it minus one) that equal ``values`` in every instance."""
        out = []
        weak = len(set(values)) == 1 and values[0] < 3 and offs != (0,)
        for off in offs:  # n before n - 1
            for v in self.recent:
                if weak and (not self.partial or v not in self.local_vars or len(self.rows) > 1):
                    continue  # a count of 0, 1 or 2 everywhere is as likely a coincidence as a link
                if all(env.get(v) is not None and env[v] + off == x for env, x in zip(self.envs, values)):
                    out.append(Count(var=v, off=off))
        return out

    def homogeneous(self, start: int) -> bool | None:
        """Whether the tokens from ``start`` on are all numeric (True) or all not (False); None if mixed."""
        kinds = {c in NUMERIC for cl in self.classes for c in cl[start:]}
        return None if len(kinds) > 1 else (kinds.pop() if kinds else True)

    def one_string(self) -> list[tuple[float, Line]]:
        """A line that is one string token, its length maybe tied to a variable."""
        cands: list[tuple[float, Line]] = []
        if not all(c == 1 for c in self.cs):
            return cands
        toks = [r[0] for r in self.rows]
        cl = [c[0] for c in self.classes]
        lens = [len(t) for t in toks]
        stringy = any(c in ("str", "digits") for c in cl)
        binary = all(len(t) >= 2 and set(t) <= {"0", "1"} for t in toks)
        len_refs = self.refs(lens, (0,)) if (stringy or binary or max(lens) >= 4) else []
        if stringy or (len_refs and all(c == "int" for c in cl)):
            for r in len_refs:
                cands.append((0, Line(prefix=[Scalar(sid=new_sid(), numeric=False, length=r)])))
            if stringy:
                cands.append((1, Line(prefix=[Scalar(sid=new_sid(), numeric=False)])))
        return cands

    def counted(self, hom: bool | None) -> list[tuple[float, Line]]:
        """n numbers: counted by an earlier variable."""
        if hom is None or not any(self.cs):
            return []
        return [(0, Line(prefix=[], vec=Scalar(sid=new_sid(), numeric=hom), count=r)) for r in self.refs(self.cs)]

    def inline_counted(self) -> list[tuple[float, Line]]:
        """k a_1 .. a_k on one line (k first or second)."""
        cands: list[tuple[float, Line]] = []
        cs, classes = self.cs, self.classes
        for p in (1, 2):
            if min(cs) < p:
                continue
            h = self.homogeneous(p)
            if h is None:
                continue
            if not self.partial and len({c - p for c in cs}) == 1 and cs[0] - p < 3:
                continue  # "1 x" everywhere: as likely two fixed values as a count and its list
            for j in range(p):
                if not all(cl[j] == "int" for cl in classes):
                    continue
                if all(int(r[j]) == c - p for r, c in zip(self.rows, cs)):
                    prefix = [Scalar(sid=new_sid(), numeric=all(cl[i] in NUMERIC for cl in classes), var=all(cl[i] == "int" for cl in classes))
                              for i in range(p)]
                    cands.append((0.1, Line(prefix=prefix, vec=Scalar(sid=new_sid(), numeric=h), count=Count(var=prefix[j].sid))))
        return cands

    def fixed(self, hom: bool | None, named_widths: set) -> list[tuple[float, Line]]:
        """The same number of tokens everywhere: one scalar each, or a list of constant length when long."""
        cs, classes = self.cs, self.classes
        if len(set(cs)) != 1:
            return []
        numeric_pos = [all(cl[i] in NUMERIC for cl in classes) for i in range(cs[0])]
        c = cs[0]
        if c <= 4 or hom is None or c in named_widths:
            prefix = [Scalar(sid=new_sid(), numeric=numeric_pos[i], var=all(cl[i] == "int" for cl in classes)) for i in range(c)]
            return [(0.5, Line(prefix=prefix))]
        return [(0.5, Line(prefix=[], vec=Scalar(sid=new_sid(), numeric=hom), count=Count(const=c)))]

    def query(self) -> list[tuple[float, Line]]:
        """Query lines: the first token says how many follow (each key one fixed shape)."""
        cs, classes = self.cs, self.classes
        if len(set(cs)) <= 1 or min(cs) < 1:
            return []
        shapes: dict[str, int] = {}
        for r in self.rows:
            if shapes.setdefault(r[0], len(r) - 1) != len(r) - 1:
                return []
        if len(shapes) > 8:
            return []
        sw: dict[str, list] = {}
        for key, m in shapes.items():
            sub = [r[1:] for r in self.rows if r[0] == key]
            sw[key] = [Scalar(sid=new_sid(), numeric=all(token_class(x[i]) in NUMERIC for x in sub)) for i in range(m)]
        key_numeric = all(cl[0] in NUMERIC for cl in classes)
        if key_numeric or not any(cl[0] in NUMERIC for cl in classes):  # keys both numbers and words: no query format
            return [(0.7, Line(prefix=[Scalar(sid=new_sid(), numeric=key_numeric)], switch=sw))]
        return []

    def free_list(self, hom: bool | None) -> list[tuple[float, Line]]:
        """A list of free length (a guess, ranked last)."""
        cs = self.cs
        if hom is not None and any(cs) and not all(c == 1 for c in cs) and (self.partial or len(set(cs)) > 1):
            return [(0.9, Line(prefix=[], vec=Scalar(sid=new_sid(), numeric=hom), count=Count()))]
        return []


class _Infer:
    """The search for a grammar: candidate elements at a parse state, depth-first over them."""

    def __init__(self, lines_first: int = 0, hints: dict | None = None) -> None:
        self.lines_first = lines_first
        self.minus_first = bool((hints or {}).get("lines_minus"))
        self.named_widths = set((hints or {}).get("widths", ()))  # lines the statement names token by token
        self.nodes = 0
        self.started = time.monotonic()
        self.deadline = self.started + SEARCH_SECONDS
        self.dead: set = set()
        self.solo: set = set()  # variables alone on their line (test-case counts)
        self.limits: list[int] = []

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > SEARCH_NODES or time.monotonic() > self.deadline:
            raise _Budget
        if self.limits and self.nodes > self.limits[-1]:
            raise _SubBudget

    # -- one line, seen in every instance
    def line_cands(self, rows: list[list[str]], envs: list[dict], scope: list[int], partial: bool = False, local: int = 0) -> list[Line]:
        """Shapes of one grammar line that fit ``rows``; ``partial``: more rows of it may come later."""
        local_vars = set(scope[local:])
        fit = _LineFit(rows, envs, self.order_vars(scope, local_vars)[:8], local_vars, partial)
        hom = fit.homogeneous(0)
        # the order of these calls is the order of the candidates' ids (new_sid) and of ties in the sort
        cands = (fit.one_string() + fit.counted(hom) + fit.inline_counted() + fit.fixed(hom, self.named_widths)
                 + fit.query() + fit.free_list(hom))
        cands.sort(key=lambda x: x[0])
        return [c for _, c in cands]

    @staticmethod
    def order_vars(scope: list[int], local_vars: set) -> list[int]:
        """Which variable a count is tried against first when several have the value: a block's own
        before an outer one, the latest first (``n m``, then m edges)."""
        idx = {v: i for i, v in enumerate(scope)}
        return sorted(scope, key=lambda v: (v not in local_vars, -idx[v]))

    def bind(self, line: Line, insts: list[_Inst]) -> list[_Inst] | None:
        out = []
        for inst in insts:
            env = dict(inst.env)
            pos = parse_seq([line], inst.lines, inst.pos, env)
            if pos is None:
                return None
            out.append(_Inst(inst.lines, pos, env))
        return out

    def advance(self, rep: Repeat, insts: list[_Inst]) -> list[_Inst] | None:
        self.tick()
        out = []
        for inst in insts:
            pos = parse_seq([rep], inst.lines, inst.pos, dict(inst.env))
            if pos is None:
                return None
            out.append(_Inst(inst.lines, pos, inst.env))
        return out

    def elem_cands(self, insts: list[_Inst], scope: list[int], depth: int, local: int, top: bool):
        self.tick()
        later: list = []
        if depth == 0:  # top level: repeats that explain everything left first
            reps = self.repeat_cands(insts, scope, depth, local, top)
            reps.sort(key=lambda r: (not all(i.pos == len(i.lines) for i in r[1]), _score([r[0]])))
            for rep, new in reps:
                if self.lines_first and not all(i.pos == len(i.lines) for i in new) and (self.lines_first == 2 or _guessy([rep])):
                    later.append((rep, new))  # free lengths or query lines: after the single lines
                else:
                    yield rep, new, scope
        live = [i for i in insts if i.pos < len(i.lines)]
        if live:
            rows = [i.lines[i.pos] for i in live]
            for line in self.line_cands(rows, [i.env for i in live], scope, partial=not top, local=local):
                if len(live) < len(insts) and (line.prefix or line.vec is None or line.count.var is None):
                    continue  # some examples ended: only a list that is empty there (its line left out) fits
                new = self.bind(line, insts)
                if new is None:
                    continue
                vars_ = [s.sid for s in line.prefix if s.var]
                if len(line.prefix) == 1 and line.vec is None and vars_:
                    self.solo.add(vars_[0])
                yield line, new, scope + vars_
        if depth > 0:  # inside a block: lines first, then repeated single lines
            later = self.repeat_cands(insts, scope, depth, local, False)
            later.sort(key=lambda r: (_score([r[0]]), not (self.minus_first and r[0].count.off == -1)))
        for rep, new in later:
            yield rep, new, scope

    def repeat_cands(self, insts: list[_Inst], scope: list[int], depth: int, local: int, top: bool) -> list:
        """Blocks repeated a variable's times (or it minus one): one line each, then (top level only)
        several lines each."""
        out: list = []
        order = self.order_vars(scope[local:], set(scope[local:]))[:6]
        for off, v in [(off, v) for off in (0, -1) for v in order]:  # n before n - 1
            ks = self._block_counts(insts, v, off, depth)
            if ks is None:
                continue
            # one line per block: infer it from every block at once
            rows, envs = [], []
            for inst, k in zip(insts, ks):
                rows += inst.lines[inst.pos:inst.pos + k]
                envs += [inst.env] * k
            for line in self.line_cands(rows, envs, scope, partial=depth > 0, local=local):
                rep = Repeat(Count(var=v, off=off), [line])
                new = self.advance(rep, insts)
                if new is not None:
                    out.append((rep, new))
            # several lines per block (test cases; not nested): infer the block from the first blocks, check it on all
            if depth > 0 or off:
                continue
            self._multi_line_blocks(insts, ks, v, scope, depth, top, out)
        return out

    def _block_counts(self, insts: list[_Inst], v: int, off: int, depth: int) -> list[int] | None:
        """How many blocks each instance would have (``v`` + ``off``), or None where that cannot be."""
        ks = [inst.env.get(v) for inst in insts]
        if any(k is None for k in ks):
            return None
        ks = [k + off for k in ks]
        if any(k < 0 for k in ks) or not any(ks) or any(k > len(i.lines) - i.pos for k, i in zip(ks, insts)):
            return None
        # one block everywhere: only a test-case count alone on its line, with blocks to the end
        if depth == 0 and len(set(ks)) == 1 and ks[0] == 1 and v not in self.solo:
            return None
        return ks

    def _multi_line_blocks(self, insts: list[_Inst], ks: list[int], v: int, scope: list[int], depth: int, top: bool,
                           out: list) -> None:
        """Adds to ``out`` the blocks of several lines repeated ``v`` times that fit every instance, shortest
        first, within their own node budget (inline rather than split further: the search recurses through here)."""
        first = [_Inst(i.lines, i.pos, i.env) for i, k in zip(insts, ks) if k >= 1]
        room = min(len(i.lines) - i.pos - (k - 1) for i, k in zip(insts, ks) if k >= 1)
        if room < 2:
            return
        self.limits.append(self.nodes + BODY_NODES)
        found: float = 0  # carried over lengths: partial credits (0.25) add up
        try:
            for length in range(2, min(room, MAX_BODY) + 1):  # shortest blocks first
                for body, _ in self.seq(first, scope, depth + 1, open_end=True, min_len=length, max_len=length, local=len(scope)):
                    if not isinstance(body[0], Line):
                        continue
                    rep = Repeat(Count(var=v, off=0), body)
                    new = self.advance(rep, insts)
                    if new is not None:
                        out.append((rep, new))
                        if top and not all(i.pos == len(i.lines) for i in new):
                            continue  # top level: keep looking for blocks that explain the whole input
                        found += 1 if _score(body) < length else 0.25  # no free lengths, no query lines
                        if found >= 2:
                            break
                if found >= 1:
                    break
        except _SubBudget:
            pass
        finally:
            self.limits.pop()

    def seq(self, insts: list[_Inst], scope: list[int], depth: int, open_end: bool, min_len: int = 1, n: int = 0,
            max_len: int = MAX_BODY, local: int = 0):
        done = [i.pos >= len(i.lines) for i in insts]
        if not open_end:
            if all(done):
                yield [], insts
                return
            key = (depth, tuple(i.pos for i in insts), tuple(tuple(i.env.get(v) for v in scope[-8:]) for i in insts))
            if key in self.dead:
                return
        else:
            if n >= min_len:
                yield [], insts
            if any(done) or n >= min(MAX_BODY, max_len):
                return
        found = False
        for elem, new, sc in self.elem_cands(insts, scope, depth, local, top=not open_end):
            for rest, end in self.seq(new, sc, depth, open_end, min_len, n + 1, max_len, local):
                found = True
                yield [elem] + rest, end
        if not open_end and not found:
            self.dead.add(key)


def _score(elems: list) -> float:
    """Smaller is better: fewer lines and repeats, counts tied to variables, no guessed lengths."""
    s = 0.0
    for e in elems:
        if isinstance(e, Repeat):
            s += 1 + _score(e.body)
            continue
        s += 1
        if e.switch is not None:
            s += 1 + 0.25 * len(e.switch)
        if e.vec is not None:
            if e.count.var is not None:
                s -= 0.3
            elif e.count.free:
                s += 3
        for p in e.prefix:
            if p.length is not None:
                s -= 0.3
    return s


def _total_score(elems: list, tests_hint: bool) -> float:
    s = _score(elems)
    if (len(elems) == 2 and isinstance(elems[0], Line) and len(elems[0].prefix) == 1 and elems[0].prefix[0].var
            and isinstance(elems[1], Repeat) and elems[1].count.var == elems[0].prefix[0].sid and elems[1].count.off == 0):
        s -= 2 if tests_hint else 0.5
    return s


def _mixed_forms(elems: list, texts: list[str]) -> int:
    """How many text slots hold tokens written in more than one form (:func:`written_form`): of two
    structures that score the same, the one whose slots each hold one kind of token. Why: "a line,
    then n lines" and "n lines, then a line" both read n + 1 lines of text; where the first line is
    an airport ``SVO`` and the others flights ``SVO->CDG``, only one keeps them apart."""
    g = Grammar(elems=elems, scalars={}, examples=[], trees=[])
    forms: dict[int, set[str]] = {}
    for text in texts:
        if len(text) > EXAMPLE_CHARS:
            continue
        at = g.positions(text)
        if at is None:
            continue
        rows = token_rows(text)
        for (row, col), sid in at.items():
            tok = rows[row][col]
            if token_class(tok) not in NUMERIC:
                forms.setdefault(sid, set()).add(written_form(tok))
    return sum(1 for found in forms.values() if len(found) > 1)


def _guessy(elems: list) -> bool:
    """Whether a grammar has free lengths or query lines (a sign that a better one may exist)."""
    return any(isinstance(e, Line) and (e.switch is not None or (e.vec is not None and e.count.free)) for e in all_elements(elems))



def search(texts: list[str], tests_hint: bool = False, hints: dict | None = None) -> list:
    """The best-scoring grammar found (:func:`_total_score`) that parses every example: depth-first, in up
    to three candidate orders (the later ones only while the best has free lengths or query lines), each
    stopping shortly after its first complete grammar."""
    parsed = [token_rows(t) for t in texts]
    small = [p for p, t in zip(parsed, texts) if len(p) <= EXAMPLE_LINES and len(t) <= EXAMPLE_CHARS]
    if not small:
        small = [min(parsed, key=len)]
    best: tuple[float, list] | None = None
    exhausted = False
    for lines_first in (0, 1, 2):  # repeats before single lines; guessy repeats after them; all repeats after them
        if lines_first and best is not None and not _guessy(best[1]) and not _mixed_forms(best[1], texts):
            break  # (a slot of mixed forms, as a guessy structure, may have a better reading with lines first)
        infer = _Infer(lines_first, hints or {})
        found = 0
        settle = None
        try:
            for elems, _ in infer.seq([_Inst(p, 0, {}) for p in small], [], 0, open_end=False):
                sc = _total_score(elems, tests_hint)
                if best is None or sc < best[0] or (sc == best[0] and _mixed_forms(elems, texts) < _mixed_forms(best[1], texts)):
                    best = (sc, elems)
                found += 1
                settle = infer.nodes + SETTLE_NODES if settle is None else settle
                if found >= _MAX_SOLUTIONS or infer.nodes > settle:
                    break
        except _Budget:
            exhausted = True
        except RecursionError:
            raise NoStructure("input too long to infer a structure") from None
    if best is None:
        if exhausted:
            raise NoStructure("search budget exhausted: examples disagree on line structure")
        raise NoStructure("examples disagree on line structure")
    return best[1]
