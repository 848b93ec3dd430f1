"""The parent's side of a lifted ``assert`` test: the request, and the verdict from the
candidate's reply stream (see :mod:`evaluator.asserts.lift` and :mod:`evaluator.runtime.steps`).

Why here, in the caller's process: the candidate only says what each call returned or raised;
the parent decodes that as plain data (:func:`evaluator.runtime.wire.loads`, no program object ever
crosses) and evaluates each assert itself, in order, as the judge would. The first failing
assert decides, whatever the program did after it; a reply missing before any failure means
the process ended, which the process's own end decides. Where the parent cannot be sure the
judge would agree (a value that is not plain data, an exception while comparing, a failing
assert whose message would call the program), :func:`verdict` returns None and the caller asks
the judge.
"""

from __future__ import annotations

import errno
import json
import signal
from typing import Any, Callable

from evaluator.asserts import judge, lift
from evaluator.model import Run
from evaluator.runtime import wire
from evaluator.runtime.steps import STREAM_FULL

Outcome = tuple[str, str]  # (verdict, message)


def _efbig(info: dict) -> bool:
    """The call failed writing past the output cap (the errno travels as a number, see
    :func:`evaluator.runtime.ops.plain_error`)."""
    return info.get("errno") == errno.EFBIG


def step_lines(steps: list[dict]) -> tuple[str, list[int]]:
    """Steps as the fork server feeds them (:class:`evaluator.sandbox.worker._Feed`): one JSON line each,
    and each line's length in bytes (all it learns of them)."""
    lines = [json.dumps(s, separators=(",", ":")) + "\n" for s in steps]
    return "".join(lines), [len(line.encode()) for line in lines]


def lines_text(lengths: list[int]) -> str:
    """The steps' lengths as the fork server reads them, after the candidate exists (in the
    request, they would be in the candidate's forked memory: a later argument's size is not its
    business either)."""
    return " ".join(map(str, lengths))


def payload(plan: lift.LiftedTest) -> tuple[str, list[int]]:
    """The plan's steps as the candidate reads them (:func:`evaluator.runtime.steps.run_steps`)."""
    return step_lines([s.to_json() for s in plan.steps])


def _refuse(tagged: dict) -> Any:
    raise wire.WireError("not plain data")


def exception_outcome(info: Any) -> Outcome:
    """What the judge reports when a call raised ``info`` (mirrors :func:`evaluator.asserts.judge.run`
    and the report's classification): an ``AssertionError`` fails the test, a ``MemoryError`` is
    the memory limit, an ``OSError`` with errno EFBIG the output limit, anything else a runtime error."""
    if not isinstance(info, dict):
        return "runtime_error", "the program raised"
    name, base = str(info.get("type", "Exception")), str(info.get("base", "Exception"))
    msg = str(info.get("msg", ""))
    if name in judge.ENDS_RUN or base in judge.ENDS_RUN:
        text = f"the program raised {name} inside a call: {msg[:200]}"[:300]
        return ("output_limit" if _efbig(info) else "runtime_error"), text
    if name in judge.ENDS_ITERATION or base in judge.ENDS_ITERATION:
        return "runtime_error", f"the program raised {name} inside a call"
    try:
        cls = judge.BUILTIN_EXCEPTIONS.get(name) or type(name, (judge.BUILTIN_EXCEPTIONS.get(base, Exception),), {})
        exc = cls(msg)
        text = str(exc)[:300]
    except Exception as err:  # noqa: BLE001 - the judge fails the same way building it
        return "runtime_error", f"{type(err).__name__}: {err}"[:300]
    if isinstance(exc, MemoryError):
        return "memory_limit", "MemoryError"
    if isinstance(exc, OSError) and _efbig(info):
        return "output_limit", "output limit exceeded"
    if isinstance(exc, AssertionError):
        return "wrong_answer", f"AssertionError: {text}"
    return "runtime_error", f"{name}: {text}"


def _fatal_outcome(info: Any) -> Outcome:
    """The program's top level raised (the judge's ``program_error`` report)."""
    info = info if isinstance(info, dict) else {}
    name, msg = str(info.get("type", "Exception")), str(info.get("msg", ""))[:300]
    if name == "MemoryError":
        return "memory_limit", "MemoryError"
    if _efbig(info):
        return "output_limit", "output limit exceeded"
    return "runtime_error", f"{name}: {msg}"


def reply_lines(run: Run) -> list[dict | None]:
    """The candidate's reply stream, a message per line (None: not one this side can read).

    The stream ends before the first reply that was not whole when the next step was revealed
    (``fed_at``): a program that read ahead answered after seeing another call, so from there on
    it answered nothing (an honest one always replies before it asks for more)."""
    out: list[dict | None] = []
    if run.candidate is None:
        return out
    data = run.candidate.message.encode("utf-8", "surrogateescape")
    fed_at, offset = run.candidate.fed_at, 0
    for k, line in enumerate(data.split(b"\n")[:-1]):
        offset += len(line) + 1
        if k < len(fed_at) and offset > fed_at[k]:
            break
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            msg = None  # malformed: not decidable here
        out.append(msg if isinstance(msg, dict) else None)
    return out


def verdict(plan: lift.LiftedTest, run: Run, classify: Callable[[Run, str], tuple[str | None, str]]) -> dict | None:
    """Verdict of a lifted run, with ``calls`` and ``time_per_call_s``; None: ask the judge."""
    if run.candidate is None:  # the fork server or the wall budget failed us: same as any test
        verdict, msg = classify(run, "calls")
        return {"verdict": verdict or "internal_error", "message": msg}
    lines, cand = reply_lines(run), run.candidate
    stats = {"calls": 0, "call_s": 0.0}

    def ended() -> dict | None:
        """The stream stopped before the test did: the process's end decides."""
        if cand.exit == STREAM_FULL or cand.stream_full:
            return None
        verdict, msg = classify(run, "calls")
        return _result(verdict or "runtime_error", msg or "the program stopped answering", stats)

    if not lines:
        return ended()
    hello = lines[0]
    if hello is None:
        return None
    if "fatal" in hello:
        return _result(*_fatal_outcome(hello["fatal"]), stats)
    if "x" in hello:
        return _result(*exception_outcome(hello["x"]), stats)
    names = hello.get("names")
    if not isinstance(names, list) or not plan.needs <= set(names):
        return None
    targets = {s.ref for s in plan.steps}
    for check in plan.checks:
        results: dict[int, Any] = {}
        for i in check.steps:
            if i + 1 >= len(lines):
                return ended()
            reply = lines[i + 1]
            if reply is None:
                return None
            if "x" in reply:
                return _result(*exception_outcome(reply["x"]), stats)
            if "r" not in reply:
                return None
            step = plan.steps[i]
            if step.op == "name":
                continue
            if i in targets:  # `Solution()` and its method: the program's own objects
                if not (isinstance(reply["r"], dict) and set(reply["r"]) == {"ref"}):
                    return None
                continue
            stats["calls"] += 1
            took = reply.get("t")
            stats["call_s"] += max(0.0, float(took)) if type(took) in (int, float) else 0.0
            try:
                results[i] = wire.loads(reply["r"], _refuse)
            except (wire.WireError, RecursionError):
                return None
        try:
            ok = lift.holds(check, results)
        except lift.Undecided:
            return None
        if not ok:
            if check.message_runs:
                return None
            return _result("wrong_answer", f"AssertionError (line {check.line})", stats)
    if cand.stdout_bytes >= run.output_cap or cand.signal == signal.SIGXFSZ:
        return _result("output_limit", "output limit exceeded", stats)
    return _result("accepted", "", stats)


def _result(verdict: str, msg: str, stats: dict) -> dict:
    out: dict[str, Any] = {"verdict": verdict, "lifted": True}
    if msg:
        out["message"] = msg
    if stats["calls"]:
        out.update(calls=stats["calls"], time_per_call_s=round(stats["call_s"] / stats["calls"], 6))
    return out
