"""``microcoder-eval``: the evaluator's stable command line (docs/evaluator.md).

    microcoder-eval run INPUT.jsonl -o OUTPUT.jsonl [--workers N] [--timeout S] [--memory-mb MB] [--ray-address A]
    microcoder-eval doctor [--ray-address A]   # isolation level and environment, as JSON (each node's)
    microcoder-eval --version     # version and isolation level

One output line per input line, in order, whatever the programs (or the input) do.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Iterator

from evaluator.api import Job, isolation_level
from evaluator.backend import backend_at
from evaluator.doctor import VERSION, doctor
from evaluator.model import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_MB, Limits, Options, Result, Tests, Verdict

CHUNK = 256


def _jobs(path: str) -> Iterator[Job | Result]:
    """Each line parsed once, here: a job, or the result of a line that is not one."""
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if not line.strip():
                continue
            key = None
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError("not a JSON object")
                key = item.get("id")
                if not isinstance(item.get("code"), str):
                    raise ValueError("no code")
                yield key, item["code"], Tests.from_dict(item.get("tests"))
            except (ValueError, TypeError) as exc:
                yield Result.failed(Verdict.INTERNAL_ERROR, f"line {n + 1}: {exc}", key=key, isolation="none")


def _run(args: argparse.Namespace) -> int:
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    counts: dict[str, int] = {}
    try:
        chunk: list[Job | Result] = []
        limits = Limits(time_s=args.timeout, memory_mb=args.memory_mb, output_mb=args.output_mb)
        options = Options(workers=args.workers, mode=args.mode, stop_on_first_failure=not args.all_tests)
        judge = backend_at(args.ray_address).evaluate_many

        def flush() -> None:
            good = [job for job in chunk if not isinstance(job, Result)]
            results = iter(judge(good, limits, options))
            for job in chunk:
                res = job if isinstance(job, Result) else next(results)
                counts[res.verdict.value] = counts.get(res.verdict.value, 0) + 1
                out.write(json.dumps(res.to_dict(), ensure_ascii=False) + "\n")
            out.flush()
            chunk.clear()

        for item in _jobs(args.input):
            chunk.append(item)
            if len(chunk) >= CHUNK:
                flush()
        flush()
    finally:
        if out is not sys.stdout:
            out.close()
    print(json.dumps({"verdicts": counts}), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="microcoder-eval", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="store_true", help="print version and isolation level")
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="judge INPUT.jsonl ({id, code, tests} per line)")
    run.add_argument("input")
    run.add_argument("-o", "--output", required=True, help="OUTPUT.jsonl, or - for stdout")
    run.add_argument("--workers", type=int, default=os.cpu_count())
    run.add_argument("--timeout", type=float, default=None, help="seconds per test, per call in assert tests (default: the tests' own, else 6)")
    run.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY_MB)
    run.add_argument("--output-mb", type=int, default=DEFAULT_OUTPUT_MB, help="stdout cap per test (output_limit past it)")
    run.add_argument("--mode", choices=("robust", "strict"), default="robust")
    run.add_argument("--all-tests", action="store_true", help="run every test instead of stopping at the first failure")
    cluster_help = "judge on this Ray cluster's evaluator actors (auto, head:6379, ray://head:10001)"
    run.add_argument("--ray-address", default=None, help=cluster_help)
    doc = sub.add_parser("doctor", help="report the sandbox isolation level and environment")
    doc.add_argument("--ray-address", default=None, help="report it from inside each node's evaluator actor")
    args = parser.parse_args(argv)
    if args.version:
        print(f"microcoder-eval {VERSION} (isolation: {isolation_level()})")
        return 0
    if args.command == "run":
        return _run(args)
    if args.command == "doctor":
        from evaluator.ray_backend import RayEvaluator

        print(json.dumps(RayEvaluator(args.ray_address).doctor() if args.ray_address else doctor(), indent=2))
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
