"""Evaluator accuracy on labelled programs nobody here wrote: false negatives and false positives.

    .venv/bin/python benchmarks/bench_accuracy_labelled.py [--workers N] [--limit N] [--sets a,b]

Programs and labels:
- ``mapcoder_humaneval`` / ``mapcoder_mbpp``: 5,684 LLM-written programs with their source's label on
  the base tests (``../shared/data/labelled``), judged on those same base tests;
- ``kodcode``: KodCode's verified solutions (label pass) and confirmed failing attempts (label fail);
- references, label pass: ``code_contests_verify`` (CodeContests ``train_verify``), ``taco``, ``leetcode``
  (LeetCodeDataset test split), ``humaneval_xl``.
(The shared CodeContests files carry no incorrect submissions and the APPS file no solutions, so those
two have no false-positive column.)

Columns per comparison: ``robust`` (ours), ``strict`` (LiveCodeBench's ``testing_util`` rules) and
``checker`` (the named checker Process derives from the statement, on the problems that get one,
next to robust's false negatives on those same problems). A
false negative (FN) rejects a program its label accepts; a false positive (FP) accepts one its label
rejects. ``assert`` tests compare inside the test code, so the mode cannot change them: those sets run
once and the same verdicts stand for both modes (marked ``=``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval_sets import jobs, load  # noqa: E402
from evaluator import Limits, evaluate_many  # noqa: E402
from pipeline.paths import shared_data_dir  # noqa: E402

REFERENCE_SETS = ("code_contests_verify", "taco", "leetcode", "humaneval_xl")


def mapcoder(limit: int | None) -> list[dict]:
    root = shared_data_dir()
    if root is None:
        raise SystemExit("no ../shared/data here")
    out: list[dict] = []
    with gzip.open(root / "labelled" / "programs.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out.append({"id": rec["id"], "set": f"mapcoder_{rec['dataset']}", "code": rec["code"],
                        "tests": rec["tests_base"], "expect_pass": bool(rec["label_base"])})
    if limit:
        by_set: dict[str, list[dict]] = {}
        for item in out:
            by_set.setdefault(item["set"], []).append(item)
        out = [i for items in by_set.values() for i in items[:limit]]
    return out


def _judge(items: list[dict], workers: int, timeout: float, mode: str) -> tuple[list[dict], float]:
    start = time.perf_counter()
    results = evaluate_many(jobs(items), Limits(time_s=timeout), workers=workers, mode=mode)
    return results, time.perf_counter() - start


def _errors(items: list[dict], results: list[dict]) -> tuple[int, int]:
    fn = sum(1 for i, r in zip(items, results) if i["expect_pass"] and not r.passed)
    fp = sum(1 for i, r in zip(items, results) if not i["expect_pass"] and r.passed)
    return fn, fp


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--limit", type=int, default=None, help="programs per set (default: all)")
    ap.add_argument("--sets", default="mapcoder,kodcode," + ",".join(REFERENCE_SETS))
    args = ap.parse_args()
    wanted = args.sets.split(",")
    items = (mapcoder(args.limit) if "mapcoder" in wanted else [])
    items += load([s for s in wanted if s != "mapcoder"], args.limit, incorrect=True)
    sets: dict[str, list[dict]] = {}
    for item in items:
        sets.setdefault(item["set"].removesuffix("_incorrect"), []).append(item)

    print(f"{'set':<22}{'programs':>9}{'label+':>8}{'label-':>8}  {'robust FN/FP':>13}{'s':>7}"
          f"  {'strict FN/FP':>13}{'s':>7}  {'checker FN/FP (n; robust FN on them)':>38}{'s':>7}")
    totals = {"robust": [0, 0], "strict": [0, 0]}
    for name, group in sets.items():
        positives = sum(i["expect_pass"] for i in group)
        row = {}
        assert_only = all(i["tests"]["kind"] == "assert" for i in group)
        for mode in ("robust", "strict"):
            if assert_only and mode == "strict":
                row["strict"] = (*row["robust"][:3], "=")
                continue
            results, seconds = _judge(group, args.workers, args.timeout, mode)
            row[mode] = (*_errors(group, results), seconds, "")
            if mode == "robust":
                robust_passed = {i["id"]: r.passed for i, r in zip(group, results)}
        checked = [dict(i, tests={**i["tests"], "checker": i["derived_checker"]}) for i in group if i.get("derived_checker")]
        if checked:
            results, seconds = _judge(checked, args.workers, args.timeout, "robust")
            fn, fp = _errors(checked, results)
            robust_fn = sum(1 for i in checked if i["expect_pass"] and not robust_passed[i["id"]])
            checker_col = f"{fn}/{fp} ({len(checked)}; robust FN {robust_fn})"
            checker_s = f"{seconds:.1f}"
        else:
            checker_col, checker_s = "-", ""
        for mode in totals:
            totals[mode][0] += row[mode][0]
            totals[mode][1] += row[mode][1]
        r, s = row["robust"], row["strict"]
        print(f"{name:<22}{len(group):>9}{positives:>8}{len(group) - positives:>8}  {f'{r[0]}/{r[1]}':>13}{r[2]:>7.1f}"
              f"  {f'{s[0]}/{s[1]}{s[3]}':>13}{s[2]:>7.1f}  {checker_col:>38}{checker_s:>7}")
    print(f"{'all':<22}{len(items):>9}{'':>16}  {'/'.join(map(str, totals['robust'])):>13}{'':>7}"
          f"  {'/'.join(map(str, totals['strict'])):>13}")


if __name__ == "__main__":
    main()
