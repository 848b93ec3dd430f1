"""Sampler throughput: the transformers backend batched vs one prompt at a time, same run; and
batched with a prefill per sample (what ``num_return_sequences`` does) vs one per prompt.

Prompts are real problem statements (HumanEval + LiveCodeBench from ../shared/data) built with
``build_messages``. Reports problems scored per hour (k samples each) and generated tokens/s,
on CPU and, where torch sees one, on CUDA.

    .venv/bin/python benchmarks/bench_sampler.py [--prompts 8 --n 4 --max-tokens 64 --threads N]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import time
from unittest import mock

from pipeline.paths import shared_data_dir
from pipeline.samplers import build_messages
from pipeline.samplers.hf import TransformersSampler


def load_prompts(count: int) -> list[list[dict[str, str]]]:
    root = shared_data_dir()
    if root is None:
        raise SystemExit("no shared data (../shared/data) on this machine")
    with gzip.open(root / "humaneval" / "HumanEval.jsonl.gz", "rt") as handle:
        humaneval = [json.loads(line) for line in handle]
    livecodebench = json.loads((root / "livecodebench" / "test_livecodebench.json").read_text())
    prompts = []
    for task, problem in zip(humaneval, livecodebench):
        prompts.append(build_messages(task["prompt"], None, "assert", task["entry_point"]))
        kind = "call" if problem.get("starter_code") else "stdin"
        prompts.append(build_messages(problem["problem"], problem.get("starter_code"), kind, None))
    return prompts[:count]


def measure(sampler: TransformersSampler, prompts, n: int, max_tokens: int, one_at_a_time: bool,
            share_prefill: bool = True) -> tuple[float, int, int]:
    """Seconds, generated tokens, truncated samples."""
    # share_prefill=False: the baseline where each of a prompt's n samples runs its own prefill
    sharing = contextlib.nullcontext() if share_prefill else mock.patch("pipeline.samplers.hf.shared_prefill", lambda *a: {})
    started = time.perf_counter()
    with sharing:
        if one_at_a_time:
            results = [sampler.generate([p], n=n, temperature=1.0, max_tokens=max_tokens, seed=i)[0]
                       for i, p in enumerate(prompts)]
        else:
            results = sampler.generate(prompts, n=n, temperature=1.0, max_tokens=max_tokens, seed=0)
    seconds = time.perf_counter() - started
    completions = [c for group in results for c in group]
    return seconds, sum(c.num_tokens for c in completions), sum(c.truncated for c in completions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    args = parser.parse_args()

    import torch

    prompts = load_prompts(args.prompts)
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = []
    for device in devices:
        sampler = TransformersSampler(device=device, batch_size=args.batch_size, num_threads=args.threads)
        sampler.generate(prompts[:1], n=1, max_tokens=2)  # warm-up
        modes = (("one prompt at a time", True, True), ("batched, prefill per sample", False, False),
                 (f"batched ({args.batch_size} prompts)", False, True))
        for mode, single, share in modes:
            seconds, tokens, truncated = measure(sampler, prompts, args.n, args.max_tokens, single, share)
            rows.append((device, mode, seconds, tokens, truncated))
        sampler.close()

    print(f"\n{len(prompts)} prompts x n={args.n}, max_tokens={args.max_tokens}, model SmolLM2-135M-Instruct, "
          f"torch threads={torch.get_num_threads()}")
    header = f"{'device':6} {'mode':28} {'seconds':>8} {'tokens':>7} {'trunc':>6} {'tokens/s':>9} {'problems/h':>11} {'speed-up':>8}"
    print(header)
    print("-" * len(header))
    baseline: dict[str, float] = {}
    for device, mode, seconds, tokens, truncated in rows:
        baseline.setdefault(device, seconds)
        print(f"{device:6} {mode:28} {seconds:8.1f} {tokens:7d} {truncated:6d} {tokens / seconds:9.1f} "
              f"{len(prompts) * 3600 / seconds:11.0f} {baseline[device] / seconds:7.2f}x")


if __name__ == "__main__":
    main()
