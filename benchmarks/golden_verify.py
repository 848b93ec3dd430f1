"""A golden Verify run: the released rows and tests of a fixed run of every local source with test
generation on, written once and compared after a change that should not change results (a
refactor of Verify or test generation).

    .venv/bin/python benchmarks/golden_verify.py write  data/cache/golden/verify.jsonl.gz [--per-source 8]
    .venv/bin/python benchmarks/golden_verify.py compare data/cache/golden/verify.jsonl.gz

Each problem keeps what a user of the dataset sees: kept or the reject reason, the references in
order, every test (input, output, origin, how) and the generation and strength columns. Times are
left out (the derived time limit and CPU seconds move from run to run), and the wall-time budgets
of the oracle and the adversaries are generous (``--budget-s``): with the defaults (5 s, 2 s) a busy
machine cuts different runs short, and 18 of 104 problems differ between two runs of the same code. ``compare`` prints each problem that differs and the columns that do, and
exits 1 if any does.

Selection reads the references' measured CPU time (the reward's and the summed reference time's
caps), in whole 10 ms steps (``ref_cost_s``): two runs of the same code release the same tests
(0 of 104 differ, 2026-11-30; counted as measured, 4 of 104 differed, 10 on a busy machine). An
input whose reference takes within a hair of 10, 20, ... ms can still move, so ``--no-time-caps``
lifts those two caps (the count cap stays) in both the written and the compared run, so that what
selection keeps depends on the adversaries' results alone: a change to how they run shows, the
machine's load does not.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402
from pipeline.verify.testgen import TestGenConfig  # noqa: E402

COLUMNS = ("verified", "references_run", "references_passed", "num_dropped_tests", "multiple_answers", "generated_tests",
           "tests_before_generation", "generation_note", "inputs_invalid", "oracle_references", "oracle_witnesses",
           "oracle_disagreements", "oracle_suspects", "single_reference_oracle", "single_witness_tests", "mutants_run",
           "mutants_equivalent", "mutation_score", "mutation_score_before", "hardcoder_passes", "hardcoder_rejected",
           "incorrect_run", "incorrect_rejected", "labelled_correct_run", "labelled_correct_accepted", "test_strength",
           "weak_tests", "tests_only_in_statement")


def snapshot(per_source: int, workers: int | None, budget_s: float, time_caps: bool = True) -> list[dict]:
    """Every local source's first ``per_source`` problems through Collect, Process and Verify
    (``time_caps``: False lifts selection's caps on measured time, see the module's docstring)."""
    out = []
    uncapped = {} if time_caps else {"max_reference_s": float("inf"), "max_reward_s": float("inf")}
    for name, spec in sorted(default_specs().items()):
        start = time.perf_counter()
        rows = process_rows(collect(spec).kept).kept[:per_source]
        generation = TestGenConfig(cache=False, tests_only_in_statement="mark", oracle_budget_s=budget_s,
                                   adversary_budget_s=budget_s, **uncapped)
        config = VerifyConfig(workers=workers, cache=False, generation=generation)
        result = verify_rows(rows, config)
        for row in result.kept:
            tests = row["tests"]
            out.append({"problem": row["problem_id"], "status": "kept", "solutions": row.get("solutions") or [],
                        "kind": tests.kind, "fn_name": tests.fn_name,
                        "cases": [c.to_dict() for c in tests.cases] if tests.kind != "assert" else tests.to_dict().get("test_code"),
                        **{c: row.get(c) for c in COLUMNS if c in row}})
        for rej in result.rejects:
            out.append({"problem": rej.get("problem_id") or rej.get("source_id"), "status": rej["reason"]})
        print(f"{name}: {len(rows)} problems, {len(result.kept)} kept, {time.perf_counter() - start:.1f} s", flush=True)
    return sorted(out, key=lambda r: str(r["problem"]))


def compare(golden: list[dict], now: list[dict]) -> int:
    before, after = {str(r["problem"]): r for r in golden}, {str(r["problem"]): r for r in now}
    differ = 0
    for pid in sorted(set(before) | set(after)):
        a, b = before.get(pid), after.get(pid)
        if a == b:
            continue
        differ += 1
        if a is None or b is None:
            print(f"{pid}: only {'after' if a is None else 'before'}")
            continue
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        print(f"{pid}: {', '.join(keys)}")
        for k in keys[:3]:
            print(f"    {k}: {json.dumps(a.get(k))[:160]} -> {json.dumps(b.get(k))[:160]}")
    print(f"{differ} of {len(set(before) | set(after))} problems differ")
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("write", "compare"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--per-source", type=int, default=8)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--budget-s", type=float, default=120.0, help="oracle and adversary wall budget per problem")
    parser.add_argument("--no-time-caps", action="store_true",
                        help="selection without its caps on measured time (write and compare alike)")
    args = parser.parse_args()
    now = snapshot(args.per_source, args.workers, args.budget_s, time_caps=not args.no_time_caps)
    if args.mode == "write":
        args.path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(args.path, "wt", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in now)
        print(f"wrote {len(now)} problems to {args.path}")
        return
    with gzip.open(args.path, "rt", encoding="utf-8") as fh:
        golden = [json.loads(line) for line in fh]
    now = json.loads(json.dumps(now, ensure_ascii=False, default=str))
    sys.exit(1 if compare(golden, now) else 0)


if __name__ == "__main__":
    main()
