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
import re
import shutil
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import dagster as dg

from pipeline.paths import data_root

PARTITION_TAG = "dagster/partition"
INVOCATION_TAG = "microcoder/run"  # groups the runs of one `microcoder run` (also a filter in the UI)
REJECTS_KEY = "rejects_by_reason_json"  # rejects tables say what they are by this metadata entry
INPUT_KEYS = ("input_rows", "source_records")  # rows a stage read, where its output says so
QUIET_LOGGERS = {"console": {"config": {"log_level": "CRITICAL"}}}  # events still go to the instance


def _instance() -> dg.DagsterInstance:
    home = os.environ.setdefault("DAGSTER_HOME", str(Path(data_root()) / "dagster_home") if "://" not in data_root() else str(Path("data/dagster_home").resolve()))
    Path(home).mkdir(parents=True, exist_ok=True)
    config = Path(home) / "dagster.yaml"
    if not config.exists():  # the defaults, said once (else every process warns that there is no file)
        config.write_text("# defaults: SQLite storage in this folder\n")
    return dg.DagsterInstance.get()


def sample_run_config(sample: int) -> dict:
    """The model-driven stages on a small sample: what the embedded CPU model can do in minutes."""
    return {"ops": {"difficulty_scores": {"config": {"sample_size": sample, "k": 4, "max_tokens": 256}}}}


def resolve_job(name: str) -> dg.JobDefinition:
    """Module-level, so ``execute_job`` can rebuild the job (what re-execution needs)."""
    from assets.definitions import defs

    return defs.resolve_job_def(name)


def _latest_run(instance: dg.DagsterInstance, job: str, partition: str | None) -> dg.DagsterRun | None:
    """The last finished-or-not run of ``job`` (for ``partition``), or None."""
    tags = {PARTITION_TAG: partition} if partition else {}
    runs = instance.get_runs(dg.RunsFilter(job_name=job, tags=tags), limit=1)
    return runs[0] if runs else None


def _execute(job: str, run_config: dict, tags: dict[str, str], parent_id: str | None) -> tuple[bool, str]:
    """One run in this (worker) process; with ``parent_id``, only its failed steps and what follows.

    Runs in a process of its own so that partitions run in parallel: a dynamic partition is one
    run, and runs do not share a process. All of them write to the one ``$DAGSTER_HOME``.
    """
    instance = dg.DagsterInstance.get()
    target = dg.build_reconstructable_job("assets.cli", "resolve_job", reconstructable_args=(job,))
    config = {**run_config, "execution": {"config": {"in_process": {}}}}
    options = dg.ReexecutionOptions.from_failure(parent_id, instance) if parent_id else None
    with dg.execute_job(target, instance, run_config=config, tags=tags, reexecution_options=options) as result:
        return result.success, result.run_id


# --- what a run reports: read generically from its events, whatever the assets are called ---


def _value(metadata: Mapping[str, Any], key: str) -> Any:
    """A metadata entry's plain value (``IntMetadataValue(3)`` -> 3), or None."""
    entry = metadata.get(key)
    return getattr(entry, "value", entry)


def short_name(step: str) -> str:
    """``collect_source`` -> ``collect``, ``curate_problems`` -> ``curate``: a stage, as a person says it."""
    return re.sub(r"_(source|problems)$", "", step)


@dataclass
class StepReport:
    """One step (stage) of a run: rows in and out, rejects by reason, when it ran."""

    name: str
    rows_in: int | None = None
    rows_out: int | None = None
    rejects: int | None = None
    reasons: Counter = field(default_factory=Counter)
    started: float | None = None
    ended: float | None = None
    failed: bool = False

    def add_output(self, metadata: Mapping[str, Any]) -> None:
        """Fold in one materialization's metadata: a rejects table adds rejects, others rows."""
        count = _value(metadata, "dagster/row_count")
        reasons = _value(metadata, REJECTS_KEY)
        if isinstance(reasons, dict):
            self.reasons.update({str(k): int(v) for k, v in reasons.items()})
            self.rejects = (self.rejects or 0) + int(count if count is not None else sum(reasons.values()))
            return
        if count is not None and self.rows_out is None:  # the step's first table is its main one
            self.rows_out = int(count)
        given = next((_value(metadata, k) for k in INPUT_KEYS if _value(metadata, k) is not None), None)
        if given is not None and self.rows_in is None:
            self.rows_in = int(given)

    @property
    def aggregate(self) -> bool:
        """Only rejects tables and no rows of its own: a union of other steps' rejects (not counted twice)."""
        return self.rows_out is None and self.rejects is not None

    @property
    def rows_read(self) -> int | None:
        """Rows in as the step reports them, else what it kept plus what it rejected."""
        if self.rows_in is not None:
            return self.rows_in
        if self.rows_out is not None and self.rejects is not None:
            return self.rows_out + self.rejects
        return None

    @property
    def seconds(self) -> float | None:
        return self.ended - self.started if self.started is not None and self.ended is not None else None


def format_duration(seconds: float) -> str:
    """41.2s, 3m05s, 1h02m."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        return f"{int(seconds) // 60}m{int(seconds) % 60:02d}s"
    return f"{int(seconds) // 3600}h{int(seconds) % 3600 // 60:02d}m"


def format_step(step: StepReport) -> str:
    """``process 790 -> 701 rows, 89 rejects``; a step without counts gives its name and time."""
    name = short_name(step.name)
    if step.failed:
        return f"{name} FAILED"
    read = step.rows_read
    if step.rows_out is not None and read is not None:
        text = f"{name} {read:,} -> {step.rows_out:,} rows"
    elif step.rows_out is not None:
        text = f"{name} {step.rows_out:,} rows"
    else:
        return f"{name} {format_duration(step.seconds)}" if step.seconds is not None else f"{name} done"
    return text + (f", {step.rejects:,} rejects" if step.rejects else "")


@dataclass
class RunReport:
    """One partition or job of the main job, as the instance tells it."""

    label: str
    job: str
    partition: str | None = None
    run_id: str | None = None
    status: str = "queued"  # queued, running, ok, FAILED, skipped
    started: float | None = None
    ended: float | None = None
    steps: dict[str, StepReport] = field(default_factory=dict)
    message: str = ""  # the last INFO line its code logged (verify and difficulty log their progress)
    errors: list[str] = field(default_factory=list)
    cursor: str | None = None
    note: str = ""

    def step(self, name: str) -> StepReport:
        return self.steps.setdefault(name, StepReport(name))

    @property
    def running_step(self) -> StepReport | None:
        return next((s for s in reversed(self.steps.values()) if s.started is not None and s.ended is None), None)

    def elapsed(self, now: float) -> float | None:
        if self.started is None:
            return None
        return (self.ended or now) - self.started


def apply_event(report: RunReport, entry: Any) -> None:
    """Fold one event-log entry of the run into ``report``."""
    event = entry.dagster_event
    if event is None:
        if entry.level >= 20 and entry.user_message:  # INFO and up: what the step's code said
            report.message = " ".join(entry.user_message.split())
        return
    kind = event.event_type
    E = dg.DagsterEventType
    if kind == E.RUN_START:
        report.started, report.status = entry.timestamp, "running"
    elif kind in (E.RUN_SUCCESS, E.RUN_FAILURE, E.RUN_CANCELED):
        report.ended = entry.timestamp
        if kind == E.RUN_FAILURE and not report.errors and event.event_specific_data and event.event_specific_data.error:
            report.errors = error_lines(event.event_specific_data.error)
    elif kind == E.STEP_START:
        report.step(event.step_key).started = entry.timestamp
    elif kind in (E.STEP_SUCCESS, E.STEP_FAILURE):
        report.step(event.step_key).ended = entry.timestamp
        if kind == E.STEP_FAILURE:
            report.step(event.step_key).failed = True
            report.errors = [f"{event.step_key}: {line}" for line in error_lines(event.step_failure_data.error)]
    elif kind == E.ASSET_MATERIALIZATION:
        report.step(event.step_key).add_output(event.event_specific_data.materialization.metadata)


def error_lines(error: Any) -> list[str]:
    """The message of an error and of each of its causes, without the tracebacks (they are in the UI)."""
    lines: list[str] = []
    while error is not None and len(lines) < 4:
        text = error.message.strip().splitlines()[-1] if error.message.strip() else str(error.cls_name)
        wrapper = (error.cls_name or "").startswith("DagsterExecution")  # "Error occurred while executing op ..."
        if not wrapper and not any(text.split(": ", 1)[-1] in line for line in lines):
            lines.append(text)
        error = error.cause
    return lines


def read_events(instance: dg.DagsterInstance, report: RunReport) -> None:
    """Fold in the run's events since the last read."""
    while True:
        connection = instance.get_records_for_run(report.run_id, cursor=report.cursor, limit=1000)
        for record in connection.records:
            apply_event(report, record.event_log_entry)
        report.cursor = connection.cursor
        if not connection.has_more:
            return


def fill_from_ancestors(instance: dg.DagsterInstance, report: RunReport) -> None:
    """A re-execution redoes only the failed steps: take the others' figures from the runs before it."""
    run = instance.get_run_by_id(report.run_id)
    parent_id = run.parent_run_id if run else None
    while parent_id:
        earlier = RunReport(report.label, report.job, run_id=parent_id)
        read_events(instance, earlier)
        for name, step in earlier.steps.items():
            if name not in report.steps and step.ended is not None and (step.rows_out is not None or step.rejects is not None):
                report.steps[name] = step
        parent = instance.get_run_by_id(parent_id)
        parent_id = parent.parent_run_id if parent else None
    order = {name: i for i, name in enumerate(sorted(report.steps, key=lambda n: report.steps[n].started or 0))}
    report.steps = dict(sorted(report.steps.items(), key=lambda kv: order[kv[0]]))


# --- the terminal: one line per partition/job, live where stdout is a terminal ---


def finished_line(report: RunReport, width: int = 0) -> str:
    """``ingest[taco]: ok     41.2s  collect 812 -> 790 rows, 22 rejects · process ...``, the time at column ``width``."""
    if report.status == "skipped":
        return f"{report.label}: {report.note}"
    elapsed = report.elapsed(time.time())
    steps = " · ".join(format_step(s) for s in report.steps.values() if not s.aggregate and s.ended is not None)
    head = f"{report.label}: {report.status}".ljust(width)
    return f"{head} {format_duration(elapsed) if elapsed is not None else '':>7}  {steps}".rstrip()


def step_eta(step: StepReport, message: str, now: float) -> float | None:
    """From a progress line such as ``verified 40/120``: the step's time so far, scaled to what is left."""
    match = re.search(r"(\d+)\s*/\s*(\d+)", message)
    if step.started is None or not match:
        return None
    done, total = int(match.group(1)), int(match.group(2))
    if not 0 < done <= total:
        return None
    return (now - step.started) * (total - done) / done


def live_line(report: RunReport, now: float, mean: float | None) -> str:
    """A running partition or job: its finished steps, the step under way, elapsed and an ETA."""
    parts = [format_step(s) for s in report.steps.values() if not s.aggregate and s.ended is not None]
    current = report.running_step
    if current is not None:
        eta = step_eta(current, report.message, now)
        parts.append(f"{short_name(current.name)} running {format_duration(now - current.started)}"
                     + (f", ETA ~{format_duration(eta)}" if eta is not None else ""))
    elapsed = report.elapsed(now) or 0.0
    eta_run = f" (ETA ~{format_duration(mean - elapsed)})" if mean is not None and mean > elapsed and current is not None and report.partition else ""
    line = f"{report.label}: {format_duration(elapsed)}{eta_run}  " + " · ".join(parts)
    return line + (f"  | {report.message}" if report.message and current is not None else "")


def ingest_eta(reports: list[RunReport], jobs: int, now: float) -> float | None:
    """Remaining partitions x mean partition time, shared by ``jobs`` workers; None before one finished."""
    durations = [r.ended - r.started for r in reports if r.ended is not None and r.started is not None]
    if not durations:
        return None
    mean = sum(durations) / len(durations)
    left = sum(mean for r in reports if r.status == "queued")
    left += sum(max(mean - (r.elapsed(now) or 0.0), 0.0) for r in reports if r.status == "running")
    return left / max(1, min(jobs, sum(r.status in ("queued", "running") for r in reports)))


class Progress:
    """Prints finished lines; on a terminal also keeps a block of live lines redrawn in place."""

    def __init__(self, stream: TextIO, live: bool) -> None:
        self.stream, self.live, self.drawn = stream, live, 0

    def _clear(self) -> None:
        if self.drawn:
            self.stream.write(f"\x1b[{self.drawn}F\x1b[J")  # up to the block's first line, erase to the end
            self.drawn = 0

    def print(self, line: str) -> None:
        self._clear()
        self.stream.write(line + "\n")
        self.stream.flush()

    def draw(self, lines: list[str]) -> None:
        if not self.live:
            return
        self._clear()
        width = max(20, shutil.get_terminal_size().columns - 1)
        for line in lines:
            self.stream.write(line[:width] + "\n")
        self.drawn = len(lines)
        self.stream.flush()


# --- the summary table ---


def _total(values: Iterable[int | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{sum(known):,}" if known else "-"


def summary(reports: list[RunReport], times: dict[str, float], outputs: dict[str, str], top: int = 8) -> str:
    """Rows per stage (summed over partitions), the top reject reasons, time per job, where outputs are."""
    stages: dict[str, list[StepReport]] = {}
    reasons: Counter = Counter()
    for report in reports:
        for step in report.steps.values():
            if step.aggregate or step.ended is None:
                continue
            stages.setdefault(short_name(step.name), []).append(step)
            reasons.update({(short_name(step.name), reason): n for reason, n in step.reasons.items()})
    lines = ["", "summary"]
    if stages:
        width = max(len(name) for name in stages) + 2
        lines.append(f"  {'stage':<{width}}{'runs':>5}{'rows in':>11}{'rows out':>11}{'rejects':>10}{'time':>10}")
        for name, steps in stages.items():
            seconds = sum(s.seconds or 0.0 for s in steps)
            lines.append(f"  {name:<{width}}{len(steps):>5}{_total(s.rows_read for s in steps):>11}"
                         f"{_total(s.rows_out for s in steps):>11}{_total(s.rejects for s in steps):>10}{format_duration(seconds):>10}")
    if reasons:
        lines.append(f"  rejects by reason ({sum(reasons.values()):,} in all; top {min(top, len(reasons))})")
        width = max(len(f"{reason} ({stage})") for (stage, reason), _ in reasons.most_common(top)) + 2
        for (stage, reason), n in reasons.most_common(top):
            lines.append(f"    {f'{reason} ({stage})':<{width}}{n:>9,}")
    if times:
        lines.append("  time     " + " · ".join(f"{name} {format_duration(s)}" for name, s in times.items()))
    for name, where in outputs.items():
        lines.append(f"  {name:<9}{where}")
    return "\n".join(lines)


def outputs_table(reports: list[RunReport], home: str) -> dict[str, str]:
    """Where to look afterwards: the data root, the released dataset (if built), the instance and UI."""
    root = data_root()
    out = {"data": f"{root}/assets/<asset>/<source>.parquet, {root}/assets/<asset>.parquet"}
    if any(r.job == "dataset_job" and r.status == "ok" for r in reports):
        out["dataset"] = f"{root}/dataset (card: README.md, shards: data/, verl: verl/)"
    if any(r.job == "training_job" and r.status == "ok" for r in reports):
        out["training"] = f"{root}/runs/<run id>"
    out["runs"] = f"DAGSTER_HOME={home}"
    out["ui"] = f"DAGSTER_HOME={home} .venv/bin/dagster dev  (Runs, filter by tag {INVOCATION_TAG})"
    return out


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
            how = f", re-executed from failure of {task.parent_id}" if task.parent_id else ""
            width = max(len(t.report.label) for t in tasks) + len(": FAILED")
            progress.print(f"{finished_line(task.report, width)}  (run {task.report.run_id or '-'}{how})")
            for line in task.report.errors:
                print(f"{task.report.label}: {line}", file=sys.stderr, flush=True)
        if not progress.live or verbose:  # CI logs: a line as each step of a long job ends
            for task in tasks:
                if task.report.partition or task.report.status != "running":
                    continue
                for step in task.report.steps.values():
                    if step.ended is not None and not step.aggregate and (task.report.label, step.name) not in printed_steps:
                        printed_steps.add((task.report.label, step.name))
                        progress.print(f"{task.report.label}  {format_step(step)}  ({format_duration(step.seconds or 0.0)})")
        if progress.live and not verbose:
            progress.draw(_live_block(tasks, jobs, now))


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


def run_main(sources: list[str] | None, downstream: bool, training: bool = True, sample: int = 8,
             from_failure: bool = False, jobs: int | None = None, verbose: bool = False,
             stream: TextIO | None = None) -> int:
    """Every source partition (``jobs`` at once, each its own run), then the dataset and training jobs.

    With ``from_failure``, what last succeeded is not redone: finished partitions are skipped and a
    failed run is re-executed from its failed step (Dagster's re-execution, recorded as a child of
    the failed run); downstream jobs run afresh once any partition was redone.
    """
    from assets.ingest.partitions import register_sources
    from pipeline.sources.discovery import configured_specs

    stream = stream or sys.stdout
    instance = _instance()
    register_sources(instance)
    known = sorted(configured_specs())
    partitions = sources or known
    unknown = sorted(set(partitions) - set(known))
    if unknown:
        print(f"unknown sources {unknown}; known: {known}", file=sys.stderr)
        return 2
    jobs = max(1, jobs or os.cpu_count() or 1)
    token = uuid.uuid4().hex[:12]
    progress = Progress(stream, live=stream.isatty() and os.environ.get("TERM") != "dumb")
    loggers = {} if verbose else {"loggers": QUIET_LOGGERS}
    if not verbose:  # the workers inherit it: no download bars from `datasets` between the lines
        os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    phases = [[("ingest_job", key, {}) for key in partitions]]
    if downstream:
        phases.append([("dataset_job", None, sample_run_config(sample))])
        if training:
            phases.append([("training_job", None, {})])
    reports: list[RunReport] = []
    times: dict[str, float] = {}
    failed: list[str] = []
    redone = False
    started = time.monotonic()
    progress.print(f"microcoder run {token}: {len(partitions)} source partitions, {jobs} at a time"
                   f"{'' if verbose else '; Dagster event log in the instance (--verbose: here too)'}")
    context = multiprocessing.get_context("spawn")  # fresh interpreters: no forked threads or locks
    with cf.ProcessPoolExecutor(max_workers=min(jobs, max(1, len(partitions))), mp_context=context) as pool:
        for phase in phases:
            if failed:
                break
            tasks: list[Task] = []
            for job, partition, run_config in phase:
                report = RunReport(f"ingest[{partition}]" if partition else job, job, partition)
                reports.append(report)
                # Downstream of a redone partition, an earlier run of the job saw stale inputs: run afresh.
                resume = from_failure and (job == "ingest_job" or not redone)
                last = _latest_run(instance, job, partition) if resume else None
                if last is not None and last.status == dg.DagsterRunStatus.SUCCESS:
                    report.run_id = last.run_id
                    read_events(instance, report)  # its figures count in the summary
                    fill_from_ancestors(instance, report)
                    report.status, report.note = "skipped", f"finished in run {last.run_id}, skipped"
                    progress.print(finished_line(report))
                    continue
                parent = last.run_id if last is not None and last.status == dg.DagsterRunStatus.FAILURE else None
                tasks.append(Task(report, {**run_config, **loggers}, parent))
            if not tasks:
                continue
            redone = True
            phase_start = time.monotonic()
            futures = {}
            for task in tasks:
                tags = {INVOCATION_TAG: token, **({PARTITION_TAG: task.report.partition} if task.report.partition else {})}
                futures[pool.submit(_execute, task.report.job, task.run_config, tags, task.parent_id)] = task
            _watch(instance, token, tasks, futures, progress, jobs, verbose)
            times["ingest" if tasks[0].report.partition else tasks[0].report.job] = time.monotonic() - phase_start
            failed += [t.report.label for t in tasks if t.report.status == "FAILED"]
    times["total"] = time.monotonic() - started
    progress.print(summary(reports, times, outputs_table(reports, os.environ["DAGSTER_HOME"])))
    if failed:
        print(f"failed: {', '.join(failed)}; fix the cause, then `microcoder run --from-failure` redoes only those "
              "(the full error: --verbose, or the run in the UI)", file=sys.stderr)
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
    run.add_argument("--jobs", "-j", type=int, default=None,
                     help=f"source partitions ingested at once, each a run in its own process (default: CPU count, {os.cpu_count()})")
    run.add_argument("--verbose", "-v", action="store_true", help="print Dagster's event log here too (it is always in the instance)")
    args = parser.parse_args(argv)
    if args.command == "run":
        sources = [s for s in (args.sources or "").split(",") if s] or None
        return run_main(sources, downstream=not args.ingest_only, training=not args.no_training, sample=args.sample,
                        from_failure=args.from_failure, jobs=args.jobs, verbose=args.verbose)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
