"""How many of the validators' stated rules refuse the inputs they exist to refuse, per source.

    .venv/bin/python benchmarks/validator_rules.py [--sources leetcode,apps,taco] [--sample N]

Each problem is planned as Verify plans it (its kind's ``plan``: the profile or grammar, and the
validator, which tests each rule on just-illegal variants of an example: :mod:`pipeline.verify.testgen.proof`).
Prints, per source, the problems with a validator, the rules tested, kept and dropped (each
dropped ``part:name`` with its problem), and the planning time a problem, with the proof and
without it (the same problems, the proof replaced by one that tests nothing), in one run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.process import process_rows  # noqa: E402
from pipeline.process.public import statement_text  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.verify.testgen import proof  # noqa: E402
from pipeline.verify.testgen.registry import kind_for  # noqa: E402


def plan_all(rows: list[dict]) -> tuple[list, float]:
    """Every row's plan (None where planning raised), and the CPU seconds it took."""
    start, plans = time.process_time(), []
    for row in rows:
        try:
            plans.append(kind_for(row["tests"]).plan(row, statement_text(row)))
        except Exception:  # noqa: BLE001 - a problem Verify would note and skip
            plans.append(None)
    return plans, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", default="leetcode,apps,taco")
    parser.add_argument("--sample", type=int, default=None, help="problems per source (default: all)")
    args = parser.parse_args()
    print("| source | problems | with a validator | rules tested | kept | dropped | plan ms a problem, proof / none |")
    print("|---|---|---|---|---|---|---|")
    dropped_all: list[tuple[str, str, str]] = []
    for name in args.sources.split(","):
        rows = process_rows(collect(default_specs()[name]).kept).kept[: args.sample]
        plans, with_s = plan_all(rows)
        real = proof.prove
        try:  # the same planning with a proof that tests nothing (each kind's validator calls proof.prove by name)
            import pipeline.verify.testgen.call.validate as call_validate
            import pipeline.verify.testgen.stdin.validate as stdin_validate

            call_validate.prove = stdin_validate.prove = lambda variants, refuses: proof.RuleProof()
            _, without_s = plan_all(rows)
        finally:
            call_validate.prove = stdin_validate.prove = real
        proofs = [(row, p.validator.proof) for row, p in zip(rows, plans) if p is not None and p.validator is not None]
        kept = sum(len(pr.kept) for _, pr in proofs)
        dropped = Counter(d.split(":")[0] for _, pr in proofs for d in pr.dropped)
        dropped_all += [(name, str(row["source_id"]), d) for row, pr in proofs for d in pr.dropped]
        print(f"| {name} | {len(rows)} | {len(proofs)} | {kept + sum(dropped.values())} | {kept} | "
              f"{sum(dropped.values())} {dict(dropped) or ''} | "
              f"{1000 * with_s / max(1, len(rows)):.1f} / {1000 * without_s / max(1, len(rows)):.1f} |")
    for name, problem, rule in dropped_all:
        print(f"  dropped: {name} {problem} {rule}")


if __name__ == "__main__":
    main()
