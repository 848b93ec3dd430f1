"""Micro-benchmark: MicroCoder-GRPO log-prob and loss passes (forward + backward) at 0.5B scale.

Shape of a Qwen2.5-0.5B-class LM head: vocab 151936, hidden 896. CUDA: 8 x 1024 response
tokens in bf16; CPU: 1 x 128 tokens in fp32 (same code, smaller so it finishes on 2 cores).
Each row compares a naive baseline with this project's variant, in the same run:

- log-probs from logits: naive = fp32 copy of logits / T, full log_softmax, gather (what
  ``logprobs_at_temperature`` and a plain verl actor do) vs ``chunked_logprobs_at_temperature``.
- LM head + log-probs: naive = hidden @ W.T, then the naive path vs ``fused_linear_logprobs``
  (never materializes the [tokens, vocab] logits).
- policy loss: verl's ``compute_policy_loss_vanilla`` arithmetic (dual clip always on),
  transcribed, vs ``token_policy_loss`` (what ``loss_mode=microcoder`` runs) aggregated token-mean.

The log-prob kernels are references under ``tests/training/logprob_kernels.py``: verl computes
log-probs itself, and a kernel moves into ``training/`` only when a GPU run of this benchmark
shows it faster than verl's path.

Run: .venv/bin/python benchmarks/bench_grpo_loss.py [--rows N] [--reps K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.training.grpo_reference import policy_loss  # noqa: E402
from tests.training.logprob_kernels import (  # noqa: E402
    chunked_logprobs_at_temperature,
    fused_linear_logprobs,
    logprobs_at_temperature,
)

T = 1.2


def verl_vanilla_loss(old_log_prob, log_prob, advantages, response_mask, clip_low=0.2, clip_high=0.28, c=3.0):
    """verl core_algos.compute_policy_loss_vanilla arithmetic, token-mean (the baseline)."""
    mask = response_mask.to(log_prob.dtype)
    neg_kl = torch.clamp(log_prob - old_log_prob, -20.0, 20.0)
    ratio = torch.exp(neg_kl)
    ppo_kl = (-neg_kl * mask).sum() / mask.sum()
    l1 = -advantages * ratio
    l2 = -advantages * torch.clamp(ratio, 1 - clip_low, 1 + clip_high)
    c1 = torch.maximum(l1, l2)
    clipfrac = (torch.gt(l2, l1).float() * mask).sum() / mask.sum()
    l3 = -advantages * c
    c2 = torch.min(l3, c1)
    losses = torch.where(advantages < 0, c2, c1)
    return (losses * mask).sum() / mask.sum(), clipfrac, ppo_kl


def timed(fn, device, reps, warmup=1):
    """Median wall time (s) and peak extra CUDA memory (GiB, None on CPU) of fn()."""
    for _ in range(warmup):
        fn()
    times, peak = [], None
    for _ in range(reps):
        if device.type == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
            peak = (torch.cuda.max_memory_allocated() - base) / 2**30
        times.append(time.perf_counter() - t0)
    return statistics.median(times), peak


def main() -> None:
    cuda = torch.cuda.is_available()
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=8 if cuda else 1)
    ap.add_argument("--length", type=int, default=1024 if cuda else 128)
    ap.add_argument("--vocab", type=int, default=151936)
    ap.add_argument("--hidden", type=int, default=896)
    ap.add_argument("--chunk", type=int, default=1024 if cuda else 64)
    ap.add_argument("--reps", type=int, default=10 if cuda else 3)
    args = ap.parse_args()
    device = torch.device("cuda" if cuda else "cpu")
    dtype = torch.bfloat16 if cuda else torch.float32
    torch.manual_seed(0)
    b, length, v, h = args.batch, args.length, args.vocab, args.hidden
    n = b * length
    hidden = (torch.randn(b, length, h, device=device) * 0.5).to(dtype).requires_grad_(True)
    weight = (torch.randn(v, h, device=device) * 0.05).to(dtype).requires_grad_(True)
    ids = torch.randint(0, v, (b, length), device=device)
    with torch.no_grad():
        logits_data = hidden @ weight.T
    mask = torch.ones(b, length, device=device)
    adv = torch.randn(b, device=device)
    old = torch.randn(b, length, device=device) * 0.1 - 2.0

    def logits_leaf():
        return logits_data.detach().requires_grad_(True)

    def naive_logits():
        z = logits_leaf()
        logprobs_at_temperature(z, ids, T).sum().backward()

    def chunked_logits():
        z = logits_leaf()
        chunked_logprobs_at_temperature(z, ids, T, args.chunk).sum().backward()

    def naive_head():
        hidden.grad = weight.grad = None
        lp = logprobs_at_temperature(hidden @ weight.T, ids, T)
        loss, _ = policy_loss(lp, old, adv, mask)
        loss.backward()

    def fused_head():
        hidden.grad = weight.grad = None
        lp = fused_linear_logprobs(hidden, weight, ids, T, args.chunk)
        loss, _ = policy_loss(lp, old, adv, mask)
        loss.backward()

    lp_leaf = (old + 0.05 * torch.randn_like(old)).requires_grad_(True)
    adv_tok = adv[:, None].expand(b, length)

    def verl_loss():
        lp_leaf.grad = None
        verl_vanilla_loss(old, lp_leaf, adv_tok, mask)[0].backward()

    def our_loss():
        lp_leaf.grad = None
        policy_loss(lp_leaf, old, adv, mask)[0].backward()

    # correctness of the compared variants on this exact shape
    with torch.no_grad():
        ref = logprobs_at_temperature(logits_data, ids, T)
        err_chunk = (chunked_logprobs_at_temperature(logits_data, ids, T, args.chunk) - ref).abs().max().item()
        err_fused = (fused_linear_logprobs(hidden, weight, ids, T, args.chunk) - ref).abs().max().item()

    rows = [
        ("log-probs from logits (fwd+bwd)", "naive fp32 log_softmax+gather", naive_logits, "chunked (ours)", chunked_logits),
        ("LM head + log-probs + loss (fwd+bwd)", "matmul + naive log-probs", naive_head, "fused linear (ours)", fused_head),
        ("policy loss only (fwd+bwd)", "verl vanilla (transcribed)", verl_loss, "policy_loss (ours)", our_loss),
    ]
    name = torch.cuda.get_device_name() if cuda else "CPU"
    print(f"device={name} dtype={dtype} tokens={b}x{length}={n} vocab={v} hidden={h} chunk={args.chunk} "
          f"reps={args.reps} torch={torch.__version__} threads={torch.get_num_threads()}")
    print(f"max |diff| vs reference log-probs: chunked={err_chunk:.2e} fused={err_fused:.2e}")
    hdr = f"{'pass':38} {'variant':32} {'median ms':>10} {'peak GiB':>9} {'speedup':>8}"
    print(hdr)
    print("-" * len(hdr))
    for label, base_name, base_fn, new_name, new_fn in rows:
        tb, mb = timed(base_fn, device, args.reps)
        tn, mn = timed(new_fn, device, args.reps)
        fmt = lambda m: f"{m:9.2f}" if m is not None else f"{'n/a':>9}"  # noqa: E731
        print(f"{label:38} {base_name:32} {tb * 1e3:10.2f} {fmt(mb)} {'1.00x':>8}")
        print(f"{'':38} {new_name:32} {tn * 1e3:10.2f} {fmt(mn)} {tb / tn:7.2f}x")


if __name__ == "__main__":
    main()
