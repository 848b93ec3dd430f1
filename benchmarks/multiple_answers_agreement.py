"""How the two detections of "several valid answers" agree on the shared sets (TACO by default).

    .venv/bin/python benchmarks/multiple_answers_agreement.py [--sets taco,code_contests_verify] [--workers N]

* statement: Filter's ``special_judge_without_checker`` evidence (``pipeline.filter.quality.special_judge``:
  the source's special-judge flag, else the statement's wording);
* references: Verify's rule (``pipeline.verify.answer_disagreement``): two references that each pass
  most tests print different answers for one input. It needs two references;
* reference vs expected (diagnostic, not a Verify rule): the reference passes most tests yet prints
  a different, cleanly produced answer on some test (and, looser, the same at any pass fraction). A
  bad expected output looks the same, which is why Verify drops a lone contradicting test instead of
  calling it several answers.

Every problem runs (no Filter, no checker), every reference keeps its output. Prints the confusion
counts of each reference-based detection against the statement-based one.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator import Limits, Result, evaluate_many  # noqa: E402
from pipeline.filter.quality import special_judge  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.schema import Tests  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify import VerifyConfig, answer_disagreement  # noqa: E402


def differs_from_expected(tests: Tests, result: Result, min_pass_fraction: float) -> bool:
    cases = result.cases
    if tests.kind == "assert" or len(cases) != len(tests.cases) or not cases:
        return False
    accepted = sum(c.verdict == "accepted" for c in cases)
    # a wrong answer is a clean run (CLEAN_VERDICTS): the program printed an answer, it did not crash
    return accepted >= min_pass_fraction * len(cases) and any(c.verdict == "wrong_answer" for c in cases)


def confusion(pairs: list[tuple[bool, bool]]) -> dict[str, int]:
    return {"both": sum(a and b for a, b in pairs), "statement only": sum(a and not b for a, b in pairs),
            "references only": sum(b and not a for a, b in pairs), "neither": sum(not a and not b for a, b in pairs)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="taco")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()
    config = VerifyConfig()
    print("| set | detection | problems | >= 2 references | both | statement only | references only | neither |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        rows = [r for r in process_rows(collect(default_specs()[name]).kept).kept if r["solutions"] and r["tests"]]
        jobs = [((r["problem_id"], i), code, r["tests"])
                for r in rows for i, code in enumerate(r["solutions"][: config.max_references])]
        start = time.perf_counter()
        results = evaluate_many(jobs, Limits(time_s=args.timeout), workers=args.workers, stop_on_first_failure=False, keep_output=True)
        print(f"# {name}: {len(jobs)} reference runs in {time.perf_counter() - start:.1f}s", file=sys.stderr)
        by_problem: dict[str, list[Result]] = {}
        for res in results:
            by_problem.setdefault(res.key[0], []).append(res)
        statement, pairwise, expected, loose, examples = [], [], [], [], []
        for row in rows:
            tests, res = row["tests"], by_problem.get(row["problem_id"], [])
            statement.append(special_judge(row) is not None)
            pairwise.append(answer_disagreement(tests, res, config.min_pass_fraction) is not None)
            expected.append(any(differs_from_expected(tests, r, config.min_pass_fraction) for r in res))
            loose.append(any(differs_from_expected(tests, r, 0.0) for r in res))
            if expected[-1] and not statement[-1] and len(examples) < 5:
                examples.append(row["source_id"])
        multi = sum(1 for r in rows if len(r["solutions"]) >= 2)
        for label, found in (("references disagree (Verify rule)", pairwise), ("reference vs expected (diagnostic)", expected),
                             ("reference vs expected, any pass fraction", loose)):
            c = confusion(list(zip(statement, found)))
            print(f"| {name} | {label} | {len(rows)} | {multi} | {c['both']} | {c['statement only']} | {c['references only']} | {c['neither']} |")
        if examples:
            print(f"# {name}: reference vs expected without statement evidence, e.g. {examples}", file=sys.stderr)


if __name__ == "__main__":
    main()
