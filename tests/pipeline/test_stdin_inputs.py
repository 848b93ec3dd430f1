"""stdin input generation (``pipeline.verify.testgen.stdin_*``) on real TACO and CodeContests records.

Structures are inferred from the examples the statements print; generated inputs are checked by
independent parsers for the shapes that matter most (test-case blocks, grids), against the
statement's stated ranges, and for determinism.
"""

from __future__ import annotations

import json

import pytest

from pipeline.verify.testgen.constraints.bounds import lookup, parse_constraints
from pipeline.verify.testgen.constraints.layout import sum_bounds
from pipeline.verify.testgen.stdin.generate import generate
from pipeline.verify.testgen.stdin.grammar import Grammar
from pipeline.verify.testgen.stdin.infer import NoStructure, infer
from pipeline.verify.testgen.stdin.inputs import infer_grammar, inputs_from


def _grammar_inputs(examples: list[str], statement: str = "", *, n: int = 20,
                   seed: int = 0) -> tuple[Grammar | None, list[tuple[str, str]], str | None]:
    """What the stdin kind does for a problem: its grammar (``infer_grammar``), then inputs from it
    (``inputs_from``); the reason where either gives none."""
    g, reason = infer_grammar(examples, statement)
    if g is None:
        return None, [], reason
    made, reason = inputs_from(g, n=n, seed=seed)
    return g, made, reason


LABELS = {"grammar:random", "grammar:scaled", "grammar:boundary", "slow:grammar", "mutation:token"}
SAMPLE = 200


def _examples(row: dict) -> list[str]:
    return [e["input"] for e in row["examples"]]


def _norm(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines())


@pytest.fixture(scope="module")
def taco(shared_data) -> list[dict]:
    with open(shared_data / "taco" / "taco_test_stdin_with_examples.jsonl") as handle:
        return [json.loads(line) for line in handle]


@pytest.fixture(scope="module")
def inferred(taco) -> dict[int, tuple[dict, Grammar | str]]:
    """The first SAMPLE TACO problems: their grammar, or the reason none was inferred."""
    out: dict[int, tuple[dict, Grammar | str]] = {}
    for row in taco[:SAMPLE]:
        try:
            out[row["task_id"]] = (row, infer(_examples(row), row["question"]))
        except NoStructure as exc:
            out[row["task_id"]] = (row, str(exc))
    return out


def _shaped(inferred, shape: str, limit: int) -> list[tuple[dict, Grammar]]:
    found = [(row, g) for row, g in inferred.values() if isinstance(g, Grammar) and g.describe() == shape]
    assert found, f"no problem of shape {shape!r} among the first {SAMPLE}"
    return found[:limit]


def _is_grid(row: dict) -> bool:
    """A cheap filter: ``n m`` first, then rows that are single non-numeric tokens."""
    for text in _examples(row):
        lines = text.split("\n")
        if len(lines) < 3 or len(lines[0].split()) != 2 or len(lines[1].split()) != 1 or lines[1].strip().lstrip("-").isdigit():
            return False
    return bool(row["examples"])


def test_structure_is_inferred_for_most_real_taco_problems(inferred):
    ok = [g for _, g in inferred.values() if isinstance(g, Grammar)]
    rate = len(ok) / len(inferred)
    print(f"\nstructure inferred for {len(ok)}/{len(inferred)} TACO problems ({rate:.1%})")
    assert rate >= 0.9
    reasons = {g for _, g in inferred.values() if isinstance(g, str)}
    assert all(r for r in reasons)  # every failure says why


def test_generated_inputs_are_well_formed(inferred):
    problems = [(row, g) for row, g in inferred.values() if isinstance(g, Grammar)][:20]
    labels: set[str] = set()
    for row, g in problems:
        made = generate(g, n=6, seed=1)
        assert made, row["task_id"]
        seen = {_norm(x) for x in _examples(row)}
        for text, label in made:
            assert label in LABELS
            labels.add(label)
            assert text.endswith("\n") and text.strip()
            assert len(text.encode()) <= 210_000 and len(text.split()) <= 200_000
            assert _norm(text) not in seen, (row["task_id"], label)  # new, and distinct from the others
            seen.add(_norm(text))
            assert g.parses(text), (row["task_id"], label, text[:200])
    assert labels == LABELS


def test_test_case_blocks_keep_their_counts(inferred):
    """``T``, then T blocks of ``n`` and n numbers: every generated input, mutations included."""
    for row, g in _shaped(inferred, "v0 ; rep(v0){v1 ; int*v1}", 8):
        for text, label in generate(g, n=12, seed=3):
            lines = text.split("\n")[:-1]
            t = int(lines[0])
            assert 1 <= t and len(lines) == 1 + 2 * t, (row["task_id"], label)
            for i in range(t):
                n = int(lines[1 + 2 * i])
                values = lines[2 + 2 * i].split()
                assert len(values) == n, (row["task_id"], label)
                assert all(v.lstrip("-").isdigit() for v in values)


def test_grids_keep_their_counts(taco):
    """``n m``, then n rows of m characters from the examples' alphabet."""
    grids = []
    for row in filter(_is_grid, taco):
        try:
            g = infer(_examples(row), row["question"])
        except NoStructure:
            continue
        if g.describe() == "v0 v1 ; rep(v0){str[v1]}":
            grids.append((row, g))
    assert len(grids) >= 3
    for row, g in grids[:5]:
        chars = {c for x in _examples(row) for line in x.splitlines()[1:] for c in line.strip()}
        for text, label in generate(g, n=10, seed=5):
            lines = text.split("\n")[:-1]
            n, m = map(int, lines[0].split())
            assert len(lines) == 1 + n, (row["task_id"], label)
            for line in lines[1:]:
                assert len(line) == m and " " not in line, (row["task_id"], label)
            if label != "mutation:token":
                assert {c for line in lines[1:] for c in line} <= chars | set("abcdefghijklmnopqrstuvwxyz0123456789")


def test_generation_is_deterministic_per_seed(inferred):
    problems = [(row, g) for row, g in inferred.values() if isinstance(g, Grammar)][:6]
    differ = 0
    for row, g in problems:
        a = generate(g, n=4, seed=7)
        assert a == generate(g, n=4, seed=7)
        assert _grammar_inputs(_examples(row), row["question"], n=4, seed=7)[1:] == (a, None)
        differ += generate(g, n=4, seed=8) != a
    assert differ >= len(problems) - 1


def test_stated_ranges_are_respected(inferred):
    """Where the statement's bounds were mapped to the test-case count, ``n`` and the values."""
    checked = 0
    for row, g in _shaped(inferred, "v0 ; rep(v0){v1 ; int*v1}", 40):
        bounds = parse_constraints(row["question"])
        t_var = g.elems[0].prefix[0]
        n_var = g.elems[1].body[0].prefix[0]
        vec = g.elems[1].body[1].vec
        stated = {}
        for role, s in (("t", t_var), ("n", n_var), ("a", vec)):
            b = g.names.get(s.sid) and (lookup(bounds, g.names[s.sid]) or s.bounded and s)
            if b is not None and b and getattr(b, "lo", None) is not None and getattr(b, "hi", None) is not None:
                stated[role] = (b.lo, b.hi)
        if not stated:
            continue
        checked += 1
        for text, label in generate(g, n=10, seed=11):
            if label == "mutation:token":
                continue  # examples' own tokens, kept
            lines = text.split("\n")[:-1]
            if "t" in stated:
                assert stated["t"][0] <= int(lines[0]) <= stated["t"][1], (row["task_id"], label)
            for i in range(int(lines[0])):
                if "n" in stated:
                    assert stated["n"][0] <= int(lines[1 + 2 * i]) <= stated["n"][1], (row["task_id"], label)
                if "a" in stated and vec.kind == "int" and not (vec.vprops or {}).get("perm"):  # a permutation's are 1..n
                    lo, hi = stated["a"]
                    assert all(lo <= int(v) <= hi for v in lines[2 + 2 * i].split()), (row["task_id"], label)
    assert checked >= 3


def test_sum_over_test_cases_is_respected(taco):
    """"The sum of n over all test cases does not exceed ...": checked on real problems stating it."""
    checked = 0
    for row in taco:
        if checked >= 2:
            break
        stated = sum_bounds(row["question"]) if "test" in row["question"].lower() else {}
        if not stated or min(stated.values()) > 5000:
            continue
        try:
            g = infer(_examples(row), row["question"])
        except NoStructure:
            continue
        if g.describe() != "v0 ; rep(v0){v1 ; int*v1}" or not g.sum_bounds:
            continue
        limit = next(iter(g.sum_bounds.values()))
        if limit > 5000:
            continue
        checked += 1
        for seed in (0, 1):
            for text, label in generate(g, n=10, seed=seed):
                if label == "mutation:token":
                    continue
                lines = text.split("\n")[:-1]
                total = sum(int(lines[1 + 2 * i]) for i in range(int(lines[0])))
                assert total <= limit, (row["task_id"], label, total, limit)
    assert checked >= 1


def test_scaled_inputs_grow_toward_the_bounds(inferred):
    grew = 0
    for row, g in _shaped(inferred, "v0 ; int*v0", 8):
        biggest = max(int(x.split("\n")[0]) for x in _examples(row))
        scaled = [t for t, label in generate(g, n=10, seed=0) if label == "grammar:scaled"]
        assert scaled
        grew += max(int(t.split("\n")[0]) for t in scaled) > 10 * biggest
        for t in scaled:
            n = int(t.split("\n")[0])
            assert len(t.split("\n")[1].split()) == n
    assert grew >= 4


def test_no_structure_is_reported_not_guessed(taco):
    assert _grammar_inputs([], "")[1:] == ([], "no examples")
    made, reason = _grammar_inputs(["", "\n"], "")[1:]
    assert made == [] and reason == "empty example input"
    prose = next(r for r in taco if r["examples"] and r["examples"][0]["input"].startswith("HackerRank.com presents"))
    made, reason = _grammar_inputs(_examples(prose), prose["question"])[1:]
    assert made == [] and "free text" in reason
    with pytest.raises(NoStructure):
        infer(["3\n1 2 3\n", "2\n1\n2\n3\n4\n5\n6\n7\n"])
    for junk in (["\x00\x01"], ["1 2\n3\n"] * 3, ["a b c\n" * 50]):
        made, reason = _grammar_inputs(junk, "")[1:]  # never raises
        assert (made == []) == (reason is not None)


def test_codecontests_problems_with_all_their_tests(shared_data):
    """CodeContests rows give ~11 tests, some large: inference over all of them stays fast and sound."""
    with open(shared_data / "code_contests" / "test_code_contests.json") as handle:
        rows = json.load(handle)[:8]
    ok = 0
    for row in rows:
        inputs = row["tests"]["inputs"]
        made, reason = _grammar_inputs(inputs, row["problem"], n=5, seed=0)[1:]
        if reason is None:
            ok += 1
            g = infer(inputs, row["problem"])
            assert all(g.parses(text) for text, _ in made)
    assert ok >= 6
