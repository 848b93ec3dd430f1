"""Labelled ``stdin`` programs from outside the project's data, for ``bench_evaluator.py --peers --programs FILE``.

    git clone https://github.com/Md-Ashraful-Pramanik/MapCoder /tmp/mapcoder   # or any git directory of it
    .venv/bin/python benchmarks/build_stdin_programs.py --repo /tmp/mapcoder -o /tmp/stdin-programs.jsonl

MapCoder (MIT, commit ``0027da71``) published every program its ten APPS runs wrote
(``final-results/{ChatGPT,GPT4}/APPS``: GPT-3.5 and GPT-4-Turbo, five prompting methods each) with
the problems and APPS's official tests (``data/APPS/selected150.jsonl``). This keeps the problems
read from standard input (no starter code), one program per distinct (problem, code), the tests as
the official ``test_list``, and labels each program the way a judge would, independently of both
harnesses the benchmark compares: a fresh ``python3`` per official test in an empty directory (10 s
a test), the output compared token by token (numbers within 1e-6, relative or absolute). MapCoder's
own ``is_solved`` is kept as ``source_label``; a program whose two labels disagree is dropped
(counted on stderr), so no label is ours alone.

Each output line is a ``microcoder-eval run`` job, ``{"id", "code", "tests"}``, with ``set`` and the
label ``expect_pass``. Nothing is written into this repository: the file goes where ``-o`` says.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

COMMIT = "0027da71030b441cca2bc6f95def86b9aa5c7dea"
PROBLEMS = "data/APPS/selected150.jsonl"
TIME_S = 10.0  # per official test: a slow correct program is still correct (the labels are about answers)
TOLERANCE = 1e-6


def _git_text(repo: str, path: str) -> str:
    """A file of the commit, from a clone or a bare git directory (``git -C`` finds either)."""
    return subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:{path}"], capture_output=True, text=True,
                          check=True).stdout


def _rows(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def stdin_problems(repo: str) -> dict[str, list[dict]]:
    """APPS id -> its official tests as canonical ``stdin`` cases, for problems with no starter code."""
    out: dict[str, list[dict]] = {}
    for row in _rows(_git_text(repo, PROBLEMS)):
        if (row.get("starter_code") or "").strip():
            continue
        cases = [{"input": t["input"], "output": t["output"][0] if isinstance(t["output"], list) else t["output"]}
                 for t in row["test_list"]]
        if cases and all(isinstance(c["output"], str) for c in cases):
            out[str(row["id"])] = cases
    return out


def programs(repo: str, problems: dict[str, list[dict]]) -> list[dict]:
    """Each distinct (problem, program) of MapCoder's APPS runs, with the run that wrote it and its label."""
    names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", COMMIT, "final-results"],
                           capture_output=True, text=True, check=True).stdout.split()
    seen: set[tuple[str, str]] = set()
    ids: Counter[str] = Counter()
    out = []
    for name in sorted(n for n in names if "/APPS/" in n and n.endswith(".jsonl")):
        run = Path(name).stem
        for rec in _rows(_git_text(repo, name)):
            pid, codes = str(rec["id"]), rec.get("source_codes") or []
            code = codes[-1] if codes else ""
            if pid not in problems or not code.strip() or (pid, code) in seen:
                continue
            seen.add((pid, code))
            key = f"mapcoder-apps/{pid}/{run}"
            ids[key] += 1  # a problem listed twice in the run: its second program
            out.append({"id": key if ids[key] == 1 else f"{key}#{ids[key]}", "set": "apps (MapCoder runs)", "code": code,
                        "tests": {"kind": "stdin", "cases": problems[pid]},
                        "source_label": str(rec.get("is_solved")) == "True"})
    return out


def _same_token(want: str, got: str) -> bool:
    if want == got:
        return True
    try:
        a, b = float(want), float(got)
    except ValueError:
        return False
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= TOLERANCE * max(1.0, abs(a))


def same_output(want: str, got: str) -> bool:
    """A judge's default rule: the same tokens, numbers within :data:`TOLERANCE`."""
    a, b = want.split(), got.split()
    return len(a) == len(b) and all(_same_token(x, y) for x, y in zip(a, b))


def passes_python3(code: str, cases: list[dict]) -> bool:
    """Every case, each in a fresh ``python3`` in an empty directory: exit 0 and the expected output."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "prog.py")
        Path(path).write_text(code, encoding="utf-8")
        for case in cases:
            try:
                proc = subprocess.run([sys.executable, path], input=case["input"].encode(), capture_output=True,
                                      timeout=TIME_S, cwd=tmp)
            except subprocess.TimeoutExpired:
                return False
            if proc.returncode != 0 or not same_output(case["output"], proc.stdout.decode("utf-8", "replace")):
                return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help="a clone or git directory of MapCoder")
    parser.add_argument("-o", "--output", required=True, help="the JSON-lines file to write")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args()
    items = programs(args.repo, stdin_problems(args.repo))
    with ThreadPoolExecutor(args.workers) as ex:
        labels = list(ex.map(lambda it: passes_python3(it["code"], it["tests"]["cases"]), items))
    kept, dropped = [], Counter()
    for item, label in zip(items, labels):
        if label != item["source_label"]:
            dropped["python3 passes, MapCoder says not" if label else "MapCoder says solved, python3 fails"] += 1
            continue
        kept.append({**item, "expect_pass": label})
    with open(args.output, "w", encoding="utf-8") as fh:
        for item in kept:
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(json.dumps({"programs": len(kept), "correct": sum(i["expect_pass"] for i in kept),
                      "tests": sum(len(i["tests"]["cases"]) for i in kept), "dropped": dict(dropped),
                      "output": args.output}), file=sys.stderr)


if __name__ == "__main__":
    main()
