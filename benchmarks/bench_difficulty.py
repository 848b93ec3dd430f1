"""The difficulty stage end to end on transformers vs vLLM (CPU build), same problems, same run.

Each backend scores the same problems with ``score_problems`` (no cache), as the
``scored_problems`` asset does, with the main job's settings by default (``microcoder run``:
8 problems, k=4, max_tokens=256). Reported per backend: start-up (building the sampler: model
load, and for vLLM its worker and engine), sampling and judging seconds, sampling problems/s and
tokens/s, and end-to-end seconds including start-up, which is what decides the main job's default.

    .venv/bin/python benchmarks/bench_difficulty.py [--problems 8 --k 4 --max-tokens 256]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.difficulty import DifficultyConfig, score_problems  # noqa: E402
from pipeline.process import process_rows  # noqa: E402
from pipeline.samplers import make_sampler  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402


def load_rows(sources: list[str]) -> list[dict]:
    specs = default_specs()
    rows: list[dict] = []
    for name in sources:
        rows += process_rows(collect(specs[name]).kept).kept
    return rows


def run(backend: str, rows: list[dict], config: DifficultyConfig) -> dict:
    started = time.monotonic()
    sampler = make_sampler(backend)
    startup = time.monotonic() - started
    try:
        _, stats = score_problems(rows, sampler, config, progress=lambda line: print(f"  {backend} {line}", file=sys.stderr, flush=True))
    finally:
        sampler.close()
    return {"backend": backend, "startup_s": startup, "end_to_end_s": time.monotonic() - started, **stats}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=8)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--batch-problems", type=int, default=16, help="problems per sampler call (the asset's default)")
    parser.add_argument("--sources", default="humaneval,livecodebench,mbpp")
    parser.add_argument("--backends", default="transformers,vllm", help="the first is the baseline")
    args = parser.parse_args()

    rows = load_rows(args.sources.split(","))
    config = DifficultyConfig(k=args.k, max_tokens=args.max_tokens, sample_size=args.problems,
                              batch_problems=args.batch_problems)
    results = []
    for backend in args.backends.split(","):
        print(f"running {backend} ...", file=sys.stderr, flush=True)
        results.append(run(backend, rows, config))

    print(f"\ndifficulty stage: {args.problems} problems (first by id of {args.sources}) x k={args.k}, "
          f"max_tokens={args.max_tokens}, model SmolLM2-135M-Instruct, CPU")
    header = (f"{'backend':12} {'start-up s':>10} {'sample s':>9} {'judge s':>8} {'tokens':>7} {'problems/s':>10} "
              f"{'tokens/s':>9} {'end-to-end s':>12} {'e2e speed-up':>12}")
    print(header)
    print("-" * len(header))
    base = results[0]["end_to_end_s"]
    for r in results:
        print(f"{r['backend']:12} {r['startup_s']:10.1f} {r['sample_seconds']:9.1f} {r['judge_seconds']:8.1f} "
              f"{r['generated_tokens']:7d} {r['problems_per_s']:10.3f} {r['tokens_per_s']:9.1f} "
              f"{r['end_to_end_s']:12.1f} {base / r['end_to_end_s']:11.2f}x")
    fast = results[0]
    for r in results[1:]:
        saved = (r["sample_seconds"] and fast["sample_seconds"]) and (
            (r["startup_s"] - fast["startup_s"]) / (1 / fast["tokens_per_s"] - 1 / r["tokens_per_s"])
            if r["tokens_per_s"] > fast["tokens_per_s"] else None)
        if saved:
            print(f"{r['backend']} repays its extra start-up after about {saved:,.0f} generated tokens")


if __name__ == "__main__":
    main()
