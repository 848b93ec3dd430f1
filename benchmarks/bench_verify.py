"""Verification throughput (problems/s) on the shared TACO, LeetCodeDataset and KodCode sets.

    .venv/bin/python benchmarks/bench_verify.py [--limit N]
    .venv/bin/python benchmarks/bench_verify.py --refresh [--limit N]

Every reference runs on every test (no early stop) through the evaluator's worker pool, as the
``verified_problems`` asset does; the baselines are the same work on one worker, and the previous
defaults on two (3 references, no known-incorrect programs, no derived time limits), which shows
what test strength, reference comparison and time limits cost.

``--refresh``: Verify as the asset runs it (:mod:`pipeline.verify.shards`, full test generation),
first on an empty shard store, then again with nothing changed, then with one problem's statement
edited; the first run is the baseline. Test generation's own per-problem cache is off, so the
first run generates everything.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402
from pipeline.verify.shards import ShardCache, verify_sharded  # noqa: E402
from pipeline.verify.testgen import TestGenConfig  # noqa: E402


def refresh_table(limit: int) -> None:
    print("| set | problems | run | seconds | shards reused | problems verified | x first run |")
    print("|---|---|---|---|---|---|---|")
    config = VerifyConfig(workers=2, timeout_s=10, generation=TestGenConfig(cache=False))
    for name in ("mbpp", "taco", "leetcode"):
        rows = process_rows(collect(default_specs()[name]).kept).kept[:limit]
        edited = [dict(rows[0], statement=rows[0]["statement"] + " (edited)"), *rows[1:]]
        with tempfile.TemporaryDirectory() as folder:
            cache, first = ShardCache(Path(folder)), None
            for label, batch in (("first", rows), ("unchanged", rows), ("one problem edited", edited)):
                start = time.perf_counter()
                stats = verify_sharded(batch, config, cache=cache).stats
                took = time.perf_counter() - start
                first = first or took
                print(f"| {name} | {len(rows)} | {label} | {took:.2f} | {stats['shards_reused']}/{stats['shards']} "
                      f"| {len(rows) - stats['problems_reused']} | {first / took:.1f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=300, help="problems per set")
    ap.add_argument("--refresh", action="store_true", help="only the refresh table (shards reused)")
    args = ap.parse_args()
    if args.refresh:
        refresh_table(args.limit)
        return
    print("| set | problems | config | workers | seconds | problems/s | wrong programs run | verified | rejected | dropped tests |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    previous = {"max_references": 3, "max_incorrect": 0, "derive_time_limits": False}
    for name in ("taco", "leetcode", "kodcode"):
        rows = process_rows(collect(default_specs()[name]).kept).kept[: args.limit]
        for label, workers, extra in (("defaults", 2, {}), ("defaults", 1, {}), ("previous defaults", 2, previous)):
            config = VerifyConfig(workers=workers, timeout_s=10, generation=TestGenConfig(cache=False), **extra)
            stats = verify_rows(rows, config).stats  # generation's cache off: every row does the same work
            print(f"| {name} | {len(rows)} | {label} | {workers} | {stats['seconds']} | {stats['problems_per_s']} "
                  f"| {stats['incorrect_runs']} | {stats['verified']} | {stats['rejected']} | {stats['dropped_tests']} |", flush=True)


if __name__ == "__main__":
    main()
