"""``bench_evaluator.py --peers``: our evaluator against the harnesses users would pick instead, in
one run, on the same labelled programs (:mod:`benchmarks.peers` holds the peers' adapters).

The set: the 5,684 labelled programs of ``../shared/data/labelled`` on their base tests (their
source's labels), KodCode's verified solutions and confirmed failing attempts, and the reference
solutions of every other local source with their tests. The first table is the mixed set every
peer can run (LiveCodeBench's and verl's harnesses take no ``assert`` block that is not plain
``entry(args) == value`` calls), timed; the second adds, for accuracy only, what each one can run
beyond it. Each runner gets the same workers and the same per-test time limit (LiveCodeBench's
default, 6 s).

``--programs FILE`` takes the set from a JSON-lines file instead: each line a ``microcoder-eval run``
job (``{"id", "code", "tests"}``) with its label, ``expect_pass`` (true for a correct program; a
``label`` of ``"correct"``/``"wrong"`` is read too), and optionally a ``set`` name (default: the
file's name). ``benchmarks/build_stdin_programs.py`` builds one from outside the project's data.
Where a ``stdin`` test has several cases, our row "cases as given" runs them in the order given
(``smallest_first=False``), in the same round. The runners go in turns, ours first, ``rounds`` times (a 2-core machine shared with other work
drifts: each round puts every runner under the same load), and each one's best wall time is the
figure; its FN/FP are counted on its first round.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.bench_accuracy_labelled import mapcoder
from benchmarks.eval_sets import jobs, load
from benchmarks.peers import PEERS, supports
from evaluator import Limits, evaluate_many

ROOT = Path(__file__).resolve().parents[1]
GIVEN_ORDER = "  cases as given"  # our row with a stdin test's cases in the order given (Options.smallest_first off)
REFERENCES = ("humaneval", "mbpp", "leetcode", "taco", "humaneval_xl", "code_contests_verify")


def mixed_set(limit: int | None) -> list[dict]:
    return mapcoder(limit) + load(["kodcode"], limit, incorrect=True) + load(list(REFERENCES), limit)


def _label(rec: dict) -> bool:
    """A line's label: ``expect_pass`` (bool), or ``label`` as ``"correct"``/``"wrong"`` (or bool)."""
    if isinstance(rec.get("expect_pass"), bool):
        return rec["expect_pass"]
    label = rec.get("label")
    if isinstance(label, bool):
        return label
    if label in ("correct", "wrong"):
        return label == "correct"
    raise ValueError("no label: give expect_pass (true/false) or label (correct/wrong)")


def load_programs(path: str, limit: int | None = None) -> list[dict]:
    """Labelled programs from a JSON-lines file of ``microcoder-eval run`` jobs (see the module doc)."""
    from evaluator.model import Tests

    out: list[dict] = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            try:
                Tests.from_dict(rec["tests"])  # the run shape: refuse what `microcoder-eval run` would
                item = {"id": str(rec["id"]), "code": rec["code"], "tests": rec["tests"], "expect_pass": _label(rec),
                        "set": str(rec.get("set") or Path(path).stem)}
            except (KeyError, TypeError, ValueError) as exc:
                raise SystemExit(f"{path}:{n}: not a labelled job: {exc}") from None
            out.append(item)
    if len({i["id"] for i in out}) != len(out):
        raise SystemExit(f"{path}: ids are not unique")
    return out[:limit] if limit else out


def _where(peer: str, checkouts: dict[str, str | None]) -> tuple[str, str] | None:
    """The interpreter and the checkout (or site-packages) a peer runs from, or None if absent."""
    if peer == "prime_code":
        train = ROOT / ".venv-train"
        found = sorted(train.glob("lib/python3*/site-packages/verl/utils/reward_score/prime_code"))
        return (str(train / "bin" / "python"), str(found[0].parents[3])) if found else None
    where = checkouts.get(peer)
    return (sys.executable, where) if where and Path(where).is_dir() else None


def run_peer(peer: str, python: str, where: str, items: list[dict], workers: int, timeout: float) -> tuple[dict[str, dict], float]:
    """The peer's verdict per item id and its wall time (its pool's start excluded)."""
    if not items:
        return {}, 0.0
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    proc = subprocess.run([python, str(ROOT / "benchmarks" / "peers.py"), peer, where, str(workers), str(timeout)],
                          input="".join(json.dumps(i) + "\n" for i in items), capture_output=True, text=True, env=env)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines or "wall_s" not in lines[-1]:
        raise RuntimeError(f"{peer} failed: {proc.stderr.strip()[-500:]}")
    return {r["id"]: r for r in lines[:-1]}, lines[-1]["wall_s"]


def _ours(items: list[dict], workers: int, timeout: float, **options: Any) -> tuple[dict[str, dict], float, list]:
    start = time.perf_counter()
    results = evaluate_many(jobs(items), Limits(time_s=timeout), workers=workers, **options)
    wall = time.perf_counter() - start
    return {i["id"]: {"passed": r.passed, "seconds": r.time_s} for i, r in zip(items, results)}, wall, results


def _processes(result: Any) -> int:
    """Sandboxed processes a result's cases took: one a case, one for a batch of calls, two for an
    ``assert`` block the judge ran (the judge's and the program's)."""
    batched = [c for c in result.cases if c.batched]
    alone = [c for c in result.cases if not c.batched]
    return (1 if batched else 0) + sum(1 if c.lifted or c.calls is None else 2 for c in alone)


def _parent_side_s(items: list[dict]) -> float:
    """Seconds the parent spends lifting ``assert`` blocks and comparing answers, for these items
    (each block lifted once, each expected answer compared with itself: the work, not the verdict)."""
    from evaluator import compare
    from evaluator.asserts import lift
    from evaluator.model import as_tests

    start = time.perf_counter()
    for item in items:
        tests = as_tests(item["tests"])
        if tests.kind == "assert":
            lift.lift(tests.assert_block(), tests.fn_name, tests.prelude)
        for case in tests.cases or ():
            if tests.kind == "stdin":
                compare.compare_stdout(case.output, case.output)
            else:
                compare.compare_values(case.output, case.output)
    return time.perf_counter() - start


def _noop_ms(workers: int, n: int = 200) -> float:
    """An empty program's cost per sandboxed process on the run's own pool, now: the CPU of this
    process, the fork server and its children (on a shared machine a wall figure would be the load's)."""
    from evaluator import evaluate
    from evaluator.sandbox.pool import shared_pool

    pool = shared_pool(workers)
    tests = {"kind": "stdin", "cases": [{"input": "", "output": ""}] * n}
    with pool.worker() as w:
        pid = w.proc.pid
        clock = os.sysconf("SC_CLK_TCK")
        stat = lambda: sum(int(f) for f in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:15]) / clock  # noqa: E731
        c0, s0 = time.process_time(), stat()
        evaluate("pass", tests, pool=_One(w), stop_on_first_failure=False)
        spent = time.process_time() - c0 + stat() - s0
    return spent / n * 1000


class _One:
    """A pool of the one worker already held (so that its server's CPU is the one read)."""

    def __init__(self, worker: Any) -> None:
        self.w = worker

    def worker(self, deadline: float | None = None) -> Any:
        from contextlib import nullcontext

        return nullcontext(self.w)


def where_time_goes(items: list[dict], results: list, wall: float, workers: int, start_s: float) -> None:
    """Our run's worker-seconds split into what the issue asks about: the workers' start (once,
    before the clock, as the peers' pools start), programs that ran out of time, the programs' own
    CPU, isolation and process start (an empty program's cost per sandboxed process, measured
    now on the same pool), the parent's lifting and comparison, the rest, and idle workers."""
    noop_ms = _noop_ms(workers)
    capacity = wall * workers
    timed_out = [r for r in results if r.verdict.value == "time_limit"]
    rest = [r for r in results if r.verdict.value != "time_limit"]
    busy = sum(r.time_s for r in results)
    processes = sum(map(_processes, rest))
    parts = {
        f"cases that ran out of time ({len(timed_out)} programs)": sum(r.time_s for r in timed_out),
        "the programs' own CPU": sum(c.cpu_s or 0.0 for r in rest for c in r.cases),
        f"isolation and process start ({processes} processes x {noop_ms:.2f} ms CPU)": processes * noop_ms / 1000,
        "the parent's lifting and comparison": _parent_side_s(items),
    }
    parts["the rest (the judge's asserts, hand-offs)"] = max(0.0, busy - sum(parts.values()))
    parts["workers idle (waiting for work, the run's tail)"] = max(0.0, capacity - busy)
    print(f"\nwhere our time went: {wall:.1f} s x {workers} workers = {capacity:.1f} worker-seconds "
          f"(the workers' start, before the clock: {start_s:.1f} s; no interpreter starts per test: each "
          "process is forked from a warm one)")
    for name, seconds in parts.items():
        print(f"  {name:<62}{seconds:>8.2f} s{100 * seconds / capacity:>6.0f}%")


def _errors(items: list[dict], verdicts: dict[str, dict]) -> tuple[int, int, int]:
    fn = sum(1 for i in items if i["expect_pass"] and not verdicts[i["id"]]["passed"])
    fp = sum(1 for i in items if not i["expect_pass"] and verdicts[i["id"]]["passed"])
    crashed = sum(1 for i in items if "error" in verdicts[i["id"]])
    return fn, fp, crashed


def _timed_rounds(common: list[dict], peers: dict[str, tuple[str, str]], workers: int, timeout: float,
                  rounds: int) -> tuple[dict[str, dict], list]:
    """Every runner on ``common``, in turns, ``rounds`` times: each one's walls, its first round's
    verdicts and whether later rounds gave the same; and our first round's results."""
    rows: dict[str, dict] = {}
    ours_results: list = []
    as_given = any(i["tests"]["kind"] == "stdin" and len(i["tests"]["cases"]) > 1 for i in common)
    for r in range(rounds):
        verdicts, wall, results = _ours(common, workers, timeout)
        ours_results = ours_results or results
        runs = {"microcoder-eval": (verdicts, wall)}
        if as_given:  # what running the cases smallest first is worth, in the same round
            runs[GIVEN_ORDER] = _ours(common, workers, timeout, smallest_first=False)[:2]
        for peer, (python, where) in peers.items():
            runs[peer] = run_peer(peer, python, where, common, workers, timeout)
        for name, (verdicts, wall) in runs.items():
            row = rows.setdefault(name, {"walls": [], "common": verdicts, "stable": True})
            row["walls"].append(wall)
            row["stable"] &= all(verdicts[i["id"]]["passed"] == row["common"][i["id"]]["passed"] for i in common)
        print(f"  round {r + 1}/{rounds}: " + ", ".join(f"{n} {w:.1f} s" for n, (_, w) in runs.items()), flush=True)
    for row in rows.values():
        row["wall"] = min(row["walls"])
    return rows, ours_results


def _print_rows(common: list[dict], rows: dict[str, dict]) -> None:
    ours = rows["microcoder-eval"]["wall"]
    print(f"{'runner':<18}{'best s':>8}  {'each round, s':<22}{'programs/s':>11}{'FN':>5}{'FP':>5}{'crashed':>9}"
          f"{'vs ours':>9}")
    for name, row in rows.items():
        fn, fp, crashed = _errors(common, row["common"])
        walls = " ".join(f"{w:.1f}" for w in row["walls"])
        moved = "" if row["stable"] else "  (verdicts moved between rounds)"
        print(f"{name:<18}{row['wall']:>8.1f}  {walls:<22}{len(common) / row['wall']:>11.1f}{fn:>5}{fp:>5}{crashed:>9}"
              f"{row['wall'] / ours:>8.2f}x{moved}")


def _print_split(common: list[dict], rows: dict[str, dict], light_s: float = 1.0) -> None:
    """Each runner's worker-seconds (the sum of its programs' own times, first round) on the programs
    every runner judged within ``light_s``, where a harness's own cost shows, and on the rest
    (time limits and slow programs, which cost about the same whatever judges them)."""
    times = {name: {i: v.get("seconds") for i, v in row["common"].items()} for name, row in rows.items()}
    if any(None in t.values() for t in times.values()):
        return
    light = [i["id"] for i in common if all(t[i["id"]] <= light_s for t in times.values())]
    heavy = [i["id"] for i in common if i["id"] not in set(light)]
    ours = times["microcoder-eval"]
    print(f"worker-seconds (each program's own time, round 1): the {len(light)} programs every runner judged within "
          f"{light_s:g} s | the {len(heavy)} others")
    for name, t in times.items():
        a, b = sum(t[i] for i in light), sum(t[i] for i in heavy)
        a0, b0 = sum(ours[i] for i in light), sum(ours[i] for i in heavy)
        print(f"  {name:<18}{a:>8.1f} s{a / a0 if a0 else float('nan'):>7.2f}x | {b:>7.1f} s{b / b0 if b0 else float('nan'):>7.2f}x")


def _accuracy_rest(items: list[dict], common: list[dict], rows: dict[str, dict], peers: dict[str, tuple[str, str]],
                   workers: int, timeout: float) -> None:
    """FN/FP on everything each runner takes (beyond the timed common set), by set."""
    in_common = {i["id"] for i in common}
    rest = [i for i in items if i["id"] not in in_common]
    ours_rest, _, _ = _ours(rest, workers, timeout)
    print(f"\naccuracy on everything each runner takes (the {len(items)} programs; timed above only on the common set)")
    print(f"{'runner':<18}{'programs':>9}{'FN':>6}{'FP':>6}  by set (FN/FP where not 0/0)")
    for name in rows:
        if name == GIVEN_ORDER:
            continue
        if name == "microcoder-eval":
            taken, extra = items, ours_rest
        else:
            python, where = peers[name]
            taken = common + [i for i in rest if supports(name, i["tests"])]
            extra, _ = run_peer(name, python, where, [i for i in rest if supports(name, i["tests"])], workers, timeout)
        verdicts = {**rows[name]["common"], **extra}
        fn, fp, _ = _errors(taken, verdicts)
        by_set: dict[str, list[dict]] = {}
        for i in taken:
            by_set.setdefault(i["set"].removesuffix("_incorrect"), []).append(i)
        detail = ", ".join(f"{s} {e[0]}/{e[1]}" for s, group in by_set.items() if any((e := _errors(group, verdicts))[:2]))
        print(f"{name:<18}{len(taken):>9}{fn:>6}{fp:>6}  {detail or '-'}")


def peer_table(limit: int | None, workers: int, timeout: float, checkouts: dict[str, str | None],
               programs: str | None = None, rounds: int = 2, only: list[str] | None = None) -> None:
    """Ours and each peer found, on the same labelled programs (``programs``: a file of them, see
    :func:`load_programs`; else the project's mixed set), timed in turns, then where our time went."""
    items = load_programs(programs, limit) if programs else mixed_set(limit)
    wanted = [p for p in PEERS if only is None or p in only]
    peers = {p: w for p in wanted if (w := _where(p, checkouts)) is not None}
    missing = sorted(set(wanted) - set(peers))
    common = [i for i in items if all(supports(p, i["tests"]) for p in peers)]
    kinds = Counter(i["tests"]["kind"] for i in common)
    print(f"\npeers on the same programs ({workers} workers, {timeout:g} s a test, {rounds} rounds in turns): "
          f"{len(common)} of {len(items)} programs every runner takes ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}; "
          f"{sum(i['expect_pass'] for i in common)} labelled correct)" + (f"; not found: {', '.join(missing)}" if missing else ""))
    start = time.perf_counter()
    evaluate_many(jobs(items[:workers]), workers=workers)  # our fork servers start before the clock, as the peers' pools do
    start_s = time.perf_counter() - start
    rows, ours = _timed_rounds(common, peers, workers, timeout, max(1, rounds))
    _print_rows(common, rows)
    _print_split(common, rows)
    where_time_goes(common, ours, rows["microcoder-eval"]["walls"][0], workers, start_s)
    if len(common) < len(items):
        _accuracy_rest(items, common, rows, peers, workers, timeout)
