"""The progress report of ``microcoder run``: what each run did, read from its events in the instance.

Counts are read from the metadata every stage reports the same way (``assets.metadata.STAGE_KEYS``;
``rejects_by_reason_json`` marks a rejects table), so renamed assets need no change here. Lines are
drawn in place on a terminal and printed once per finished stage otherwise; :func:`summary` is the
closing table.
"""

from __future__ import annotations

import re
import shutil
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

import dagster as dg

from pipeline.paths import data_root
from training.progress import format_duration

INVOCATION_TAG = "microcoder/run"  # groups the runs of one `microcoder run` (also a filter in the UI)
REJECTS_KEY = "rejects_by_reason_json"  # rejects tables say what they are by this metadata entry
FACT_KEYS = ("learning_signal", "eval_pass@1", "train_log")  # what the report repeats from a materialization
PROGRESS_LINE = re.compile(r"^step \d+/\d+: ")  # a training step's line (training.progress.step_line)


def _value(metadata: Mapping[str, Any], key: str) -> Any:
    """A metadata entry's plain value (``IntMetadataValue(3)`` -> 3), or None."""
    entry = metadata.get(key)
    return getattr(entry, "value", entry)


def short_name(step: str) -> str:
    """``collect_source`` -> ``collect``, ``filter_problems`` -> ``filter``: a stage, as a person says it."""
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
    outputs: int = 0
    rejects_tables: int = 0
    counted: bool = False  # the stage's counts are in

    def add_output(self, metadata: Mapping[str, Any]) -> None:
        """Fold in one materialization's metadata. A stage's counts come from its first output
        that carries them (every output of a stage carries the same ones: ``STAGE_KEYS``); an
        asset without them (training) gives its row count."""
        self.outputs += 1
        if isinstance(_value(metadata, REJECTS_KEY), dict):
            self.rejects_tables += 1
        if self.counted:
            return
        rows_in = _value(metadata, "rows_in")
        if rows_in is not None:
            self.counted = True
            self.rows_in, self.rows_out = int(rows_in), int(_value(metadata, "rows_kept"))
            self.rejects = int(_value(metadata, "rows_rejected"))
            self.reasons.update({str(k): int(v) for k, v in (_value(metadata, "stage_reasons") or {}).items()})
            return
        count = _value(metadata, "dagster/row_count")
        if count is not None and self.rows_out is None:
            self.rows_out = int(count)

    @property
    def aggregate(self) -> bool:
        """Only rejects tables: a union of other steps' rejects (not counted twice)."""
        return self.outputs > 0 and self.rejects_tables == self.outputs

    @property
    def seconds(self) -> float | None:
        return self.ended - self.started if self.started is not None and self.ended is not None else None


def format_step(step: StepReport) -> str:
    """``process 790 -> 701 rows, 89 rejects``; a step without counts gives its name and time."""
    name = short_name(step.name)
    if step.failed:
        return f"{name} FAILED"
    read = step.rows_in
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
    lines: list[str] = field(default_factory=list)  # progress lines its code logged, each printed once
    facts: dict[str, Any] = field(default_factory=dict)  # FACT_KEYS found in its materializations

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
            if PROGRESS_LINE.match(report.message):
                report.lines.append(report.message)
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
        metadata = event.event_specific_data.materialization.metadata
        report.step(event.step_key).add_output(metadata)
        report.facts.update({k: _value(metadata, k) for k in FACT_KEYS if _value(metadata, k) not in (None, "")})


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
    facts = report.facts
    if "learning_signal" in facts:  # a training run: what it learned, not rows
        pass_at_1 = facts.get("eval_pass@1")
        steps = facts["learning_signal"] + (f" · held-out pass@1 {pass_at_1:.3f}" if isinstance(pass_at_1, float) else "")
    return f"{head} {format_duration(elapsed) if elapsed is not None else '':>7}  {steps}".rstrip()


def step_eta(step: StepReport, message: str, now: float) -> float | None:
    """From a progress line such as ``verified 40/120``: the step's time so far, scaled to what is
    left; None where the line gives its own ETA (it knows better: start-up is not progress)."""
    match = re.search(r"(\d+)\s*/\s*(\d+)", message)
    if step.started is None or not match or "ETA" in message:
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
        self.last_line_at = time.monotonic()  # when a line was last printed (not redrawn)

    def _clear(self) -> None:
        if self.drawn:
            self.stream.write(f"\x1b[{self.drawn}F\x1b[J")  # up to the block's first line, erase to the end
            self.drawn = 0

    def print(self, line: str) -> None:
        self._clear()
        self.stream.write(line + "\n")
        self.stream.flush()
        self.last_line_at = time.monotonic()

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


def summary(reports: list[RunReport], times: dict[str, float], outputs: dict[str, str], top: int = 5) -> str:
    """Rows per stage (summed over partitions), the top reject reasons, time per job, where outputs are."""
    stages: dict[str, list[StepReport]] = {}
    reasons: Counter = Counter()
    for report in reports:
        for step in report.steps.values():
            if step.aggregate or step.ended is None:
                continue
            stages.setdefault(short_name(step.name), []).append(step)
            reasons.update({(short_name(step.name), reason): n for reason, n in step.reasons.items()})
    lines = ["summary"]
    if stages:
        width = max(len(name) for name in stages) + 2
        lines.append(f"  {'stage':<{width}}{'runs':>5}{'rows in':>11}{'rows out':>11}{'rejects':>10}{'time':>10}")
        for name, steps in stages.items():
            seconds = sum(s.seconds or 0.0 for s in steps)
            lines.append(f"  {name:<{width}}{len(steps):>5}{_total(s.rows_in for s in steps):>11}"
                         f"{_total(s.rows_out for s in steps):>11}{_total(s.rejects for s in steps):>10}{format_duration(seconds):>10}")
    if reasons:
        lines.append(f"  rejects by reason ({sum(reasons.values()):,} in all; top {min(top, len(reasons))})")
        width = max(len(f"{reason} ({stage})") for (stage, reason), _ in reasons.most_common(top)) + 2
        for (stage, reason), n in reasons.most_common(top):
            lines.append(f"    {f'{reason} ({stage})':<{width}}{n:>9,}")
    if times:
        lines.append("  time     " + " · ".join(f"{name} {format_duration(s)}" for name, s in times.items()))
    for name, where in outputs.items():
        lines.append(f"  {name:<10}{where}")
    return "\n".join(lines)


def outputs_table(reports: list[RunReport], home: str) -> dict[str, str]:
    """Where to look afterwards: the data root, the released dataset (if built), the instance and UI."""
    root = data_root()
    out = {"data": f"{root}/assets/<asset>/<source>.parquet, {root}/assets/<asset>.parquet"}
    if any(r.job == "dataset_job" and r.status == "ok" for r in reports):
        out["dataset"] = f"{root}/dataset (card: README.md, shards: data/, verl: verl/)"
    for r in reports:
        if r.job == "training_job" and r.status == "ok":
            out["training"] = f"{root}/runs/{r.run_id}" if r.run_id else f"{root}/runs/<run id>"
            if r.facts.get("train_log"):  # verl's and Ray's output
                out["training"] += f"  (train log: {r.facts['train_log']}; --verbose: on the terminal)"
    out["runs"] = f"DAGSTER_HOME={home} .venv/bin/dagster dev  (the UI: Runs, filter by tag {INVOCATION_TAG})"
    return out
