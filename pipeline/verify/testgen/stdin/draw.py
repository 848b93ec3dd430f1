"""The fast paths of :mod:`pipeline.verify.testgen.stdin.generate`: a line's values drawn by closures
prepared once per input, taking exactly the random draws the general path (``value``,
``int_value``, ``str_value``, ``choose_key``) takes, so every input stays the same. Checked against
``random.Random`` at import (:func:`_inline_ok`): off where a Python draws differently."""

from __future__ import annotations

import random
from bisect import bisect
from functools import partial
from itertools import accumulate
from itertools import repeat as _times
from math import floor

from pipeline.verify.testgen.stdin.grammar import MAX_BYTES, MAX_TOKENS, Line, Scalar, token_class

_BIG = 10 ** 30  # an int token of more digits reads as a digit string (token_class), not a variable's value


def _below(getrandbits, n: int) -> int:
    """``random.Random._randbelow(n)`` (what ``randint``, ``randrange`` and ``choice`` draw with)."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _inline_ok() -> bool:
    """Whether the draws :class:`_Gen`'s fast paths inline (``randint`` as :func:`_below`, ``choices``
    with weights as a bisection, without weights as its list) take from the stream exactly what
    ``random.Random``'s own methods take on this Python; the fast paths are off where they would not
    (every input stays the same)."""
    a, b = random.Random(20240501), random.Random(20240501)
    for lo, hi in ((0, 0), (1, 1), (0, 1), (1, 10), (-5, 7), (3, 1000), (1, 10 ** 9), (0, 10 ** 18), (1, 2 ** 70)):
        for _ in range(16):
            if a.randint(lo, hi) != lo + _below(b.getrandbits, hi - lo + 1):
                return False
    keys, weights = ["1", "2", "3"], [5, 1, 3]
    cum = list(accumulate(weights))
    for _ in range(16):
        if a.choices(keys, weights=weights)[0] != keys[bisect(cum, b.random() * (cum[-1] + 0.0), 0, len(keys) - 1)]:
            return False
    for k in (0, 1, 2, 7):
        if a.choices("ab#", k=k) != [("ab#")[floor(b.random() * 3.0)] for _ in _times(None, k)]:
            return False
    return a.getstate() == b.getstate()


_INLINE = _inline_ok()

class _TooBig(Exception):
    pass


def _float_token(gen, s: Scalar, env: dict) -> str:  # gen: the generator (its float_value)
    return gen.float_value(s)


class FastDraws:
    """What :class:`~pipeline.verify.testgen.stdin.generate._Gen` draws through its fast paths (a
    mixin: the state, ``rng``, ``env`` handling and ``emit`` are the generator's own)."""

    # -- drawers: value() without its per-call layers (the fast paths of line() and repeat())
    def _drawers(self, scalars: list) -> list[tuple[bool, object, int | None]]:
        """Per scalar ``(is_int, draw, var)``: ``draw(env)`` gives what :meth:`value` would (an int
        where ``is_int``, else the token), taking the same draws; ``var``: the sid it binds, or None."""
        out = []
        for s in scalars:
            var = s.sid if s.var else None
            if s.kind == "int":
                out.append((True, self._int_drawer(s), var))
            elif s.kind == "float":
                out.append((False, partial(_float_token, self, s), var))
            else:
                out.append((False, self._str_drawer(s), var))
        return out

    def _plan(self, e: Line) -> tuple[list, bool, bool]:
        """A line's drawers; whether :meth:`order` can change its tokens (else it is a no-op); and
        whether the variables it binds are read by none of its own values (in a block of this one
        line, where the block's copy of ``env`` is dropped after it, they need not be bound at all)."""
        plan = self._plans.get(id(e))
        if plan is None:
            n = len(e.prefix)
            ordered = any(ok and seen >= 3 and i + 1 < n for i, _, ok, seen in e.order)
            binds = {s.sid for s in e.prefix if s.var}
            reads = set()
            for s in e.prefix:
                reads.add(s.rel_var)
                if s.length is not None:
                    reads.add(s.length.var)
                cap = self.g.edge_cap.get(s.sid)
                if cap is not None:
                    reads.add(cap[0])
            plan = self._plans[id(e)] = (self._drawers(e.prefix), ordered, not (binds & reads))
        return plan

    def _str_drawer(self, s: Scalar):
        """:meth:`str_value` and :meth:`chars` of a string of no categories and no tied length, as a
        closure (its length fixed where the mode fixes it); :meth:`str_value` itself otherwise."""
        if not _INLINE or s.cats or s.form or s.length is not None:
            return partial(self.str_value, s)
        rng, mode, policy = self.rng, drawn_as(self.mode), self.policy
        try:
            lo, hi, small = int(s.lo), int(s.hi), int(s.small_hi)
            k0 = max(lo, int(hi * self.scale)) if mode == "scaled" else (lo if policy != "hi" else small) if mode == "boundary" else None
        except (TypeError, ValueError, OverflowError):  # raised where str_value would raise it
            return partial(self.str_value, s)
        alpha = s.alphabet or "ab"
        same = (alpha[0] if policy == "lo" else alpha[-1]) if mode == "boundary" and policy in ("lo", "hi") else None
        nz = alpha.replace("0", "") if not s.lead_zero and "0" in alpha else ""  # a leading 0 redrawn from these
        signed = s.signed
        randint, choice, random_ = rng.randint, rng.choice, rng.random
        na = len(alpha) + 0.0

        def draw(env: dict) -> str:
            k = k0 if k0 is not None else randint(lo, max(lo, small))
            if self.bytes + k > MAX_BYTES or self.tokens > MAX_TOKENS:  # need(k)
                raise _TooBig
            out = [same] * k if same is not None else [alpha[floor(random_() * na)] for _ in _times(None, k)]  # choices(alpha, k=k)
            if k > 1 and nz and out[0] == "0":
                out[0] = choice(nz)
            if signed and k and random_() < 0.5:
                return "-" + "".join(out)
            return "".join(out)
        return draw

    def _int_drawer(self, s: Scalar):
        """:meth:`int_value` of ``s`` as a closure over what does not change while this input is made;
        :meth:`int_value` itself where its bounds depend on more than an earlier variable (counts,
        test-case counts, sums over the blocks, edge counts)."""
        g = self.g
        sid = s.sid
        if not _INLINE or sid in g.counted or sid in g.tlike or sid in g.edge_cap:
            return partial(self.int_value, s)
        try:
            lo, hi0, small0 = int(s.lo), int(s.hi), int(s.small_hi)
        except (TypeError, ValueError, OverflowError):  # raised where int_value would raise it
            return partial(self.int_value, s)
        rel = s.rel_var
        summed = sid in self.sum_left
        sum_left = self.sum_left
        rng = self.rng
        random_, getrandbits = rng.random, rng.getrandbits
        mode, policy = drawn_as(self.mode), self.policy

        def bounds(env: dict) -> tuple[int, int]:
            """``hi`` and ``small_hi`` as :meth:`int_value` and :meth:`_pick_int` narrow them."""
            hi, small = hi0, small0
            if rel is not None:
                x = env.get(rel)
                if x is not None:
                    hi = min(hi, x)
                    small = min(small, hi)
            if summed:
                hi = min(hi, max(lo, sum_left[sid] - lo * self.blocks_left))
                small = min(small, hi)
            if hi < lo:
                hi = lo
            return hi, max(lo, min(hi, small))

        if mode == "boundary":
            def draw(env: dict) -> int:
                hi, _ = bounds(env)
                if policy == "lo":
                    v = lo
                elif policy == "lo1":
                    v = min(hi, lo + 1)
                elif policy == "hi":
                    v = hi
                else:
                    v = rng.choice([lo, hi, min(hi, lo + 1)])
                if summed:
                    sum_left[sid] -= v
                return v
            return draw

        if mode == "scaled" and rel is None and not summed:  # a fixed range: both widths known
            hi, _ = bounds({})
            a = max(lo, hi - max(1, (hi - lo) // 10))
            n1, n2 = hi - a + 1, hi - lo + 1
            k1, k2 = n1.bit_length(), n2.bit_length()

            def draw(env: dict) -> int:
                if random_() < 0.5:
                    r = getrandbits(k1)
                    while r >= n1:
                        r = getrandbits(k1)
                    return a + r
                r = getrandbits(k2)
                while r >= n2:
                    r = getrandbits(k2)
                return lo + r
            return draw

        def take(a: int, n: int) -> int:
            """``a`` plus a draw below ``n``, as ``randrange`` draws it; a summed value leaves the sum."""
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            v = a + r
            if summed:
                sum_left[sid] -= v
            return v

        if mode == "scaled":
            def draw(env: dict) -> int:
                hi, _ = bounds(env)
                a = max(lo, hi - max(1, (hi - lo) // 10)) if random_() < 0.5 else lo
                return take(a, hi - a + 1)
            return draw

        if rel is None and not summed:  # random, fixed range: both widths known
            hi, small = bounds({})
            n1, n2 = small - lo + 1, hi - lo + 1
            k1, k2 = n1.bit_length(), n2.bit_length()

            def draw(env: dict) -> int:
                if random_() < 0.5:
                    r = getrandbits(k1)
                    while r >= n1:
                        r = getrandbits(k1)
                else:
                    r = getrandbits(k2)
                    while r >= n2:
                        r = getrandbits(k2)
                return lo + r
            return draw

        def draw(env: dict) -> int:
            hi, small = bounds(env)
            return take(lo, (small if random_() < 0.5 else hi) - lo + 1)
        return draw

    @staticmethod
    def _tokens(drawers: list, env: dict) -> list[str]:
        """A line's tokens from its drawers, binding each variable it names in ``env`` as :meth:`line` does."""
        toks: list[str] = []
        for is_int, draw, var in drawers:
            if is_int:
                v = draw(env)
                tok = str(v)
                if var is not None:
                    env[var] = v if -_BIG < v < _BIG else 0
            else:
                tok = draw(env)
                if var is not None:
                    env[var] = int(tok) if token_class(tok) == "int" else 0
            toks.append(tok)
        return toks

    def _fast_line(self, e: Line, env: dict) -> None:
        """:meth:`line` of a line with no source tokens and no switch."""
        drawers, ordered, _ = self._plan(e)
        toks = self._tokens(drawers, env)
        if ordered or e.vec is not None:
            self._line_rest(e, toks, env, None)
        self.emit(toks)

    def _fast_switch(self, e: Line, env: dict) -> None:
        """:meth:`line` of a query line with no source tokens: :meth:`choose_key`'s draw, then its tokens."""
        got = self._keys.get(id(e))
        if got is None:
            keys = list(e.switch)
            cum = list(accumulate(max(1, e.prefix[0].values.get(k, 1)) for k in keys))
            got = self._keys[id(e)] = (keys, cum, cum[-1] + 0.0, len(keys) - 1, {k: self._drawers(e.switch[k]) for k in keys})
        keys, cum, total, last, plans = got
        key = keys[bisect(cum, self.rng.random() * total, 0, last)]
        toks = [key]
        for is_int, draw, _ in plans[key]:
            toks.append(str(draw(env)) if is_int else draw(env))
        self.emit(toks)


def drawn_as(mode: str) -> str:
    """The mode a value that is no count is drawn in: a slow input's are drawn as a scaled one's
    (its counts, and its lists of numbers, are :class:`~pipeline.verify.testgen.stdin.generate._Gen`'s own)."""
    return "scaled" if mode == "slow" else mode
