"""End-to-end timing of the dataset assets (no model, so no translation): Collect + Process of every
local source, then Filter and Verify, materialized through the real Dagster definitions and IO manager.

The same code runs once per checkout in a fresh process and data directory, so a baseline tree
(e.g. a ``git worktree`` of an earlier commit) is compared with this one in the same run. Asset
names are found by group, so trees that name the stages differently compare as well.

    git worktree add /tmp/microcoder-base <commit>
    .venv/bin/python benchmarks/bench_asset_graph.py --baseline-tree /tmp/microcoder-base [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.paths import shared_data_dir  # noqa: E402

MODEL_STAGES = {"scored_problems", "microcoder_dataset", "rejected_problems"}  # need the model or follow it


def materialize() -> dict[str, float]:
    """In this process (cwd = the tree): every ingest partition, then Filter + Verify; seconds per step."""
    import dagster as dg

    from assets.definitions import defs

    instance = dg.DagsterInstance.ephemeral()
    graph = defs.resolve_asset_graph()
    job = defs.resolve_implicit_global_asset_job_def()
    ingest = [k for k in graph.get_all_asset_keys() if graph.get(k).group_name == "ingest"]
    dataset = [k for k in graph.get_all_asset_keys() if graph.get(k).group_name == "dataset" and k.path[-1] not in MODEL_STAGES]
    partitions = graph.get(ingest[0]).partitions_def
    try:
        from pipeline.sources.discovery import configured_specs
    except ImportError:  # an earlier tree
        from assets.sources import configured_specs
    keys = sorted(configured_specs())
    instance.add_dynamic_partitions(partitions.name, keys)
    times: dict[str, float] = {}
    start = time.perf_counter()
    for key in keys:
        assert job.execute_in_process(instance=instance, asset_selection=ingest, partition_key=key).success
    times["ingest (all partitions)"] = time.perf_counter() - start
    mark = time.perf_counter()
    result = job.execute_in_process(instance=instance, asset_selection=dataset)
    assert result.success
    times["filter + verify"] = time.perf_counter() - mark
    times["total"] = time.perf_counter() - start
    return times


def run_tree(tree: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-graph-") as data:
        env = {**os.environ, "MICROCODER_DATA": data, "PYTHONPATH": str(tree), "DAGSTER_HOME": data,
               "MICROCODER_TRANSLATION_ENABLED": "false",  # the model's share is the same in both trees
               "MICROCODER_SHARED_DATA": str(shared_data_dir())}  # a worktree elsewhere has no ../shared
        code = f"import json, sys; sys.path.insert(0, {str(tree)!r}); sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); " \
               "from bench_asset_graph import materialize; print('TIMES ' + json.dumps(materialize()))"
        proc = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{tree} failed:\n{proc.stderr[-3000:]}")
        line = next(x for x in proc.stdout.splitlines() if x.startswith("TIMES "))
        return json.loads(line[6:])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline-tree", required=True, help="a checkout to compare with (e.g. a git worktree)")
    ap.add_argument("--repeat", type=int, default=1, help="alternating runs per tree; the best is kept")
    args = ap.parse_args()
    if shared_data_dir() is None:
        sys.exit("no ../shared/data: nothing to benchmark")
    trees = {"baseline": Path(args.baseline_tree).resolve(), "this tree": ROOT}
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.repeat):
        for name, tree in trees.items():
            times = run_tree(tree)
            best[name] = times if name not in best else {k: min(v, best[name][k]) for k, v in times.items()}
    print(f"\nAsset graph without the model, {os.cpu_count()} cores, best of {args.repeat} (seconds)")
    print(f"{'step':<26}{'baseline':>10}{'this tree':>11}{'change':>9}")
    for step in best["baseline"]:
        b, t = best["baseline"][step], best["this tree"][step]
        print(f"{step:<26}{b:>10.1f}{t:>11.1f}{(t - b) / b:>+9.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
