"""One run on the fork server: the request that asks for it (:func:`server_request`), and the
verdict that how its processes ended gives (:func:`classify`).

Why apart from :mod:`evaluator.api`: the call oracle (:mod:`evaluator.values`) makes runs of its own
and judges how they ended by the same rules, and :mod:`evaluator.api` runs a ``call`` test's cases
through it. Verdicts come from exit statuses, signals, resource use and the judge's structured
report, never from what a program wrote to stderr.
"""

from __future__ import annotations

import errno
import json
import signal
from typing import Any

from evaluator.model import Cause, ProcessEnd, Run, Tests, Verdict
from evaluator.runtime.harness import EXIT_MEMORY, EXIT_OUTPUT_LIMIT
from evaluator.runtime.request import Request
from evaluator.sandbox.process import SETUP_FAILED

SNIPPET = 300
BUDGET_RAN_OUT = "the evaluation's wall-time budget ran out"
LIMITS = (Verdict.TIME_LIMIT, Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT)  # a program's own limits


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][-SNIPPET:] if lines else ""


def last_message(proc: ProcessEnd) -> dict:
    """The JSON line a child left on its message fd (a call's value, the judge's report)."""
    lines = proc.message.strip().splitlines()
    line = lines[-1] if lines else ""
    try:
        msg = json.loads(line) if line else None
    except ValueError:
        return {}
    return msg if isinstance(msg, dict) else {}


def _ended_badly(proc: ProcessEnd, memory_mb: int) -> tuple[Verdict, str] | None:
    """Verdict for a process that was killed or exited non-zero; None when it exited 0. The
    exit status says which limit ended it (:data:`evaluator.runtime.harness.EXIT_MEMORY`, ...); stderr
    only supplies the message."""
    if proc.signal is not None:
        if proc.maxrss_mb >= 0.9 * memory_mb:
            return Verdict.MEMORY_LIMIT, f"killed by signal {proc.signal} near the memory limit"
        return Verdict.RUNTIME_ERROR, f"killed by signal {proc.signal}"
    if proc.exit == SETUP_FAILED:
        return Verdict.INTERNAL_ERROR, _last_line(proc.stderr_tail) or "sandbox setup failed"
    if proc.exit == EXIT_MEMORY:
        return Verdict.MEMORY_LIMIT, "MemoryError"
    if proc.exit == EXIT_OUTPUT_LIMIT:
        return Verdict.OUTPUT_LIMIT, "output limit exceeded"
    if proc.exit != 0:
        return Verdict.RUNTIME_ERROR, f"exit {proc.exit}: {_last_line(proc.stderr_tail)}".strip()
    return None


_JUDGE_STATUS = {"assert": Verdict.WRONG_ANSWER, "memory": Verdict.MEMORY_LIMIT, "error": Verdict.RUNTIME_ERROR,
                 "program_error": Verdict.RUNTIME_ERROR, "program_exit": Verdict.RUNTIME_ERROR,
                 "call_time_limit": Verdict.TIME_LIMIT}
_DECIDED_BY_TEST = ("assert", "error", "memory")  # what the test code itself concluded


def classify(run: Run, kind: str) -> tuple[Verdict | None, str]:
    """Failing verdict from how the processes ended (None: ran to completion), plus a message.

    Only the parent decides: from exit statuses, signals, resource use against the limits, the
    candidate's output, and for ``assert`` tests the judge process's report (the candidate never
    writes one).
    """
    early = _without_an_end(run)
    if early is not None:
        return early
    cand, judge = run.candidate, run.judge
    report = last_message(judge) if judge is not None else {}
    if judge is not None and report.get("pending") and report.get("status") in _DECIDED_BY_TEST \
            and judge.exit == 0 and judge.signal is None and not judge.timed_out:
        # The test failed before taking every prefetched reply: it decided on the calls it made, as
        # it would have one at a time; how the program fared in calls it never made does not count.
        return _judge_verdict(report)
    limit = _limit_reached(run, cand, judge)
    if limit is not None:
        return limit
    if judge is None:
        return _ended_badly(cand, run.memory_mb) or (None, "")
    return _judge_ended(run, cand, judge, report)


def _without_an_end(run: Run) -> tuple[Verdict, str] | None:
    """The verdict of a run with no process end to read: the budget ran out, the fork server broke,
    or nothing ran."""
    if run.deadline:
        return Verdict.TIME_LIMIT, BUDGET_RAN_OUT
    if run.worker_died is not None:
        return Verdict.RUNTIME_ERROR, "the program killed or broke its fork server"
    if run.internal_error is not None or run.candidate is None:
        return Verdict.INTERNAL_ERROR, run.internal_error or "no process ran"
    return None


def _limit_reached(run: Run, cand: ProcessEnd, judge: ProcessEnd | None) -> tuple[Verdict, str] | None:
    """A limit either process reached (time, output), or a sandbox that could not be set up."""
    procs = [cand] + ([judge] if judge else [])
    if cand.cpu_limit:
        return Verdict.TIME_LIMIT, "CPU time limit exceeded"
    if any(p.timed_out or p.signal == signal.SIGXCPU or (p.signal and p.cpu_s >= run.cpu_cap_s) for p in procs):
        return Verdict.TIME_LIMIT, "time limit exceeded"
    # A PID namespace's first process gets no SIGXFSZ: past the cap its writes fail (EFBIG), and
    # the harness exits with EXIT_OUTPUT_LIMIT.
    if cand.stdout_bytes >= run.output_cap or cand.signal == signal.SIGXFSZ or cand.exit == EXIT_OUTPUT_LIMIT:
        return Verdict.OUTPUT_LIMIT, "output limit exceeded"
    if any(p.exit == SETUP_FAILED for p in procs):
        failed = judge if judge is not None and judge.exit == SETUP_FAILED else cand
        return Verdict.INTERNAL_ERROR, _last_line(failed.stderr_tail) or "sandbox setup failed"
    return None


def _judge_ended(run: Run, cand: ProcessEnd, judge: ProcessEnd, report: dict) -> tuple[Verdict | None, str]:
    """An ``assert`` test's verdict once both processes ended within their limits: the judge's report."""
    status = report.get("status")
    if status == "ok" and judge.exit == 0 and judge.signal is None:
        return None, ""
    if status == "program_gone" or not report:
        bad = _ended_badly(cand, run.memory_mb) or _ended_badly(judge, run.memory_mb)
        if bad:
            return bad
        return Verdict.RUNTIME_ERROR, f"the program stopped answering: {report.get('msg', '')} {_last_line(cand.stderr_tail)}".strip()
    return _judge_verdict(report)


def cause_of(run: Run, verdict: Verdict | str | None) -> Cause | None:
    """Why a run that gave ``verdict`` has no answer: the evaluation's wall-time budget (what
    :func:`classify` says of a run the deadline stopped), the program's own limit, or None."""
    if run.deadline and verdict == Verdict.TIME_LIMIT:
        return Cause.WALL_BUDGET
    return Cause.OWN_LIMIT if verdict in LIMITS else None


def _judge_verdict(report: dict) -> tuple[Verdict, str]:
    """The verdict the judge's report gives, where the test itself decided."""
    status = report.get("status")
    if report.get("type") == "MemoryError":
        return Verdict.MEMORY_LIMIT, "MemoryError"
    if report.get("errno") == errno.EFBIG:
        return Verdict.OUTPUT_LIMIT, "output limit exceeded"
    return _JUDGE_STATUS.get(status, Verdict.RUNTIME_ERROR), f"{report.get('type', status)}: {report.get('msg', '')}".strip()


def server_request(child: str, time_s: float, memory_mb: int, output_mb: int, tests: Tests | None = None,
                   **extra: Any) -> Request:
    """The fork server's request: what to run (``child``: its layout) and under which limits."""
    return Request(child=child, time_s=time_s, memory_mb=memory_mb, output_mb=output_mb,
                   prelude=tests.prelude if tests else None, fn_name=tests.fn_name if tests else None, **extra)
