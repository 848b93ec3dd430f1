"""New stdin inputs from an inferred grammar (:mod:`pipeline.verify.testgen.stdin.grammar`).

:func:`generate` writes inputs of five kinds, labelled ``grammar:random`` (small sizes),
``grammar:scaled`` (sizes toward the bounds, at most ~200 KB / 2·10^5 tokens), ``grammar:boundary``
(values at ``lo``, ``lo + 1``, ``hi``), ``slow:grammar`` (after AutoCode: every count at its
largest, in one test case, and each list of numbers all equal, ascending or descending: the inputs
that make a quadratic program run out of time; the oracle keeps one only where every reference
answers it within a tenth of the limit) and ``mutation:token`` (an example with a token changed and
what depends on it regenerated). Inputs are distinct from the examples and from each other,
deterministic for a seed, and end with a newline.
"""

from __future__ import annotations

import random

from pipeline.verify.testgen.stdin import draw as stdin_draw
from pipeline.verify.testgen.stdin.draw import FastDraws, _TooBig, drawn_as
from pipeline.verify.testgen.stdin.grammar import FORM_CLASSES, MAX_BYTES, MAX_TOKENS, Grammar, Line, Repeat, Scalar, count_value, token_class

__all__ = ["generate"]

SLOW_SHARE = 0.1  # of the inputs, made for slow programs: a stdin problem's 33 are 30 as before and 3 of them


class _Gen(FastDraws):
    """One input from a grammar: ``mode`` random / scaled / boundary / slow, or a mutation of a source tree."""

    def __init__(self, g: Grammar, rng: random.Random, mode: str, scale: float = 1.0, mutate: tuple | None = None) -> None:
        self.g, self.rng, self.mode, self.scale = g, rng, mode, scale
        self.tokens = 0
        self.bytes = 0
        self.lines: list[str] = []
        self.sum_left = dict(g.sum_bounds)
        self.blocks_left = 0  # test-case blocks still to generate after the current one
        self.policy = rng.choice(["lo", "hi", "mix", "lo1"]) if mode == "boundary" else None
        self.many = rng.random() < 0.4 and mode == "scaled"  # scaled: many small test cases instead of a few large ones
        # slow: how a list of numbers is ordered (ties, or an order a naive sort or search is slowest on)
        self.arrangement = rng.choice(["equal", "ascending", "descending"]) if mode == "slow" else None
        self.mutate = mutate  # (kind, index): which source scalar occurrence to change
        self.seen = {"prefix": 0, "any": 0}
        self.changed = False
        self._plans: dict[int, tuple] = {}  # id(line) -> its prefix's drawers and two facts (see _plan)
        self._keys: dict[int, tuple] = {}  # id(switch line) -> its keys, cumulative weights, drawers per key

    # -- values
    def _pick_int(self, lo: int, hi: int, small_hi: int, counted: bool, s: Scalar) -> int:
        rng, mode = self.rng, self.mode
        if hi < lo:
            hi = lo
        small_hi = max(lo, min(hi, small_hi))
        if mode == "slow" and counted:  # every count at its largest (one test case)
            return lo if s.sid in self.g.tlike else max(lo, min(hi, int(hi * self.scale)))
        mode = drawn_as(mode)
        if counted and s.sid in self.g.tlike:
            if mode == "scaled" and self.many:
                top = max(lo, min(hi, int(hi * self.scale)))
                return rng.randint(max(lo, top // 2), top)
            if mode == "boundary":
                return lo if self.policy in ("lo", "mix") else min(hi, lo + 1)
            return rng.randint(lo, max(lo, min(hi, lo + 4)))
        if mode == "scaled":
            if counted:
                if self.many and self.g.tlike:  # many test cases: each one small
                    return rng.randint(lo, small_hi)
                top = max(lo, min(hi, int(hi * self.scale)))
                return rng.randint(max(lo, top - max(1, top // 5)), top)
            if rng.random() < 0.5:
                return rng.randint(max(lo, hi - max(1, (hi - lo) // 10)), hi)
            return rng.randint(lo, hi)
        if mode == "boundary":
            pol = self.policy
            if counted:
                if pol == "hi":
                    return rng.randint(lo, small_hi)
                return lo if pol in ("lo", "mix") else min(hi, lo + 1)
            if pol == "lo":
                return lo
            if pol == "lo1":
                return min(hi, lo + 1)
            if pol == "hi":
                return hi
            return rng.choice([lo, hi, min(hi, lo + 1)])
        if counted or rng.random() < 0.5:
            return rng.randint(lo, small_hi)
        return rng.randint(lo, hi)

    def int_value(self, s: Scalar, env: dict) -> int:
        lo, hi = int(s.lo), int(s.hi)
        small = int(s.small_hi)
        if s.rel_var is not None and env.get(s.rel_var) is not None:
            hi = min(hi, env[s.rel_var])
            small = min(small, hi)
        counted = s.sid in self.g.counted
        if s.sid in self.sum_left:  # leave the blocks still to come their minimum
            hi = min(hi, max(lo, self.sum_left[s.sid] - lo * self.blocks_left))
            small = min(small, hi)
        if s.sid in self.g.tlike:  # no more blocks than the sums allow
            for sid, left in self.sum_left.items():
                hi = min(hi, max(lo, left // max(1, int(self.g.scalars[sid].lo))))
            small = min(small, hi)
        cap = self.g.edge_cap.get(s.sid)
        if cap is not None and env.get(cap[0]) is not None:
            n = env[cap[0]]
            if cap[1]:
                hi = min(hi, n * (n - 1) // 2)
            if cap[2]:
                lo = max(lo, n - 1)
            small = max(lo, min(small, hi))
        if counted:
            hi = min(hi, MAX_TOKENS)
        v = self._pick_int(lo, hi, small, counted, s)
        if s.sid in self.sum_left:
            self.sum_left[s.sid] -= v
        return v

    def float_value(self, s: Scalar) -> str:
        lo, hi = float(s.lo), float(s.hi)
        d = s.decimals
        if self.mode == "boundary":
            v = {"lo": lo, "hi": hi}.get(self.policy, self.rng.choice([lo, hi]))
        elif self.rng.random() < 0.5:
            v = self.rng.uniform(lo, min(hi, max(float(s.small_hi), lo)))
        else:
            v = self.rng.uniform(lo, hi)
        v = min(max(v, lo), hi)
        return f"{v:.{d}f}" if d else str(int(round(v)) if v == int(v) else round(v, 6))

    def str_value(self, s: Scalar, env: dict) -> str:
        if s.cats:
            return self.rng.choice(s.cats)
        if s.form:  # every example writes it one way ("XXX->YYY"): each letter or digit drawn, the rest kept
            self.need(len(s.form))
            return "".join(self.rng.choice(FORM_CLASSES[c]) if c in FORM_CLASSES else c for c in s.form)
        if s.length is not None:
            k = count_value(s.length, env)
            k = max(0, k if k is not None else 1)
        else:
            lo, hi, small = int(s.lo), int(s.hi), int(s.small_hi)
            if drawn_as(self.mode) == "scaled":
                k = max(lo, int(hi * self.scale))
            elif self.mode == "boundary":
                k = lo if self.policy != "hi" else small
            else:
                k = self.rng.randint(lo, max(lo, small))
        self.need(k)
        return self.chars(s, k)

    def chars(self, s: Scalar, k: int) -> str:
        alpha = s.alphabet or "ab"
        if self.mode == "boundary" and self.policy in ("lo", "hi"):
            out = [alpha[0] if self.policy == "lo" else alpha[-1]] * k
        else:
            out = self.rng.choices(alpha, k=k)
        if k > 1 and not s.lead_zero and "0" in alpha and out[0] == "0":
            nz = alpha.replace("0", "")
            if nz:
                out[0] = self.rng.choice(nz)
        if s.signed and k and self.rng.random() < 0.5:
            return "-" + "".join(out)
        return "".join(out)

    def value(self, s: Scalar, env: dict) -> str:
        if s.kind == "int":
            v = self.int_value(s, env)
            return str(v)
        if s.kind == "float":
            return self.float_value(s)
        return self.str_value(s, env)

    def need(self, nbytes: int, ntok: int = 0) -> None:
        """Give up early (the caller retries smaller) when what comes next cannot fit."""
        if self.bytes + nbytes > MAX_BYTES or self.tokens + ntok > MAX_TOKENS:
            raise _TooBig

    # -- source tokens (mutations)
    def from_src(self, s: Scalar, tok: str | None, env: dict, kind: str) -> str:
        if tok is None:
            return self.value(s, env)
        self.seen["any"] += 1
        if kind == "prefix":
            self.seen["prefix"] += 1
        hit = self.mutate is not None and self.seen[self.mutate[0]] - 1 == self.mutate[1] and (self.mutate[0] == "any" or kind == "prefix")
        if hit:
            for _ in range(6):
                new = self.mutated(s, tok, env)
                if new != tok:
                    self.changed = True
                    return new
            return tok
        if s.kind == "int" and s.rel_var is not None and env.get(s.rel_var) is not None:
            try:
                if int(tok) > env[s.rel_var]:
                    return self.value(s, env)
            except ValueError:
                return self.value(s, env)
        if s.length is not None:
            k = count_value(s.length, env)
            if k is not None and k >= 0 and len(tok) != k:
                return tok[:k] + self.chars(s, max(0, k - len(tok)))
        return tok

    def mutated(self, s: Scalar, tok: str, env: dict) -> str:
        if s.kind == "int" and self.rng.random() < 0.5:
            lo, hi = int(s.lo), int(s.hi)
            if s.rel_var is not None and env.get(s.rel_var) is not None:
                hi = min(hi, env[s.rel_var])
            try:
                v = int(tok) + self.rng.choice([-2, -1, 1, 2])
            except ValueError:
                return self.value(s, env)
            return str(min(max(v, lo), max(lo, hi)))
        if s.kind == "str" and not s.cats and s.length is not None and tok:
            i = self.rng.randrange(len(tok))
            return tok[:i] + self.rng.choice(s.alphabet or "ab") + tok[i + 1:]
        return self.value(s, env)

    # -- structure
    def seq(self, elems: list, env: dict, src: list | None) -> None:
        for i, e in enumerate(elems):
            node = src[i] if src is not None else None
            if isinstance(e, Line):
                self.line(e, env, node)
            else:
                self.repeat(e, env, node)

    def line(self, e: Line, env: dict, src: list | None) -> None:
        if src is None and stdin_draw._INLINE:
            if e.switch is None:
                self._fast_line(e, env)
            else:
                self._fast_switch(e, env)
            return
        toks: list[str] = []
        if e.switch is not None:
            if src is not None and src and src[0] in e.switch and len(src) - 1 == len(e.switch[src[0]]):
                key = self.from_src(e.prefix[0], src[0], env, "prefix")
                if key not in e.switch:
                    key = src[0]
                rest = src[1:] if key == src[0] else [None] * len(e.switch[key])
            else:
                key = self.choose_key(e)
                rest = [None] * len(e.switch[key])
            toks = [key] + [self.from_src(s, t, env, "any") for s, t in zip(e.switch[key], rest)]
            self.emit(toks)
            return
        for i, s in enumerate(e.prefix):
            tok = self.from_src(s, src[i] if src is not None and i < len(src) else None, env, "prefix")
            toks.append(tok)
            if s.var:
                env[s.sid] = int(tok) if token_class(tok) == "int" else 0
        self._line_rest(e, toks, env, src)
        self.emit(toks)

    def _line_rest(self, e: Line, toks: list[str], env: dict, src: list | None) -> None:
        """A line's tokens after its prefix's values: the prefix put in order, then its list."""
        if e.order:
            self.order(e, toks, env)
            for s, tok in zip(e.prefix, toks):
                if s.var:
                    env[s.sid] = int(tok) if token_class(tok) == "int" else 0
        if e.vec is not None:
            k = count_value(e.count, env)
            if k is None:
                s = e.vec
                k = self.rng.randint(1, max(1, (s.len_max or 3)))
            k = max(0, k)
            rest = src[len(e.prefix):] if src is not None else []
            self.need(self.least_bytes(e.vec, k, rest, env), k)
            toks.extend(self.vector(e.vec, k, rest, env))

    def order(self, e: Line, toks: list[str], env: dict) -> None:
        for i, strict, ok, seen in e.order:
            if not ok or seen < 3 or i + 1 >= len(toks):
                continue
            try:
                a, b = float(toks[i]), float(toks[i + 1])
            except ValueError:
                continue
            if a > b:
                toks[i], toks[i + 1] = toks[i + 1], toks[i]
            if strict and a == b:
                s = e.prefix[i + 1]
                for _ in range(8):
                    nb = self.value(s, env)
                    if nb != toks[i]:
                        x, y = sorted([toks[i], nb], key=float)
                        toks[i], toks[i + 1] = x, y
                        break

    def vector(self, s: Scalar, k: int, src: list, env: dict) -> list[str]:
        p = s.vprops or {}
        if s.kind == "int" and p.get("long") and p.get("perm"):
            return self.permutation(s, k, src)
        if not src and s.kind == "int" and s.sid not in self.sum_left:
            out = self.fast_ints(s, k, env)
        else:
            out = [self.from_src(s, src[i] if i < len(src) else None, env, "any") for i in range(k)]
        if s.kind == "int" and p.get("long"):
            distinct = p.get("distinct") or p.get("strict")
            if distinct and len(set(out)) != len(out):
                out = self.make_distinct(s, k, out, env)
            if p.get("sorted") or p.get("strict"):
                out = [str(v) for v in sorted(int(t) for t in out)]
        return out

    def least_bytes(self, s: Scalar, k: int, src: list, env: dict) -> int:
        """Bytes that ``k`` values of a vector take at least, each with its separator: an attempt
        bound to pass :data:`MAX_BYTES` gives up before drawing a million of them, as it would
        after (the same inputs: a given-up attempt's draws are its own, see :func:`_one`). A
        number is a character or more; one :meth:`fast_ints` draws, as many as the shortest in its range."""
        if s.kind not in ("int", "float"):
            return k  # a string may be empty
        if s.kind == "float" or src or (s.vprops or {}).get("perm") or s.sid in self.sum_left:
            return 2 * k
        lo, hi = self.fast_range(s, env)
        shortest = 1 if lo <= 0 <= hi else len(str(lo if lo > 0 else hi))
        return (shortest + 1) * k

    def fast_range(self, s: Scalar, env: dict) -> tuple[int, int]:
        """The range :meth:`fast_ints` draws from (every mode's values lie in it)."""
        lo, hi = int(s.lo), int(s.hi)
        if s.rel_var is not None and env.get(s.rel_var) is not None:
            hi = min(hi, env[s.rel_var])
        return lo, max(hi, lo)

    def permutation(self, s: Scalar, k: int, src: list) -> list[str]:
        """A vector the examples show to be a permutation: the source kept (unless mutating), two of its
        values swapped, or a shuffled range."""
        if len(src) == k and self.mutate is None:
            return list(src)
        base = int(s.vmin) if s.vmin is not None and s.vmin <= 0 else 1
        vals = list(range(base, base + k))
        if len(src) == k and self.rng.random() < 0.5 and k >= 2:
            vals = [int(x) for x in src]
            i, j = self.rng.sample(range(k), 2)
            vals[i], vals[j] = vals[j], vals[i]
            self.changed = True
        else:
            self.rng.shuffle(vals)
        return [str(v) for v in vals]

    def make_distinct(self, s: Scalar, k: int, out: list[str], env: dict) -> list[str]:
        """``out`` with repeated values redrawn, where the range has room for ``k`` distinct ones (else as is)."""
        lo, hi = int(s.lo), int(s.hi)
        if s.rel_var is not None and env.get(s.rel_var) is not None:
            hi = min(hi, env[s.rel_var])
        if hi - lo + 1 < k:
            return out
        if hi - lo + 1 <= 4 * k:
            pool = list(range(lo, hi + 1))
            self.rng.shuffle(pool)
            return [str(v) for v in pool[:k]]
        seen: set[int] = set()
        vals = []
        for t in out:
            v = int(t)
            while v in seen:
                v = self.rng.randint(lo, hi)
            seen.add(v)
            vals.append(v)
        return [str(v) for v in vals]

    def fast_ints(self, s: Scalar, k: int, env: dict) -> list[str]:
        """``k`` values of a vector at once (what :meth:`int_value` would draw, without its per-call cost)."""
        lo, hi = self.fast_range(s, env)
        small = max(lo, min(hi, int(s.small_hi)))
        if self.mode == "boundary":
            one = {"lo": lo, "lo1": min(hi, lo + 1), "hi": hi}.get(self.policy)
            if one is not None:
                return [str(one)] * k
            return [str(x) for x in self.rng.choices([lo, hi, min(hi, lo + 1)], k=k)]
        if self.mode == "slow":
            if self.arrangement == "equal":
                return [str(hi)] * k
            values = sorted(self.rng.randint(lo, hi) for _ in range(k))
            return [str(v) for v in (values if self.arrangement == "ascending" else reversed(values))]
        if self.mode == "scaled":
            a1 = max(lo, hi - max(1, (hi - lo) // 10))
            w1 = hi - a1 + 1
        else:
            a1, w1 = lo, small - lo + 1
        w2 = hi - lo + 1
        r = self.rng.random
        if w2 > 1 << 50:
            ri = self.rng.randint
            return [str(ri(a1, a1 + w1 - 1) if r() < 0.5 else ri(lo, hi)) for _ in range(k)]
        return [str(a1 + int(r() * w1) if r() < 0.5 else lo + int(r() * w2)) for _ in range(k)]

    def choose_key(self, e: Line) -> str:
        keys = list(e.switch)
        weights = [max(1, e.prefix[0].values.get(k, 1)) for k in keys]
        return self.rng.choices(keys, weights=weights)[0]

    def repeat(self, e: Repeat, env: dict, src: list | None) -> None:
        k = count_value(e.count, env)
        k = max(0, k if k is not None else 1)
        per = 0  # tokens each block takes at least (its lines' fixed tokens, lists counted by outer variables)
        for x in e.body:
            if isinstance(x, Line):
                per += len(x.prefix) + max(0, (count_value(x.count, env) or 0) if x.vec is not None else 0)
        self.need(k * max(2, 2 * per), k * per)
        if e.edges is not None and (e.edges["tree"] or e.edges["simple"] or e.edges["connected"]):
            if self.edge_list(e, env, k, src):
                return
        top = e.count.var in self.g.tlike
        if src is None and stdin_draw._INLINE and all(isinstance(x, Line) for x in e.body):
            self._repeat_lines(e.body, env, k, top)
            return
        for i in range(k):
            benv = dict(env)
            if top:
                self.blocks_left = k - i - 1
            self.seq(e.body, benv, src[i] if src is not None and i < len(src) else None)

    def _repeat_lines(self, body: list, env: dict, k: int, top: bool) -> None:
        """:meth:`repeat`'s blocks where the body is lines and there are no source tokens: each
        block's :meth:`line` calls without :meth:`seq`, a block's variables in a copy of ``env``
        only where the body binds one (nothing else writes it), a body of one plain line at once."""
        copy = any(s.var for x in body if x.switch is None for s in x.prefix)
        if len(body) == 1 and body[0].switch is None and body[0].vec is None and not self._plan(body[0])[1]:
            drawers, _, dead = self._plan(body[0])
            if dead:  # nothing reads what the line binds before its block's env is dropped
                drawers = [(is_int, draw, None) for is_int, draw, _ in drawers]
                copy = False
            draws = [draw for _, draw, _ in drawers]
            lines = self.lines
            if not copy and all(is_int for is_int, _, _ in drawers):  # numbers only, nothing bound
                one = draws[0] if len(draws) == 1 else None
                ntok = len(draws)
                for i in range(k):
                    if top:
                        self.blocks_left = k - i - 1
                    text = str(one(env)) if one is not None else " ".join([str(draw(env)) for draw in draws])
                    self.bytes += len(text) + 1
                    self.tokens += ntok
                    if self.bytes > MAX_BYTES or self.tokens > MAX_TOKENS:
                        raise _TooBig
                    lines.append(text)
                return
            for i in range(k):
                benv = dict(env) if copy else env
                if top:
                    self.blocks_left = k - i - 1
                self.emit(self._tokens(drawers, benv))
            return
        for i in range(k):
            benv = dict(env) if copy else env
            if top:
                self.blocks_left = k - i - 1
            for x in body:
                if x.switch is None:
                    self._fast_line(x, benv)
                else:
                    self._fast_switch(x, benv)

    def edge_list(self, e: Repeat, env: dict, k: int, src: list | None) -> bool:
        info = e.edges
        n = env.get(info["nv"])
        if n is None:
            return False
        if src is not None and len(src) == k and not self.changed_n(info, env, src):
            return False  # the example's own edges still fit: keep them (mutations of other tokens)
        base = info["base"]
        rng = self.rng
        self.need(k * 4, 2 * k)
        edges: list[tuple[int, int]] = []
        if info["tree"]:
            if k != n - 1:
                return False
            order = list(range(base, base + n))
            rng.shuffle(order)
            for i in range(1, n):
                a, b = order[i], order[rng.randrange(i)]
                edges.append((a, b) if rng.random() < 0.5 else (b, a))
        else:
            simple = info["simple"]
            if simple and k > n * (n - 1) // 2:
                return False
            have: set = set()
            if info["connected"] and k >= n - 1:
                order = list(range(base, base + n))
                rng.shuffle(order)
                for i in range(1, n):
                    a, b = order[i], order[rng.randrange(i)]
                    edges.append((a, b))
                    have.add((min(a, b), max(a, b)))
            elif info["connected"]:
                return False
            tries = 0
            while len(edges) < k and tries < 20 * k + 100:
                tries += 1
                a, b = rng.randint(base, base + n - 1), rng.randint(base, base + n - 1)
                if simple and (a == b or (min(a, b), max(a, b)) in have):
                    continue
                have.add((min(a, b), max(a, b)))
                edges.append((a, b))
            if len(edges) < k:
                return False
            rng.shuffle(edges)
        line = e.body[0]
        extra = [self.fast_ints(s, len(edges), env) if s.kind == "int" else [self.value(s, env) for _ in edges] for s in line.prefix[2:]]
        for i, (a, b) in enumerate(edges):
            self.emit([str(a), str(b)] + [col[i] for col in extra])
        return True

    def changed_n(self, info: dict, env: dict, src: list) -> bool:
        n = env[info["nv"]]
        base = info["base"]
        for node in src:
            row = node[0]
            try:
                if not (base <= int(row[0]) < base + n and base <= int(row[1]) < base + n):
                    return True
            except (ValueError, IndexError):
                return True
        return False

    def emit(self, toks: list[str]) -> None:
        text = " ".join(toks)
        self.bytes += len(text) + 1
        self.tokens += len(toks)
        if self.bytes > MAX_BYTES or self.tokens > MAX_TOKENS:
            raise _TooBig
        self.lines.append(text)

    def run(self, src: list | None = None) -> str:
        self.seq(self.g.elems, {}, src)
        return "\n".join(self.lines) + "\n"


_IRREGULAR = ("  ", " \n", "\n ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


def _norm(text: str) -> str:
    text = text.strip()
    if text.isascii() and not any(c in text for c in _IRREGULAR):
        return text  # lines split on "\n" alone, tokens one space apart: already normal (a generated input)
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def _occurrences(tree: list, elems: list) -> dict[str, int]:
    counts = {"prefix": 0, "any": 0}

    def walk(nodes: list, elems: list) -> None:
        for node, e in zip(nodes, elems):
            if isinstance(e, Line):
                p = len(e.prefix)
                counts["prefix"] += min(p, len(node))
                counts["any"] += len(node)
            else:
                for it in node:
                    walk(it, e.body)

    walk(tree, elems)
    return counts


def generate(grammar: Grammar, *, n: int, seed: int = 0) -> list[tuple[str, str]]:
    """Up to ``n`` new inputs ``(text, label)`` from an inferred grammar, a tenth of them
    (:data:`SLOW_SHARE`) made for slow programs, last; deterministic for ``seed``."""
    g = grammar
    seen = {_norm(t) for t in g.examples}
    if n <= 0:
        return []
    slow = round(n * SLOW_SHARE)
    out = _made(g, n - slow, random.Random(seed), seen)
    rng = random.Random(f"slow:{seed}")  # a stream of their own: the others are what they were without them
    for _ in range(4 * slow):
        if len(out) >= n:
            break
        text = _one(g, "slow:grammar", rng)
        if text is not None and _norm(text) and _norm(text) not in seen:
            seen.add(_norm(text))
            out.append((text, "slow:grammar"))
    return out


def _made(g: Grammar, n: int, rng: random.Random, seen: set[str]) -> list[tuple[str, str]]:
    """``n`` inputs of the other kinds, in the quota's shares; ``seen`` grows with each."""
    out: list[tuple[str, str]] = []
    if n <= 0:
        return out
    plan = []
    quota = {"grammar:random": 0.3, "grammar:scaled": 0.2, "grammar:boundary": 0.2, "mutation:token": 0.3}
    for label, frac in quota.items():
        plan += [label] * max(1, round(n * frac))
    rng.shuffle(plan)
    plan = plan[:n]
    extra = ["grammar:random"] * (3 * n)
    tries = 0
    queue = plan + extra
    qi = 0
    while len(out) < n and qi < len(queue) and tries < 12 * n + 20:
        label = queue[qi]
        qi += 1
        tries += 1
        text = _one(g, label, rng)
        if text is None:
            if label != "grammar:random":
                queue.append("grammar:random")
            continue
        key = _norm(text)
        if not key or key in seen:
            if label == "mutation:token" and tries < 8 * n:
                queue.append(label)
            continue
        seen.add(key)
        out.append((text, label))
    return out


def _one(g: Grammar, label: str, rng: random.Random) -> str | None:
    sub = random.Random(rng.getrandbits(64))
    mode = "slow" if label == "slow:grammar" else label.split(":")[1]
    if label == "mutation:token":
        if not g.trees:
            return None
        i = sub.randrange(len(g.trees))
        tree = g.trees[i]
        occ = _occurrences(tree, g.elems)
        kind = "prefix" if occ["prefix"] and sub.random() < 0.6 else "any"
        if occ[kind] == 0:
            return None
        gen = _Gen(g, sub, "random", mutate=(kind, sub.randrange(occ[kind])))
        try:
            text = gen.run(tree)
        except _TooBig:
            return None
        return text
    scale = 1.0
    for _ in range(8):
        gen = _Gen(g, random.Random(sub.getrandbits(64)), mode, scale=scale)
        try:
            return gen.run()
        except _TooBig:
            scale /= 3
        except RecursionError:
            return None
    return None
