"""``microcoder``: run the main job from the command line, recorded in the Dagster instance.

Runs are stored in ``$DAGSTER_HOME`` (default ``$MICROCODER_DATA/dagster_home``, SQLite), so the
UI (``dagster dev``) shows them afterwards.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import dagster as dg

from pipeline.paths import data_root


def _instance() -> dg.DagsterInstance:
    home = os.environ.setdefault("DAGSTER_HOME", str(Path(data_root()) / "dagster_home") if "://" not in data_root() else str(Path("data/dagster_home").resolve()))
    Path(home).mkdir(parents=True, exist_ok=True)
    return dg.DagsterInstance.get()


def sample_run_config(sample: int) -> dict:
    """The model-driven stages on a small sample: what the embedded CPU model can do in minutes."""
    return {"ops": {"difficulty_scores": {"config": {"sample_size": sample, "k": 4, "max_tokens": 256}}}}


PARTITION_TAG = "dagster/partition"


def resolve_job(name: str) -> dg.JobDefinition:
    """Module-level, so ``execute_job`` can rebuild the job (what re-execution needs)."""
    from assets.definitions import defs

    return defs.resolve_job_def(name)


def _latest_run(instance: dg.DagsterInstance, job: str, partition: str | None) -> dg.DagsterRun | None:
    """The last finished-or-not run of ``job`` (for ``partition``), or None."""
    tags = {PARTITION_TAG: partition} if partition else {}
    runs = instance.get_runs(dg.RunsFilter(job_name=job, tags=tags), limit=1)
    return runs[0] if runs else None


def _execute(instance: dg.DagsterInstance, job: str, partition: str | None, run_config: dict,
             parent: dg.DagsterRun | None) -> tuple[bool, str]:
    """One run, in this process; with ``parent``, only its failed steps and what follows them run."""
    target = dg.build_reconstructable_job("assets.cli", "resolve_job", reconstructable_args=(job,))
    config = {**run_config, "execution": {"config": {"in_process": {}}}}
    options = dg.ReexecutionOptions.from_failure(parent.run_id, instance) if parent else None
    tags = {PARTITION_TAG: partition} if partition else {}
    with dg.execute_job(target, instance, run_config=config, tags=tags, reexecution_options=options) as result:
        return result.success, result.run_id


def run_main(sources: list[str] | None, downstream: bool, training: bool = True, sample: int = 8,
             from_failure: bool = False) -> int:
    """Every source partition, then the dataset and training jobs.

    With ``from_failure``, what last succeeded is not redone: finished partitions are skipped and a
    failed run is re-executed from its failed step (Dagster's re-execution, recorded as a child of
    the failed run); downstream jobs run afresh once any partition was redone.
    """
    from assets.sources import configured_specs, register_sources

    instance = _instance()
    register_sources(instance)
    known = sorted(configured_specs())
    partitions = sources or known
    unknown = sorted(set(partitions) - set(known))
    if unknown:
        print(f"unknown sources {unknown}; known: {known}", file=sys.stderr)
        return 2
    steps = [("ingest_job", key, {}) for key in partitions]
    if downstream:
        steps.append(("dataset_job", None, sample_run_config(sample)))
        if training:
            steps.append(("training_job", None, {}))
    failed: list[str] = []
    redone = False
    for job, partition, run_config in steps:
        label = f"ingest[{partition}]" if partition else job
        if job != "ingest_job" and failed:
            break
        # Downstream of a redone partition, an earlier run of the job saw stale inputs: run afresh.
        resume = from_failure and (job == "ingest_job" or not redone)
        last = _latest_run(instance, job, partition) if resume else None
        if last is not None and last.status == dg.DagsterRunStatus.SUCCESS:
            print(f"{label}: finished in run {last.run_id}, skipped", flush=True)
            continue
        parent = last if last is not None and last.status == dg.DagsterRunStatus.FAILURE else None
        start = time.monotonic()
        success, run_id = _execute(instance, job, partition, run_config, parent)
        redone = True
        how = f"re-executed from failure of {parent.run_id}" if parent else "run"
        print(f"{label}: {'ok' if success else 'FAILED'} in {time.monotonic() - start:.1f}s ({how} {run_id})", flush=True)
        if not success:
            failed.append(label)
    print(f"data under {data_root()}; runs in {os.environ['DAGSTER_HOME']} (see them with `dagster dev`)")
    if failed:
        print(f"failed: {', '.join(failed)}; fix the cause, then `microcoder run --from-failure` redoes only those",
              file=sys.stderr)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="microcoder", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="materialize the asset graph (all source partitions, then downstream)")
    run.add_argument("--sources", help="comma-separated source partitions (default: all configured)")
    run.add_argument("--ingest-only", action="store_true", help="stop after Collect and Process")
    run.add_argument("--no-training", action="store_true", help="stop after the released dataset")
    run.add_argument("--sample", type=int, default=8, help="problems the model scores for difficulty (default 8)")
    run.add_argument("--from-failure", action="store_true",
                     help="skip what last succeeded; re-execute failed runs from their failed step")
    args = parser.parse_args(argv)
    if args.command == "run":
        sources = [s for s in (args.sources or "").split(",") if s] or None
        return run_main(sources, downstream=not args.ingest_only, training=not args.no_training, sample=args.sample,
                        from_failure=args.from_failure)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
