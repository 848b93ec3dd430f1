"""What the difficulty stage's differential round adds, with real programs as the samples, judged
on programs it never saw.

    .venv/bin/python benchmarks/bench_differential_round.py [--sources mbpp_test,humaneval] [--sample N] [--edges 0,12]

The problems go through Collect, Process and Verify (with generation, its reserve and its edges);
MapCoder's labelled programs (``../shared/data/labelled``: correct on the extended tests, or
passing the base tests and failing the extended ones) are split in two by a hash of their id. One
half stands in for a model's samples: those the released tests accept run through
:func:`pipeline.verify.testgen.differential.differential_round`, as the difficulty stage runs
passing samples. The other half is held out and judged on the released tests and on the tests the
round grew: TNR (wrong programs rejected) and TPR (correct ones accepted) before and after the
round, so what the round adds is measured on programs it did not choose inputs against. Each
``--edges`` setting is a run of its own, in the same run (0: no edges, the baseline).
"""


from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_test_quality import judge, labelled_programs, quality_kept, rate  # noqa: E402

from evaluator.backend import LocalBackend  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify import VerifyConfig, verify_rows  # noqa: E402
from pipeline.verify.testgen import (
    TestGenConfig,  # noqa: E402
    differential_round,  # noqa: E402
)

LABELS = {"mbpp_test": "mbpp", "mbpp": "mbpp", "humaneval": "humaneval"}  # the labels' name per source


def held_out(program: dict) -> bool:
    """Half the labelled programs are judged, never run by the round: the other half are its samples."""
    return zlib.crc32(program["id"].encode()) % 2 == 1


def run_source(name: str, sample: int | None, workers: int | None, labelled: dict, generation: TestGenConfig) -> dict:
    rows = quality_kept(process_rows(collect(default_specs()[name]).kept).kept)
    rows = [r for r in rows if (LABELS[name], r["source_id"]) in labelled][:sample]
    start = time.perf_counter()
    kept = verify_rows(rows, VerifyConfig(workers=workers, generation=generation)).kept
    verify_s = time.perf_counter() - start
    programs = [labelled[(LABELS[name], r["source_id"])] for r in kept]
    samples = [[p for p in ps if not held_out(p)] for ps in programs]
    judged = [[p for p in ps if held_out(p)] for ps in programs]
    pairs = [(p, r["tests"].to_dict()) for r, ps in zip(kept, samples) for p in ps]
    results = iter(judge(pairs, workers))
    passing = [[p["code"] if next(results).passed else None for p in ps] for ps in samples]
    start = time.perf_counter()
    rounds = differential_round(kept, passing, backend=LocalBackend(), workers=workers)
    round_s = time.perf_counter() - start
    through = {True: 0, False: 0}
    rejected = {True: 0, False: 0}
    for ps, codes, grown in zip(samples, passing, rounds):
        for s, (p, code) in enumerate(zip(ps, codes)):
            if code is not None:
                through[p["correct"]] += 1
                rejected[p["correct"]] += s in grown.rejected
    before = [(p, r["tests"].to_dict()) for r, ps in zip(kept, judged) for p in ps]
    after = [(p, (g.tests or r["tests"]).to_dict()) for r, ps, g in zip(kept, judged, rounds) for p in ps]
    res_before, res_after = judge(before, workers), judge(after, workers)

    def rates(results: list) -> tuple[str, str]:
        return (rate([r.passed for (p, _), r in zip(before, results) if p["correct"]]),
                rate([not r.passed for (p, _), r in zip(before, results) if not p["correct"]]))

    (tpr_b, tnr_b), (tpr_a, tnr_a) = rates(res_before), rates(res_after)
    edges = sum(sum(1 for label in json.loads(r["reserve_inputs"] or "[]") if label[2].startswith("edge:")) for r in kept)
    return {"source": name, "edges": generation.edges, "problems": len(kept), "edges in reserve": edges,
            "samples through (wrong/correct)": f"{through[False]}/{through[True]}",
            "rejected by round (wrong/correct)": f"{rejected[False]}/{rejected[True]}",
            "inputs added": sum(g.added for g in rounds), "problems grown": sum(bool(g.added) for g in rounds),
            "held-out TNR before": tnr_b, "after": tnr_a, "held-out TPR before": tpr_b, "after ": tpr_a,
            "verify s": round(verify_s, 1), "round s": round(round_s, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", default="mbpp_test,humaneval")
    parser.add_argument("--sample", type=int, default=40, help="problems per source with labelled programs")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--inputs", type=int, default=TestGenConfig.inputs, help="candidate inputs per problem")
    parser.add_argument("--reserve", type=int, default=TestGenConfig.reserve, help="answered inputs kept for the round")
    parser.add_argument("--edges", default=f"0,{TestGenConfig.edges}",
                        help="edges per problem, comma-separated: each a run (0: the baseline without edges)")
    args = parser.parse_args()
    sources = args.sources.split(",")
    labelled = labelled_programs([LABELS[s] for s in sources], workers=args.workers)
    table = [run_source(name, args.sample, args.workers, labelled,
                        TestGenConfig(cache=False, inputs=args.inputs, reserve=args.reserve, edges=int(edges)))
             for name in sources for edges in args.edges.split(",")]
    head = list(table[0])
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in table:
        print("| " + " | ".join(str(row[k]) for k in head) + " |")


if __name__ == "__main__":
    main()
