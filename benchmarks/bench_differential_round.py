"""What the difficulty stage's differential round adds, with real programs as the samples.

    .venv/bin/python benchmarks/bench_differential_round.py [--sources mbpp_test,humaneval] [--sample N]

The problems go through Collect, Process and Verify (with generation, and its reserve); MapCoder's
labelled programs (``../shared/data/labelled``: correct on the extended tests, or passing the base
tests and failing the extended ones) stand in for a model's samples. Those the released tests
accept run through :func:`pipeline.verify.testgen.differential.differential_round`, as the
difficulty stage runs passing samples. Per source, in the same run: the wrong programs the
generated tests let through and how many the round rejects (TNR before and after the round), the
correct ones and how many the round rejects (it should be none: TPR), inputs added and the
round's time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_test_quality import judge, labelled_programs, rate  # noqa: E402

from evaluator.backend import LocalBackend  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402
from pipeline.verify.testgen.differential import differential_round  # noqa: E402
from pipeline.verify.testgen.generate import TestGenConfig  # noqa: E402

LABELS = {"mbpp_test": "mbpp", "mbpp": "mbpp", "humaneval": "humaneval"}  # the labels' name per source


def run_source(name: str, sample: int | None, workers: int | None, labelled: dict, generation: TestGenConfig) -> dict:
    rows = process_rows(collect(default_specs()[name]).kept).kept
    rows = [r for r in rows if (LABELS[name], r["source_id"]) in labelled][:sample]
    start = time.perf_counter()
    kept = verify_rows(rows, VerifyConfig(workers=workers, generation=generation)).kept
    verify_s = time.perf_counter() - start
    programs = [labelled[(LABELS[name], r["source_id"])] for r in kept]
    pairs = [(p, r["tests"].to_dict()) for r, ps in zip(kept, programs) for p in ps]
    results = iter(judge(pairs, workers))
    passing = [[p["code"] if next(results).passed else None for p in ps] for ps in programs]
    start = time.perf_counter()
    rounds = differential_round(kept, passing, backend=LocalBackend(), workers=workers)
    round_s = time.perf_counter() - start
    wrong_through = correct_through = wrong_rejected = correct_rejected = 0
    for ps, codes, grown in zip(programs, passing, rounds):
        for s, (p, code) in enumerate(zip(ps, codes)):
            if code is None:
                continue
            if p["correct"]:
                correct_through += 1
                correct_rejected += s in grown.rejected
            else:
                wrong_through += 1
                wrong_rejected += s in grown.rejected
    wrong = sum(not p["correct"] for ps in programs for p in ps)
    return {"source": name, "problems": len(kept), "with reserve": sum(r["reserve_inputs"] != "[]" for r in kept),
            "wrong": wrong, "TNR before round": rate([c is None for ps, cs in zip(programs, passing)
                                                      for p, c in zip(ps, cs) if not p["correct"]]),
            "wrong through": wrong_through, "rejected by round": wrong_rejected,
            "TNR after round": f"{(wrong - wrong_through + wrong_rejected) / wrong:.3f}" if wrong else "n/a",
            "correct through": correct_through, "correct rejected": correct_rejected,
            "inputs added": sum(g.added for g in rounds), "problems grown": sum(bool(g.added) for g in rounds),
            "verify s": round(verify_s, 1), "round s": round(round_s, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", default="mbpp_test,humaneval")
    parser.add_argument("--sample", type=int, default=40, help="problems per source with labelled programs")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--inputs", type=int, default=TestGenConfig.inputs, help="candidate inputs per problem")
    parser.add_argument("--reserve", type=int, default=TestGenConfig.reserve, help="answered inputs kept for the round")
    args = parser.parse_args()
    generation = TestGenConfig(cache=False, inputs=args.inputs, reserve=args.reserve)
    sources = args.sources.split(",")
    labelled = labelled_programs([LABELS[s] for s in sources])
    table = [run_source(name, args.sample, args.workers, labelled, generation) for name in sources]
    head = list(table[0])
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in table:
        print("| " + " | ".join(str(row[k]) for k in head) + " |")


if __name__ == "__main__":
    main()
