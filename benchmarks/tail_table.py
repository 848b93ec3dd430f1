"""``bench_evaluator.py --groups --programs FILE``: a reward batch's wall time with and without idle
workers taking over a running ``stdin`` test's cases (``Options.share_cases``, :mod:`evaluator.tail`).

A GRPO step scores a group of samples of one problem together and waits for its slowest program.
Here each problem's programs in FILE (a ``microcoder-eval run`` JSON-lines file, as ``--peers``
takes; the problem is a job id up to its last ``/``) are one ``evaluate_many`` batch. The two
settings go in turns, ``rounds`` times, each batch's best wall time is its figure, and each
batch's verdicts and cases must be the same both ways.
"""

from __future__ import annotations

import time
from collections import defaultdict

from benchmarks.peer_table import load_programs
from evaluator import Limits, evaluate_many


def _groups(items: list[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        groups[str(item["id"]).rsplit("/", 1)[0]].append(item)
    return groups


def _batch(items: list[dict], workers: int, timeout: float, share: bool) -> tuple[float, list]:
    jobs = [(item["id"], item["code"], item["tests"]) for item in items]
    start = time.perf_counter()
    results = evaluate_many(jobs, Limits(time_s=timeout), workers=workers, share_cases=share)
    return time.perf_counter() - start, [(r.verdict.value, [c.verdict.value for c in r.cases]) for r in results]


def tail_table(path: str, workers: int, timeout: float, rounds: int, shown: int = 8) -> None:
    groups = _groups(load_programs(path))
    best: dict[tuple[str, bool], float] = {}
    for _ in range(max(1, rounds)):
        for name, items in groups.items():
            verdicts = {}
            for share in (False, True):
                wall, verdicts[share] = _batch(items, workers, timeout, share)
                best[name, share] = min(wall, best.get((name, share), wall))
            if verdicts[False] != verdicts[True]:
                raise AssertionError(f"{name}: sharing cases changed a verdict or the cases reported")
    off = sum(best[name, False] for name in groups)
    on = sum(best[name, True] for name in groups)
    print(f"\nreward batches: each problem's programs as one evaluate_many batch ({len(groups)} problems, "
          f"{sum(len(g) for g in groups.values())} programs, {workers} workers, {timeout:g} s a test, best of {rounds}; "
          "the same verdicts and cases both ways)")
    print(f"  {'problem':40} {'programs':>8} {'not shared s':>13} {'shared s':>9} {'ratio':>6}")
    slowest = sorted(groups, key=lambda name: best[name, False], reverse=True)[:shown]
    for name in slowest:
        print(f"  {name[:40]:40} {len(groups[name]):>8} {best[name, False]:>13.2f} {best[name, True]:>9.2f} "
              f"{best[name, False] / max(best[name, True], 1e-9):>5.2f}x")
    print(f"  {'every batch':40} {'':>8} {off:>13.2f} {on:>9.2f} {off / max(on, 1e-9):>5.2f}x")
