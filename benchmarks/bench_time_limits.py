"""Reward time with the 6 s default limit vs the limits Verify derives from the references' CPU time.

    .venv/bin/python benchmarks/bench_time_limits.py [--tasks N] [--workers N] [--factor K]

Labelled programs nobody here wrote: KodCode (verified solutions and confirmed failing attempts,
through the pipeline's adapter) and MapCoder's LLM programs for HumanEval and MBPP
(``../shared/data/labelled``: per task, programs labelled passing base and extended tests are the
references, programs labelled failing the base tests are the wrong ones; tests are the base tests).

1. Verify (references only) derives ``time_limit_s`` per problem, as the ``verified_problems`` asset does.
2. Every labelled program is judged as the reward judges it (all cases, 60 s wall budget), once with
   the tests' own/default limit (the baseline, 6 s) and once with the derived limit.
3. The references Verify measured (the first ``--references``) that pass with the default must pass
   their derived limit too (that second run is the re-run); other labelled-correct programs slower than
   ``factor`` x the references are counted apart.

Prints summed evaluator time, wall time, time-outs and label agreement for both limits.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator import Limits, evaluate_many  # noqa: E402
from evaluator.reward import WALL_BUDGET_S  # noqa: E402
from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.schema import make_row  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402


def mapcoder_rows(tasks: int | None) -> list[dict]:
    """One problem per MapCoder task: references = pass base and extended, wrong = fail base."""
    root = shared_data_dir()
    if root is None:
        raise SystemExit("no ../shared/data here")
    grouped: dict[tuple[str, str], dict] = defaultdict(lambda: {"good": [], "bad": [], "tests": None})
    with gzip.open(root / "labelled" / "programs.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            task = grouped[(rec["dataset"], rec["task_id"])]
            task["tests"] = task["tests"] or rec["tests_base"]
            if rec["label_base"] and rec.get("label_extended") is True:
                task["good"].append(rec["code"])
            elif rec["label_base"] is False:
                task["bad"].append(rec["code"])
    rows, per_set = [], defaultdict(int)
    for (dataset, task_id), task in sorted(grouped.items()):
        if not task["good"] or not task["bad"] or (tasks and per_set[dataset] >= tasks):
            continue
        per_set[dataset] += 1
        rows.append(make_row(f"mapcoder_{dataset}", task_id, statement=task_id, tests=task["tests"],
                             solutions=list(dict.fromkeys(task["good"])), incorrect_solutions=list(dict.fromkeys(task["bad"]))))
    return rows


def kodcode_rows() -> list[dict]:
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    return [r for r in process_rows(collect(default_specs()["kodcode"]).kept).kept if r["incorrect_solutions"]]


def judge(items: list[dict], workers: int) -> tuple[list[dict], float]:
    start = time.perf_counter()
    results = evaluate_many(items, Limits(wall_budget_s=WALL_BUDGET_S), workers=workers, stop_on_first_failure=False)
    return results, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=40, help="MapCoder tasks per dataset (0: all)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--factor", type=float, default=VerifyConfig().time_limit_factor)
    ap.add_argument("--references", type=int, default=3, help="references per problem that Verify runs")
    args = ap.parse_args()
    rows = kodcode_rows() + mapcoder_rows(args.tasks or None)
    config = VerifyConfig(workers=args.workers, max_references=args.references, max_incorrect=0, time_limit_factor=args.factor)
    verified = verify_rows(rows, config)
    limited = [r for r in verified.kept if r.get("reference_cpu_s") is not None]
    print(f"# Verify: {len(rows)} problems, {len(limited)} with a derived limit in {verified.stats['seconds']} s "
          f"(median {verified.stats['time_limit_s_median']} s, max {verified.stats['time_limit_s_max']} s)", file=sys.stderr)

    programs: list[dict] = []  # every labelled program of a problem that got a limit
    for row in limited:
        derived = json.loads(row["tests"])
        baseline = {**derived, "time_limit_s": json.loads(next(r for r in rows if r["problem_id"] == row["problem_id"])["tests"]).get("time_limit_s")}
        labelled = [(code, True) for code in row["solutions"]] + [(code, False) for code in row["incorrect_solutions"]]
        for i, (code, label) in enumerate(labelled):
            programs.append({"id": f"{row['problem_id']}:{i}", "source": row["source"], "code": code, "label": label,
                             "reference": label and i < args.references, "baseline": baseline, "derived": derived})

    table = []
    verdicts: dict[str, list[dict]] = {}
    for name in ("baseline", "derived"):
        results, wall = judge([(p["id"], p["code"], p[name]) for p in programs], args.workers)
        verdicts[name] = results
        by_source: dict[str, list] = defaultdict(list)
        for p, r in zip(programs, results):
            by_source[p["source"]].append((p, r))
        for source, pairs in [*sorted(by_source.items()), ("all", list(zip(programs, results)))]:
            timeouts = [r for _, r in pairs if r.verdict == "time_limit"]
            summed = sum(r.time_s for _, r in pairs)
            table.append({
                "source": source, "limit": "6 s default" if name == "baseline" else f"derived (x{args.factor:g}, >= 1 s)",
                "programs": len(pairs), "time_outs": len(timeouts),
                "summed_s": round(summed, 1), "time_outs_s": round(sum(r.time_s for r in timeouts), 1),
                "wall_s": round(wall, 1) if source == "all" else "",
                "fn": sum(1 for p, r in pairs if p["label"] and not r.passed),
                "fp": sum(1 for p, r in pairs if not p["label"] and r.passed),
            })
    print("| source | limit | programs | time-outs | summed evaluator s | of which time-outs s | wall s | FN (label pass, rejected) | FP (label fail, accepted) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in table:
        print(f"| {t['source']} | {t['limit']} | {t['programs']} | {t['time_outs']} | {t['summed_s']} | {t['time_outs_s']} "
              f"| {t['wall_s']} | {t['fn']} | {t['fp']} |")
    base, new = (next(t for t in table if t["source"] == "all" and t["limit"].startswith(k)) for k in ("6 s", "derived"))
    saving = 1 - new["summed_s"] / base["summed_s"] if base["summed_s"] else 0.0
    print(f"\nsummed evaluator time: {base['summed_s']} s -> {new['summed_s']} s ({saving:.0%} less); "
          f"time-outs {base['time_outs']} -> {new['time_outs']}")
    # Verify measured the references under the baseline limit: each one that passed there must pass its derived limit.
    regressions = [(p["id"], p["reference"], d.verdict) for p, b, d in zip(programs, verdicts["baseline"], verdicts["derived"])
                   if p["label"] and b.passed and not d.passed]
    refs = [r for r in regressions if r[1]]
    print(f"references Verify measured that pass with the default and fail their derived limit: {len(refs)} of "
          f"{sum(1 for p, b in zip(programs, verdicts['baseline']) if p['reference'] and b.passed)}{' ' + str(refs[:10]) if refs else ''}")
    print(f"other labelled-correct programs that pass with the default and fail the derived limit: {len(regressions) - len(refs)}"
          f"{' ' + str([r for r in regressions if not r[1]][:10]) if len(regressions) > len(refs) else ''}")


if __name__ == "__main__":
    main()
