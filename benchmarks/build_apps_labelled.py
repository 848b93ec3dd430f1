"""Build the ``apps`` labelled set: model-written APPS programs labelled by APPS's own tests.

    git clone https://github.com/Md-Ashraful-Pramanik/MapCoder /tmp/mapcoder
    .venv/bin/python benchmarks/build_apps_labelled.py --repo /tmp/mapcoder [--workers N]

It is written to ``$MICROCODER_DATA/cache/labelled/apps/`` (``labelled_sets.py``), never into this
repository. MapCoder (MIT, commit ``0027da71030b441cca2bc6f95def86b9aa5c7dea``) published every
program its ten APPS runs wrote (``final-results/{ChatGPT,GPT4}/APPS``, GPT-3.5 and GPT-4-Turbo,
five prompting methods) for the 150 problems of ``APPS_selected150.jsonl``, whose ``test_list`` holds APPS's official tests. Each distinct program runs here, in our evaluator,
on the official tests and on the samples (the cases the statement prints):

- ``correct``: passes every official test (the independent correct programs TPR counts);
- ``wrong``: passes the samples, fails an official test (what TNR counts, as MBPP's base-passing
  wrong programs); or passes every official test but is shown wrong by a brute force on an
  input the statement allows (``benchmarks/brute_force.py``: checked here by running it,
  the input and both answers kept as ``evidence``).

``passes_official`` says which programs the pipeline itself would trust as references.

Only problems with at least one correct program are kept. Call programs (Codewars problems) that
end with a ``if __name__ == "__main__":`` driver reading stdin have that driver cut: the function
is the answer, the driver would only wait for input that a call test never gives.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labelled_sets import APPS  # noqa: E402

from evaluator import evaluate_many  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402

COMMIT = APPS.commit
TIME_S = 10.0  # per official test: a slow correct program is still correct (the labels are about answers)


def without_driver(code: str) -> str:
    """The program without its top-level ``if __name__ == "__main__":`` blocks."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    body = [n for n in tree.body if not (isinstance(n, ast.If) and "__name__" in ast.unparse(n.test))]
    if len(body) == len(tree.body):
        return code
    tree.body = body
    return ast.unparse(tree) + "\n"


def mapcoder_programs(repo: str) -> dict[str, list[dict]]:
    """APPS problem id -> the distinct programs of MapCoder's runs, with the file each came from."""
    names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", COMMIT, "final-results"],
                           capture_output=True, text=True, check=True).stdout.split()
    out: dict[str, list[dict]] = defaultdict(list)
    for name in sorted(n for n in names if "/APPS/" in n and n.endswith(".jsonl")):
        text = subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:{name}"], capture_output=True, text=True,
                              check=True).stdout
        for line in text.splitlines():
            rec = json.loads(line)
            for code in rec.get("source_codes") or []:
                if code.strip() and all(code != p["original"] for p in out[str(rec["id"])]):
                    out[str(rec["id"])].append({"original": code, "origin": name})
    return out


def brute_force_evidence(programs: dict[str, list[dict]]) -> dict[tuple[str, str], dict]:
    """(APPS id, file) -> the input and both answers, for each listed program whose answer there
    differs from the brute force's."""
    from brute_force import BRUTE, EVIDENCE, run

    from evaluator.compare import compare_stdout

    out = {}
    for apps_id, origin, text in EVIDENCE:
        program = next((p for p in programs.get(apps_id, []) if p["origin"] == origin), None)
        if program is None:
            continue
        right, mine = BRUTE[apps_id](text), run(program["code"], text)
        if not compare_stdout(right, mine):  # judged as the evaluator judges it, the brute force expected
            out[(apps_id, origin)] = {"input": text, "brute_force": right, "program": mine}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help=f"a clone (or git directory) of {APPS.url}")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    rows = {str(r["source_id"]): r for r in process_rows(collect(default_specs()["apps"]).kept).kept}
    programs = mapcoder_programs(args.repo)
    jobs = []
    for pid, found in programs.items():
        row = rows.get(pid)
        if row is None:
            continue
        tests = dataclasses.replace(row["tests"], time_limit_s=TIME_S)
        samples = dataclasses.replace(tests, cases=[c for c in tests.cases if c.public])
        for j, p in enumerate(found):
            p["code"] = without_driver(p["original"]) if tests.kind == "call" else p["original"]
            jobs.append(((pid, j, "official"), p["code"], tests))
            jobs.append(((pid, j, "samples"), p["code"], samples))
    print(f"{len(jobs)} runs", file=sys.stderr)
    passed = {r.key: r.passed for r in evaluate_many(jobs, workers=args.workers)}
    shown_wrong = brute_force_evidence(programs)
    records = []
    for pid, found in programs.items():
        if pid not in rows:
            continue
        labelled = []
        for j, p in enumerate(found):
            if passed[(pid, j, "official")]:
                labelled.append("correct")
            elif passed[(pid, j, "samples")]:
                labelled.append("wrong")
            else:
                labelled.append(None)
        if "correct" not in labelled:
            continue
        for p, label in zip(found, labelled):
            if label:
                evidence = shown_wrong.get((pid, p["origin"]))
                records.append({"apps_id": pid, "kind": rows[pid]["tests"].kind, "label": "wrong" if evidence else label,
                                "passes_official": label == "correct", "origin": p["origin"], "code": p["code"],
                                "driver_cut": p["code"] != p["original"], **({"evidence": evidence} if evidence else {})})
    APPS.write(records)
    by = defaultdict(int)
    for rec in records:
        by[(rec["kind"], rec["label"])] += 1
    print(json.dumps({f"{k}/{label}": n for (k, label), n in sorted(by.items())}), "->", APPS.path, file=sys.stderr)


if __name__ == "__main__":
    main()
