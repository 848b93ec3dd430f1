"""``bench_evaluator.py --peers``: our evaluator against the harnesses users would pick instead, in
one run, on the same labelled programs (:mod:`benchmarks.peers` holds the peers' adapters).

The set: the 5,684 labelled programs of ``../shared/data/labelled`` on their base tests (their
source's labels), KodCode's verified solutions and confirmed failing attempts, and the reference
solutions of every other local source with their tests. The first table is the mixed set every
peer can run (LiveCodeBench's and verl's harnesses take no ``assert`` block that is not plain
``entry(args) == value`` calls), timed; the second adds, for accuracy only, what each one can run
beyond it. Each runner gets the same workers and the same per-test time limit (LiveCodeBench's
default, 6 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.bench_accuracy_labelled import mapcoder
from benchmarks.eval_sets import jobs, load
from benchmarks.peers import PEERS, supports
from evaluator import Limits, evaluate_many

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = ("humaneval", "mbpp", "leetcode", "taco", "humaneval_xl", "code_contests_verify")


def mixed_set(limit: int | None) -> list[dict]:
    return mapcoder(limit) + load(["kodcode"], limit, incorrect=True) + load(list(REFERENCES), limit)


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


def _ours(items: list[dict], workers: int, timeout: float) -> tuple[dict[str, dict], float, list]:
    start = time.perf_counter()
    results = evaluate_many(jobs(items), Limits(time_s=timeout), workers=workers)
    wall = time.perf_counter() - start
    return {i["id"]: {"passed": r.passed} for i, r in zip(items, results)}, wall, results


def _errors(items: list[dict], verdicts: dict[str, dict]) -> tuple[int, int, int]:
    fn = sum(1 for i in items if i["expect_pass"] and not verdicts[i["id"]]["passed"])
    fp = sum(1 for i in items if not i["expect_pass"] and verdicts[i["id"]]["passed"])
    crashed = sum(1 for i in items if "error" in verdicts[i["id"]])
    return fn, fp, crashed


def peer_table(limit: int | None, workers: int, timeout: float, checkouts: dict[str, str | None]) -> None:
    items = mixed_set(limit)
    peers = {p: w for p in PEERS if (w := _where(p, checkouts)) is not None}
    missing = sorted(set(PEERS) - set(peers))
    common = [i for i in items if all(supports(p, i["tests"]) for p in peers)]
    kinds = Counter(i["tests"]["kind"] for i in common)
    print(f"\npeers on the same programs ({workers} workers, {timeout:g} s a test): {len(common)} of {len(items)} "
          f"programs every runner takes ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}; "
          f"{sum(i['expect_pass'] for i in common)} labelled correct)" + (f"; not found: {', '.join(missing)}" if missing else ""))
    evaluate_many(jobs(items[:workers]), workers=workers)  # our fork servers start before the clock, as the peers' pools do
    rows: dict[str, dict] = {}
    verdicts, wall, _ = _ours(common, workers, timeout)
    rows["microcoder-eval"] = {"wall": wall, "common": verdicts}
    for peer, (python, where) in peers.items():
        verdicts, wall = run_peer(peer, python, where, common, workers, timeout)
        rows[peer] = {"wall": wall, "common": verdicts}
    print(f"{'runner':<18}{'seconds':>9}{'programs/s':>12}{'FN':>6}{'FP':>6}{'crashed':>9}{'vs ours':>9}")
    for name, row in rows.items():
        fn, fp, crashed = _errors(common, row["common"])
        print(f"{name:<18}{row['wall']:>9.1f}{len(common) / row['wall']:>12.1f}{fn:>6}{fp:>6}{crashed:>9}"
              f"{row['wall'] / rows['microcoder-eval']['wall']:>8.2f}x")

    in_common = {i['id'] for i in common}
    rest = [i for i in items if i['id'] not in in_common]
    ours_rest, _, _ = _ours(rest, workers, timeout)
    print(f"\naccuracy on everything each runner takes (the {len(items)} programs; timed above only on the common set)")
    print(f"{'runner':<18}{'programs':>9}{'FN':>6}{'FP':>6}  by set (FN/FP where not 0/0)")
    for name in rows:
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
