"""Evaluator throughput vs. a fresh ``python3`` per test (DeepCoder's stdin path), same run.

    .venv/bin/python benchmarks/bench_evaluator.py [--sets humaneval,mbpp,leetcode,taco] [--limit N] [--workers N]
    .venv/bin/python benchmarks/bench_evaluator.py --backend ray [--ray-address HOST:PORT] [--batch-size N]
    .venv/bin/python benchmarks/bench_evaluator.py --peers --lcb PATH --rllm PATH [--limit N] [--programs FILE] [--rounds N]
    .venv/bin/python benchmarks/bench_evaluator.py --stdin-cost [--lcb PATH] [--tree PATH]
    .venv/bin/python benchmarks/bench_evaluator.py --baseline-tree /tmp/base [--rounds N] [--limit N]
    .venv/bin/python benchmarks/bench_evaluator.py --groups --programs FILE [--workers N] [--rounds N]

Runs every reference solution of the shared sets through both, every test (no early stop),
and prints tests/s, programs/s, per-test latency of an empty program (the fixed overhead),
and whether pass/fail agrees program by program. Target: >=3x throughput, <=4 ms overhead.

The assert-block table (LeetCode-style ``check(candidate)`` bodies, HumanEval-ET's ~107 asserts
per task, KodCode's pytest blocks) compares, in the same run, a fresh ``python3`` per test, the
judge process one call at a time (before: ``lift_asserts=False, prefetch_calls=False``), the judge
with prefetched calls (:mod:`evaluator.asserts.prefetch`), and lifted asserts with prefetch where not
lifted (after, :mod:`evaluator.asserts.lift`), and whether every verdict of the three is the same.
Target: after >= 3x python3.
The overhead table splits one sandboxed child's cost into its parts (``--parts``: fork and reap,
PID and mount namespaces, uid, Landlock, the rest of the process state, the private ``/tmp``
reset), before and after process state moved into the fork server, in the same run, and what
namespaces made once per worker slot would cost instead.
``--stdin-cost`` (and ``--peers`` first, given ``--lcb``) prints our fixed cost per ``stdin`` test against
LiveCodeBench's, in parts: process start, isolation, feeding input, reading output, comparison, the
hand-offs, each runner's whole test and LiveCodeBench's process start a program (:func:`stdin_cost_table`);
with ``--tree PATH`` the parts are another checkout's (before and after, in turns, by running it twice).
``--peers`` runs, on the same programs and in the same run, our evaluator and the harnesses users would
pick instead (:mod:`benchmarks.peers`: LiveCodeBench's, rLLM/DeepCoder's and verl's ``prime_code``), and
prints each one's false negatives and false positives against the labels and its wall time, on the mixed
set every peer can run and on all it can run; then where our time went.
``--baseline-tree PATH`` compares the call-cost and assert tables of another checkout (an older
commit: ``git worktree add /tmp/base <commit>``) with this one's, in the same run: each table runs
in a process per tree, the trees in turns, ``--rounds`` times, and each figure is the best.
``--groups --programs FILE`` times each problem's programs as one batch (a GRPO group's rewards)
with and without idle workers taking over a running ``stdin`` test's cases (:mod:`benchmarks.tail_table`).
``--backend ray`` compares the local pool with the Ray backend (one actor on a one-node cluster of
this machine, or an existing cluster) on the same jobs: executions/s, and the dispatch cost per
program, which must stay small next to a program's sandboxed run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# --tree PATH: this script's tables run on that checkout's evaluator (see --baseline-tree)
_TREE = next((sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--tree"), None)
sys.path.insert(0, _TREE or str(Path(__file__).resolve().parents[1]))

from benchmarks.eval_sets import load, test_count  # noqa: E402
from evaluator import Limits, evaluate, evaluate_many  # noqa: E402
from evaluator.compare import compare_stdout, compare_values  # noqa: E402
from evaluator.model import as_tests  # noqa: E402
from evaluator.runtime.harness import CALL_PRELUDE  # noqa: E402 - same environment for call tests
from evaluator.sandbox.pool import WorkerPool  # noqa: E402


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


# Both parts scripts' one process start: fork (the jail's, unless given), run ``body`` in the
# child, reap it, then ``after`` here. Needs the script's ``j`` (a jail.Jail).
_CHILD = r"""
def child(body, fork=None, after=None):
    pid = (fork or j.fork)()
    if pid == 0:
        try:
            body()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    if after:
        after()
"""

_PARTS = r"""
import json, os, random, signal, socket, sys, threading, time
from evaluator.sandbox import jail, landlock, process, worker
mode, n = sys.argv[1], int(sys.argv[2])
worker.preload()
j = jail.Jail(0)
if mode == "after":  # as the fork server sets itself up now
    process.prepare_server()
    process.set_home("/tmp")
else:  # as it did before: a child looked Landlock's prctl up, and set up its own process state
    del landlock._libc.prctl
LIMITS = dict(memory_bytes=4 << 30, cpu_s=6, output_bytes=64 << 20, nproc=256)
MS = jail.MS_NOSUID | jail.MS_NODEV | jail.MS_NOEXEC

def own_pidns():  # the next children are born in our own PID namespace
    jail._libc.setns(j.pidns_fd, jail.CLONE_NEWPID)

"""+ _CHILD + r"""
def mntns():
    jail._check(jail._libc.unshare(jail.CLONE_NEWNS), "unshare mnt")
    jail._mount("proc", "/proc", "proc", MS)

def uid():
    mntns()
    j._drop_privileges()

def session():
    process.prepare_child()
    if mode == "before":  # what each child did before (prepare_server does it once now)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGXCPU, signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"})
    j.enter()
    process.set_limits(**LIMITS)
    if mode == "before":
        random.seed()
        sys.setrecursionlimit(process.RECURSION_LIMIT)
        sys.set_int_max_str_digits(0)
        threading.stack_size(process.THREAD_STACK_BYTES)

def slot():
    # The road not taken: PID and mount namespaces made once per worker slot, children born in
    # them (setns), and their PID 1 killing and reaping what a case left (kill(-1)) after each.
    own_pidns()
    jail._check(jail._libc.unshare(jail.CLONE_NEWPID), "unshare pid")
    ours, theirs = socket.socketpair()
    init = os.fork()
    if init == 0:
        ours.close()
        mntns()
        theirs.send(b"1")
        while theirs.recv(1):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            while True:
                try:
                    os.waitpid(-1, 0)
                except ChildProcessError:
                    break
            theirs.send(b"k")
        os._exit(0)
    ours.recv(1)
    pidns, mnt = (os.open(f"/proc/{init}/ns/{ns}", os.O_RDONLY) for ns in ("pid", "mnt"))

    def fork():
        jail._libc.setns(pidns, jail.CLONE_NEWPID)
        return os.fork()

    def reset():
        ours.send(b"r")
        ours.recv(1)

    return fork, lambda: jail._check(jail._libc.setns(mnt, jail.CLONE_NEWNS), "setns mnt"), reset

def tmp():
    j.begin_case()
    with open(os.path.join(j.workdir, "f"), "w") as fh:
        fh.write("x")
    j.end_case()

def bare():
    own_pidns()
    return os.fork()

slot_fork, enter_slot, reset = slot()
rows = [("fork + reap", lambda: child(lambda: None, bare)),
        ("+ PID namespace", lambda: child(lambda: None)),
        ("+ mount namespace, /proc", lambda: child(mntns)),
        ("+ uid", lambda: child(uid)),
        ("+ Landlock", lambda: child(j.enter)),
        ("+ session, rlimits, process state", lambda: child(session)),
        ("fork + reap, namespaces once per slot", lambda: child(enter_slot, slot_fork, reset)),
        ("private /tmp reset (one file)", tmp)]
spent = dict.fromkeys((name for name, _ in rows), 0.0)
for _ in range(n):  # row after row, so that drift and noise spread over all of them
    for name, run in rows:
        start = time.perf_counter()
        run()
        spent[name] += time.perf_counter() - start
out = {"level": j.level, **{name: t / n * 1000 for name, t in spent.items()}}
print(json.dumps(out))
"""


def overhead_parts(n: int, rounds: int = 5) -> None:
    """One sandboxed child's overhead, part by part, in a process set up like a fork server (the
    jail entered once); each row adds one wall to the row above. ``before`` sets up the server
    and its children as the evaluator did before per-child process state moved into the server
    (:func:`evaluator.sandbox.process.prepare_server`); both run in turns, ``rounds`` times, and each
    figure is the median. Last, for comparison, PID and mount namespaces made once per slot."""
    import json
    import statistics

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(rounds):
        for mode in runs:
            proc = subprocess.run([sys.executable, "-c", _PARTS, mode, str(max(1, n // rounds))], capture_output=True,
                                  text=True, env=env, timeout=600)
            if proc.returncode != 0:
                print("overhead parts: failed:", proc.stderr.strip()[-300:])
                return
            runs[mode].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    level = runs["after"][0]["level"]
    ms = {mode: {k: statistics.median(r[k] for r in rs) for k in rs[0] if k != "level"} for mode, rs in runs.items()}
    print(f"\noverhead of one child, by part ({n} children a row, median of {rounds} rounds; {level}); "
          "each '+' row adds one wall to the row above")
    print(f"  {'part':<38}{'before':>9}{'after':>9}{'part before':>13}{'part after':>12}  (ms/child)")
    adds_to = {"fork + reap, namespaces once per slot": "fork + reap"}  # what they cost a bare fork
    last = None
    for name in ms["after"]:
        base = adds_to.get(name) or (last if name.startswith("+") else None)
        cells = [ms[mode][name] for mode in ("before", "after")]
        parts = [ms[mode][name] - (ms[mode][base] if base else 0.0) for mode in ("before", "after")]
        print(f"  {name:<38}{cells[0]:>9.2f}{cells[1]:>9.2f}{parts[0]:>13.2f}{parts[1]:>12.2f}")
        if name == "fork + reap" or name.startswith("+"):
            last = name


ECHO = "print(input())\n"  # the stdin program of the fixed-cost table: it reads its input and prints it
ECHO_IN, ECHO_OUT = "7\n", "7\n"

# One stdin test's parts, each in a loop, in a process set up as a fork server is (modules
# preloaded, jail entered, process state set once): CPU ms of this process and its children, a test.
_STDIN_PARTS = r"""
import gc, io, json, os, resource, sys, time
from evaluator.compare import compare_stdout
from evaluator.runtime import harness
from evaluator.sandbox import jail, pool, process, worker
n, echo, given, want = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
worker.preload()
slot, _lock = pool.claim_slot()
j = jail.Jail(slot)
process.prepare_server()
process.set_home("/tmp")
gc.freeze()
LIMITS = dict(memory_bytes=4 << 30, cpu_s=6, output_bytes=64 << 20, nproc=256)
slice_ = getattr(worker, "_slice", None)  # a tree before batched stdin: the parent's memfd was the child's stdin

"""+ _CHILD + r"""
def confined():
    process.prepare_child()
    j.enter()
    process.set_limits(**LIMITS)

def feed():  # the parent's memfd of the inputs, the server's slice of one case, the child reading it
    src = pool._memfd("inputs", given)
    fd = slice_(src, 0, len(given.encode())) if slice_ else os.dup(src)
    with open(fd, "r", encoding="utf-8", errors="replace") as fh:
        fh.read()
    os.close(src)

def read_out():  # the child's stdout and stderr memfds, written, then read back in the parent
    fds = [os.memfd_create("stdout", 0), os.memfd_create("stderr", 0)]
    with open(fds[0], "w", encoding="utf-8", closefd=False) as fh:
        fh.write(want)
    size = os.fstat(fds[0]).st_size
    os.pread(fds[0], size, 0).decode("utf-8", "replace")
    os.pread(fds[1], os.fstat(fds[1]).st_size, 0)
    for fd in fds:
        os.close(fd)

def program():  # the program itself: compiled and run on its input, its output kept
    sys.stdin, out = io.StringIO(given), sys.stdout
    sys.stdout = io.StringIO()
    try:
        exec(compile(echo, "<solution>", "exec", dont_inherit=True), {"__name__": "__main__"})
    finally:
        sys.stdout = out

rows = {"process start (fork, PID namespace, exit, reap)": lambda: child(lambda: None),
        "isolation (mount namespace, /proc, uid, Landlock, rlimits)": lambda: child(confined),
        "feeding input": feed, "reading output": read_out,
        "comparison": lambda: compare_stdout(want, want), "the program itself": program}
def cpu():  # this process's and its reaped children's, to the microsecond
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

spent = dict.fromkeys(rows, 0.0)
for _ in range(n):  # row after row, so that drift and noise spread over all of them
    for name, run in rows.items():
        t0 = cpu()
        run()
        spent[name] += cpu() - t0
out = {name: t / n * 1000 for name, t in spent.items()}
out["isolation (mount namespace, /proc, uid, Landlock, rlimits)"] -= out["process start (fork, PID namespace, exit, reap)"]
print(json.dumps(out))
"""


def _cpu_ms_per_test(pool: WorkerPool, n: int) -> tuple[float, float, dict[str, float]]:
    """An echo program's ``n`` stdin cases on a warm one-worker pool: wall and CPU (this process,
    the fork server and its children) per test, in ms, and the page faults a test of the fork
    server and of its children: after a fork every page the server or a child writes is one (a
    copy while the other lives), so they are most of a fork server's cost beyond the syscalls."""
    clock = os.sysconf("SC_CLK_TCK")

    def server_stat(pid: int) -> tuple[float, int, int]:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        # utime, stime and its reaped children's; minflt, and its reaped children's
        return sum(int(f) for f in fields[11:15]) / clock, int(fields[7]), int(fields[8])

    tests = {"kind": "stdin", "cases": [{"input": ECHO_IN, "output": ECHO_OUT}] * n}
    evaluate(ECHO, tests, pool=pool, stop_on_first_failure=False)  # warm: the worker, its pages
    with pool.worker() as w:
        pid = w.proc.pid
    c0, s0, start = time.process_time(), server_stat(pid), time.perf_counter()
    res = evaluate(ECHO, tests, pool=pool, stop_on_first_failure=False)
    wall = time.perf_counter() - start
    s1 = server_stat(pid)
    cpu = time.process_time() - c0 + s1[0] - s0[0]
    assert res.passed, res.to_dict()
    faults = {"the fork server": (s1[1] - s0[1]) / n, "its children": (s1[2] - s0[2]) / n}
    return wall / n * 1000, cpu / n * 1000, faults


def stdin_cost_table(n: int = 300, rounds: int = 3, lcb: str | None = None) -> dict:
    """Our fixed cost per ``stdin`` test against LiveCodeBench's, in parts, on an echo program.

    Ours: the whole test on a warm worker (CPU of every process it takes, and wall), and its
    parts, each measured alone in a process set up as the fork server (:data:`_STDIN_PARTS`):
    process start, isolation, feeding input, reading output, comparison, and the program itself;
    what is left of the whole is the hand-offs between this process, the fork server and the
    child. LiveCodeBench's (``lcb``: a checkout; :func:`benchmarks.peers.lcb_stdin_cost`): its
    in-process test loop and its parts, and its process start, once a program. Best of ``rounds``
    each (in turns); CPU ms. Returns the figures."""
    tree = _TREE or str(Path(__file__).resolve().parents[1])  # the evaluator measured (--tree: another checkout's)
    here = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=tree)
    best: dict[str, dict[str, float]] = {"ours": {}, "lcb": {}}
    pool = WorkerPool(1)
    try:
        for _ in range(rounds):
            wall, cpu, faults = _cpu_ms_per_test(pool, n)
            got = {"whole test (wall)": wall, "whole test": cpu}
            _keep_best(best.setdefault("page faults", {}), faults)
            proc = subprocess.run([sys.executable, "-c", _STDIN_PARTS, str(n), ECHO, ECHO_IN, ECHO_OUT],
                                  capture_output=True, text=True, env=env, cwd=tree, timeout=600)
            if proc.returncode != 0:
                print("stdin cost: parts failed:", proc.stderr.strip()[-500:])
                return {}
            got.update(json.loads(proc.stdout.strip().splitlines()[-1]))
            if lcb:
                proc = subprocess.run([sys.executable, str(Path(here) / "benchmarks" / "peers.py"), "--cost", lcb, str(n)],
                                      capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=here), timeout=600)
                if proc.returncode == 0:
                    _keep_best(best["lcb"], json.loads(proc.stdout.strip().splitlines()[-1]))
                else:
                    print("stdin cost: LiveCodeBench's failed:", proc.stderr.strip()[-500:])
            _keep_best(best["ours"], got)
    finally:
        pool.close()
    _print_stdin_cost(best, n, rounds)
    return best


def _keep_best(into: dict[str, float], got: dict[str, float]) -> None:
    for key, value in got.items():
        into[key] = min(into.get(key, float("inf")), value)


def _print_stdin_cost(best: dict[str, dict[str, float]], n: int, rounds: int) -> None:
    ours, lcb, faults = best["ours"], best["lcb"], best.get("page faults", {})
    parts = [k for k in ours if k not in ("whole test", "whole test (wall)", "the program itself")]
    ours["hand-offs and the rest"] = ours["whole test"] - sum(ours[k] for k in parts) - ours["the program itself"]
    print(f"\nfixed cost of one stdin test (an echo program, {n} tests a run, best of {rounds}; CPU ms a test, "
          "every process it takes)")
    print(f"  {'microcoder-eval (a fresh sandboxed process a test)':<62}{'ms':>8}")
    for key in parts + ["hand-offs and the rest", "the program itself", "whole test", "whole test (wall)"]:
        print(f"  {key:<62}{ours[key]:>8.3f}")
    if faults:
        print("  page faults a test (a page written after a fork: " +
              ", ".join(f"{who} {count:.0f}" for who, count in faults.items()) + ")")
    if lcb:
        print(f"  {'LiveCodeBench testing_util (every test in one process)':<62}{'ms':>8}")
        for key, value in lcb.items():
            print(f"  {key:<62}{value:>8.3f}")
        fixed = ours["whole test"] - ours["the program itself"]
        print(f"  ours, the harness's own (whole less the program): {fixed:.3f} ms a test; LiveCodeBench's: "
              f"{lcb.get('the harness per test', float('nan')):.3f} ms a test + {lcb.get('process start, a program', float('nan')):.1f} ms a program")


def _jobs(items: list[dict]) -> list[tuple[str, str, dict]]:
    return [(i["id"], i["code"], i["tests"]) for i in items]


def _assert_sets(limit: int | None) -> dict[str, list[dict]]:
    """Assert-block workloads: HumanEval-ET (labelled programs that pass it, one per task), LeetCodeDataset's
    ``check(candidate)`` blocks (test split, reference solutions), HumanEval and MBPP."""
    import gzip
    import json

    from pipeline.paths import shared_data_dir

    root = shared_data_dir()
    out: dict[str, list[dict]] = {}
    if root is None:
        return out
    et: dict[str, dict] = {}
    with gzip.open(root / "labelled" / "programs.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("tests_extended") and rec.get("label_extended") is True and rec["task_id"] not in et:
                et[rec["task_id"]] = {"id": rec["id"], "code": rec["code"], "tests": rec["tests_extended"]}
    out["humaneval-et (labelled)"] = list(et.values())
    lc = []
    with gzip.open(root / "leetcode" / "LeetCodeDataset-v0.2.0-test.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            fn = rec["entry_point"].rsplit(".", 1)[-1]
            lc.append({"id": rec["task_id"], "code": rec["completion"], "tests": {
                "kind": "assert", "fn_name": fn, "prelude": rec["prompt"],
                "assert_code": f"{rec['test'].rstrip()}\n\ncheck({rec['entry_point']})\n"}})
    out["leetcode check(candidate)"] = lc
    out["humaneval"] = load(["humaneval"])
    out["mbpp"] = load(["mbpp"])
    out["kodcode pytest (all attempts)"] = load(["kodcode"], incorrect=True)
    return {name: items[:limit] if limit else items for name, items in out.items()}


def assert_table(limit: int | None, workers: int, timeout: float, rounds: int = 2, baseline: bool = True,
                 quiet: bool = False) -> dict[str, dict]:
    """Before/after for assert blocks: python3 per test; the judge one call at a time; the judge
    with prefetched calls (:mod:`evaluator.asserts.prefetch`); lifted asserts, prefetch where not lifted.
    Returns each set's seconds by path and its verdicts (``baseline`` False: no python3 column)."""
    from evaluator.asserts.lift import lift

    rows: dict[str, dict] = {}
    say = (lambda *a, **k: None) if quiet else print  # quiet: rows only, for --baseline-tree
    say(f"\nassert blocks ({workers} workers): fresh python3 per test vs the judge, one call at a time "
          "(before), vs the judge with prefetched calls, vs lifted asserts and prefetch (after)")
    say(f"{'set':<30}{'programs':>9}{'asserts':>8}{'lifted':>7}{'python3 s':>10}{'judge s':>8}{'prefetch s':>11}"
          f"{'after s':>8}{'judge x':>8}{'prefetch x':>11}{'after x':>8}{'same verdicts':>14}")
    for name, items in _assert_sets(limit).items():
        if not items:
            continue
        asserts = sum(i["tests"]["assert_code"].count("assert ") for i in items) / len(items)
        liftable = sum(lift(as_tests(i["tests"]).assert_block(), i["tests"].get("fn_name")) is not None for i in items)
        runs, times = {}, {}
        for _ in range(rounds):  # interleaved, the best of each: short runs on a small machine are noisy
            for label, options in (("judge", {"lift_asserts": False, "prefetch_calls": False}),
                                   ("prefetch", {"lift_asserts": False}), ("after", {})):
                start = time.perf_counter()
                runs[label] = evaluate_many(_jobs(items), Limits(time_s=timeout), workers=workers, **options)
                times[label] = min(times.get(label, float("inf")), time.perf_counter() - start)
        t_base = float("nan")
        if baseline:
            start = time.perf_counter()
            with ThreadPoolExecutor(workers) as ex:
                list(ex.map(lambda it: baseline_program(it, timeout), items))
            t_base = time.perf_counter() - start
        same = sum(a.verdict == b.verdict == c.verdict for a, b, c in zip(runs["judge"], runs["prefetch"], runs["after"]))
        rows[name] = {**times, "programs": len(items), "same": same,
                      "verdicts": {label: [r.verdict.value for r in res] for label, res in runs.items()}}
        say(f"{name:<30}{len(items):>9}{asserts:>8.0f}{liftable:>7}{t_base:>10.1f}{times['judge']:>8.1f}"
              f"{times['prefetch']:>11.1f}{times['after']:>8.1f}{t_base / times['judge']:>8.2f}"
              f"{t_base / times['prefetch']:>11.2f}{t_base / times['after']:>8.2f}{f'{same}/{len(items)}':>14}")
    return rows


def call_cost_table(calls: int = 300, rounds: int = 5) -> dict[str, float]:
    """What one more call of the program costs in an ``assert`` block, by path: (block of ``calls``
    calls - block of one) / (calls - 1), best of ``rounds``, on one warm worker. Returns the
    microseconds by path, and the pytest block's milliseconds a program."""
    code = "def f(x):\n    return x\n"
    block = lambda n: "".join(f"assert f({i}) == {i}\n" for i in range(n))  # noqa: E731
    paths = {"judge, one call at a time (before)": {"lift_asserts": False, "prefetch_calls": False},
             "judge, prefetched calls": {"lift_asserts": False}, "lifted asserts": {}}
    pool = WorkerPool(1)
    rows: dict[str, float] = {}
    try:
        print(f"\ncost of one more call in an assert block ({calls} calls vs 1, best of {rounds})")
        for label, options in paths.items():
            best = {}
            for n in (1, calls):
                tests = {"kind": "assert", "fn_name": "f", "assert_code": block(n)}
                for _ in range(rounds):
                    start = time.perf_counter()
                    res = evaluate(code, tests, pool=pool, **options)
                    best[n] = min(best.get(n, float("inf")), time.perf_counter() - start)
                    assert res.passed, res.to_dict()
            rows[label] = (best[calls] - best[1]) / (calls - 1) * 1e6
            print(f"  {label:<40}{rows[label]:>8.1f} us")
        rows.update(_pytest_block_row(pool, rounds))
    finally:
        pool.close()
    return rows


def _pytest_block_row(pool: WorkerPool, rounds: int, calls: int = 5, programs: int = 40) -> dict[str, float]:
    """KodCode's shape: a pytest block of a few literal calls, which only the judge runs; ms a
    program, one call at a time vs prefetched (best of ``rounds`` batches of ``programs``)."""
    from pipeline.process.pytest_shim import assert_code_for_pytest

    test = "from solution import f\n\ndef test_f():\n" + "".join(f"    assert f({i}) == {i}\n" for i in range(calls))
    tests = {"kind": "assert", "fn_name": "f", "assert_code": assert_code_for_pytest(test)}
    code = "def f(x):\n    return x\n"
    best: dict[bool, float] = {}
    for _ in range(rounds):
        for ahead in (False, True):
            start = time.perf_counter()
            for _ in range(programs):
                evaluate(code, tests, pool=pool, lift_asserts=False, prefetch_calls=ahead)
            best[ahead] = min(best.get(ahead, float("inf")), (time.perf_counter() - start) / programs * 1000)
    print(f"  a pytest block of {calls} calls, ms a program: one call at a time {best[False]:.2f}, "
          f"prefetched {best[True]:.2f}")
    return {f"pytest block of {calls} calls, one at a time (ms)": best[False],
            f"pytest block of {calls} calls, prefetched (ms)": best[True]}


def ray_table(items: list[dict], workers: int, timeout: float, address: str | None, batch_size: int,
              rounds: int = 2) -> None:
    """The local pool vs the Ray backend (:mod:`evaluator.ray_backend`) on the same jobs, alternated
    ``rounds`` times (best of each): the difference per program is what dispatch through Ray costs."""
    import ray

    from evaluator.ray_backend import RayEvaluator

    if address:
        ray.init(address=address, log_to_driver=False)
    else:  # a one-node cluster of this machine: one actor with ``workers`` slots
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    backend = RayEvaluator(address or "auto", batch_size=batch_size)
    jobs, limits = _jobs(items), Limits(time_s=timeout)
    n_prog, n_tests = len(items), sum(test_count(i) for i in items)
    backend.evaluate_many(jobs[: 4 * workers], limits)  # start the actors and their fork servers
    evaluate_many(jobs[: 4 * workers], limits, workers=workers)
    best: dict[str, float] = {}
    verdicts: dict[str, list] = {}
    for _ in range(rounds):
        for name, run in (("local pool", lambda: evaluate_many(jobs, limits, workers=workers, stop_on_first_failure=False)),
                          ("ray backend", lambda: backend.evaluate_many(jobs, limits, stop_on_first_failure=False))):
            start = time.perf_counter()
            verdicts[name] = [r.verdict for r in run()]
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
    slots = sum(a.slots for a in backend.actors())
    print(f"\n{n_prog} programs, {n_tests} tests; local pool {workers} workers vs Ray: "
          f"{len(backend.actors())} actors, {slots} slots, batches of {batch_size} (best of {rounds})")
    print(f"{'runner':<14}{'seconds':>9}{'executions/s':>14}{'programs/s':>12}{'ms/program vs local':>21}")
    for name, took in best.items():
        extra = (took - best["local pool"]) * 1000 / n_prog
        print(f"{name:<14}{took:>9.2f}{n_tests / took:>14.1f}{n_prog / took:>12.1f}{extra:>21.2f}")
    same = sum(a == b for a, b in zip(verdicts["local pool"], verdicts["ray backend"]))
    print(f"same verdicts {same}/{n_prog}; jobs by node {dict(backend.jobs_by_node)}")
    ray.shutdown()


def _tables_json(limit: int | None, workers: int, timeout: float) -> None:
    """The call-cost and assert tables' figures as one JSON line (a run for --baseline-tree)."""
    evaluate_many([("warm", "pass", {"kind": "stdin", "cases": [{"input": "", "output": ""}]})] * workers,
                  workers=workers)
    calls = call_cost_table()
    asserts = assert_table(limit, workers, timeout, rounds=1, baseline=False, quiet=True)
    print("MC_TABLES " + json.dumps({"calls": calls, "asserts": asserts}))


def baseline_tree_table(tree: str, rounds: int, limit: int | None, workers: int, timeout: float) -> None:
    """This checkout's call-cost and assert tables against ``tree``'s, in turns, best of ``rounds``."""
    from pipeline.paths import shared_data_dir

    here = str(Path(__file__).resolve().parents[1])
    best: dict[str, dict] = {"baseline": {}, "this tree": {}}
    verdicts: dict[str, dict] = {}
    for r in range(rounds):
        order = [("baseline", tree), ("this tree", here)]
        for label, path in order if r % 2 == 0 else order[::-1]:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--tree", path, "--tables-json",
                   "--workers", str(workers), "--timeout", str(timeout)] + (["--limit", str(limit)] if limit else [])
            env = dict(os.environ, PYTHONPATH=path)
            data = shared_data_dir()
            if data is not None:  # the other checkout may live where ../shared/data is not
                env["MICROCODER_SHARED_DATA"] = str(data)
            # in the tree: `python -m evaluator.sandbox.worker` finds the package first in the working directory
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=path, timeout=7200)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("MC_TABLES ")), None)
            if line is None:
                print(f"{label} ({path}) failed:", proc.stderr[-2000:])
                return
            got = json.loads(line[len("MC_TABLES "):])
            for key, value in got["calls"].items():
                best[label][key] = min(best[label].get(key, float("inf")), value)
            for name, row in got["asserts"].items():
                for key in ("judge", "prefetch", "after"):
                    slot = f"{name}: {key} s"
                    best[label][slot] = min(best[label].get(slot, float("inf")), row[key])
                verdicts.setdefault(name, {})[label] = row["verdicts"]
            print(f"  round {r + 1}/{rounds}: {label} done", flush=True)
    print(f"\ncall cost and assert tables, {tree} (baseline) vs this tree, best of {rounds} each, in turns")
    print(f"  {'figure':<58}{'baseline':>10}{'this tree':>11}{'ratio':>8}")
    for key, base in best["baseline"].items():
        new = best["this tree"].get(key, float("nan"))
        print(f"  {key:<58}{base:>10.2f}{new:>11.2f}{new / base if base else float('nan'):>8.2f}")
    for name, by_tree in verdicts.items():
        base, new = by_tree.get("baseline", {}), by_tree.get("this tree", {})
        differ = sum(a != b for a, b in zip(base.get("after", []), new.get("after", [])))
        print(f"  {name}: verdicts that differ between the trees (after): {differ}/{len(new.get('after', []))}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="humaneval,mbpp,leetcode,taco")
    ap.add_argument("--limit", type=int, default=None, help="programs per set (default: all)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--noop", type=int, default=200, help="empty-program tests for the overhead row")
    ap.add_argument("--asserts-only", action="store_true", help="only the assert-block table")
    ap.add_argument("--parts", action="store_true", help="also split a child's overhead into its parts")
    ap.add_argument("--stdin-cost", action="store_true",
                    help="only our fixed cost per stdin test, in parts, against LiveCodeBench's (with --lcb)")
    ap.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="ray: only the local pool vs the Ray backend table")
    ap.add_argument("--ray-address", default=None, help="an existing cluster (default: a one-node cluster here)")
    ap.add_argument("--batch-size", type=int, default=8, help="Ray backend: jobs per dispatch")
    ap.add_argument("--peers", action="store_true", help="only the table against LiveCodeBench's, rLLM's and verl's harnesses")
    ap.add_argument("--lcb", default=None, help="--peers: a LiveCodeBench checkout (github.com/LiveCodeBench/LiveCodeBench)")
    ap.add_argument("--rllm", default=None, help="--peers: an rLLM checkout (github.com/rllm-org/rllm)")
    ap.add_argument("--programs", default=None,
                    help="--peers: labelled programs, a JSON-lines file of `microcoder-eval run` jobs with expect_pass")
    ap.add_argument("--groups", action="store_true",
                    help="with --programs: each problem's programs as one batch, cases shared by idle workers or not")
    ap.add_argument("--baseline-tree", default=None, help="another checkout: its call-cost and assert tables vs this one's")
    ap.add_argument("--rounds", type=int, default=2, help="--baseline-tree, --peers: runs per tree or runner, in turns (best of)")
    ap.add_argument("--only", default=None, help="--peers: the peers to run, comma-separated (lcb,rllm,prime_code; default: every one found)")
    ap.add_argument("--tree", default=None, help=argparse.SUPPRESS)  # read before the imports, above
    ap.add_argument("--tables-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.tables_json:
        _tables_json(args.limit, args.workers, args.timeout)
        return
    if args.stdin_cost:
        stdin_cost_table(max(args.noop, 100), args.rounds if args.rounds != 2 else 3, args.lcb)
        return
    if args.groups:
        from benchmarks.tail_table import tail_table

        if not args.programs:
            ap.error("--groups needs --programs FILE (stdin programs with several per problem)")
        tail_table(args.programs, args.workers, 6.0 if args.timeout == 10.0 else args.timeout, args.rounds)
        return
    if args.peers:
        from benchmarks.peer_table import peer_table

        if args.lcb:
            stdin_cost_table(max(args.noop, 100), 3, args.lcb)

        peer_table(args.limit, args.workers, 6.0 if args.timeout == 10.0 else args.timeout, {"lcb": args.lcb, "rllm": args.rllm},
                   programs=args.programs, rounds=args.rounds, only=args.only.split(",") if args.only else None)
        return
    if args.baseline_tree:
        baseline_tree_table(args.baseline_tree, args.rounds, args.limit, args.workers, args.timeout)
        return
    if args.backend == "ray":
        ray_table(load(args.sets.split(","), args.limit), args.workers, args.timeout, args.ray_address, args.batch_size)
        return
    evaluate_many([("warm", "pass", {"kind": "stdin", "cases": [{"input": "", "output": ""}]})] * args.workers,
                  workers=args.workers)  # start the fork servers
    if args.parts:
        overhead_parts(max(args.noop, 1000))
    call_cost_table()
    assert_table(args.limit, args.workers, args.timeout)
    if args.asserts_only:
        return
    items = load(args.sets.split(","), args.limit)
    n_prog, n_tests = len(items), sum(test_count(i) for i in items)

    evaluate_many(_jobs(items[: args.workers]), workers=args.workers)  # start the fork servers
    start = time.perf_counter()
    ours = evaluate_many(_jobs(items), Limits(time_s=args.timeout), workers=args.workers, stop_on_first_failure=False)
    t_ours = time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(args.workers) as ex:
        base = list(ex.map(lambda it: baseline_program(it, args.timeout), items))
    t_base = time.perf_counter() - start

    noop_ours, noop_base = noop_latency_ms(args.noop)
    assert_ours, assert_base = assert_latency_ms(args.noop // 2)
    differ = [(i["id"], r.verdict.value, b[0]) for i, r, b in zip(items, ours, base) if r.passed != b[0]]
    print(f"{n_prog} programs, {n_tests} tests, {args.workers} workers, sets={args.sets}")
    print(f"{'runner':<26}{'seconds':>9}{'tests/s':>10}{'programs/s':>12}{'noop ms/test':>14}{'accepted':>10}")
    print(f"{'microcoder-eval':<26}{t_ours:>9.1f}{n_tests / t_ours:>10.1f}{n_prog / t_ours:>12.1f}"
          f"{noop_ours:>14.2f}{sum(r.passed for r in ours):>10}")
    print(f"{'fresh python3 per test':<26}{t_base:>9.1f}{n_tests / t_base:>10.1f}{n_prog / t_base:>12.1f}"
          f"{noop_base:>14.2f}{sum(b[0] for b in base):>10}")
    print(f"speedup {t_base / t_ours:.2f}x; pass/fail identical on {n_prog - len(differ)}/{n_prog} programs")
    print(f"assert test, one call: {assert_ours:.2f} ms/test (judge + candidate processes) vs "
          f"{assert_base:.2f} ms fresh python3; isolation {ours[0].isolation if ours else '?'}")
    for d in differ[:15]:
        print("differs:", *d)


if __name__ == "__main__":
    main()
