"""MicroCoder's policy loss registered in verl as ``loss_mode=microcoder``.

verl's ``vanilla`` loss is the same clipped objective with clip-higher (``clip_ratio_high``)
but it always applies dual-clip for A < 0 (``clip_ratio_c``, default 3), which the paper does
not use, so the two are not identical. This loss is eq. 1 of the paper,
-min(r A, clip(r, 1-eps, 1+eps_high) A) with no dual clip and no KL term, as
:func:`training.grpo.policy_loss.policy_loss` defines it. The per-token matrix is formed here
because verl aggregates it itself (``agg_loss`` with its global-batch token normaliser across
micro-batches and ranks); the test checks its token-mean equals ``policy_loss`` exactly.
The clip fractions (``clipfrac_high``: A>0, r>1+eps_high; ``clipfrac_low``: A<0, r<1-eps)
come from ``policy_loss`` and are logged as actor metrics. All three presets use this loss, so
GRPO differs from GRPO+ only by its KL loss (added by verl after this function, from
``use_kl_loss``) and its symmetric clip, as the paper's baselines do.
"""

from __future__ import annotations

from typing import Any

import torch
from verl.trainer.ppo.core_algos import agg_loss, register_policy_loss

from training.grpo.policy_loss import policy_loss

from . import trace

LOSS_MODE = "microcoder"


def _trace_rows(old_log_prob: torch.Tensor, advantages: torch.Tensor, response_mask: torch.Tensor) -> list[dict]:
    """What each row of this micro-batch receives: length, old log-prob sum (a fingerprint), advantage."""
    mask = response_mask.to(torch.bool)
    adv = advantages if advantages.dim() == 2 else advantages.unsqueeze(-1).expand_as(old_log_prob)
    rows = []
    for i in range(mask.shape[0]):
        a = adv[i][mask[i]].detach().double()
        rows.append({"length": int(mask[i].sum()), "old_logprob_sum": float(old_log_prob[i][mask[i]].double().sum()),
                     "adv_min": float(a.min()) if a.numel() else 0.0, "adv_max": float(a.max()) if a.numel() else 0.0})
    return rows


def token_loss_matrix(log_prob: torch.Tensor, old_log_prob: torch.Tensor, advantages: torch.Tensor,
                      clip_low: float, clip_high: float) -> torch.Tensor:
    """``[B, L]`` per-token -min(r A, clip(r, 1-clip_low, 1+clip_high) A)."""
    ratio = torch.exp(torch.clamp(log_prob - old_log_prob, -20.0, 20.0))
    adv = advantages if advantages.dim() == 2 else advantages.unsqueeze(-1)
    return torch.maximum(-adv * ratio, -adv * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high))


@register_policy_loss(LOSS_MODE)
def compute_policy_loss_microcoder(
    old_log_prob: torch.Tensor,
    log_prob: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    loss_agg_mode: str = "token-mean",
    config: Any = None,
    rollout_is_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, Any]]:
    """verl ``PolicyLossFn``: (loss, metrics)."""
    clip_low = config.clip_ratio_low if config.clip_ratio_low is not None else config.clip_ratio
    clip_high = config.clip_ratio_high if config.clip_ratio_high is not None else config.clip_ratio
    if trace.trace_dir() is not None:
        trace.write("loss", _trace_rows(old_log_prob, advantages, response_mask))
    loss_mat = token_loss_matrix(log_prob, old_log_prob, advantages, clip_low, clip_high)
    if rollout_is_weights is not None:
        loss_mat = loss_mat * rollout_is_weights
    loss = agg_loss(loss_mat=loss_mat, loss_mask=response_mask, loss_agg_mode=loss_agg_mode,
                    **config.global_batch_info)
    _, m = policy_loss(log_prob.detach(), old_log_prob, advantages, response_mask,
                       clip_low=clip_low, clip_high=clip_high)
    return loss, {
        "actor/pg_clipfrac": m["clipfrac"].item(),
        "actor/pg_clipfrac_high": m["clipfrac_high"].item(),
        "actor/pg_clipfrac_low": m["clipfrac_low"].item(),
        "actor/ppo_kl": m["ppo_kl"].item(),
        "actor/ratio_mean": m["ratio_mean"].item(),
    }
