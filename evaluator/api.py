"""``evaluate`` (one program) and ``evaluate_many`` (parallel): run cases, compare, give verdicts.

Comparison happens here, in the caller's process, never in the child: the child only
reports text (stdout, or the JSON of a returned value).
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable

from evaluator import checkers, lift, lifted, limits
from evaluator.pool import WorkerPool, shared_pool
from evaluator.sandbox import SETUP_FAILED

VERDICTS = ("accepted", "wrong_answer", "runtime_error", "time_limit", "memory_limit", "output_limit",
            "internal_error")
DEFAULT_TIMEOUT_S = 6.0
# A `call` test's first cases run one process each (most wrong programs fail there, cheaply);
# the rest run in one process (see _batched_calls).
BATCH_AFTER = 2
SNIPPET = 300


def _compare():
    from evaluator import compare  # written alongside; imported lazily

    return compare


def normalize_tests(tests: Any) -> dict:
    """Canonical tests as a plain dict, from a dict, JSON text or an object with ``to_dict``."""
    if isinstance(tests, (str, bytes)):
        tests = json.loads(tests)
    elif hasattr(tests, "to_dict"):
        tests = tests.to_dict()
    if not isinstance(tests, dict) or tests.get("kind") not in ("stdin", "call", "assert"):
        raise ValueError("tests must be canonical tests with kind stdin|call|assert")
    return tests


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][-SNIPPET:] if lines else ""


def _message(proc: dict) -> dict:
    """The JSON line a child left on its message fd (a call's value, the judge's report)."""
    lines = (proc.get("message") or "").strip().splitlines()
    line = lines[-1] if lines else ""
    try:
        msg = json.loads(line) if line else None
    except ValueError:
        return {}
    return msg if isinstance(msg, dict) else {}


def _ended_badly(proc: dict, memory_mb: int) -> tuple[str, str] | None:
    """Verdict for a process that was killed or exited non-zero; None when it exited 0."""
    err = _last_line(proc.get("stderr_tail", ""))
    if proc["signal"] is not None:
        if proc.get("maxrss_mb", 0) >= 0.9 * memory_mb:
            return "memory_limit", f"killed by signal {proc['signal']} near the memory limit"
        return "runtime_error", f"killed by signal {proc['signal']}"
    if proc["exit"] == SETUP_FAILED:
        return "internal_error", err or "sandbox setup failed"
    if proc["exit"] != 0:
        if err.startswith("MemoryError"):
            return "memory_limit", "MemoryError"
        return "runtime_error", f"exit {proc['exit']}: {err}".strip()
    return None


_JUDGE_STATUS = {"assert": "wrong_answer", "memory": "memory_limit", "error": "runtime_error",
                 "program_error": "runtime_error", "program_exit": "runtime_error",
                 "call_time_limit": "time_limit"}


def classify(raw: dict, kind: str) -> tuple[str | None, str]:
    """Failing verdict from how the processes ended (None: ran to completion), plus a message.

    Only the parent decides: from exit statuses, resource use, the candidate's output, and for
    ``assert`` tests the judge process's report (the candidate never writes one).
    """
    if "deadline" in raw:
        return "time_limit", "the evaluation's wall-time budget ran out"
    if "worker_died" in raw:
        return "runtime_error", "the program killed or broke its fork server"
    if "internal_error" in raw:
        return "internal_error", raw["internal_error"]
    cand, judge = raw["candidate"], raw.get("judge")
    procs = [cand] + ([judge] if judge else [])
    cpu_cap = raw.get("cpu_cap_s", raw.get("timeout_s", float("inf")))  # an assert block: its cap
    if any(p["timed_out"] or p["signal"] == signal.SIGXCPU or (p["signal"] and p["cpu_s"] >= cpu_cap)
           for p in procs):
        return "time_limit", "time limit exceeded"
    # A PID namespace's first process does not get SIGXFSZ: past the cap its writes fail (EFBIG).
    efbig = "[Errno 27]" in _last_line(cand.get("stderr_tail", ""))
    if cand["stdout_bytes"] >= raw["output_cap"] or cand["signal"] == signal.SIGXFSZ or efbig:
        return "output_limit", "output limit exceeded"
    if any(p["exit"] == SETUP_FAILED for p in procs):
        return "internal_error", _last_line(judge["stderr_tail"] if judge and judge["exit"] == SETUP_FAILED
                                            else cand["stderr_tail"]) or "sandbox setup failed"
    if judge is None:
        bad = _ended_badly(cand, raw.get("memory_mb", 1 << 30))
        if bad:
            return bad
        if kind == "call":
            msg = _message(cand)
            if "unserializable" in msg:
                return "wrong_answer", str(msg["unserializable"])[:SNIPPET]
            if not isinstance(msg.get("value"), str):
                return "runtime_error", "the call returned no value"
        return None, ""
    report = _message(judge)
    status = report.get("status")
    if status == "ok" and judge["exit"] == 0 and judge["signal"] is None:
        return None, ""
    detail = f"{report.get('type', status)}: {report.get('msg', '')}".strip()
    if status == "program_gone" or not report:
        bad = _ended_badly(cand, raw.get("memory_mb", 1 << 30)) or _ended_badly(judge, raw.get("memory_mb", 1 << 30))
        if bad:
            return bad
        return "runtime_error", f"the program stopped answering: {report.get('msg', '')} {_last_line(cand['stderr_tail'])}".strip()
    if report.get("type") == "MemoryError":
        return "memory_limit", "MemoryError"
    if "[Errno 27]" in str(report.get("msg", "")):
        return "output_limit", "output limit exceeded"
    return _JUDGE_STATUS.get(status, "runtime_error"), detail


def _request(tests: dict, kind: str, timeout_s: float, memory_mb: int, **extra) -> dict:
    return {"kind": kind, "prelude": tests.get("prelude"), "fn_name": tests.get("fn_name"),
            "timeout_s": timeout_s, "memory_mb": memory_mb, "output_mb": tests.get("_output_mb"), **extra}


def _assert_source(tests: dict) -> str:
    test = tests.get("assert_code") or ""
    fn_name = tests.get("fn_name")
    if fn_name and re.search(r"^def check\(", test, re.M) and not re.search(r"^check\(", test, re.M):
        test += f"\n\ncheck({fn_name})\n"
    return test


def _call_times(report: dict) -> dict:
    """An assert block's calls and their mean wall time, from the judge's report."""
    calls, spent = report.get("calls"), report.get("call_s")
    if type(calls) is not int or calls <= 0 or not isinstance(spent, (int, float)):
        return {}
    return {"calls": calls, "time_per_call_s": round(spent / calls, 6)}


def _run_checker(worker, tests: dict, case: dict, actual: str, timeout_s: float, memory_mb: int,
                 deadline: float | None) -> tuple[str, str]:
    """Checker protocol: ``argv = [input.txt, expected.txt, output.txt]`` in its work dir, the
    candidate's output also on stdin; exit status 0 accepts, anything else rejects."""
    files = {"input.txt": case["input"], "expected.txt": case["output"], "output.txt": actual}
    req = _request({"_output_mb": tests.get("_output_mb")}, "checker", timeout_s, memory_mb, argv=list(files))
    raw = worker.run(req, {"code": tests["checker"], "stdin": actual, **files}, deadline)
    verdict, msg = classify(raw, "checker")
    if verdict in ("time_limit", "memory_limit", "output_limit", "internal_error"):
        return "internal_error", f"checker failed: {verdict} {msg}"
    if verdict is not None:
        return "wrong_answer", f"checker rejected: {msg}".strip()
    return "accepted", ""


def _lifted_case(worker, code: str, tests: dict, plan: lift.Plan, *, timeout_s: float, memory_mb: int,
                 deadline: float | None) -> dict | None:
    """An ``assert`` test whose asserts were lifted: the candidate runs the calls, we compare.
    None when only the judge can say (see :func:`evaluator.lifted.decide`)."""
    extra = {"block_s": limits.block_cap(timeout_s, None if deadline is None else deadline - time.monotonic()),
             "ticks": len(plan.steps) + 1}
    raw = worker.run(_request(tests, "calls", timeout_s, memory_mb, **extra),
                     {"code": code, "steps": lifted.payload(plan)}, deadline)
    decided = lifted.decide(plan, raw, classify)
    if decided is None:
        return None
    out: dict[str, Any] = {"time_s": round(raw.get("wall_s", 0.0), 4)}
    if "candidate" in raw:
        out["cpu_s"] = round(raw["candidate"]["cpu_s"], 4)
    out.update(decided)
    return out


def _batched_calls(worker, code: str, tests: dict, cases: list[dict], *, timeout_s: float, memory_mb: int,
                   deadline: float | None, mode: str, rel_tol: float, abs_tol: float, keep_output: bool) -> dict[int, dict]:
    """The ``call`` cases that one process running every call accepts, by index.

    Why: a process per case costs a fork and the sandbox's walls each time, and generated tests
    give a problem dozens of cases. Only acceptance is taken from the shared process (the same
    per-call limit, the same comparison); every other case is judged in a process of its own as
    before, so a failure is always what the case's own process says, and state one call leaves
    for the next can only make a case fail here, which its own process then re-judges.
    """
    from evaluator import values

    calls = []
    for case in cases:
        try:
            args = json.loads(case["input"])
        except (ValueError, TypeError):
            return {}
        calls.append((tuple(args) if isinstance(args, list) else (args,), {}))
    try:
        outcomes = values.run_batch(worker, code, tests, calls, values.entry_for(code, tests.get("fn_name") or ""),
                                    timeout_s, memory_mb, deadline)
    except Exception:  # noqa: BLE001 - e.g. the worker died: every case gets its own process
        return {}
    cmp = _compare()
    accepted: dict[int, dict] = {}
    for i, (case, outcome) in enumerate(zip(cases, outcomes)):
        if not outcome.ok:
            continue
        try:
            value = cmp.encode_value(outcome.value)
        except (TypeError, ValueError, RecursionError):
            continue
        if cmp.compare_values(case["output"], value, mode=mode, rel_tol=rel_tol, abs_tol=abs_tol):
            took = round(outcome.time_s, 4)
            accepted[i] = {"time_s": took, "cpu_s": took, "verdict": "accepted", "batched": True}
            if keep_output:
                accepted[i]["output"] = value
    return accepted


def _judge_case(worker, code: str, tests: dict, case: dict | None, *, timeout_s: float, memory_mb: int,
                mode: str, rel_tol: float, abs_tol: float, deadline: float | None, keep_output: bool = False) -> dict:
    kind = tests["kind"]
    payload = {"code": code}
    if kind == "assert":
        payload["test"] = _assert_source(tests)
    else:
        payload["stdin"] = case["input"] if kind == "stdin" else ""
    if kind == "call":  # as a memfd, not in the request: generated arguments can be large
        payload["input"] = case["input"]
    extra: dict[str, Any] = {}
    if kind == "assert":  # each call gets the limit; the block one per call made, up to a cap
        extra["block_s"] = limits.block_cap(timeout_s, None if deadline is None else deadline - time.monotonic())
    raw = worker.run(_request(tests, kind, timeout_s, memory_mb, **extra), payload, deadline)
    verdict, msg = classify(raw, kind)
    out: dict[str, Any] = {"time_s": round(raw.get("wall_s", 0.0), 4)}
    if "candidate" in raw:
        out["cpu_s"] = round(raw["candidate"]["cpu_s"], 4)
    if raw.get("judge"):
        out.update(_call_times(_message(raw["judge"])))
    if keep_output and kind in ("stdin", "call") and "candidate" in raw:
        out["output"] = (raw["candidate"]["stdout"] if kind == "stdin" else _message(raw["candidate"]).get("value")) or ""
    if verdict is None:
        cmp = _compare()
        if kind == "stdin":
            stdout = raw["candidate"]["stdout"]
            if checkers.is_named(tests.get("checker")):
                ok, msg = checkers.check(tests["checker"], case["output"], stdout)
                verdict = "accepted" if ok else "wrong_answer"
            elif tests.get("checker"):
                verdict, msg = _run_checker(worker, tests, case, stdout, timeout_s, memory_mb, deadline)
            else:
                ok = cmp.compare_stdout(case["output"], stdout, mode=mode, rel_tol=rel_tol, abs_tol=abs_tol)
                verdict = "accepted" if ok else "wrong_answer"
            if verdict == "wrong_answer" and not msg:
                msg = "output: " + stdout[:SNIPPET]
        elif kind == "call":
            value = _message(raw["candidate"])["value"]
            ok = cmp.compare_values(case["output"], value, mode=mode, rel_tol=rel_tol, abs_tol=abs_tol)
            verdict = "accepted" if ok else "wrong_answer"
            if not ok:
                msg = "returned: " + value[:SNIPPET]
        else:
            verdict = "accepted"
    out["verdict"] = verdict
    if msg:
        out["message"] = msg
    return out


def evaluate(
    code: str,
    tests: Any,
    *,
    timeout_s: float | None = None,
    memory_mb: int = 2048,
    stop_on_first_failure: bool = True,
    mode: str = "robust",
    rel_tol: float = 1e-6,
    abs_tol: float = 1e-6,
    output_mb: int = 64,
    wall_budget_s: float | None = None,
    keep_output: bool = False,
    pool: WorkerPool | None = None,
    lift_asserts: bool = True,
    batch_calls: bool = True,
) -> dict:
    """Judge one program against canonical tests. Never raises for anything the program does.

    Time limit: ``timeout_s`` if given, else the tests' ``time_limit_s``, else 6 s (CPU time;
    wall clock gets 1.5x + 0.5 s). In an ``assert`` test the limit is per call of the program,
    and the block's budget one limit per call made, capped by ``wall_budget_s`` (see
    :mod:`evaluator.limits`); such a case reports ``calls`` and ``time_per_call_s``. Memory: the larger of ``memory_mb`` and the tests'
    ``memory_limit_mb`` (address-space limits overcount, so a test never makes it stricter).
    ``wall_budget_s`` bounds the whole call (waiting for a worker included): tests not run by
    then are ``time_limit``, so one degenerate program never stalls a caller such as a reward.
    Each case reports ``cpu_s`` (the program's CPU time); ``keep_output`` adds what it printed
    (``stdin``) or returned (``call``, as JSON) as ``output``, to compare programs with each other.
    ``lift_asserts``: run an ``assert`` test's simple asserts as one batch of calls compared here
    (:mod:`evaluator.lift`; same verdicts, such a case says ``lifted``); False: always the judge.
    ``batch_calls``: after the first :data:`BATCH_AFTER` cases of a ``call`` test, run the rest in
    one process and take the ones it accepts (such a case says ``batched``; see
    :func:`_batched_calls`); False: a process per case.
    """
    start = time.perf_counter()
    deadline = None if wall_budget_s is None else time.monotonic() + float(wall_budget_s)
    pool = pool or shared_pool(1)
    cases: list[dict] = []
    isolation = "unknown"
    try:
        t = dict(normalize_tests(tests), _output_mb=output_mb)
        limit = float(timeout_s or t.get("time_limit_s") or DEFAULT_TIMEOUT_S)
        mem = max(int(memory_mb), int(t.get("memory_limit_mb") or 0))
        todo: list[dict | None] = [None] if t["kind"] == "assert" else list(t.get("cases") or [])
        if not todo or (t["kind"] == "assert" and not t.get("assert_code")):
            raise ValueError("tests have no cases")
        plan = lift.lift(_assert_source(t), t.get("fn_name")) if lift_asserts and t["kind"] == "assert" else None
        with pool.worker(deadline) as worker:
            isolation = worker.isolation
            batched: dict[int, dict] = {}
            for index, case in enumerate(todo):
                if deadline is not None and time.monotonic() >= deadline:
                    cases.append({"verdict": "time_limit", "message": "the evaluation's wall-time budget ran out"})
                    break
                if batch_calls and t["kind"] == "call" and index == BATCH_AFTER and len(todo) - index > 1:
                    rest = _batched_calls(worker, code, t, todo[index:], timeout_s=limit, memory_mb=mem,
                                          deadline=deadline, mode=mode, rel_tol=rel_tol, abs_tol=abs_tol,
                                          keep_output=keep_output)
                    batched = {index + i: res for i, res in rest.items()}
                res = batched.get(index) or (plan and _lifted_case(worker, code, t, plan, timeout_s=limit, memory_mb=mem,
                                                                    deadline=deadline))
                if res is None:
                    res = _judge_case(worker, code, t, case, timeout_s=limit, memory_mb=mem, mode=mode,
                                      rel_tol=rel_tol, abs_tol=abs_tol, deadline=deadline, keep_output=keep_output)
                cases.append(res)
                if stop_on_first_failure and res["verdict"] != "accepted":
                    break
        failing = [c["verdict"] for c in cases if c["verdict"] != "accepted"]
        verdict = failing[0] if failing else "accepted"
        total = len(todo)
    except TimeoutError:
        verdict, total = "time_limit", max(1, len(cases))
        cases.append({"verdict": "time_limit", "message": "no free worker within the wall-time budget"})
    except Exception as exc:  # noqa: BLE001 - one result per input, whatever happens
        verdict, total = "internal_error", max(1, len(cases))
        cases.append({"verdict": "internal_error", "message": f"{type(exc).__name__}: {exc}"[:SNIPPET]})
    passed_count = sum(c["verdict"] == "accepted" for c in cases)
    return {
        "passed": verdict == "accepted",
        "verdict": verdict,
        "cases": cases,
        "num_tests": total,
        "num_passed": passed_count,
        "time_s": round(time.perf_counter() - start, 4),
        "isolation": isolation,
    }


def evaluate_many(
    items: Iterable[dict],
    *,
    workers: int | None = None,
    timeout_s: float | None = None,
    memory_mb: int = 2048,
    stop_on_first_failure: bool = True,
    mode: str = "robust",
    rel_tol: float = 1e-6,
    abs_tol: float = 1e-6,
    output_mb: int = 64,
    wall_budget_s: float | None = None,
    keep_output: bool = False,
    lift_asserts: bool = True,
    batch_calls: bool = True,
) -> list[dict]:
    """Judge many ``{"id", "code", "tests"}`` items in parallel; results in input order.
    ``wall_budget_s`` bounds each item (see :func:`evaluate`)."""
    items = list(items)
    size = max(1, min(workers or os.cpu_count() or 1, len(items) or 1))
    pool = shared_pool(size)

    def one(item: dict) -> dict:
        try:
            res = evaluate(item["code"], item["tests"], timeout_s=timeout_s, memory_mb=memory_mb,
                           stop_on_first_failure=stop_on_first_failure, mode=mode, rel_tol=rel_tol,
                           abs_tol=abs_tol, output_mb=output_mb, wall_budget_s=wall_budget_s,
                           keep_output=keep_output, pool=pool, lift_asserts=lift_asserts, batch_calls=batch_calls)
        except Exception as exc:  # noqa: BLE001 - e.g. an item without "code"
            res = {"passed": False, "verdict": "internal_error", "num_tests": 0, "num_passed": 0,
                   "cases": [{"verdict": "internal_error", "message": f"{type(exc).__name__}: {exc}"}],
                   "time_s": 0.0, "isolation": "unknown"}
        return {"id": item.get("id") if isinstance(item, dict) else None, **res}

    with ThreadPoolExecutor(max_workers=size) as ex:
        return list(ex.map(one, items))


def isolation_level() -> str:
    """The sandbox level this machine gives (starts a worker if none is running)."""
    return shared_pool(1).isolation
