"""Collect + Process on 100,000 problems, against plain langdetect on every row.

Input: the shared records replicated under distinct ids with slightly varied statements (a
counter word appended). Collect is the registered source adapters (``pipeline.sources``).
Work is split over processes in chunks (one per replica pass), using every core. The
baseline runs the same pipeline with the language step replaced by plain seeded langdetect
on a subset and is extrapolated to the full count.

    .venv/bin/python benchmarks/bench_collect_process.py [--problems 100000] [--baseline 10000]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.process.language import langdetect_language  # noqa: E402
from pipeline.process.steps import DEFAULT_STEPS, language_step  # noqa: E402
from pipeline.schema import problem_id  # noqa: E402
from pipeline.sources import collect_all  # noqa: E402

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


def _vary(rows: list[dict], rep: int, limit: int) -> list[dict]:
    out = []
    for i, row in enumerate(rows[:limit]):
        sid = f"{row['source_id']}#r{rep}"
        out.append(dict(row, source_id=sid, problem_id=problem_id(row["source"], sid),
                        statement=f"{row['statement']}\n\nVariant {WORDS[(rep + i) % len(WORDS)]} {rep}."))
    return out


def plain_langdetect_step(row: dict) -> dict:
    row["language"] = langdetect_language(row["statement"])
    row["needs_translation"] = row["language"] not in (None, "en")
    return row


def _chunk(args: tuple[int, int, bool]) -> tuple[int, int, Counter, float, float]:
    """Collect one replica pass and Process it; returns counts, not rows (no IPC of 100k rows)."""
    rep, limit, baseline = args
    t0 = time.perf_counter()
    rows = _vary(collect_all(), rep, limit)
    t1 = time.perf_counter()
    steps = tuple(plain_langdetect_step if s is language_step else s for s in DEFAULT_STEPS) if baseline else None
    result = process_rows(rows, steps=steps)
    t2 = time.perf_counter()
    reasons = Counter(r["reason"] for r in result.rejects)
    return len(result.kept), len(result.rejects), reasons, t1 - t0, t2 - t1


def run(total: int, workers: int, baseline: bool) -> dict:
    per_pass = len(collect_all())
    tasks, left, rep = [], total, 0
    while left > 0:
        tasks.append((rep, min(per_pass, left), baseline))
        left -= per_pass
        rep += 1
    start = time.perf_counter()
    kept = rejected = 0
    reasons: Counter = Counter()
    collect_s = process_s = 0.0
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for k, r, rs, c, p in pool.map(_chunk, tasks):
            kept, rejected, collect_s, process_s = kept + k, rejected + r, collect_s + c, process_s + p
            reasons.update(rs)
    wall = time.perf_counter() - start
    return dict(rows=kept + rejected, kept=kept, rejected=rejected, reasons=reasons, wall=wall,
                collect_cpu=collect_s, process_cpu=process_s)


def _peak_mib() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # largest child
    return own, child


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=100_000)
    parser.add_argument("--baseline", type=int, default=10_000, help="rows for the plain-langdetect run")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    if shared_data_dir() is None:
        sys.exit("no ../shared/data: nothing to benchmark")

    fast = run(args.problems, args.workers, baseline=False)
    own, child = _peak_mib()
    base = run(args.baseline, args.workers, baseline=True)
    scale = args.problems / base["rows"]

    print(f"input: source adapters (pipeline.sources.collect_all); {args.workers} worker processes; shared records replicated, statements varied")
    print("| run | rows | wall s | rows/s | collect s (sum of workers) | process s (sum of workers) | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    print(f"| fast path (script + stop words, langdetect when ambiguous) | {fast['rows']} | {fast['wall']:.1f} | "
          f"{fast['rows'] / fast['wall']:.0f} | {fast['collect_cpu']:.1f} | {fast['process_cpu']:.1f} | "
          f"parent {own:.0f} + {args.workers} x child {child:.0f} = {own + args.workers * child:.0f} |")
    print(f"| baseline: plain langdetect every row, measured on {base['rows']} | {base['rows']} | {base['wall']:.1f} | "
          f"{base['rows'] / base['wall']:.0f} | {base['collect_cpu']:.1f} | {base['process_cpu']:.1f} | (same processes) |")
    print(f"| baseline extrapolated to {args.problems} | {args.problems} | {base['wall'] * scale:.1f} | "
          f"{base['rows'] / base['wall']:.0f} | | | |")
    print(f"kept {fast['kept']}, rejected {fast['rejected']}: {dict(fast['reasons'].most_common())}")
    ok = fast["wall"] <= 60 and own + args.workers * child < 2048
    print(f"target (<= 60 s, < 2 GiB): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
