"""Test quality before and after Verify's test generation, per source: are the tests any stronger?

    .venv/bin/python benchmarks/bench_test_quality.py [--sources mbpp,humaneval,...] [--sample N] [--workers N] [--raw-labels]

For each source the problems go through Collect, Process and Verify (with generation), and then:

- TPR: independent correct programs the tests accept, never the oracle that answered the generated
  inputs: MapCoder's HumanEval/MBPP programs in ``../shared/data/labelled`` whose extended-test label
  is pass; KodCode's attempts its labels say pass; for APPS (``apps_stdin``, ``apps_call``: each
  problem cut to the samples its statement prints, the oracle one correct program, leave-one-out)
  MapCoder's programs that pass every official APPS test; for LeetCode, kamyu104's accepted
  solutions (both built into ``$MICROCODER_DATA/cache/labelled/`` from a checkout of their
  repository: ``build_apps_labelled.py``, ``build_leetcode_labelled.py``; without them the APPS
  sources are skipped and LeetCode counts its references only, with one line saying how to build them); and
  references after the first where a problem has several (generated with the first). A source
  whose only correct programs are its references reads ``n/a``;
- TNR: known-wrong programs the tests reject (the labelled programs that pass the base tests but
  fail the extended ones, the 974 the issue names; KodCode's confirmed failing attempts; APPS
  programs that pass the samples and fail an official test). A program labelled wrong is judged
  again on the extended asserts its reference passes where the reference fails some (7 HumanEval
  problems) or the label was never re-run (MBPP's, on MBPP-ET's asserts where
  ``build_mbpp_extended.py`` built them; the 17 functions MultiPL-E renamed are bound to MBPP's
  name): ``extended_audit.py``, and ``--raw-labels`` for the labels as shipped;
- mutation score (mutants some input tells from the reference), hardcoder rejected, tests per
  problem, and the reward's evaluator time per correct program;

each on the problems Filter's quality rules keep (a problem whose statement accepts several answers
and that has no checker never reaches Verify: tests would pin one of them), on the source's own
tests ("before") and on the released tests ("after"); "TPR kept": of
the correct programs the source's own tests accept, the share the released tests accept too
(what generation costs). Every labelled-correct program the released tests reject is listed with
the case that failed it: its input, the expected answer and the program's. Every known-wrong
program the released tests accept is listed with the smallest full test that rejects it and a
class (small corner, extreme, large input, structure, misread statement: :mod:`escapes`), and a
table counts them per source and class.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from escapes import CLASSES, NO_FULL_TESTS, NOT_ALONE, escape_class, example_shapes, single_tests, size_of  # noqa: E402
from extended_audit import audited, extended_tests, humaneval_references, mbpp_references, named_as_mbpp  # noqa: E402
from labelled_sets import APPS, LEETCODE, MBPP_ET  # noqa: E402

from evaluator import evaluate_many  # noqa: E402
from pipeline.filter.quality import QualityConfig, check  # noqa: E402
from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify import VerifyConfig, labelled_correct, verify_rows  # noqa: E402
from pipeline.verify.testgen import TestGenConfig  # noqa: E402

# MBPP's labelled programs are on its test split (mbpp_test, a benchmark source): test quality is
# measured on it whatever its role, since Verify generates the same way for every source.
DEFAULT_SOURCES = ("mbpp_test", "mbpp", "humaneval", "kodcode", "leetcode", "taco", "code_contests_verify", "apps_stdin",
                   "apps_call")


def labelled_programs(sources: list[str], audit: bool = True,
                      workers: int | None = None) -> dict[tuple[str, str], list[dict]]:
    """(source, source_id) -> MapCoder's HumanEval/MBPP programs with their labels and full tests
    (HumanEval-ET's; MBPP-ET's where ``labelled_sets.MBPP_ET`` is built), and the accepted LeetCode
    solutions of kamyu104/LeetCode-Solutions where they are built (``labelled_sets.LEETCODE``).
    ``audit``: a program labelled wrong is judged again where its extended label does not hold up
    (:func:`extended_audit.audited`); the count goes to stderr."""
    root = shared_data_dir()
    out: dict[tuple[str, str], list[dict]] = {}
    for rec in (LEETCODE.read() if "leetcode" in sources else None) or []:
        out.setdefault(("leetcode", rec["source_id"]), []).append(
            {"code": rec["code"], "correct": rec["label"] == "correct", "id": f"kamyu104:{rec['source_id']}:{rec['solution']}"})
    if root is None:
        return out
    mbpp_et = {t["task_id"]: t for t in (MBPP_ET.read() or [])} if any(s.startswith("mbpp") for s in sources) else {}
    with gzip.open(root / "labelled" / "programs.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [{**rec, "code": named_as_mbpp(rec, mbpp_et)} for rec in map(json.loads, fh)]

    again: dict[str, bool] = {}
    if audit:
        references = mbpp_references(records, mbpp_et)
        if "humaneval" in sources:
            references.update(humaneval_references(records))
        again = audited(records, references, mbpp_et, workers) if references else {}
    if again:
        print(f"extended labels judged again: {len(again)} programs labelled wrong where the reference fails the "
              f"extended tests too or the label was never re-run (MBPP-ET's); {sum(again.values())} pass every "
              "extended assert the reference passes (counted correct)", file=sys.stderr)
    for rec in records:
        sid = rec["task_id"] if rec["dataset"] == "humaneval" else rec["task_id"].split("_")[1]
        correct = again.get(rec["id"], rec["label_extended"] is True)
        wrong = rec["label_base"] is True and not correct and rec["label_extended"] is False
        if correct or wrong:
            out.setdefault((rec["dataset"], sid), []).append({"code": rec["code"], "correct": correct,
                                                             "id": rec["id"], "full_tests": extended_tests(rec, mbpp_et)})
    return out


def programs_for(row: dict, labelled: dict, dataset: str) -> list[dict]:
    """Labelled programs of the problem (``dataset``: the labels' name for its source's layout,
    the adapter), else its references but the oracle's, its labelled-passing attempts (correct)
    and known-wrong programs."""
    found = labelled.get((dataset, row["source_id"]))
    if found:
        return found
    refs = list(row.get("held_out_references") or [])  # leave-one-out: the oracle is the first
    attempts = labelled_correct(row)  # KodCode's passing attempts, as Verify runs them
    return ([{"code": c, "correct": True, "id": f"{row['source_id']}/ref{i + 1}"} for i, c in enumerate(refs)]
            + [{"code": c, "correct": True, "id": f"{row['source_id']}/attempt{i}"} for i, c in enumerate(attempts)]
            + [{"code": c, "correct": False, "id": f"{row['source_id']}/wrong{i}"}
               for i, c in enumerate(row.get("incorrect_solutions") or [])])


def leave_one_out(rows: list[dict], labelled: dict, dataset: str) -> list[dict]:
    """Rows generated with their first reference only, the others judged as independent programs;
    except where the problem has labelled programs to judge: then every reference is the oracle,
    as in the pipeline (LeetCode's two, while kamyu104's solutions are judged)."""
    return [{**r, "solutions": r["solutions"][:1], "held_out_references": r["solutions"][1:]}
            if len(r.get("solutions") or []) > 1 and (dataset, r["source_id"]) not in labelled else r for r in rows]


def apps_rows(kind: str, records: list[dict]) -> tuple[list[dict], dict[tuple[str, str], list[dict]]]:
    """APPS problems of ``kind`` with a correct labelled program, each cut to the samples its
    statement prints; its references: the first program that passes every official test, and a
    second where three or more do (a second witness, still leaving one to judge); and the
    programs to judge (the others, correct or wrong; a program a brute force shows wrong counts
    as wrong), keyed as :func:`labelled_programs`."""
    by_id: dict[str, list[dict]] = {}
    for rec in records:
        if rec["kind"] == kind:
            by_id.setdefault(rec["apps_id"], []).append(rec)
    spec = default_specs()["apps"]
    rows, programs = [], {}
    for row in process_rows(collect(spec).kept).kept:
        found = by_id.get(str(row["source_id"]))
        samples = [c for c in row["tests"].cases if c.public]
        if not found or not samples:
            continue
        trusted = [p for p in found if p.get("passes_official", p["label"] == "correct")]  # as the pipeline would
        oracle = trusted[:2] if len(trusted) >= 3 else trusted[:1]
        rows.append({**row, "tests": dataclasses.replace(row["tests"], cases=samples), "solutions": [p["code"] for p in oracle]})
        programs[("apps", row["source_id"])] = [
            {"code": p["code"], "correct": p["label"] == "correct", "id": f"apps/{row['source_id']}/{p['origin'].split('/')[-1][:-6]}",
             "full_tests": row["tests"].to_dict()}  # the official tests, before the cut to the samples
            for p in found if all(p is not o for o in oracle)]
    return rows, programs


def judge(pairs: list[tuple[dict, dict]], workers: int | None) -> list[dict]:
    jobs = [(str(i), p["code"], tests) for i, (p, tests) in enumerate(pairs)]
    return evaluate_many(jobs, workers=workers) if jobs else []


def failing_case(code: str, tests: dict) -> dict:
    """The first case a program fails: its input and expected answer (stdin, call) and the message.
    Judged again with every case run: a judgement that stops at its first failure need not have
    run the cases in order, so its results' positions are not the tests'."""
    result = evaluate_many([("again", code, tests)], stop_on_first_failure=False)[0]
    index = next((i for i, c in enumerate(result.cases) if c.verdict != "accepted"), None)
    if index is None:
        return {"message": result.cases[-1].message[:300] if result.cases else ""}
    out = {"message": result.cases[index].message[:300]}
    cases = tests.get("cases") or []
    if tests.get("kind") != "assert" and index < len(cases):
        out["input"], out["expected"] = cases[index]["input"][:300], cases[index]["output"][:200]
    return out


def rate(flags: list[bool]) -> str:
    return f"{sum(flags) / len(flags):.3f} ({sum(flags)}/{len(flags)})" if flags else "n/a"


def quality_kept(rows: list[dict]) -> list[dict]:
    """The rows Filter's quality rules pass to Verify (a statement that accepts several answers
    without a checker does not: tests would pin one of them)."""
    return [r for r in rows if check(r, QualityConfig()) is None]


def run_source(name: str, sample: int | None, workers: int | None, labelled: dict, config: VerifyConfig,
               apps: list[dict] | None = None) -> tuple[dict, list]:
    if name in ("apps_stdin", "apps_call"):
        rows, found = apps_rows(name.split("_")[1], apps or [])
        labelled = {**labelled, **found}
        adapter = "apps"
    else:
        spec = default_specs().get(name)
        if spec is None:
            raise SystemExit(f"source {name!r} is not available here (no ../shared/data?)")
        rows, adapter = leave_one_out(process_rows(collect(spec).kept).kept, labelled, spec.adapter), spec.adapter
    rows = quality_kept(rows)
    if sample:
        rows = rows[:sample]
    start = time.perf_counter()
    verified = verify_rows(rows, config)
    verify_s = time.perf_counter() - start
    before_tests = {r["problem_id"]: r["tests"].to_dict() for r in rows}
    released = [r for r in verified.kept if r.get("verified")]
    pairs_before, pairs_after = [], []
    for row in released:
        for program in programs_for(row, labelled, adapter):
            pairs_before.append((program, before_tests[row["problem_id"]]))
            pairs_after.append((program, row["tests"].to_dict()))
    res_before, res_after = judge(pairs_before, workers), judge(pairs_after, workers)
    survivors = [(p, before) for (p, before), a in zip(pairs_before, res_after) if not p["correct"] and a.passed]
    escaped = escapes(name, survivors, workers)
    newly_rejected = []
    for (program, tests), b, a in zip(pairs_after, res_before, res_after):
        if program["correct"] and not a.passed:
            newly_rejected.append({"source": name, "program": program["id"], "verdict": a.verdict.value,
                                   "source_tests_too": not b.passed, **failing_case(program["code"], tests)})

    def figures(results: list[dict], pairs: list) -> dict:
        return {"tpr": rate([r.passed for (p, _), r in zip(pairs, results) if p["correct"]]),
                "tnr": rate([not r.passed for (p, _), r in zip(pairs, results) if not p["correct"]]),
                "wrong_rejected": [sum(not r.passed for (p, _), r in zip(pairs, results) if not p["correct"]),
                                   sum(not p["correct"] for p, _ in pairs)],
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
        # of the correct programs the source's own tests accept, the share the released tests still accept
        "tpr_kept": rate([a.passed for (p, _), b, a in zip(pairs_after, res_before, res_after) if p["correct"] and b.passed]),
        "mutation_before": round(sum(r["mutation_score_before"] for r in scored) / len(scored), 3) if scored else None,
        "mutation_after": round(sum(r["mutation_score"] for r in scored) / len(scored), 3) if scored else None,
        "hardcoder": f"{sum(bool(r['hardcoder_rejected']) for r in hard)}/{len(hard)}" if hard else "n/a",
        "only_statement": sum(1 for r in released if r.get("tests_only_in_statement")),
        "inputs_invalid": sum(sum(json.loads(r.get("inputs_invalid") or "{}").values()) for r in released),
        "single_witness": sum(int(r.get("single_witness_tests") or 0) for r in released),
        "per_witnesses": {k: _mean_generated([r for r in released if r.get("generated_tests") is not None
                                              and (int(r.get("oracle_witnesses") or 0) >= 2) == (k == "two")])
                          for k in ("two", "one")},
        "verify_s": round(verify_s, 1),
        "escapes": escaped,
    }
    return out, newly_rejected


def escapes(source: str, survivors: list[tuple[dict, dict]], workers: int | None) -> list[dict]:
    """Each wrong program the released tests accept, with the smallest full test that rejects it and
    its class (:mod:`escapes`): judged on its full tests one by one (APPS's official cases,
    HumanEval-ET's and MBPP-ET's asserts). A program with no full tests here (MBPP-ET's where
    ``build_mbpp_extended.py`` has not built them) is counted as such."""
    split = [single_tests(program.get("full_tests") or {}) for program, _ in survivors]
    results = iter(judge([(program, test) for (program, _), singles in zip(survivors, split) for test, _ in singles],
                         workers))
    out = []
    for (program, before), singles in zip(survivors, split):
        n = len(singles)
        passed = [next(results).passed for _ in singles]
        failed = [single for single, ok in zip(singles, passed) if not ok]
        item = {"source": source, "program": program["id"], "full_tests": n, "failed": len(failed)}
        if not singles:
            item["class"] = NO_FULL_TESTS
        elif not failed:
            item["class"] = NOT_ALONE
        else:
            test, shape = min(failed, key=lambda f: size_of(f[0]))
            item["class"] = escape_class(shape, example_shapes(before), len(failed) / n)
            item["smallest"] = (test.get("assert_code") or test["cases"][0]["input"])[:300]
        out.append(item)
    return out


def _mean_generated(rows: list[dict]) -> str:
    return f"{sum(int(r.get('generated_tests') or 0) for r in rows) / len(rows):.1f} ({len(rows)})" if rows else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", default=",".join(DEFAULT_SOURCES))
    parser.add_argument("--sample", type=int, default=None, help="problems per source (default: all)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("--raw-labels", action="store_true",
                        help="the extended labels as shipped, without judging again those that do not hold up (extended_audit.py)")
    parser.add_argument("--single-witness", choices=("keep", "drop"), default="keep",
                        help="generation.single_witness: keep tests whose answer rests on one witness, or drop them")
    parser.add_argument("--seed", type=int, default=0,
                        help="generation.seed: a small set's figure moves with which inputs a seed draws; run a few")
    args = parser.parse_args()
    sources = args.sources.split(",")
    labelled = labelled_programs(sources, audit=not args.raw_labels, workers=args.workers)
    apps = APPS.read() if {"apps_stdin", "apps_call"} & set(sources) else None
    if apps is None:
        sources = [s for s in sources if s not in ("apps_stdin", "apps_call")]
    generation = TestGenConfig(cache=False, tests_only_in_statement="mark", seed=args.seed)
    if "single_witness" in {f.name for f in dataclasses.fields(TestGenConfig)}:
        generation = dataclasses.replace(generation, single_witness=args.single_witness)
    config = VerifyConfig(workers=args.workers, generation=generation)
    rows, newly = [], []
    for name in sources:
        out, rejected = run_source(name, args.sample, args.workers, labelled, config, apps)
        rows.append(out)
        newly += rejected
        print(f"{name}: done in {out['verify_s']} s of Verify", file=sys.stderr)
    head = ("source", "problems", "released", "gen", "tests b/a", "TPR before", "TPR after", "TPR kept", "TNR before", "TNR after",
            "mutation b/a", "hardcoder rejected", "reward ms b/a", "only statement examples", "inputs refused",
            "tests on one witness", "generated/problem, 2+ witnesses", "1 witness")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = (r["source"], r["problems"], r["released"], r["generated_for"], f"{r['tests_before']} / {r['tests_after']}",
                 r["before"]["tpr"], r["after"]["tpr"], r["tpr_kept"], r["before"]["tnr"], r["after"]["tnr"],
                 f"{r['mutation_before']} / {r['mutation_after']}", r["hardcoder"],
                 f"{r['before']['time_ms']} / {r['after']['time_ms']}", r["only_statement"], r["inputs_invalid"],
                 r["single_witness"], r["per_witnesses"]["two"], r["per_witnesses"]["one"])
        print("| " + " | ".join(str(c) for c in cells) + " |")
    mapcoder = [r for r in rows if r["source"] in ("mbpp_test", "mbpp", "humaneval")]
    if mapcoder:  # the "974": MapCoder's programs that pass the base tests and fail the extended ones
        rejected, wrong = (sum(r["after"]["wrong_rejected"][i] for r in mapcoder) for i in (0, 1))
        print(f"\nMapCoder's base-passing, extended-failing programs ({', '.join(r['source'] for r in mapcoder)}), "
              f"on released problems: the released tests reject {rejected / max(1, wrong):.3f} ({rejected}/{wrong})")
    print(f"\nlabelled-correct programs the released tests reject: {len(newly)} "
          f"({sum(not i['source_tests_too'] for i in newly)} that the source's own tests accept)")
    for item in newly:
        also = " (the source's own tests reject it too)" if item["source_tests_too"] else ""
        print(f"  {item['source']} {item['program']}: {item['verdict']} {item['message']!r}{also}")
        if "input" in item:
            print(f"    input {item['input']!r} expected {item['expected']!r}")
    print_escapes([e for r in rows for e in r["escapes"]], [r["source"] for r in rows])
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "newly_rejected": newly}, indent=2))


def print_escapes(escaped: list[dict], sources: list[str]) -> None:
    """The wrong programs the released tests accept, by source and class, then each with its smallest
    rejecting full test."""
    classes = [*CLASSES, NOT_ALONE, NO_FULL_TESTS]
    print(f"\nwrong programs the released tests accept: {len(escaped)}, by the smallest full test that rejects each")
    print("| source | " + " | ".join(classes) + " |")
    print("|" + "---|" * (len(classes) + 1))
    for source in sources:
        mine = [e for e in escaped if e["source"] == source]
        print(f"| {source} | " + " | ".join(str(sum(e["class"] == c for e in mine)) for c in classes) + " |")
    for e in escaped:
        print(f"  {e['source']} {e['program']}: {e['class']} (fails {e['failed']} of {e['full_tests']} full tests)")
        if "smallest" in e:
            print(f"    smallest: {e['smallest'][:200]!r}")


if __name__ == "__main__":
    main()
