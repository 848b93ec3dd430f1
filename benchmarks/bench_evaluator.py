"""Evaluator throughput vs. a fresh ``python3`` per test (DeepCoder's stdin path), same run.

    .venv/bin/python benchmarks/bench_evaluator.py [--sets humaneval,mbpp,leetcode,taco] [--limit N] [--workers N]

Runs every reference solution of the shared sets through both, every test (no early stop),
and prints tests/s, programs/s, per-test latency of an empty program (the fixed overhead),
and whether pass/fail agrees program by program. Target: >=3x throughput, <5 ms overhead.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval_sets import load, test_count  # noqa: E402
from evaluator import evaluate, evaluate_many  # noqa: E402
from evaluator.compare import compare_stdout, compare_values  # noqa: E402
from evaluator.harness import CALL_PRELUDE  # noqa: E402 - same environment for call tests
from evaluator.pool import WorkerPool  # noqa: E402


def _fresh_python(source: str, stdin: str, timeout: float) -> tuple[int | None, str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "prog.py")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(source)
        try:
            proc = subprocess.run([sys.executable, path], input=stdin.encode(), capture_output=True,
                                  timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return None, ""
        return proc.returncode, proc.stdout.decode("utf-8", "replace")


def baseline_program(item: dict, timeout: float) -> tuple[bool, int]:
    """A fresh interpreter per test; returns (passed, tests run)."""
    t = item["tests"]
    if t["kind"] == "assert":
        src = (t.get("prelude") or "") + "\n" + item["code"] + "\n" + t["assert_code"]
        rc, _ = _fresh_python(src, "", timeout)
        return rc == 0, 1
    ok = True
    for case in t["cases"]:
        if t["kind"] == "call":  # the function called on JSON args read from stdin, result printed
            src = CALL_PRELUDE + "\n" + (t.get("prelude") or "") + "\n" + item["code"] + _CALL_DRIVER.format(fn=t["fn_name"])
            rc, out = _fresh_python(src, case["input"], timeout)
            ok &= rc == 0 and compare_values(case["output"], out.strip())
        else:
            rc, out = _fresh_python(item["code"], case["input"], timeout)
            ok &= rc == 0 and compare_stdout(case["output"], out)
    return ok, len(t["cases"])


_CALL_DRIVER = """
import json as _j, sys as _s
from evaluator.compare import encode_value as _enc
_f = getattr(Solution(), "{fn}") if "Solution" in globals() else globals()["{fn}"]
print(_enc(_f(*_j.loads(_s.stdin.read()))))
"""


def _latency_ms(run: Callable[[WorkerPool], None], baseline_source: str, n: int) -> tuple[float, float]:
    """Per-test wall time of ``run`` (n tests on a warm worker) vs a fresh python3 per test."""
    pool = WorkerPool(1)
    evaluate("pass", {"kind": "stdin", "cases": [{"input": "", "output": ""}]}, pool=pool)  # warm start
    start = time.perf_counter()
    run(pool)
    ours = (time.perf_counter() - start) / n * 1000
    pool.close()
    start = time.perf_counter()
    for _ in range(n):
        _fresh_python(baseline_source, "", 10)
    return ours, (time.perf_counter() - start) / n * 1000


def noop_latency_ms(n: int) -> tuple[float, float]:
    """The fixed overhead: an empty stdin program, n cases in one call."""
    tests = {"kind": "stdin", "cases": [{"input": "", "output": ""}] * n}
    return _latency_ms(lambda pool: evaluate("pass", tests, pool=pool, stop_on_first_failure=False), "pass", n)


def assert_latency_ms(n: int) -> tuple[float, float]:
    """Per-test cost of an ``assert`` test (a candidate process and a judge process per test)."""
    tests = {"kind": "assert", "fn_name": "f", "assert_code": "assert f(1) == 1\n"}
    code = "def f(x):\n    return x\n"

    def run(pool: WorkerPool) -> None:
        for _ in range(n):
            evaluate(code, tests, pool=pool)

    return _latency_ms(run, code + tests["assert_code"], n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="humaneval,mbpp,leetcode,taco")
    ap.add_argument("--limit", type=int, default=None, help="programs per set (default: all)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--noop", type=int, default=200, help="empty-program tests for the overhead row")
    args = ap.parse_args()
    items = load(args.sets.split(","), args.limit)
    n_prog, n_tests = len(items), sum(test_count(i) for i in items)

    evaluate_many(items[: args.workers], workers=args.workers)  # start the fork servers
    start = time.perf_counter()
    ours = evaluate_many(items, workers=args.workers, timeout_s=args.timeout, stop_on_first_failure=False)
    t_ours = time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(args.workers) as ex:
        base = list(ex.map(lambda it: baseline_program(it, args.timeout), items))
    t_base = time.perf_counter() - start

    noop_ours, noop_base = noop_latency_ms(args.noop)
    assert_ours, assert_base = assert_latency_ms(args.noop // 2)
    differ = [(i["id"], r["verdict"], b[0]) for i, r, b in zip(items, ours, base) if r["passed"] != b[0]]
    print(f"{n_prog} programs, {n_tests} tests, {args.workers} workers, sets={args.sets}")
    print(f"{'runner':<26}{'seconds':>9}{'tests/s':>10}{'programs/s':>12}{'noop ms/test':>14}{'accepted':>10}")
    print(f"{'microcoder-eval':<26}{t_ours:>9.1f}{n_tests / t_ours:>10.1f}{n_prog / t_ours:>12.1f}"
          f"{noop_ours:>14.2f}{sum(r['passed'] for r in ours):>10}")
    print(f"{'fresh python3 per test':<26}{t_base:>9.1f}{n_tests / t_base:>10.1f}{n_prog / t_base:>12.1f}"
          f"{noop_base:>14.2f}{sum(b[0] for b in base):>10}")
    print(f"speedup {t_base / t_ours:.2f}x; pass/fail identical on {n_prog - len(differ)}/{n_prog} programs")
    print(f"assert test, one call: {assert_ours:.2f} ms/test (judge + candidate processes) vs "
          f"{assert_base:.2f} ms fresh python3; isolation {ours[0].get('isolation') if ours else '?'}")
    for d in differ[:15]:
        print("differs:", *d)


if __name__ == "__main__":
    main()
