"""Verification throughput (problems/s) on the shared TACO, LeetCodeDataset and KodCode sets.

    .venv/bin/python benchmarks/bench_verify.py [--limit N]

Every reference runs on every test (no early stop) through the evaluator's worker pool, as the
``verified_problems`` asset does; the baselines are the same work on one worker, and the previous
defaults on two (3 references, no known-incorrect programs, no derived time limits), which shows
what test strength, reference comparison and time limits cost.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=300, help="problems per set")
    args = ap.parse_args()
    print("| set | problems | config | workers | seconds | problems/s | wrong programs run | verified | rejected | dropped tests |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    previous = {"max_references": 3, "max_incorrect": 0, "derive_time_limits": False}
    for name in ("taco", "leetcode", "kodcode"):
        rows = process_rows(collect(default_specs()[name]).kept).kept[: args.limit]
        for label, workers, extra in (("defaults", 2, {}), ("defaults", 1, {}), ("previous defaults", 2, previous)):
            stats = verify_rows(rows, VerifyConfig(workers=workers, timeout_s=10, **extra)).stats
            print(f"| {name} | {len(rows)} | {label} | {workers} | {stats['seconds']} | {stats['problems_per_s']} "
                  f"| {stats['incorrect_runs']} | {stats['verified']} | {stats['rejected']} | {stats['dropped_tests']} |", flush=True)


if __name__ == "__main__":
    main()
