"""Clipped policy-gradient loss per token: the objective of the paper's equation 1, negated.

    loss_t = - min( r_t A_i , clip(r_t, 1 - eps, 1 + eps_high) A_i )

with r_t = pi_theta^T(o_t) / pi_old^T(o_t) from log-probs taken at the sampling temperature.
This is what verl runs (``loss_mode=microcoder``, :mod:`training.verl_ext.policy_loss`): verl
aggregates the matrix itself (``agg_loss``, with its token normaliser across micro-batches and
ranks) and adds the KL term (beta, GRPO preset only) after it. The clip metrics come from the same
pass. No dual clip: the paper does not use one (verl's ``vanilla`` loss always applies it).
The aggregated objective and the KL estimators that verl's numbers are checked against live in
``tests/training/grpo_reference.py``.
"""

from __future__ import annotations

import torch

__all__ = ["masked_mean", "token_policy_loss"]


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of ``x`` over positions where ``mask`` is set (0 when the mask is empty)."""
    mask = mask.to(x.dtype)
    return (x * mask).sum() / mask.sum().clamp_min(1.0)


def token_policy_loss(
    log_prob: torch.Tensor,
    old_log_prob: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    clip_low: float,
    clip_high: float,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``[B, L]`` per-token -min(r A, clip(r, 1-clip_low, 1+clip_high) A) and its clip metrics.

    Args:
        log_prob: ``[B, L]`` log pi_theta(o_t) at the sampling temperature (carries grad).
        old_log_prob: ``[B, L]`` log pi_old(o_t) from the rollout policy (no grad).
        advantages: ``[B]`` or ``[B, L]`` (already masked by the truncation mask).
        response_mask: ``[B, L]`` 1 on response tokens, 0 on padding (metrics only).
        clip_low / clip_high: eps and eps_high (asymmetric clip-higher when they differ).

    Returns:
        ``(loss_mat, metrics)``; metrics are detached means over response tokens: ``clipfrac``
        (clipping active), ``clipfrac_high`` (A>0, r>1+eps_high), ``clipfrac_low`` (A<0,
        r<1-eps), ``ppo_kl`` (k1 estimate of KL(old || new)), ``ratio_mean``, and ``ratio_min`` /
        ``ratio_max`` over response tokens (1 / 1 when the mask is empty): the ratio's range, which
        only leaves 1 when the policy was updated since ``old_log_prob`` (a later mini-batch).
    """
    if advantages.dim() == 1:
        advantages = advantages.unsqueeze(-1)
    advantages = advantages.to(log_prob.dtype)
    log_ratio = torch.clamp(log_prob - old_log_prob, -20.0, 20.0)
    ratio = torch.exp(log_ratio)
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    loss_mat = torch.maximum(unclipped, clipped)  # = -min(rA, clip(r)A)
    with torch.no_grad():
        mask = response_mask.to(log_prob.dtype)
        high = (advantages > 0) & (ratio > 1.0 + clip_high)
        low = (advantages < 0) & (ratio < 1.0 - clip_low)
        metrics = {
            "clipfrac": masked_mean((clipped > unclipped).to(mask.dtype), mask),
            "clipfrac_high": masked_mean(high.to(mask.dtype), mask),
            "clipfrac_low": masked_mean(low.to(mask.dtype), mask),
            "ppo_kl": masked_mean(-log_ratio, mask),
            "ratio_mean": masked_mean(ratio, mask),
            "ratio_min": ratio[mask > 0].min() if mask.any() else ratio.new_tensor(1.0),
            "ratio_max": ratio[mask > 0].max() if mask.any() else ratio.new_tensor(1.0),
        }
    return loss_mat, metrics
