"""How Verify's test generation grows with the number of problems, on this machine's pool and on a
two-node Ray cluster, in one run.

    .venv/bin/python benchmarks/bench_generation_scale.py [--sizes 50,100,200,400] [--no-ray | --ray-only] [--workers N]
    .venv/bin/python benchmarks/bench_generation_scale.py --sizes 400 --plan-only   # making the inputs alone

The problems: every local training source's processed problems that have a reference, taken
round-robin by source, so that every size mixes the sources as a full run does (``--sizes all``:
every one of them). For each size, Verify with generation on (both caches off) runs on the local
pool, then on a two-node Ray cluster started on this machine (``benchmarks/local_ray.py``: a head
and a second node on 127.0.0.2, half the workers each), the oracle and the adversaries dispatched to
its actors. The table gives seconds, problems per second and generated tests; a least-squares line
``seconds = a + b * problems`` per backend gives the growth, and the largest size's core-seconds a
problem what a user should expect for N problems on C cores (``seconds * workers / size * N / C``:
generation parallelises over problems and their programs, so the per-problem cost divides by the
cores; the cost per problem follows the mix of sources, which the largest size has most like a full
run, so a line fitted over the small sizes would mislead).

On one machine the two "nodes" share its cores: the Ray column measures the cluster path's
overhead, not a speed-up; run it against a real cluster's address (``--ray-address``) for that.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.backend import LocalBackend  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.sources.registry import TRAIN  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402
from pipeline.verify.testgen.generate import TestGenConfig  # noqa: E402


def problem_pool() -> list[dict]:
    """Every local training source's problems with a reference, interleaved source by source."""
    by_source = []
    for name, spec in sorted(default_specs().items()):
        if spec.role != TRAIN:
            continue
        rows = [r for r in process_rows(collect(spec).kept).kept if r.get("solutions")]
        print(f"{name}: {len(rows)} problems with a reference", flush=True)
        by_source.append(rows)
    pool = []
    for i in range(max(map(len, by_source), default=0)):
        pool += [rows[i] for rows in by_source if i < len(rows)]
    return pool


def run(rows: list[dict], backend, workers: int, budget_s: float | None) -> dict:
    generation = TestGenConfig(cache=False)
    if budget_s is not None:
        generation = TestGenConfig(cache=False, oracle_budget_s=budget_s, adversary_budget_s=budget_s)
    config = VerifyConfig(workers=workers, cache=False, generation=generation)
    start = time.perf_counter()
    result = verify_rows(rows, config, backend=backend, progress=lambda line: print(f"  {line}", flush=True))
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "per_s": len(rows) / seconds if seconds else 0.0,
            "generated": sum(int(r.get("generated_tests") or 0) for r in result.kept), "kept": len(result.kept)}


def plan_seconds(rows: list[dict], workers: int) -> float:
    """Making the inputs alone (before any program runs), on ``workers`` processes (1: this one)."""
    from pipeline.verify.testgen.planning import planner

    config = TestGenConfig(cache=False)
    start = time.perf_counter()
    with planner(config, workers, len(rows)) as plan:
        plan(rows)
    return time.perf_counter() - start


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares ``seconds = a + b * problems``."""
    n = len(points)
    if n < 2:
        return 0.0, (points[0][1] / points[0][0]) if points else 0.0
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - b * mx, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="50,100,200,400", help="problem counts, comma-separated; 'all' for every one")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-ray", action="store_true", help="the local pool only")
    parser.add_argument("--ray-only", action="store_true",
                        help="Ray only, e.g. its column at a size an earlier run gave the local pool's (a full run takes hours on 2 cores)")
    parser.add_argument("--ray-address", default="", help="a running cluster instead of the two local nodes")
    parser.add_argument("--ray-max", default="all",
                        help="the largest size Ray runs too (the local pool runs every size): 'all', or a problem count")
    parser.add_argument("--budget-s", type=float, default=None,
                        help="the oracle's and adversaries' wall budget per problem (default: the product's, 5 s and 2 s); "
                             "a generous one makes both backends do the same work, so their times compare")
    parser.add_argument("--plan-only", action="store_true",
                        help="time making the inputs alone: in this one process, then on --workers processes")
    args = parser.parse_args()
    pool = problem_pool()
    sizes = [len(pool) if s == "all" else min(int(s), len(pool)) for s in args.sizes.split(",")]
    if args.plan_only:
        print("| problems | one process, s | s a problem | {w} processes, s | speed-up |\n|---|---|---|---|---|".format(w=args.workers))
        for size in sizes:
            alone, spread = plan_seconds(pool[:size], 1), plan_seconds(pool[:size], args.workers)
            print(f"| {size} | {alone:.1f} | {alone / size:.3f} | {spread:.1f} | {alone / spread:.2f}x |", flush=True)
        return
    ray_max = len(pool) if args.ray_max == "all" else int(args.ray_max)
    if args.no_ray and args.ray_only:
        parser.error("--no-ray and --ray-only leave nothing to run")
    backends = [] if args.ray_only else [("local pool", LocalBackend(), None)]
    cluster = None
    if not args.no_ray:
        from evaluator.ray_backend import RayEvaluator

        address = args.ray_address
        if not address:
            from benchmarks.local_ray import two_node_cluster

            cluster = two_node_cluster(cpus_per_node=max(1, args.workers // 2))
            address, _ = cluster.__enter__()
        backends.append(("two-node Ray", RayEvaluator(address), address))
    rows_out: list[tuple[str, int, dict]] = []
    try:
        for size in sizes:
            for name, backend, _ in backends:
                if name != "local pool" and size > ray_max:
                    continue
                figures = run(pool[:size], backend, args.workers, args.budget_s)
                rows_out.append((name, size, figures))
                print(f"{name}: {size} problems in {figures['seconds']:.1f} s ({figures['per_s']:.2f}/s), "
                      f"{figures['generated']} tests generated, {figures['kept']} kept", flush=True)  # said as it goes
    finally:
        if cluster is not None:
            cluster.__exit__(None, None, None)
    print(f"\n{args.workers} workers, {os.cpu_count()} cores; {len(pool)} problems in the pool\n")
    print("| backend | problems | seconds | problems/s | generated tests | kept |")
    print("|---|---|---|---|---|---|")
    for name, size, f in rows_out:
        print(f"| {name} | {size} | {f['seconds']:.1f} | {f['per_s']:.2f} | {f['generated']} | {f['kept']} |")
    print("\n| backend | seconds = a + b x problems | all {n} problems, here | 1,000 problems on 16 cores | 10,000 on 64 |".format(n=len(pool)))
    print("|---|---|---|---|---|")
    for name, _, _ in backends:
        if not any(n == name for n, _, _ in rows_out):
            continue
        a, b = fit([(size, f["seconds"]) for n, size, f in rows_out if n == name])
        largest, f = max(((size, f) for n, size, f in rows_out if n == name), key=lambda pair: pair[0])
        per_core = f["seconds"] * args.workers / largest  # core-seconds a problem, at the largest size: the mix a full run has

        def expect(problems: int, cores: int) -> str:
            return f"{per_core * problems / cores / 60:.1f} min"
        print(f"| {name} | {a:.1f} + {b:.3f} x N | {expect(len(pool), args.workers)} | {expect(1000, 16)} | {expect(10000, 64)} |")
    local = {size: f for n, size, f in rows_out if n == "local pool"}
    ray_rows = {size: f for n, size, f in rows_out if n != "local pool"}
    differ = [s for s in sizes if s in ray_rows and s in local
              and (ray_rows[s]["generated"], ray_rows[s]["kept"]) != (local[s]["generated"], local[s]["kept"])]
    if differ:
        print(f"\nNot the same work at {differ} problems: a wall budget cut runs short on one backend (see --budget-s).")
    if any(s in local for s in ray_rows):
        print("\nRay / local time: " + ", ".join(f"{s}: {ray_rows[s]['seconds'] / local[s]['seconds']:.2f}x"
                                                 for s in sizes if s in ray_rows and s in local))


if __name__ == "__main__":
    main()
