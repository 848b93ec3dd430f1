"""The fast paths of stdin planning make exactly what the plain code makes.

Generation (:mod:`pipeline.verify.testgen.stdin.generate`) inlines ``randint`` and friends in closures
and loops over a block's lines without its per-value calls; parsing (``stdin_grammar``) and the
stdin validator (``validate``) read a block of one line without a call per block and an unsigned
integer without the regexes. Each must keep every generated input, parse and refusal the same: here
generation is compared with its plain path (``stdin_draw._INLINE`` off), the parser and the validator's example
rules with the plain code they replace (kept below as the reference), on grammars of the common
shapes and on inputs broken on purpose.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from pipeline.verify.testgen.constraints.layout import Invalid
from pipeline.verify.testgen.stdin import draw as stdin_draw
from pipeline.verify.testgen.stdin.generate import _norm, generate
from pipeline.verify.testgen.stdin.grammar import NUMERIC, Line, _parse_switch, count_value, parse_seq, token_class, token_rows
from pipeline.verify.testgen.stdin.infer import infer
from pipeline.verify.testgen.stdin.validate import _INT, StdinValidator, _ExampleRules, _numbers, _outside

CASES = {
    "pairs": (["3\n1 2\n3 4\n5 6\n", "2\n10 20\n7 7\n", "4\n1 1\n2 9\n3 3\n8 100\n"],
              "The first line holds n (1 ≤ n ≤ 10^5). Each of the next n lines holds a_i and b_i (1 ≤ a_i ≤ b_i ≤ 10^9)."),
    "cases": (["2\n3\n1 2 3\n2\n5 6\n", "1\n4\n4 3 2 1\n", "3\n1\n7\n2\n1 1\n3\n9 8 7\n"],
              "The first line holds t (1 ≤ t ≤ 10^4). Each test case: n (1 ≤ n ≤ 2·10^5), then n integers a_i "
              "(1 ≤ a_i ≤ 10^9). The sum of n over all test cases does not exceed 2·10^5."),
    "grid": (["3 4\n#..#\n....\n.##.\n", "2 2\n..\n#.\n", "1 5\n#.#.#\n"],
             "The first line holds n and m (1 ≤ n, m ≤ 1000). Then n lines of m characters '.' or '#'."),
    "queries": (["4\n1 5\n2\n1 7\n3 2\n", "3\n2\n1 3\n3 1\n", "5\n1 1\n1 2\n2\n3 5\n2\n"],
                "The first line holds q (1 ≤ q ≤ 10^5). Each query is 1 x (add x, 1 ≤ x ≤ 10^9), 2 (remove), or 3 k (1 ≤ k ≤ 10^5)."),
    "singles": (["3\n5\n7\n9\n", "1\n100\n", "4\n1\n2\n3\n4\n"],
                "The first line holds t (1 ≤ t ≤ 10^4). Each of the next t lines holds n (1 ≤ n ≤ 10^9). "
                "The sum of n over all test cases does not exceed 10^5."),
    "words": (["2\nabc\nde\n", "3\nx\nyz\nqrs\n", "1\nhello\n"],
              "The first line holds n (1 ≤ n ≤ 10^5). Each of the next n lines holds a string of lowercase letters of length at most 10."),
    "tree": (["4\n1 2\n2 3\n3 4\n", "3\n1 2\n1 3\n", "5\n1 2\n1 3\n3 4\n3 5\n"],
             "You are given a tree with n vertices (2 ≤ n ≤ 2·10^5). Each of the next n-1 lines holds an edge u v (1 ≤ u, v ≤ n)."),
    "ranges": (["3 2\n1 5 2\n1 2\n2 3\n", "4 3\n4 4 4 4\n1 4\n2 2\n3 4\n", "2 1\n7 9\n1 2\n"],
               "n and q (1 ≤ n, q ≤ 2·10^5), then n integers a_i (-10^9 ≤ a_i ≤ 10^9), then q lines l r (1 ≤ l ≤ r ≤ n)."),
    "floats": (["2\n1.5 2.25\n3.0 4.75\n", "1\n0.5 0.5\n"], "n (1 ≤ n ≤ 1000) lines of two reals x y (0 ≤ x, y ≤ 100)."),
}


@pytest.fixture(scope="module")
def grammars() -> dict[str, tuple[Any, str]]:
    return {name: (infer(examples, statement), statement) for name, (examples, statement) in CASES.items()}


@pytest.fixture(scope="module")
def made(grammars) -> dict[str, list[str]]:
    """Inputs to parse and validate: blocks of many lines, not the largest (the plain code is slow)."""
    return {name: [text for text, _ in generate(g, n=16, seed=1) if len(text) <= 20_000] for name, (g, _) in grammars.items()}


def test_the_inlined_draws_match_this_python():
    assert stdin_draw._INLINE  # else the fast paths are off and nothing below tests them


def test_generation_is_the_same_with_and_without_the_fast_paths(grammars, monkeypatch):
    for name, (g, _) in grammars.items():
        for seed in (0, 1):
            fast = generate(g, n=12, seed=seed)
            with monkeypatch.context() as m:
                m.setattr(stdin_draw, "_INLINE", False)
                plain = generate(g, n=12, seed=seed)
            assert fast == plain, (name, seed)
            assert fast, name


def test_norm_is_the_plain_normal_form():
    rng = random.Random(0)
    alphabet = ["a", "1", "-", " ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\u2028", "\u00a0", "é"]
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        assert _norm(text) == "\n".join(" ".join(line.split()) for line in text.strip().splitlines()), repr(text)


def _broken(texts: list[str]) -> list[str]:
    """The texts and copies with a token or a line changed (signs, leading zeros, words, reals, long numbers)."""
    rng = random.Random(7)
    out = list(texts)
    for text in texts:
        rows = token_rows(text)
        for _ in range(4):
            copy = [list(r) for r in rows]
            i = rng.randrange(len(copy))
            what = rng.choice(["-5", "007", "x", "1.5", "9" * 25, "0", "", "line", "dup"])
            if what == "line":
                del copy[i]
            elif what == "dup":
                copy.insert(i, list(copy[i]))
            elif copy[i]:
                j = rng.randrange(len(copy[i]))
                if what:
                    copy[i][j] = what
                else:
                    del copy[i][j]
            out.append("\n".join(" ".join(r) for r in copy) + "\n")
    return out


# ----------------------------------------------------------------------------- the plain parser
def _plain_prefix(line: Line, toks: list[str], env: dict) -> bool:
    for s, tok in zip(line.prefix, toks):
        if s.numeric and token_class(tok) not in NUMERIC:
            return False
        if s.length is not None:
            k = count_value(s.length, env)
            if k is None or len(tok) != k:
                return False
        if s.var:
            if token_class(tok) == "int":
                env[s.sid] = int(tok)
            else:
                env.pop(s.sid, None)
    return True


def _plain_line(line: Line, toks: list[str], env: dict) -> bool:
    if line.switch is not None:
        return _parse_switch(line, toks, env, None)
    p = len(line.prefix)
    if len(toks) < p or not _plain_prefix(line, toks, env):
        return False
    if line.vec is None:
        return len(toks) == p
    k = count_value(line.count, env)
    if k is None and not line.count.free:
        return False
    return (k is None or len(toks) - p == k) and all(not line.vec.numeric or token_class(t) in NUMERIC for t in toks[p:])


def _plain_seq(elems: list, lines: list, pos: int, env: dict, out: list) -> int | None:
    for e in elems:
        if isinstance(e, Line):
            if e.vec is not None and not e.prefix and e.count.var is not None and pos >= len(lines) and count_value(e.count, env) == 0:
                out.append([])
                continue
            if pos >= len(lines) or not _plain_line(e, lines[pos], env):
                return None
            out.append(lines[pos])
            pos += 1
        else:
            k = count_value(e.count, env)
            if k is None or k < 0 or k > len(lines) - pos + 1:
                return None
            iters: list = []
            for i in range(k):
                sub: list = []
                before = pos
                pos = _plain_seq(e.body, lines, pos, dict(env), sub)
                if pos is None or (pos == before and (before < len(lines) or i < k - 1)):
                    return None
                iters.append(sub)
            out.append(iters)
    return pos


def test_parsing_is_the_plain_parse(grammars, made):
    for name, (g, _) in grammars.items():
        for text in _broken(made[name]):
            rows = token_rows(text)
            tree: list = []
            plain: list = []
            env: dict = {}
            plain_env: dict = {}
            assert parse_seq(g.elems, rows, 0, env, None, tree) == _plain_seq(g.elems, rows, 0, plain_env, plain), (name, text)
            assert (tree, env) == (plain, plain_env), (name, text)


# ----------------------------------------------------------------------------- the plain example rules
class _PlainRules(_ExampleRules):
    """The validator's example rules as they read a parse before the fast paths (a call per block and per token)."""

    def _seq(self, elems: list, nodes: list, env: dict, where: dict, check: Any, sums: Counter) -> None:
        for e, node in zip(elems, nodes):
            if isinstance(e, Line):
                self._line(e, node, env, where.get(id(node), -1), check, sums)
                continue
            if check is not None and e.edges is not None and self.graph:
                self._edges(e, node, env)
            for it in node:
                self._seq(e.body, it, dict(env), where, check, sums)

    def _line(self, e: Any, toks: list[str], env: dict, row: int, check: Any, sums: Counter) -> None:
        if e.switch is not None:
            shape = e.switch.get(toks[0]) if toks else None
            if shape is None:
                return
            runs = [(e.prefix[0], toks[:1], 0)] + [(s, [t], j + 1) for j, (s, t) in enumerate(zip(shape, toks[1:]))]
        else:
            p = len(e.prefix)
            runs = [(s, [t], j) for j, (s, t) in enumerate(zip(e.prefix, toks))]
            if e.vec is not None and len(toks) > p:
                runs.append((e.vec, toks[p:], p))
        for s, run, col in runs:
            if check is None:
                self.seen.setdefault(s.sid, []).extend(run)
            else:
                self._run(s, run, row, col, check, env)
            if s.var and len(run[0]) <= 18 and _INT.fullmatch(run[0]):
                env[s.sid] = int(run[0])
            if s.sid in self.g.sum_bounds:
                sums[s.sid] += sum(v for v in (_numbers(run) or []) if isinstance(v, int))
        if check is not None and e.vec is not None and (e.vec.vprops or {}).get("long") and e.vec.vprops.get("perm"):
            values = _numbers(toks[len(e.prefix):])
            if values and len(values) >= 2 and sorted(values) not in (list(range(1, len(values) + 1)), list(range(len(values)))):
                raise Invalid("permutation", "every example's list is a permutation")

    def _run(self, s: Any, run: list[str], row: int, col: int, check: Any, env: dict) -> None:
        ranges = check[0]
        end = col + len(run)
        if s.kind not in ("int", "float"):
            super()._run(s, run, row, col, check, env)
            return
        values = _numbers(run)
        if values is None or (s.kind == "int" and not all(isinstance(v, int) for v in values)):
            if not ranges.covers(row, col, end):
                raise Invalid("token_kind", f"{run[0][:20]!r} where every example holds a number")
            return
        if ranges.covers(row, col, end) or (s.vprops or {}).get("perm"):
            return
        lo, hi = self._range(s)
        if s.rel_var is not None and env.get(s.rel_var) is not None and hi is not None and not s.bounded:
            hi = max(hi, env[s.rel_var])
        bad = _outside(values, lo, hi)
        if bad is not None:
            raise Invalid("value_range" if s.bounded else "outside_examples",
                          f"{self.g.names.get(s.sid, 'value')}={bad} outside [{lo}, {hi}] on line {row + 1}")


def test_validation_is_the_plain_validation(grammars, made):
    reasons: Counter = Counter()
    for name, (g, statement) in grammars.items():
        fast, plain = StdinValidator(g, statement), StdinValidator(g, statement)
        plain.examples.__class__ = _PlainRules
        verdicts = [(fast.explain(text), plain.explain(text)) for text in _broken(made[name])]
        assert all(a == b for a, b in verdicts), (name, [v for v in verdicts if v[0] != v[1]][:3])
        reasons.update((a or "valid").split(":")[0] for a, _ in verdicts)
    assert reasons["valid"] and {"outside_examples", "token_kind"} <= set(reasons), reasons
