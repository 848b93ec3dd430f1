"""``microcoder``: run the main job from the command line, recorded in the Dagster instance.

Runs are stored in ``$DAGSTER_HOME`` (default ``$MICROCODER_DATA/dagster_home``, SQLite), so the
UI (``dagster dev``) shows them afterwards. The terminal gets a progress report (one line per
partition or job, then a summary table) read from the runs' materialization metadata in that
instance; ``--verbose`` brings Dagster's event log back to the terminal as well.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import multiprocessing
import os
import signal
import sys
import time
import uuid
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import dagster as dg

from assets.progress import (
    INVOCATION_TAG,
    Progress,
    RunReport,
    fill_from_ancestors,
    finished_line,
    format_duration,
    format_step,
    ingest_eta,
    live_line,
    outputs_table,
    read_events,
    summary,
)
from assets.settings import env_name, from_env
from pipeline.paths import data_root
from pipeline.processes import Terminated, adopt_orphans, ignoring_interrupts, stop_descendants, terminate_as_interrupt

PARTITION_TAG = "dagster/partition"
INTERRUPTED = {128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGHUP}  # exit codes after an interrupt
TRACKER_QUIET = "ignore::UserWarning:multiprocessing.resource_tracker"
SILENCE_S = 25.0  # in a log, the longest the report stays silent: then it prints where each running run is
RESUMABLE = (dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED)  # what --from-failure re-executes
QUIET_LOGGERS = {"console": {"config": {"log_level": "CRITICAL"}}}  # events still go to the instance


def _instance() -> dg.DagsterInstance:
    """The Dagster instance of ``$DAGSTER_HOME``; unset or empty: ``dagster_home`` under the data root."""
    if not os.environ.get("DAGSTER_HOME"):  # an empty value would put dagster.yaml in the working directory
        os.environ["DAGSTER_HOME"] = (str(Path(data_root()) / "dagster_home") if "://" not in data_root()
                                      else str(Path("data/dagster_home").resolve()))
    home = os.environ["DAGSTER_HOME"]
    Path(home).mkdir(parents=True, exist_ok=True)
    config = Path(home) / "dagster.yaml"
    if not config.exists():  # the defaults, said once (else every process warns that there is no file)
        # SQLite storage in this folder; no usage statistics leave the machine (and no first-run banner)
        config.write_text("# defaults: SQLite storage in this folder\ntelemetry:\n  enabled: false\n")
    return dg.DagsterInstance.get()


def difficulty_backend() -> str | None:
    """The faster backend for the main job's difficulty sample, end to end on 2 cores with start-up
    (``benchmarks/bench_difficulty.py``: vLLM's CPU build 54 s, transformers 114 s for 8 problems
    x 4 samples x 256 tokens), where vLLM can start; transformers elsewhere. None: the environment
    chose one (``MICROCODER_SAMPLER_BACKEND``), and it stands."""
    from pipeline.samplers.vllm_backend import vllm_available

    if env_name("sampler", "backend") in os.environ:
        return None
    return "vllm" if vllm_available() else "transformers"


MAIN_SAMPLE = 2  # the main job's problems per training source, through every stage (README "Running")
EVERY_PROBLEM = -1  # --sample's value for no sample


def sample_run_config(sample: int | None, backend: str | None = None) -> dict:
    """The dataset job on a sample: ``sample`` problems of each training source go on past Filter,
    and every later stage runs on each of them (Verify generates their tests, Difficulty scores
    them all with a short budget: 4 samples of 256 tokens, in one sampler call for a sample of up
    to 32 problems); None: every problem."""
    config: dict = {"ops": {"scored_problems": {"config": {"k": 4, "max_tokens": 256, "batch_problems": 32}}}}
    if sample is not None:
        config["ops"]["filter_problems"] = {"config": {"sample_per_source": sample}}
    if backend:  # run config replaces the resource's whole config: keep what the environment set
        from assets.resources import SamplerResource

        configured = from_env(SamplerResource, "sampler")
        settings = {name: getattr(configured, name) for name in configured.model_fields_set}
        config["resources"] = {"sampler": {"config": {**settings, "backend": backend}}}
    return config


def sample_line(sample: int | None) -> str:
    """What the run covers, and how to cover everything."""
    if sample is None:
        return "sample: none, every problem of every source goes through every stage"
    return (f"sample: {sample} problem{'s' * (sample != 1)} of each training source go through every stage past Filter (the rest are "
            f"rejected as outside_sample); every problem: --sample {EVERY_PROBLEM}, or the Dagster UI's default config")


def training_run_config(steps: int | None, console_output: bool = False) -> dict:
    """The training job's run config: ``steps`` (None: the profile's, 2 on ``cpu-demo``); with
    ``console_output``, verl's and Ray's output here too (it is always in the run's train.log)."""
    config: dict = {"console_output": True} if console_output else {}
    if steps is not None:
        config["steps"] = steps
    return {"ops": {"grpo_training_run": {"config": config}}} if config else {}


def translate_run_config(statements: int) -> dict:
    """Translation on a sample: the CPU model translates ``statements`` per source, the rest are
    rejected with ``needs_translation`` (translating is a batched pass per language, minutes on a CPU)."""
    return {"resources": {"translation": {"config": {"max_statements": statements}}}}


def resolve_job(name: str) -> dg.JobDefinition:
    """Module-level, so ``execute_job`` can rebuild the job (what re-execution needs)."""
    from assets.definitions import defs

    return defs.resolve_job_def(name)


def _latest_run(instance: dg.DagsterInstance, job: str, partition: str | None) -> dg.DagsterRun | None:
    """The last finished-or-not run of ``job`` (for ``partition``), or None."""
    tags = {PARTITION_TAG: partition} if partition else {}
    runs = instance.get_runs(dg.RunsFilter(job_name=job, tags=tags), limit=1)
    return runs[0] if runs else None


def _execute(job: str, run_config: dict, tags: dict[str, str], parent_id: str | None, threads: int,
             quiet: bool = True) -> tuple[bool, str]:
    """One run in this (worker) process; with ``parent_id``, only its failed steps and what follows.

    Runs in a process of its own so that partitions run in parallel: a dynamic partition is one
    run, and runs do not share a process. All of them write to the one ``$DAGSTER_HOME``.
    ``threads``: torch's share of the cores; two partitions translating with the CPU model at
    torch's default (every core each) ran 3x slower than one after the other.
    """
    import torch

    torch.set_num_threads(threads)
    try:
        return _execute_run(job, run_config, tags, parent_id, quiet)
    finally:
        _idle_worker_signals()  # Dagster leaves SIGTERM mapped to its SIGINT handler after a run


def _idle_worker_signals() -> None:
    """A pool worker between runs: Ctrl-C is the main process's to handle (it stops the workers in
    order), and SIGTERM ends it at once, with no traceback. During a run, Dagster's own handlers
    take both and record the interruption in the run's event log."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _execute_run(job: str, run_config: dict, tags: dict[str, str], parent_id: str | None, quiet: bool) -> tuple[bool, str]:
    if quiet:  # Dagster's API-stability notices are for the code's authors, not a line of the report
        warnings.filterwarnings("ignore", category=dg.PreviewWarning)
        warnings.filterwarnings("ignore", category=dg.BetaWarning)
    instance = dg.DagsterInstance.get()
    target = dg.build_reconstructable_job("assets.cli", "resolve_job", reconstructable_args=(job,))
    config = {**run_config, "execution": {"config": {"in_process": {}}}}
    options = dg.ReexecutionOptions.from_failure(parent_id, instance) if parent_id else None
    with dg.execute_job(target, instance, run_config=config, tags=tags, reexecution_options=options) as result:
        return result.success, result.run_id


# --- the main job ---


@dataclass
class Task:
    report: RunReport
    run_config: dict
    parent_id: str | None


def _watch(instance: dg.DagsterInstance, token: str, tasks: list[Task], futures: dict[cf.Future, Task],
           progress: Progress, jobs: int, verbose: bool) -> None:
    """Until every future is done: map runs to tasks by tag, fold in their events, draw and print lines."""
    by_key = {(t.report.job, t.report.partition): t for t in tasks}
    pending = set(futures)
    interval = 1.0 if progress.live else 2.0
    printed_steps: set[tuple[str, str]] = set()
    printed_lines: dict[str, int] = {}

    def print_lines(report: RunReport) -> None:
        """Training steps: a line each, on a terminal too (they are the job's progress)."""
        for line in report.lines[printed_lines.get(report.label, 0):]:
            progress.print(f"{report.label}  {line}")
        printed_lines[report.label] = len(report.lines)
    while pending:
        done, pending = cf.wait(pending, timeout=interval, return_when=cf.FIRST_COMPLETED)
        now = time.time()
        try:
            for run in instance.get_runs(dg.RunsFilter(tags={INVOCATION_TAG: token})):
                task = by_key.get((run.job_name, run.tags.get(PARTITION_TAG)))
                if task is not None and task.report.run_id is None:
                    task.report.run_id = run.run_id
            for task in tasks:
                if task.report.run_id is not None and task.report.status in ("queued", "running"):
                    read_events(instance, task.report)
        except Exception:  # noqa: BLE001 - a busy SQLite file: read again next tick
            pass
        for future in done:
            task = futures[future]
            try:
                success, task.report.run_id = future.result()
            except Exception as error:  # noqa: BLE001 - the run could not start (bad config, dead worker)
                success, task.report.errors = False, [f"{type(error).__name__}: {error}"]
            if task.report.run_id:
                read_events(instance, task.report)
            task.report.status = "ok" if success else "FAILED"
            task.report.ended = task.report.ended or now
            if task.report.run_id:
                fill_from_ancestors(instance, task.report)
            print_lines(task.report)
            how = f", re-executed from failure of {task.parent_id}" if task.parent_id else ""
            width = max(len(t.report.label) for t in tasks) + len(": FAILED")
            progress.print(f"{finished_line(task.report, width)}  (run {task.report.run_id or '-'}{how})")
            for line in task.report.errors:
                print(f"{task.report.label}: {line}", file=sys.stderr, flush=True)
        for task in tasks:
            print_lines(task.report)
        if not progress.live or verbose:  # CI logs: a line as each step of a long job ends
            for task in tasks:
                if task.report.partition or task.report.status != "running":
                    continue
                for step in task.report.steps.values():
                    counted = step.rows_out is not None or step.failed  # else its time is the job line's
                    if (step.ended is not None and counted and not step.aggregate
                            and (task.report.label, step.name) not in printed_steps):
                        printed_steps.add((task.report.label, step.name))
                        progress.print(f"{task.report.label}  {format_step(step)}  ({format_duration(step.seconds or 0.0)})")
        if progress.live and not verbose:
            progress.draw(_live_block(tasks, jobs, now))
        elif time.monotonic() - progress.last_line_at >= SILENCE_S:  # a log: where things are, when nothing else was said
            for line in _live_block(tasks, jobs, now):
                progress.print(line)


def _live_block(tasks: list[Task], jobs: int, now: float) -> list[str]:
    reports = [t.report for t in tasks]
    running = [r for r in reports if r.status == "running"]
    ingest = [r for r in reports if r.partition]
    lines = []
    if ingest and any(r.status in ("queued", "running") for r in ingest):
        finished = [r for r in ingest if r.ended is not None and r.started is not None]
        mean = sum(r.ended - r.started for r in finished) / len(finished) if finished else None
        eta = ingest_eta(ingest, jobs, now)
        counts = Counter(r.status for r in ingest)
        lines.append(f"ingest: {counts['ok'] + counts['FAILED']}/{len(ingest)} done, {counts['running']} running, "
                     f"{counts['queued']} queued ({jobs} at a time)" + (f", ETA ~{format_duration(eta)}" if eta is not None else ""))
        lines += ["  " + live_line(r, now, mean) for r in running if r.partition]
    lines += [live_line(r, now, None) for r in running if not r.partition]
    return lines


def run_main(sources: list[str] | None, downstream: bool, training: bool = True, sample: int | None = MAIN_SAMPLE,
             from_failure: bool = False, jobs: int | None = None, verbose: bool = False,
             stream: TextIO | None = None, translate: int | None = None, steps: int | None = None) -> int:
    """Every source partition (``jobs`` at once, each its own run), then the dataset and training jobs.

    With ``from_failure``, what last succeeded is not redone: finished partitions are skipped and a
    failed run is re-executed from its failed step (Dagster's re-execution, recorded as a child of
    the failed run); downstream jobs run afresh once any partition was redone. ``sources`` picks
    training sources: the benchmark and held-out ones always come too, since training is
    decontaminated against them and evaluated on them.
    """
    from assets.ingest.partitions import register_sources
    from pipeline.sources import TRAIN
    from pipeline.sources.discovery import configured_specs

    stream = stream or sys.stdout
    instance = _instance()
    register_sources(instance)
    specs = configured_specs()
    known = sorted(specs)
    unknown = sorted(set(sources or ()) - set(known))
    if unknown:
        print(f"unknown sources {unknown}; known: {known}", file=sys.stderr)
        return 2
    partitions = known if not sources else [*sources, *(n for n in known if specs[n].role != TRAIN and n not in sources)]
    jobs = max(1, jobs or os.cpu_count() or 1)
    token = uuid.uuid4().hex[:12]
    progress = Progress(stream, live=stream.isatty() and os.environ.get("TERM") != "dumb")
    loggers = {} if verbose else {"loggers": QUIET_LOGGERS}
    if not verbose:  # the workers inherit it: no download bars from `datasets` between the lines
        os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # transformers' "Loading weights" bars
        os.environ.setdefault("TQDM_DISABLE", "1")  # any other tqdm bar (the one-time GGUF conversion)
    phases = [[("ingest_job", key, translate_run_config(translate) if translate is not None else {}) for key in partitions]]
    if downstream:
        phases.append([("dataset_job", None, sample_run_config(sample, difficulty_backend()))])
        if training:
            phases.append([("training_job", None, training_run_config(steps, console_output=verbose))])
    run = Invocation(instance, token, progress, jobs, verbose, from_failure, loggers)
    started = time.monotonic()
    progress.print(f"microcoder run {token}: {len(partitions)} source partitions, {jobs} at a time"
                   f"{'' if verbose else '; Dagster event log in the instance (--verbose: here too)'}")
    if downstream:
        progress.print(sample_line(sample))
    context = multiprocessing.get_context("spawn")  # fresh interpreters: no forked threads or locks
    adopt_orphans()  # a killed worker's children stay ours to stop
    # After an interrupt, resource trackers (ours and the workers', which inherit this) tidy up what
    # the stopped processes held; their warnings about it are not news to the person who pressed Ctrl-C.
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), TRACKER_QUIET]))
    warnings.filterwarnings("ignore", category=UserWarning, module="multiprocessing.resource_tracker")
    pool = cf.ProcessPoolExecutor(max_workers=min(jobs, max(1, len(partitions))), mp_context=context,
                                  initializer=_idle_worker_signals)
    try:
        with terminate_as_interrupt():
            _run_phases(run, phases, pool)
    except BaseException as stop:  # Ctrl-C, SIGTERM, SIGHUP; or the report itself failed (`| head` closed its pipe)
        with ignoring_interrupts():
            pool.shutdown(wait=False, cancel_futures=True)
            if isinstance(stop, KeyboardInterrupt):
                return _interrupted(run, stop)
            stop_descendants()  # no orphans either way
        raise
    pool.shutdown()
    run.times["total"] = time.monotonic() - started
    progress.print(summary(run.reports, run.times, outputs_table(run.reports, os.environ["DAGSTER_HOME"])))
    if downstream:
        progress.print("  " + sample_line(sample))
    if run.failed:
        print(f"failed: {', '.join(run.failed)}; fix the cause, then `microcoder run --from-failure` redoes only those "
              "(the full error: --verbose, or the run in the UI)", file=sys.stderr)
    return 1 if run.failed else 0


@dataclass
class Invocation:
    """One ``microcoder run``: the instance its runs go to, its tag, where it prints, and what it did."""

    instance: dg.DagsterInstance
    token: str
    progress: Progress
    jobs: int
    verbose: bool
    from_failure: bool
    loggers: dict
    reports: list[RunReport] = field(default_factory=list)
    times: dict[str, float] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)


def _run_phases(run: Invocation, phases: list[list[tuple[str, str | None, dict]]], pool: cf.ProcessPoolExecutor) -> None:
    """Each phase's runs (skipping what last succeeded under ``--from-failure``), one phase after the other."""
    redone = False
    for phase in phases:
        if run.failed:
            break
        tasks: list[Task] = []
        for job, partition, run_config in phase:
            report = RunReport(f"ingest[{partition}]" if partition else job, job, partition)
            run.reports.append(report)
            # Downstream of a redone partition, an earlier run of the job saw stale inputs: run afresh.
            resume = run.from_failure and (job == "ingest_job" or not redone)
            last = _latest_run(run.instance, job, partition) if resume else None
            if last is not None and last.status == dg.DagsterRunStatus.SUCCESS:
                report.run_id = last.run_id
                read_events(run.instance, report)  # its figures count in the summary
                fill_from_ancestors(run.instance, report)
                report.status, report.note = "skipped", f"finished in run {last.run_id}, skipped"
                run.progress.print(finished_line(report))
                continue
            parent = last.run_id if last is not None and last.status in RESUMABLE else None
            tasks.append(Task(report, {**run_config, **run.loggers}, parent))
        if not tasks:
            continue
        redone = True
        phase_start = time.monotonic()
        futures = {}
        threads = max(1, (os.cpu_count() or 1) // min(run.jobs, len(tasks)))
        for task in tasks:
            tags = {INVOCATION_TAG: run.token, **({PARTITION_TAG: task.report.partition} if task.report.partition else {})}
            futures[pool.submit(_execute, task.report.job, task.run_config, tags, task.parent_id, threads, not run.verbose)] = task
        _watch(run.instance, run.token, tasks, futures, run.progress, run.jobs, run.verbose)
        run.times["ingest" if tasks[0].report.partition else tasks[0].report.job] = time.monotonic() - phase_start
        run.failed += [t.report.label for t in tasks if t.report.status == "FAILED"]


def _interrupted(run: Invocation, stop: KeyboardInterrupt) -> int:
    """After Ctrl-C, SIGTERM or SIGHUP: stop every process this command started, mark its unfinished
    runs failed (so ``--from-failure`` resumes them from their unfinished step), and say so."""
    began = time.monotonic()
    name = str(stop) if isinstance(stop, Terminated) else "SIGINT"
    run.progress.print(f"interrupted ({name}): stopping every process of this run (at most 10 s) ...")
    asked, killed = stop_descendants()
    stopped = 0
    for dagster_run in run.instance.get_runs(dg.RunsFilter(tags={INVOCATION_TAG: run.token})):
        if not dagster_run.is_finished:  # else its worker recorded the interruption itself
            run.instance.report_run_failed(dagster_run, message=f"interrupted by {name}; `microcoder run --from-failure` "
                                                                 "resumes it from its unfinished step")
        stopped += dagster_run.status != dg.DagsterRunStatus.SUCCESS
    run.progress.print(f"interrupted: {asked} processes stopped ({killed} killed) in {time.monotonic() - began:.1f}s; "
                       f"{stopped} unfinished runs marked failed. `microcoder run --from-failure` resumes them; what "
                       "finished is kept")
    return 128 + (stop.signum if isinstance(stop, Terminated) else signal.SIGINT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="microcoder", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="materialize the asset graph (all source partitions, then downstream)")
    run.add_argument("--sources", help="comma-separated source partitions (default: all configured); the benchmark "
                                       "and held-out sources come too")
    run.add_argument("--ingest-only", action="store_true", help="stop after Collect and Process")
    run.add_argument("--no-training", action="store_true", help="stop after the released dataset")
    run.add_argument("--sample", type=int, default=MAIN_SAMPLE,
                     help=f"problems of each training source that go through every stage past Filter: Verify generates "
                          f"their hidden tests and Difficulty scores them all (default {MAIN_SAMPLE}; {EVERY_PROBLEM}: every "
                          "problem, hours on 2 cores)")
    run.add_argument("--translate", type=int, default=None,
                     help="non-English statements the model translates per source; the rest are rejected as "
                          "needs_translation (default: the translation resource's max_statements, 2)")
    run.add_argument("--steps", type=int, default=None,
                     help="GRPO steps of the training run (default: the profile's, 2 on the CPU model)")
    run.add_argument("--from-failure", action="store_true",
                     help="skip what last succeeded; re-execute failed runs from their failed step")
    run.add_argument("--jobs", "-j", type=int, default=None,
                     help=f"source partitions ingested at once, each a run in its own process (default: CPU count, {os.cpu_count()})")
    run.add_argument("--verbose", "-v", action="store_true", help="print Dagster's event log here too (it is always in the instance)")
    args = parser.parse_args(argv)
    if args.command == "run" and args.steps is not None and args.steps < 1:
        parser.error(f"--steps {args.steps}: a training run takes at least one step")
    if args.command == "run":
        sources = [s for s in (args.sources or "").split(",") if s] or None
        code = run_main(sources, downstream=not args.ingest_only, training=not args.no_training,
                        sample=None if args.sample < 0 else args.sample, from_failure=args.from_failure, jobs=args.jobs,
                        verbose=args.verbose, translate=args.translate, steps=args.steps)
        if code in INTERRUPTED:  # everything is stopped and recorded: leave now, not after the pool's exit hooks
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        return code
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
