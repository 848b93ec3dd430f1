"""Token log-probs at the sampling temperature: the pi^{T(D)} of the paper's equation 1 (references).

verl computes these log-probs itself (its actor divides the logits by the rollout temperature);
these kernels are the references ``tests/training/test_verl_cpu.py`` holds verl's rollout to, and
what ``benchmarks/bench_grpo_loss.py`` times. A kernel moves back into ``training/`` only when a
GPU benchmark shows it faster than verl's own path.

Rollout samples from softmax(z / T), so the trainer's ratio must use log softmax(z / T) too;
otherwise the first PPO ratio is not 1. Three implementations of the same quantity:

- :func:`logprobs_at_temperature`: the definition (fp32 log_softmax of z / T, then gather).
- :func:`chunked_logprobs_at_temperature`: same values from given logits, computed in row
  chunks with a hand-written backward, so no full-size fp32 copy or log_softmax output is
  kept for autograd (only a per-row logsumexp).
- :func:`fused_linear_logprobs`: from the last hidden states and the LM-head weight, never
  materializing the ``[tokens, vocab]`` logits (recomputed per chunk in backward).
"""

from __future__ import annotations

import torch

__all__ = ["logprobs_at_temperature", "chunked_logprobs_at_temperature", "fused_linear_logprobs"]


def _acc(dtype: torch.dtype) -> torch.dtype:
    """Accumulation dtype: fp32 for half/bf16/fp32 inputs, fp64 for fp64 (gradcheck)."""
    return torch.promote_types(dtype, torch.float32)


def _check_t(temperature: float) -> float:
    t = float(temperature)
    if not t > 0.0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    return t


def logprobs_at_temperature(logits: torch.Tensor, token_ids: torch.Tensor, temperature: float) -> torch.Tensor:
    """log softmax(logits / T)[token]: ``[..., V]`` logits, ``[...]`` ids -> ``[...]`` fp32 (fp64 for fp64 input)."""
    t = _check_t(temperature)
    logp = torch.log_softmax(logits.to(_acc(logits.dtype)) / t, dim=-1)
    return logp.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)


class _ChunkedLogprobs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, ids, t, chunk):  # logits [N, V], ids [N]
        acc = _acc(logits.dtype)
        out = torch.empty(logits.shape[0], dtype=acc, device=logits.device)
        lse = torch.empty_like(out)
        for s in range(0, logits.shape[0], chunk):
            z = logits[s : s + chunk].to(acc) / t
            lse[s : s + chunk] = torch.logsumexp(z, dim=-1)
            out[s : s + chunk] = z.gather(-1, ids[s : s + chunk, None]).squeeze(-1) - lse[s : s + chunk]
        ctx.save_for_backward(logits, ids, lse)
        ctx.t, ctx.chunk = t, chunk
        return out

    @staticmethod
    def backward(ctx, grad_out):
        logits, ids, lse = ctx.saved_tensors
        t, chunk = ctx.t, ctx.chunk
        grad = torch.empty_like(logits)
        for s in range(0, logits.shape[0], chunk):
            go = grad_out[s : s + chunk, None].to(lse.dtype)
            p = torch.exp(logits[s : s + chunk].to(lse.dtype) / t - lse[s : s + chunk, None])
            g = p.mul_(-go).scatter_add_(-1, ids[s : s + chunk, None], go)  # go * (onehot - p)
            grad[s : s + chunk] = g.div_(t).to(logits.dtype)
        return grad, None, None, None


def chunked_logprobs_at_temperature(
    logits: torch.Tensor, token_ids: torch.Tensor, temperature: float, chunk_rows: int = 1024
) -> torch.Tensor:
    """Same as :func:`logprobs_at_temperature`, in row chunks with a memory-lean backward."""
    t = _check_t(temperature)
    lead = token_ids.shape
    out = _ChunkedLogprobs.apply(
        logits.reshape(-1, logits.shape[-1]), token_ids.reshape(-1), t, max(1, int(chunk_rows))
    )
    return out.reshape(lead)


class _FusedLinearLogprobs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, weight, ids, t, chunk):  # hidden [N, H], weight [V, H]
        acc = _acc(hidden.dtype)
        out = torch.empty(hidden.shape[0], dtype=acc, device=hidden.device)
        lse = torch.empty_like(out)
        for s in range(0, hidden.shape[0], chunk):
            z = (hidden[s : s + chunk] @ weight.T).to(acc).div_(t)
            lse[s : s + chunk] = torch.logsumexp(z, dim=-1)
            out[s : s + chunk] = z.gather(-1, ids[s : s + chunk, None]).squeeze(-1) - lse[s : s + chunk]
        ctx.save_for_backward(hidden, weight, ids, lse)
        ctx.t, ctx.chunk = t, chunk
        return out

    @staticmethod
    def backward(ctx, grad_out):
        hidden, weight, ids, lse = ctx.saved_tensors
        t, chunk = ctx.t, ctx.chunk
        grad_h = torch.empty_like(hidden) if ctx.needs_input_grad[0] else None
        grad_w = torch.zeros(weight.shape, dtype=lse.dtype, device=weight.device) if ctx.needs_input_grad[1] else None
        for s in range(0, hidden.shape[0], chunk):
            h = hidden[s : s + chunk]
            go = grad_out[s : s + chunk, None].to(lse.dtype)
            p = torch.exp((h @ weight.T).to(lse.dtype).div_(t) - lse[s : s + chunk, None])
            g = p.mul_(-go).scatter_add_(-1, ids[s : s + chunk, None], go).div_(t).to(hidden.dtype)
            if grad_h is not None:
                grad_h[s : s + chunk] = g @ weight
            if grad_w is not None:
                grad_w.add_(g.T @ h)
        return grad_h, (grad_w.to(weight.dtype) if grad_w is not None else None), None, None, None


def fused_linear_logprobs(
    hidden: torch.Tensor, weight: torch.Tensor, token_ids: torch.Tensor, temperature: float, chunk_rows: int = 1024
) -> torch.Tensor:
    """log softmax((hidden @ weight.T) / T)[token] without the full logits tensor.

    ``hidden`` ``[..., H]`` (final hidden states), ``weight`` ``[V, H]`` (untied or tied LM head,
    no bias), ``token_ids`` ``[...]`` -> ``[...]`` fp32. Gradients flow to both inputs.
    """
    t = _check_t(temperature)
    lead = token_ids.shape
    out = _FusedLinearLogprobs.apply(
        hidden.reshape(-1, hidden.shape[-1]), weight, token_ids.reshape(-1), t, max(1, int(chunk_rows))
    )
    return out.reshape(lead)
