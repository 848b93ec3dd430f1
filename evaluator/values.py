"""What a program returns for many calls, run in one sandboxed process: the oracle of test generation.

Why not one ``call`` test per input: generation asks a reference for dozens of answers, and a
process per answer costs a fork and the sandbox's walls each time. Here the calls run as the
lifted steps of an ``assert`` test do (:mod:`evaluator.steps`): the program's top level once,
then each call with the test's CPU limit, each reply decoded in the parent as plain data
(:func:`evaluator.wire.loads`; a value that is not plain data is an error, never an object).
A call that ends the process (a time limit, a crash) fails that call only: the calls after it
run again in a fresh process.
"""

from __future__ import annotations

import ast
import time
from dataclasses import dataclass
from typing import Any

from evaluator import api, lift, lifted, limits, wire
from evaluator.harness import CALL_PRELUDE
from evaluator.model import Limits, Run, Tests, as_tests
from evaluator.pool import WorkerPool, shared_pool

Entry = tuple[str, ...]  # ("function", name) or ("method", class name, method name)
Call = tuple[tuple, dict]  # positional and keyword arguments, plain data


@dataclass(frozen=True)
class CallOutcome:
    """One call's answer: ``value`` when ``error`` is None."""

    value: Any = None
    error: str | None = None
    time_s: float = 0.0
    verdict: str | None = None  # a call that ended its process: the evaluator's verdict for it

    @property
    def ok(self) -> bool:
        return self.error is None


def entry_for(code: str, fn_name: str) -> Entry:
    """How the harness reaches ``fn_name`` in ``code``: ``Solution().fn_name`` when a class
    ``Solution`` defines it (as :func:`evaluator.harness._resolve` prefers), else the function."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ("function", fn_name)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Solution" and any(
                isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == fn_name for item in node.body):
            return ("method", "Solution", fn_name)
    return ("function", fn_name)


def _plan(entry: Entry, calls: list[Call]) -> tuple[list[lift.Step], list[int]]:
    """Steps for the calls (a fresh instance per call for a method), and each call's step."""
    steps = [lift.Step("name", name=entry[1])]
    at = []
    for args, kwargs in calls:
        target = 0
        if entry[0] == "method":
            steps.append(lift.Step("call", ref=0))
            steps.append(lift.Step("getattr", ref=len(steps) - 1, name=entry[2]))
            target = len(steps) - 1
        steps.append(lift.Step("call", ref=target, args=tuple(args), kwargs=tuple(sorted(kwargs.items()))))
        at.append(len(steps) - 1)
    return steps, at


def _refuse(tagged: dict) -> Any:
    raise wire.WireError("not plain data")


def _outcomes(steps: list[lift.Step], at: list[int], run: Run) -> list[CallOutcome]:
    """Each call's outcome from one run's reply stream; calls it never reached are left out."""
    if run.candidate is None:
        return []
    lines = lifted._lines(run)
    if not lines or lines[0] is None or "names" not in lines[0]:
        why = "the program failed before any call"
        if lines and lines[0] and ("fatal" in lines[0] or "x" in lines[0]):
            info = lines[0].get("fatal") or lines[0].get("x") or {}
            why = f"{info.get('type', 'Exception')}: {str(info.get('msg', ''))[:200]}"
        return [CallOutcome(error=why) for _ in at]
    out = []
    for step in at:
        reply = lines[step + 1] if step + 1 < len(lines) else None
        if reply is None:
            break
        if "x" in reply:
            info = reply["x"] if isinstance(reply["x"], dict) else {}
            out.append(CallOutcome(error=f"{info.get('type', 'Exception')}: {str(info.get('msg', ''))[:200]}"))
            continue
        try:
            value = wire.loads(reply.get("r"), _refuse)
        except (wire.WireError, RecursionError):
            out.append(CallOutcome(error="not plain data"))
            continue
        took = reply.get("t")
        out.append(CallOutcome(value=value, time_s=float(took) if type(took) in (int, float) else 0.0))
    # an earlier step (a lookup, an instance) failing ends the stream: its call fails with it
    if len(out) < len(at) and lines and len(lines) > 1 and lines[-1] is not None and "x" in lines[-1]:
        info = lines[-1]["x"] if isinstance(lines[-1]["x"], dict) else {}
        last = len(lines) - 2  # the step that raised
        if last not in at:
            out.append(CallOutcome(error=f"{info.get('type', 'Exception')}: {str(info.get('msg', ''))[:200]}"))
    return out


NOT_RUN = "not run"
# The harness's imports for `call` programs, less the star imports of sys and io: the steps runner
# encodes every top-level name once, and sys's and io's stream objects refuse that.
BATCH_PRELUDE = CALL_PRELUDE.replace("from io import *\n", "").replace("from sys import *\n", "")


def run_batch(worker: Any, code: str, t: Tests, calls: list[Call], entry: Entry, limits_: Limits,
              deadline: float | None = None) -> list[CallOutcome]:
    """One sandboxed process running ``calls`` in order on a held worker: the outcome of each call
    it reached, then of the call that ended it (a time limit, a crash), if any. ``limits_`` are
    the test's own (time per call, memory, output), as the caller resolved them."""
    steps, at = _plan(entry, calls)
    limit, memory_mb = limits_.time_for(t), limits_.memory_for(t)
    left = None if deadline is None else deadline - time.monotonic()
    extra = {"block_s": limits.block_cap(limit, left), "ticks": len(steps) + 1}
    request = api._request("calls", limit, memory_mb, limits_.output_mb, t, **extra)
    if t.kind == "call":  # what a `call` test's program runs after: the harness's imports
        request["prelude"] = BATCH_PRELUDE + (t.prelude or "")
    start = time.monotonic()
    run = Run.from_wire(worker.run(request, {"code": code, "steps": lifted.payload(lift.Plan(tuple(steps), ()))},
                                   deadline))
    got = _outcomes(steps, at, run)
    lines = lifted._lines(run)
    raised = bool(lines) and isinstance(lines[-1], dict) and "x" in lines[-1]
    if len(got) < len(calls) and (not raised or not got):  # the process ended inside the next call
        verdict, msg = api.classify(run, "calls")
        verdict = verdict or "runtime_error"
        got.append(CallOutcome(error=f"{verdict}: {msg}".strip(), verdict=verdict,
                               time_s=round(time.monotonic() - start, 4)))
    return got[: len(calls)]


def call_values(code: str, tests: Tests | dict, calls: list[Call], limits_: Limits | None = None, *,
                entry: Entry | None = None, pool: WorkerPool | None = None, budget_s: float | None = None,
                stop_after_timeout: bool = False) -> list[CallOutcome]:
    """What ``code`` returns for each call, in order. ``tests`` gives the prelude, ``fn_name`` and
    time limit (canonical tests), ``limits_`` what each call may use (:class:`~evaluator.model.Limits`);
    ``entry`` defaults to :func:`entry_for` of ``fn_name``. A call that ends its process fails
    alone: the calls after it run in a fresh one.

    Calls not reached are ``NOT_RUN``: after ``budget_s`` of wall time, or after the first time
    limit with ``stop_after_timeout`` (a program that loops once usually loops again: asking it
    every remaining call would cost a limit each)."""
    t, limits_ = as_tests(tests), limits_ or Limits()
    if entry is None:
        if not t.fn_name:
            raise ValueError("call_values needs an entry or tests with fn_name")
        entry = entry_for(code, t.fn_name)
    pool = pool or shared_pool(1)
    results: list[CallOutcome] = []
    began = time.monotonic()
    while len(results) < len(calls):
        timed_out = any(o.verdict == "time_limit" for o in results)
        if (budget_s is not None and time.monotonic() - began >= budget_s) or (stop_after_timeout and timed_out):
            results += [CallOutcome(error=NOT_RUN)] * (len(calls) - len(results))
            break
        with pool.worker(None) as worker:
            results += run_batch(worker, code, t, calls[len(results):], entry, limits_)
    return results
