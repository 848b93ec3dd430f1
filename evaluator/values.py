"""What a program returns for many calls, run in one sandboxed process: the oracle of test generation.

Why not one ``call`` test per input: generation asks a reference for dozens of answers, and a
process per answer costs a fork and the sandbox's walls each time. Here the calls run as the
lifted steps of an ``assert`` test do (:mod:`evaluator.runtime.steps`): the program's top level once,
then each call with the test's CPU limit, each reply decoded in the parent as plain data
(:func:`evaluator.runtime.wire.loads`; a value that is not plain data is an error, never an object).
A call that raises fails alone and the next call runs in the same process (the request's
``independent``), as a ``call`` test's cases do: a wrong program that raises on most inputs costs
one process, not one per input. A call that ends the process (a time limit, a crash) fails that
call only: the calls after it run again in a fresh process.
"""

from __future__ import annotations

import ast
import time
from dataclasses import dataclass
from typing import Any

from evaluator.asserts import lift, lifted
from evaluator.model import Cause, Limits, Options, Run, Tests, Verdict, as_tests
from evaluator.runs import cause_of, classify, server_request
from evaluator.runtime import wire
from evaluator.runtime.harness import CALL_PRELUDE
from evaluator.sandbox import limits
from evaluator.sandbox.pool import WorkerPool, shared_pool

Entry = tuple[str, ...]  # ("function", name), ("method", class name, method name), or ("entry", name): as a case resolves it
Call = tuple[tuple, dict]  # positional and keyword arguments, plain data
ValuesJob = tuple[str, "Tests | dict", "list[Call]", "Entry | None"]  # (code, tests, calls, entry): a values_many job


@dataclass(frozen=True)
class CallOutcome:
    """One call's answer: ``value`` when ``error`` is None. ``not_run``: the call was never made
    (:func:`call_values` stopped first); ``cause``: why a call that ended its process, or was
    not made, has no answer: its own limit (or an earlier call's, with ``stop_after_timeout``)
    or the evaluation's wall-time budget."""

    value: Any = None
    error: str | None = None
    time_s: float = 0.0
    verdict: Verdict | None = None  # a call that ended its process: the evaluator's verdict for it
    raised: Any = None  # the exception a call raised, as data (:func:`evaluator.runtime.ops.error`)
    unserializable: bool = False  # a call test's case returned what is not plain data
    not_run: bool = False
    cause: Cause | None = None

    @classmethod
    def skipped(cls, cause: Cause) -> "CallOutcome":
        """A call not made, and why."""
        return cls(error="not run", not_run=True, cause=cause)

    @property
    def ok(self) -> bool:
        return self.error is None


def entry_for(code: str, fn_name: str) -> Entry:
    """How the harness reaches ``fn_name`` in ``code``, as far as the code shows it:
    ``Solution().fn_name`` when a class ``Solution`` has it, defined there or inherited from a
    class the code defines (as :func:`evaluator.runtime.harness.resolve_entry` prefers), else the function.
    :func:`call_values` with no entry resolves it at run time instead, exactly as a case does."""
    try:
        tree = lift.parse_code(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ("function", fn_name)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def has(name: str, seen: set[str]) -> bool:
        node = classes.get(name)
        if node is None or name in seen:
            return False
        seen.add(name)
        if any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == fn_name for item in node.body):
            return True
        return any(isinstance(b, ast.Name) and has(b.id, seen) for b in node.bases)

    return ("method", "Solution", fn_name) if has("Solution", set()) else ("function", fn_name)


def _steps(entry: Entry, calls: list[Call], cases: bool = False) -> tuple[list[dict], list[int]]:
    """Steps for the calls (a fresh instance per call for a method), and each call's step.
    ``("entry", name)``: resolved in the program's process as a ``call`` case is
    (:func:`evaluator.runtime.harness.call_value`); ``cases``: ``calls`` are a call test's JSON argument texts."""
    if cases:
        return [{"op": "case", "n": entry[-1], "a": text} for text in calls], list(range(len(calls)))
    if entry[0] == "entry":
        return ([{"op": "case", "n": entry[1], "p": [wire.dumps(list(args)), wire.dumps(dict(kwargs))]}
                 for args, kwargs in calls], list(range(len(calls))))
    plan = [lift.Step("name", name=entry[1])]
    at = []
    for args, kwargs in calls:
        target = 0
        if entry[0] == "method":
            plan.append(lift.Step("call", ref=0))
            plan.append(lift.Step("getattr", ref=len(plan) - 1, name=entry[2]))
            target = len(plan) - 1
        plan.append(lift.Step("call", ref=target, args=tuple(args), kwargs=tuple(sorted(kwargs.items()))))
        at.append(len(plan) - 1)
    return [s.to_json() for s in plan], at


def _refuse(tagged: dict) -> Any:
    raise wire.WireError("not plain data")


def _error_text(info: Any) -> str:
    info = info if isinstance(info, dict) else {}
    return f"{info.get('type', 'Exception')}: {str(info.get('msg', ''))[:200]}"


def _outcomes(at: list[int], run: Run) -> list[CallOutcome]:
    """Each call's outcome from one run's reply stream; calls it never reached are left out."""
    if run.candidate is None:
        return []
    lines = lifted.reply_lines(run)
    if not lines:  # it never finished its top level: how the process ended says why
        return []
    if lines[0] is None or "names" not in lines[0]:
        why = "the program failed before any call"
        if lines and lines[0] and ("fatal" in lines[0] or "x" in lines[0]):
            why = _error_text(lines[0].get("fatal") or lines[0].get("x"))
        return [CallOutcome(error=why) for _ in at]
    out = []
    for step in at:
        reply = lines[step + 1] if step + 1 < len(lines) else None
        if reply is None:
            break
        took = reply.get("t")
        took = float(took) if type(took) in (int, float) else 0.0
        if "x" in reply:
            out.append(CallOutcome(error=_error_text(reply["x"]), time_s=took, raised=reply["x"]))
            continue
        if "v" in reply or "u" in reply:  # a call test's case: the value as its own process gives it
            value = reply.get("v")
            if not isinstance(value, str):
                out.append(CallOutcome(error=str(reply.get("u") or "no value")[:300], time_s=took, unserializable=True))
            else:
                out.append(CallOutcome(value=value, time_s=took))
            continue
        try:
            value = wire.loads(reply.get("r"), _refuse)
        except (wire.WireError, RecursionError):
            out.append(CallOutcome(error="not plain data"))
            continue
        out.append(CallOutcome(value=value, time_s=took))
    # an earlier step (a lookup, an instance) failing ends the stream: its call fails with it
    if len(out) < len(at) and lines and len(lines) > 1 and lines[-1] is not None and "x" in lines[-1]:
        last = len(lines) - 2  # the step that raised
        if last not in at:
            out.append(CallOutcome(error=_error_text(lines[-1]["x"])))
    return out


def run_batch(worker: Any, code: str, t: Tests, calls: list[Call], entry: Entry, limits_: Limits,
              deadline: float | None = None, *, cases: bool = False) -> tuple[list[CallOutcome], Run]:
    """One sandboxed process running ``calls`` in order on a held worker, the steps fed one at a
    time: the outcome of each call it reached, then of the call that ended it (a time limit, a
    crash), if any, and the run. ``limits_`` are the test's own (time per call, memory, output),
    as the caller resolved them. ``cases``: a ``call`` test's cases (``calls`` are their JSON
    argument texts): each also carries the program's top level in its limits, as a process of its
    own would (:func:`evaluator.sandbox.limits.call_share`), and its value is JSON as the harness makes it."""
    steps, at = _steps(entry, calls, cases)
    time_s, memory_mb = limits_.time_for(t), limits_.memory_for(t)
    left = None if deadline is None else deadline - time.monotonic()
    text, lines = lifted.step_lines(steps)
    # a call test's cases are as many tests: a limit each, whatever their number (not a block's cap)
    block_s = time_s * (len(calls) + 1) if cases else limits.block_cap(time_s, left)
    if cases and left is not None:
        block_s = min(block_s, max(left, 0.1))
    extra = {"block_s": block_s, "cases": cases or entry[0] == "entry", "charge_top": cases, "independent": True}
    request = server_request("calls", time_s, memory_mb, limits_.output_mb, t, **extra)
    if t.kind == "call":  # what a `call` test's program runs after: the harness's imports
        request.prelude = CALL_PRELUDE + (t.prelude or "")
    start = time.monotonic()
    run = Run.from_wire(worker.run(request, {"code": code, "steps": text, "lines": lifted.lines_text(lines)}, deadline))
    got = _outcomes(at, run)
    lines_ = lifted.reply_lines(run)
    raised = bool(lines_) and isinstance(lines_[-1], dict) and "x" in lines_[-1] and not request.cases
    if len(got) < len(calls) and (not raised or not got):  # the process ended inside the next call
        verdict, msg = classify(run, "calls")
        verdict = verdict or Verdict.RUNTIME_ERROR
        got.append(CallOutcome(error=f"{verdict}: {msg}".strip(), verdict=verdict, cause=cause_of(run, verdict),
                               time_s=round(time.monotonic() - start, 4)))
    return got[: len(calls)], run


def call_values(code: str, tests: Tests | dict, calls: list[Call], limits_: Limits | None = None, *,
                entry: Entry | None = None, pool: WorkerPool | None = None, budget_s: float | None = None,
                stop_after_timeout: bool = False) -> list[CallOutcome]:
    """What ``code`` returns for each call, in order. ``tests`` gives the prelude, ``fn_name`` and
    time limit (canonical tests), ``limits_`` what each call may use (:class:`~evaluator.model.Limits`);
    ``entry`` defaults to ``fn_name`` resolved at run time, as a ``call`` case resolves it (a fresh
    ``Solution()`` per call). A call that ends its process fails alone: the calls after it run in
    a fresh one.

    Calls not reached are ``not_run`` (:meth:`CallOutcome.skipped`): after ``budget_s`` of wall
    time, or after the first time limit with ``stop_after_timeout`` (a program that loops once
    usually loops again: asking it every remaining call would cost a limit each)."""
    t, limits_ = as_tests(tests), limits_ or Limits()
    if entry is None:
        if not t.fn_name:
            raise ValueError("call_values needs an entry or tests with fn_name")
        entry = ("entry", t.fn_name)
    pool = pool or shared_pool(1)
    results: list[CallOutcome] = []
    began = time.monotonic()
    while len(results) < len(calls):
        timed_out = any(o.verdict is Verdict.TIME_LIMIT for o in results)
        if (budget_s is not None and time.monotonic() - began >= budget_s) or (stop_after_timeout and timed_out):
            cause = Cause.OWN_LIMIT if stop_after_timeout and timed_out else Cause.WALL_BUDGET
            results += [CallOutcome.skipped(cause)] * (len(calls) - len(results))
            break
        with pool.worker(None) as worker:
            results += run_batch(worker, code, t, calls[len(results):], entry, limits_)[0]
    return results


def values_of(job: ValuesJob, limits_: Limits, options: Options, pool: WorkerPool) -> list[CallOutcome]:
    """One job of a backend's ``values_many`` (:mod:`evaluator.backend`), on ``pool``: its calls'
    outcomes by :func:`call_values`, the budget ``limits_.wall_budget_s`` counted from the job's
    start, and ``options.stop_after_timeout``. A job the evaluator cannot run (tests that do not
    parse, no function to call) fails every call, never the batch."""
    code, tests, calls, entry = job
    try:
        return call_values(code, tests, calls, limits_, entry=entry, pool=pool, budget_s=limits_.wall_budget_s,
                           stop_after_timeout=options.stop_after_timeout)
    except Exception as exc:  # noqa: BLE001 - one result per job, whatever happens
        return [CallOutcome(error=f"{type(exc).__name__}: {exc}"[:200]) for _ in calls]
