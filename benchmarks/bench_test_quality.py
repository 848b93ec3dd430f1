"""Test quality before and after Verify's test generation, per source: are the tests any stronger?

    .venv/bin/python benchmarks/bench_test_quality.py [--sources mbpp,humaneval,...] [--sample N] [--workers N]

For each source the problems go through Collect, Process and Verify (with generation), and then:

- TPR: labelled-correct programs the tests accept (MapCoder's HumanEval/MBPP programs in
  ``../shared/data/labelled`` whose extended-test label is pass; KodCode's references and the
  attempts its labels say pass; elsewhere the references);
- TNR: known-wrong programs the tests reject (the labelled programs that pass the base tests but
  fail the extended ones, the 974 the issue names; KodCode's confirmed failing attempts);
- mutation score (mutants some input tells from the reference), hardcoder rejected, tests per
  problem, and the reward's evaluator time per correct program;

each on the source's own tests ("before") and on the released tests ("after"). Every
labelled-correct program the new tests reject is listed with the assert or case that failed it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator import evaluate_many  # noqa: E402
from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.testgen.generate import TestGenConfig  # noqa: E402
from pipeline.verify import VerifyConfig, labelled_correct, verify_rows  # noqa: E402

# MBPP's labelled programs are on its test split (mbpp_test, a benchmark source): test quality is
# measured on it whatever its role, since Verify generates the same way for every source.
DEFAULT_SOURCES = ("mbpp_test", "mbpp", "humaneval", "kodcode", "leetcode", "taco", "code_contests_verify")


def labelled_programs() -> dict[tuple[str, str], list[dict]]:
    """(source, source_id) -> MapCoder's programs with their labels."""
    root = shared_data_dir()
    out: dict[tuple[str, str], list[dict]] = {}
    if root is None:
        return out
    with gzip.open(root / "labelled" / "programs.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            sid = rec["task_id"] if rec["dataset"] == "humaneval" else rec["task_id"].split("_")[1]
            correct = rec["label_extended"] is True
            wrong = rec["label_base"] is True and rec["label_extended"] is False
            if correct or wrong:
                out.setdefault((rec["dataset"], sid), []).append({"code": rec["code"], "correct": correct,
                                                                 "id": rec["id"]})
    return out


def programs_for(row: dict, labelled: dict, dataset: str) -> list[dict]:
    """Labelled programs of the problem (``dataset``: the labels' name for its source's layout,
    the adapter), else its references and labelled-passing attempts (correct) and known-wrong
    programs."""
    found = labelled.get((dataset, row["source_id"]))
    if found:
        return found
    refs = list(row.get("solutions") or [])
    attempts = labelled_correct(row)  # KodCode's passing attempts, as Verify runs them
    return ([{"code": c, "correct": True, "id": f"{row['source_id']}/ref{i}"} for i, c in enumerate(refs)]
            + [{"code": c, "correct": True, "id": f"{row['source_id']}/attempt{i}"} for i, c in enumerate(attempts)]
            + [{"code": c, "correct": False, "id": f"{row['source_id']}/wrong{i}"}
               for i, c in enumerate(row.get("incorrect_solutions") or [])])


def judge(pairs: list[tuple[dict, dict]], workers: int | None) -> list[dict]:
    jobs = [(str(i), p["code"], tests) for i, (p, tests) in enumerate(pairs)]
    return evaluate_many(jobs, workers=workers) if jobs else []


def rate(flags: list[bool]) -> str:
    return f"{sum(flags) / len(flags):.3f} ({sum(flags)}/{len(flags)})" if flags else "n/a"


def run_source(name: str, sample: int | None, workers: int | None, labelled: dict, config: VerifyConfig) -> tuple[dict, list]:
    spec = default_specs().get(name)
    if spec is None:
        raise SystemExit(f"source {name!r} is not available here (no ../shared/data?)")
    rows = process_rows(collect(spec).kept).kept
    if sample:
        rows = rows[:sample]
    start = time.perf_counter()
    verified = verify_rows(rows, config)
    verify_s = time.perf_counter() - start
    before_tests = {r["problem_id"]: r["tests"].to_dict() for r in rows}
    released = [r for r in verified.kept if r.get("verified")]
    pairs_before, pairs_after = [], []
    for row in released:
        for program in programs_for(row, labelled, spec.adapter):
            pairs_before.append((program, before_tests[row["problem_id"]]))
            pairs_after.append((program, row["tests"].to_dict()))
    res_before, res_after = judge(pairs_before, workers), judge(pairs_after, workers)
    newly_rejected = []
    for (program, _), b, a in zip(pairs_after, res_before, res_after):
        if program["correct"] and b.passed and not a.passed:
            failing = next((c for c in a.cases if c.verdict != "accepted"), None)
            newly_rejected.append({"source": name, "program": program["id"], "verdict": a.verdict.value,
                                   "message": (failing.message if failing else "")[:200]})

    def figures(results: list[dict], pairs: list) -> dict:
        return {"tpr": rate([r.passed for (p, _), r in zip(pairs, results) if p["correct"]]),
                "tnr": rate([not r.passed for (p, _), r in zip(pairs, results) if not p["correct"]]),
                "time_ms": (round(1000 * sum(r.time_s for (p, _), r in zip(pairs, results) if p["correct"])
                                  / max(1, sum(p["correct"] for p, _ in pairs)), 1))}

    scored = [r for r in released if r.get("mutation_score") is not None]
    hard = [r for r in released if r.get("hardcoder_rejected") is not None]
    out = {
        "source": name, "problems": len(rows), "released": len(released),
        "generated_for": sum(1 for r in released if r.get("generated_tests")),
        "tests_before": round(sum(r["tests_before_generation"] or 0 for r in released) / max(1, len(released)), 1),
        "tests_after": round(sum(r["tests"].count for r in released) / max(1, len(released)), 1),
        "before": figures(res_before, pairs_before), "after": figures(res_after, pairs_after),
        "mutation_before": round(sum(r["mutation_score_before"] for r in scored) / len(scored), 3) if scored else None,
        "mutation_after": round(sum(r["mutation_score"] for r in scored) / len(scored), 3) if scored else None,
        "hardcoder": f"{sum(bool(r['hardcoder_rejected']) for r in hard)}/{len(hard)}" if hard else "n/a",
        "only_statement": sum(1 for r in released if r.get("tests_only_in_statement")),
        "verify_s": round(verify_s, 1),
    }
    return out, newly_rejected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", default=",".join(DEFAULT_SOURCES))
    parser.add_argument("--sample", type=int, default=None, help="problems per source (default: all)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    labelled = labelled_programs()
    config = VerifyConfig(workers=args.workers, generation=TestGenConfig(cache=False, tests_only_in_statement="mark"))
    rows, newly = [], []
    for name in args.sources.split(","):
        out, rejected = run_source(name, args.sample, args.workers, labelled, config)
        rows.append(out)
        newly += rejected
        print(f"{name}: done in {out['verify_s']} s of Verify", file=sys.stderr)
    head = ("source", "problems", "released", "gen", "tests b/a", "TPR before", "TPR after", "TNR before", "TNR after",
            "mutation b/a", "hardcoder rejected", "reward ms b/a", "only statement examples")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = (r["source"], r["problems"], r["released"], r["generated_for"], f"{r['tests_before']} / {r['tests_after']}",
                 r["before"]["tpr"], r["after"]["tpr"], r["before"]["tnr"], r["after"]["tnr"],
                 f"{r['mutation_before']} / {r['mutation_after']}", r["hardcoder"],
                 f"{r['before']['time_ms']} / {r['after']['time_ms']}", r["only_statement"])
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print(f"\nlabelled-correct programs the new tests reject: {len(newly)}")
    for item in newly:
        print(f"  {item['source']} {item['program']}: {item['verdict']} {item['message']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "newly_rejected": newly}, indent=2))


if __name__ == "__main__":
    main()
