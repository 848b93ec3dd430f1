"""Brute forces for problems where a program that passes every official test is still wrong.

    .venv/bin/python benchmarks/brute_force.py

``benchmarks/bench_test_quality.py`` lists every labelled-correct program the released tests
reject. Each one is either a validator's miss (fixed there), a wrong program the official tests
miss, or a wrong reference. For the last two this file holds the evidence: the input the
released tests failed on, and the right answer worked out by a brute force that tries every
possibility. ``build_apps_labelled.py`` and ``build_leetcode_labelled.py`` run each listed
program on its input and, where its answer differs from the brute force's, label it ``wrong``
with that evidence. Two entries are references, not judged programs: APPS 2192's first
model-written solution (the benchmark's oracle, as the pipeline would take it: it passes every
official test) and LeetCodeDataset's solution of ``minimum-right-shifts-to-sort-the-array``.

Run alone, this prints each brute force's answer next to each program's.
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))



def piles_game(text: str) -> str:
    """APPS 2189: T and HL take one stone a turn, never from the pile the other just took from;
    who wins? Every line of play, memoised."""
    toks = text.split()
    t, pos, out = int(toks[0]), 1, []

    @lru_cache(maxsize=None)
    def wins(piles: tuple[int, ...], last: int) -> bool:
        return any(c and i != last and not wins(piles[:i] + (c - 1,) + piles[i + 1:], i) for i, c in enumerate(piles))

    for _ in range(t):
        n = int(toks[pos])
        piles = tuple(int(x) for x in toks[pos + 1:pos + 1 + n])
        pos += 1 + n
        out.append("T" if wins(piles, -1) else "HL")
    return "\n".join(out) + "\n"


def cursor_paste(text: str) -> str:
    """APPS 2183: run the move / cut / paste procedure on the characters themselves (only as far as
    the cursor will read them), the length counted modulo 10^9 + 7."""
    toks = text.split()
    t, out, mod = int(toks[0]), [], 10**9 + 7
    for k in range(t):
        x, s = int(toks[1 + 2 * k]), list(toks[2 + 2 * k])
        length = len(s)
        for cursor in range(1, x + 1):
            times = int(s[cursor - 1])
            right = length - cursor
            tail = s[cursor:]
            for _ in range(times - 1):
                if len(s) >= x:
                    break
                s.extend(tail[: x - len(s)])
            length = (cursor + right * times) % mod
        out.append(str(length))
    return "\n".join(out) + "\n"


def beacons(text: str) -> str:
    """APPS 2192: for every number of beacons the new one destroys, activate the rest right to
    left and count; the least total."""
    toks = [int(x) for x in text.split()]
    n = toks[0]
    line = sorted(zip(toks[1:2 * n + 1:2], toks[2:2 * n + 2:2]))
    best = n
    for k in range(n + 1):
        alive, destroyed, i = line[:n - k], k, n - k - 1
        while i >= 0:
            position, power = alive[i]
            j = i - 1
            while j >= 0 and alive[j][0] >= position - power:
                destroyed += 1
                j -= 1
            i = j
        best = min(best, destroyed)
    return f"{best}\n"


def right_shifts(nums: list[int]) -> int:
    """LeetCode ``minimum-right-shifts-to-sort-the-array``: every number of right shifts."""
    n = len(nums)
    return next((k for k in range(n) if (shifted := nums[n - k:] + nums[:n - k]) == sorted(shifted)), -1)


def sum_of_squares(nums: list[int], k: int) -> int:
    """LeetCode ``apply-operations-on-array-to-maximize-sum-of-squares``: every array the operation
    (``nums[i], nums[j] = nums[i] AND nums[j], nums[i] OR nums[j]``) reaches, the best k squares,
    modulo 10^9 + 7 (small inputs only)."""
    seen, todo = {tuple(nums)}, [tuple(nums)]
    while todo:
        cur = todo.pop()
        for i in range(len(cur)):
            for j in range(len(cur)):
                if i != j:
                    nxt = list(cur)
                    nxt[i], nxt[j] = cur[i] & cur[j], cur[i] | cur[j]
                    if tuple(nxt) not in seen:
                        seen.add(tuple(nxt))
                        todo.append(tuple(nxt))
    return max(sum(x * x for x in sorted(a)[-k:]) for a in seen) % (10**9 + 7)


BRUTE = {"2189": piles_game, "2183": cursor_paste, "2192": beacons,
         "minimum-right-shifts-to-sort-the-array": lambda args: right_shifts(*args),
         "apply-operations-on-array-to-maximize-sum-of-squares": lambda args: sum_of_squares(*args)}

# (problem, program: MapCoder's file or kamyu104's class, the input the released tests failed it on)
EVIDENCE = [
    ("2189", "final-results/GPT4/APPS/GPT4-Turbo-MapCoder-3-5-APPS-Python3-0-1.jsonl", "3\n3\n3 2 3\n3\n2 2 2\n3\n2 3 2\n"),
    ("2183", "final-results/GPT4/APPS/GPT4-Turbo-MapCoder-3-5-APPS-Python3-0-1.jsonl",
     "4\n5\n231\n7\n2323\n6\n333\n112057\n133321333\n"),
    ("2192", "final-results/ChatGPT/APPS/ChatGPT-MapCoder-3-5-APPS-Python3-0-1.jsonl",
     "8\n12 814312\n467254 365793\n79474 595894\n662126 576091\n14 1\n764898 859004\n9 702837\n66740 703028\n"),
    # k = 1: the solution reduces one square without the modulo (the released tests' input has a
    # 4-element array; the brute force's search is run on this smaller one, with the same fault)
    ("apply-operations-on-array-to-maximize-sum-of-squares", "Solution", [[938541328, 2], 1]),
]
# wrong references: LeetCodeDataset's answer to [2, 10, 4] is 1; no right shift sorts it
WRONG_REFERENCES = [("minimum-right-shifts-to-sort-the-array", [[2, 10, 4]], 1)]


def run(code: str, given: str | list, fn_name: str | None = None) -> str:
    """The program's answer to one input (stdin text, or a call's arguments), in the evaluator's sandbox."""
    from evaluator import evaluate

    tests = ({"kind": "stdin", "cases": [{"input": given, "output": ""}], "time_limit_s": 10} if isinstance(given, str) else
             {"kind": "call", "fn_name": fn_name, "cases": [{"input": json.dumps(given), "output": "null"}], "time_limit_s": 10})
    res = evaluate(code, tests, stop_on_first_failure=False, keep_output=True)
    return res.cases[0].output if res.cases and res.cases[0].output is not None else f"<{res.verdict.value}>"


def answer(problem: str, given: str | list) -> str:
    """The brute force's answer, written as the program's would be (stdin text, or JSON)."""
    right = BRUTE[problem](given)
    return right if isinstance(given, str) else json.dumps(right)


def official_agreement() -> dict[str, tuple[int, int]]:
    """Per brute force: (official tests it answers alike, official tests small enough to try)."""
    from evaluator.compare import compare_stdout
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    out = {}
    for row in process_rows(collect(default_specs()["apps"]).kept).kept:
        brute = BRUTE.get(str(row["source_id"]))
        if brute is None:
            continue
        small = [c for c in row["tests"].cases if len(c.input) <= 400]
        out[str(row["source_id"])] = (sum(compare_stdout(c.output, brute(c.input)) for c in small), len(small))
    for row in process_rows(collect(default_specs()["leetcode"]).kept).kept:
        brute = BRUTE.get(row["source_id"])
        if brute is None:
            continue
        small = [json.loads(c.input) for c in row["tests"].cases if len(c.input) <= 40]  # the search stays small
        out[row["source_id"]] = (sum(brute(args) == json.loads(c.output) for args, c in zip(small, row["tests"].cases)
                                     if len(c.input) <= 40), len(small))
    return out


def main() -> None:
    for apps_id, (alike, tried) in official_agreement().items():
        print(f"brute force of {apps_id}: {alike}/{tried} of its small official tests answered alike")
    from labelled_sets import APPS, LEETCODE

    programs = {(rec["apps_id"], rec["origin"]): rec for rec in APPS.read() or []}
    programs.update({(rec["source_id"], rec["solution"]): rec for rec in LEETCODE.read() or []})
    print("| problem | program | input | brute force | program | label |")
    print("|---|---|---|---|---|---|")
    for problem, origin, given in EVIDENCE:
        rec = programs.get((problem, origin))
        fn = None if isinstance(given, str) else _fn_name(problem)
        mine = run(rec["code"], given, fn) if rec else "(not built)"
        print(f"| {problem} | {origin.split('/')[-1].removesuffix('.jsonl')} | {given!r} | {answer(problem, given)!r} | "
              f"{mine!r} | {rec and rec['label']} |")
    for problem, given, said in WRONG_REFERENCES:
        print(f"| {problem} | the reference | {given!r} | {answer(problem, given)!r} | {said!r} | (oracle) |")


def _fn_name(slug: str) -> str:
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    spec = default_specs()["leetcode"]
    return next(r["tests"].fn_name for r in process_rows(collect(spec).kept).kept if r["source_id"] == slug)


if __name__ == "__main__":
    main()
