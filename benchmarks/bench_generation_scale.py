"""How Verify's test generation grows with the number of problems, on this machine's pool and on a
two-node Ray cluster, in one run.

    .venv/bin/python benchmarks/bench_generation_scale.py [--sizes 50,100,200,400] [--no-ray | --ray-only] [--workers N]
    .venv/bin/python benchmarks/bench_generation_scale.py --sizes 400 --plan-only   # making the inputs alone
    .venv/bin/python benchmarks/bench_generation_scale.py --phases --per-kind 40      # where the time goes
    git worktree add /tmp/gen-base 0e41e3c   # the tree to compare with
    .venv/bin/python benchmarks/bench_generation_scale.py --baseline-tree /tmp/gen-base --per-kind 40 [--rounds 2]

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

``--phases``: about ``--per-kind`` problems of each test kind (``stdin``, ``call``, ``assert``,
``linked``; each kind's sources in their shares of the pool), each kind's in one Verify run on the local pool, with the recorder of
:mod:`pipeline.verify.testgen.timing` on: seconds per phase (proposing, validating, edges, the
references' answers, the adversaries, selection, the strength runs that measure the reward) and
problems per second per kind.

``--baseline-tree PATH``: the same problems through this tree and the one at PATH (a ``git worktree``
of an earlier commit), each run a fresh process with ``PYTHONPATH`` at its tree, the two trees
alternating kind by kind (and which goes first alternating too), so a busy machine slows both alike;
problems per second for each and the ratio, the phases of each tree that records them, and how
many problems' released tests differ between the trees (the same tests, or a difference to explain
with ``golden_verify.py`` and ``bench_test_quality.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

# the tree whose pipeline runs: this one, or (in a comparison's child process) the one it names
TREE = Path(os.environ.get("BENCH_GENERATION_TREE") or Path(__file__).resolve().parents[1])
sys.path.insert(0, str(TREE))

from evaluator.backend import LocalBackend  # noqa: E402
from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.sources.registry import TRAIN  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402
from pipeline.verify.testgen import TestGenConfig  # noqa: E402


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


def run(rows: list[dict], backend, workers: int, budget_s: float | None, quiet: bool = False) -> dict:
    generation = TestGenConfig(cache=False)
    if budget_s is not None:
        generation = TestGenConfig(cache=False, oracle_budget_s=budget_s, adversary_budget_s=budget_s)
    config = VerifyConfig(workers=workers, cache=False, generation=generation)
    start = time.perf_counter()
    result = verify_rows(rows, config, backend=backend,
                         progress=None if quiet else (lambda line: print(f"  {line}", flush=True)))
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "per_s": len(rows) / seconds if seconds else 0.0,
            "generated": sum(int(r.get("generated_tests") or 0) for r in result.kept), "kept": len(result.kept),
            "released": released(result)}


def released(result) -> dict[str, str]:
    """Problem id -> a digest of what a user of the dataset sees of it: its tests (every case, with
    origin and how it was made) and mutation score, or the reason it was rejected."""
    out = {}
    for row in result.kept:
        text = json.dumps([row["tests"].to_json(), row.get("mutation_score"), row.get("generated_tests")], sort_keys=True)
        out[str(row["problem_id"])] = hashlib.sha1(text.encode()).hexdigest()
    for rej in result.rejects:
        out[str(rej.get("problem_id") or rej.get("source_id"))] = "rejected:" + str(rej["reason"])
    return out


def kind_counts(pool: list[dict]) -> dict[str, int]:
    """How many problems of each test kind the whole pool (a full run) holds."""
    from pipeline.verify.testgen import kind_for

    return dict(Counter(kind_for(row["tests"]).name for row in pool))


def by_kind(pool: list[dict], per_kind: int) -> dict[str, list[dict]]:
    """About ``per_kind`` problems of each test kind, its sources in the shares the whole pool gives
    them (``assert``: MBPP's 474 of 616 weigh as in a full run, not KodCode's slower 123 as much),
    each source's first ones: a kind's seconds a problem then stand for a full run's."""
    from pipeline.verify.testgen import kind_for

    rows: dict[str, dict[str, list[dict]]] = {}
    for row in pool:
        rows.setdefault(kind_for(row["tests"]).name, {}).setdefault(row["source"], []).append(row)
    groups: dict[str, list[dict]] = {}
    for name, sources in sorted(rows.items()):
        total = sum(map(len, sources.values()))
        groups[name] = [row for found in sources.values()
                        for row in found[: max(1, round(per_kind * len(found) / total))]]
    return groups


def recorded_run(rows: list[dict], workers: int, budget_s: float | None) -> dict:
    """:func:`run` on the local pool with the phase recorder on, where this tree has one; and the
    CPU seconds it took, this process's and every process it started (the evaluator's workers
    and what they ran, the planner's pool): on a machine others load too, the steadier figure."""
    try:
        from pipeline.verify.testgen import timing
    except ImportError:  # a tree from before the recorder: its total time only
        timing = None
    before = _cpu_seconds()
    with timing.recording() if timing else nullcontext(Counter()) as phases:
        figures = run(rows, LocalBackend(), workers, budget_s, quiet=True)
    _close_workers()
    return {**figures, "phases": dict(phases), "cpu_s": _cpu_seconds() - before}


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (theirs counted in)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _close_workers() -> None:
    """End the evaluator's workers, so that their CPU (and their programs') counts as a child's."""
    from evaluator.sandbox import pool

    for workers in list(pool._shared.values()):  # noqa: SLF001 - a benchmark reading the pool it used
        workers.close()


def child(rows_path: Path, out_path: Path, workers: int, budget_s: float | None) -> None:
    """A comparison's run in a process of its own, on the tree ``BENCH_GENERATION_TREE`` names."""
    with rows_path.open("rb") as fh:
        rows = pickle.load(fh)
    out_path.write_text(json.dumps(recorded_run(rows, workers, budget_s)))


def in_tree(tree: Path, rows: list[dict], workers: int, budget_s: float | None) -> dict:
    """:func:`recorded_run` of ``rows`` in a fresh process whose pipeline is ``tree``'s."""
    with tempfile.TemporaryDirectory(prefix="bench-generation-") as tmp:
        rows_path, out_path = Path(tmp) / "rows.pickle", Path(tmp) / "out.json"
        with rows_path.open("wb") as fh:
            pickle.dump(rows, fh)
        # run from the tree, with the shared data named: its evaluator's workers (`python -m`) import
        # from the working directory, and a tree from before the pool started them from their own
        # package would otherwise run this checkout's fork server
        env = {**os.environ, "PYTHONPATH": str(tree), "BENCH_GENERATION_TREE": str(tree),
               "MICROCODER_SHARED_DATA": str(shared_data_dir() or "")}
        command = [sys.executable, str(Path(__file__).resolve()), "--child", str(rows_path), str(out_path),
                   "--workers", str(workers)] + (["--budget-s", str(budget_s)] if budget_s is not None else [])
        subprocess.run(command, env=env, check=True, cwd=tree)
        return json.loads(out_path.read_text())


PHASES = (  # (what the table calls it, the recorder's phases it sums); planning's split is its processes' own time
    ("references (Verify's own)", ("references",)),
    ("planning: proposing", ("proposing",)),
    ("planning: validating", ("validating",)),
    ("planning: edges", ("edges",)),
    ("oracle (references' answers)", ("oracle",)),
    ("adversaries: building", ("adversaries:build",)),
    ("adversaries: on generated inputs", ("adversaries:generated",)),
    ("adversaries: on the source's tests", ("adversaries:originals",)),
    ("selection", ("selection",)),
    ("strength + reward measurement", ("strength",)),
)


def phase_rows(phases: dict[str, float]) -> list[tuple[str, float]]:
    """The table's phases from a run's recorder: planning's wall time shared out in proportion to
    its processes' own time on each step (forked processes overlap), the rest as recorded."""
    planned = ("proposing", "validating", "edges")
    own = sum(phases.get(k, 0.0) for k in planned)
    scale = phases.get("planning", 0.0) / own if own else 0.0
    return [(label, sum(phases.get(k, 0.0) for k in keys) * (scale if keys[0] in planned else 1.0))
            for label, keys in PHASES]


def busy_line(kind: str, phases: dict[str, float]) -> str:
    """The summed run time of each family of programs that share a batch (adversaries: mutants and
    the hardcoder; strength: the known-wrong programs and the reference that measures the reward)."""
    busy = {k.split(":", 1)[1]: v for k, v in phases.items() if k.startswith("busy:")}
    return f"{kind}: " + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(busy.items()))


def print_phases(title: str, runs: dict[str, dict]) -> None:
    """Seconds per phase (rows) and test kind (columns), and each phase's share of the total."""
    kinds = [k for k in runs if runs[k].get("phases")]
    if not kinds:
        print(f"\n{title}: no phases recorded (a tree from before the recorder)")
        return
    tables = {k: phase_rows(runs[k]["phases"]) for k in kinds}
    total = sum(runs[k]["seconds"] for k in kinds)
    print(f"\n{title}: seconds per phase\n")
    print("| phase | " + " | ".join(kinds) + " | all | share |")
    print("|---|" + "---|" * (len(kinds) + 2))
    for j, (label, _) in enumerate(tables[kinds[0]]):
        values = [tables[k][j][1] for k in kinds]
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in values) + f" | {sum(values):.1f} | {sum(values) / total:.0%} |")
    print("| **total (wall)** | " + " | ".join(f"{runs[k]['seconds']:.1f}" for k in kinds) + f" | {total:.1f} | |")
    print("\nrun time by family, summed over parallel runs:")
    for k in kinds:
        print("  " + busy_line(k, runs[k]["phases"]))


def full_run_seconds(runs: dict[str, dict], groups: dict[str, list[dict]], counts: dict[str, int], rounds: int,
                     figure: str = "seconds") -> float:
    """A full run's seconds (wall, or ``cpu_s``) on these figures: each kind's a problem times its count in the pool."""
    return sum(runs[k][figure] / (rounds * len(groups[k])) * counts.get(k, 0) for k in groups)


def compare_trees(groups: dict[str, list[dict]], baseline: Path, workers: int, budget_s: float | None,
                  rounds: int, counts: dict[str, int]) -> None:
    """Each kind's problems through the baseline tree and this one, alternating; figures summed over rounds."""
    trees = {"old": baseline.resolve(), "new": TREE}
    runs: dict[str, dict[str, dict]] = {"old": {}, "new": {}}
    turn = 0
    for r in range(rounds):
        for kind, rows in groups.items():
            order = ["old", "new"] if turn % 2 == 0 else ["new", "old"]
            turn += 1
            for name in order:
                figures = in_tree(trees[name], rows, workers, budget_s)
                print(f"round {r + 1}, {kind}, {name} tree: {len(rows)} problems in {figures['seconds']:.1f} s "
                      f"({figures['per_s']:.2f}/s), {figures['cpu_s']:.0f} CPU s", flush=True)
                _accumulate(runs[name], kind, figures)
    print(f"\n{workers} workers, {os.cpu_count()} cores, {rounds} round(s); old: {trees['old']}, new: {trees['new']}\n")
    print("| kind | problems | old s | new s | old problems/s | new problems/s | new / old | CPU s old | CPU s new | "
          "CPU new / old | tests differ |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in [*groups, "all"]:
        old, new = (_total(runs[n]) if kind == "all" else runs[n][kind] for n in ("old", "new"))
        differ = sum(1 for pid, d in new["released"].items() if old["released"].get(pid) != d)
        n = sum(len(g) for g in groups.values()) if kind == "all" else len(groups[kind])
        print(f"| {kind} | {n} | {old['seconds']:.1f} | {new['seconds']:.1f} | {rounds * n / old['seconds']:.3f} | "
              f"{rounds * n / new['seconds']:.3f} | {old['seconds'] / new['seconds']:.2f}x | {old['cpu_s']:.0f} | "
              f"{new['cpu_s']:.0f} | {old['cpu_s'] / new['cpu_s']:.2f}x | {differ} |")
    old_s, new_s = (full_run_seconds(runs[n], groups, counts, rounds) for n in ("old", "new"))
    old_cpu, new_cpu = (full_run_seconds(runs[n], groups, counts, rounds, "cpu_s") for n in ("old", "new"))
    total = sum(counts.get(k, 0) for k in groups)
    print(f"| full run's mix ({', '.join(f'{k} {counts.get(k, 0)}' for k in groups)}), estimated | {total} | "
          f"{old_s:.0f} | {new_s:.0f} | {total / old_s:.3f} | {total / new_s:.3f} | {old_s / new_s:.2f}x | "
          f"{old_cpu:.0f} | {new_cpu:.0f} | {old_cpu / new_cpu:.2f}x | |")
    for name in ("old", "new"):
        print_phases(f"{name} tree ({trees[name]})", runs[name])


def _accumulate(into: dict[str, dict], kind: str, figures: dict) -> None:
    """Sum a run's seconds and phases into its kind's (over rounds); the released tests: the first round's."""
    have = into.setdefault(kind, {"seconds": 0.0, "cpu_s": 0.0, "phases": {}, "released": figures["released"]})
    have["seconds"] += figures["seconds"]
    have["cpu_s"] += figures["cpu_s"]
    for k, v in figures["phases"].items():
        have["phases"][k] = have["phases"].get(k, 0.0) + v


def _total(runs: dict[str, dict]) -> dict:
    """Every kind's figures together."""
    released: dict[str, str] = {}
    for f in runs.values():
        released.update(f["released"])
    return {"seconds": sum(f["seconds"] for f in runs.values()), "cpu_s": sum(f["cpu_s"] for f in runs.values()),
            "released": released}


def plan_seconds(rows: list[dict], workers: int) -> float:
    """Making the inputs alone (before any program runs), on ``workers`` processes (1: this one)."""
    from pipeline.verify.testgen import planner

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
    parser.add_argument("--phases", action="store_true", help="seconds per phase and kind, on --per-kind problems each")
    parser.add_argument("--baseline-tree", type=Path, default=None,
                        help="compare with the tree at this path (a git worktree of an earlier commit) on --per-kind problems each")
    parser.add_argument("--per-kind", type=int, default=40, help="problems of each test kind (--phases, --baseline-tree)")
    parser.add_argument("--rounds", type=int, default=1, help="--baseline-tree: runs of each tree, alternating")
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)  # ROWS OUT: one comparison run
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.workers, args.budget_s)
        return
    pool = problem_pool()
    if args.baseline_tree or args.phases:
        groups = by_kind(pool, args.per_kind)
        print("problems per kind: " + ", ".join(f"{k} {len(v)}" for k, v in groups.items()), flush=True)
        if args.baseline_tree:
            compare_trees(groups, args.baseline_tree, args.workers, args.budget_s, args.rounds, kind_counts(pool))
            return
        runs = {}
        for kind, rows in groups.items():
            runs[kind] = recorded_run(rows, args.workers, args.budget_s)
            print(f"{kind}: {len(rows)} problems in {runs[kind]['seconds']:.1f} s ({runs[kind]['per_s']:.2f}/s)", flush=True)
        print_phases("this tree", runs)
        return
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
