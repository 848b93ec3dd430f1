"""Build the ``leetcode`` labelled set: accepted LeetCode solutions, labelled by LeetCodeDataset's tests.

    git clone https://github.com/kamyu104/LeetCode-Solutions /tmp/leetcode-solutions
    .venv/bin/python benchmarks/build_leetcode_labelled.py --repo /tmp/leetcode-solutions [--problems N] [--workers N]

It is written to ``$MICROCODER_DATA/cache/labelled/leetcode/`` (``labelled_sets.py``), never into this
repository. kamyu104/LeetCode-Solutions (MIT, commit ``a42318b19416b86d301d01db278172da59490a69``)
holds accepted Python solutions, one file per problem named by its slug, often with several independent solutions (``Solution``, ``Solution2``, ...). For the
first ``N`` LeetCode call problems of this project's processed rows (the benchmark's
``--sample``), each solution class becomes one program: the file, with the Python 2 names it may
use (``xrange``, ``reduce``, ``itertools.izip`` ...) bound to their Python 3 twins before it (the
files are written for Python 2 and 3), and ``Solution`` bound to that class after it. A
program is kept, labelled ``correct``, when it passes every one of the row's own tests in this
project's evaluator; the others are left out (a Python 2 idiom, a helper the file lacks), since
a failure here says nothing about the tests under measurement. A kept program that a brute force
shows wrong (``benchmarks/brute_force.py``) is labelled ``wrong``, with the evidence.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brute_force import EVIDENCE, answer, run  # noqa: E402
from labelled_sets import LEETCODE  # noqa: E402

from evaluator import evaluate_many  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402

COMMIT = LEETCODE.commit
# the solutions are written for Python 2 and 3: the Python 2 names they use, bound to their Python 3 twins
PRELUDE = ("import functools as _functools, itertools as _itertools\n"
           "xrange, reduce = range, _functools.reduce\n"
           "_itertools.izip, _itertools.imap, _itertools.ifilter = zip, map, filter\n"
           "_itertools.izip_longest = _itertools.zip_longest\n")


def variants(text: str) -> list[tuple[str, str]]:
    """(class name, program) for each ``Solution``, ``Solution2``, ... class of a file."""
    names = re.findall(r"(?m)^class (Solution\d*)\b", text)
    return [(name, PRELUDE + text + (f"\n\nSolution = {name}\n" if name != "Solution" else "\n")) for name in dict.fromkeys(names)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help=f"a clone (or git directory) of {LEETCODE.url}")
    parser.add_argument("--problems", type=int, default=300)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    commit = subprocess.run(["git", "-C", args.repo, "rev-parse", COMMIT], capture_output=True, text=True, check=True).stdout.strip()
    files = set(subprocess.run(["git", "-C", args.repo, "ls-tree", "-r", "--name-only", commit, "Python"],
                               capture_output=True, text=True, check=True).stdout.split("\n"))
    rows = process_rows(collect(default_specs()["leetcode"]).kept).kept[: args.problems]
    jobs, meta = [], {}
    for row in rows:
        path = f"Python/{row['source_id']}.py"
        if row["tests"].kind != "call" or path not in files:
            continue
        text = subprocess.run(["git", "-C", args.repo, "show", f"{commit}:{path}"], capture_output=True, text=True).stdout
        for name, code in variants(text):
            key = (row["source_id"], name)
            meta[key] = code
            jobs.append((key, code, row["tests"]))
    print(f"{len(jobs)} programs for {len({k[0] for k in meta})} problems", file=sys.stderr)
    results = evaluate_many(jobs, workers=args.workers)
    kept = [{"source_id": r.key[0], "solution": r.key[1], "label": "correct", "code": meta[r.key]} for r in results if r.passed]
    fn_names = {row["source_id"]: row["tests"].fn_name for row in rows}
    for rec in kept:  # shown wrong by a brute force (benchmarks/brute_force.py), though the tests pass it
        for problem, solution, given in EVIDENCE:
            if (rec["source_id"], rec["solution"]) == (problem, solution):
                mine, right = run(rec["code"], given, fn_names[problem]), answer(problem, given)
                if json.loads(mine) != json.loads(right):
                    rec.update(label="wrong", evidence={"input": given, "brute_force": right, "program": mine})
    LEETCODE.write(kept)
    print(f"kept {len(kept)} of {len(jobs)} (commit {commit}) -> {LEETCODE.path}", file=sys.stderr)


if __name__ == "__main__":
    main()
