"""MicroCoder's policy loss registered in verl as ``loss_mode=microcoder``: a thin wrapper, like
verl's own losses, around :func:`training.grpo.policy_loss.token_policy_loss` (eq. 1 with
clip-higher, no dual clip). verl aggregates the matrix (``agg_loss`` with its global-batch token
normaliser) and adds the KL term after it when ``use_kl_loss`` is set; the clip metrics come from
the same pass.

How verl 0.9.1 reduces these metrics over a step (``engine_workers.train_mini_batch`` and
``reduce_metrics``): per mini-batch, the mean over its micro-batches (and data-parallel ranks); over
the step's mini-batches, the mean, except for names holding "max" or "min", which take the largest
or smallest mini-batch value. So ``actor/ratio_max`` is the largest ratio seen in the step exactly
when each mini-batch is one micro-batch per GPU, and otherwise the largest of the mini-batches'
micro-batch means of their maxima (a lower bound of the true maximum; ``ratio_min`` likewise an upper
bound of the minimum)."""

from __future__ import annotations

from typing import Any

import torch
from verl.trainer.ppo.core_algos import agg_loss, register_policy_loss

from training.grpo.policy_loss import token_policy_loss

from . import trace
from .keys import LOSS_MODE


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
    loss_mat, m = token_policy_loss(log_prob, old_log_prob, advantages, response_mask,
                                    clip_low=clip_low, clip_high=clip_high)
    if rollout_is_weights is not None:
        loss_mat = loss_mat * rollout_is_weights
    loss = agg_loss(loss_mat=loss_mat, loss_mask=response_mask, loss_agg_mode=loss_agg_mode,
                    **config.global_batch_info)
    return loss, {f"actor/{name}": m[key].item() for name, key in (
        ("pg_clipfrac", "clipfrac"), ("pg_clipfrac_high", "clipfrac_high"), ("pg_clipfrac_low", "clipfrac_low"),
        ("ppo_kl", "ppo_kl"), ("ratio_mean", "ratio_mean"), ("ratio_min", "ratio_min"), ("ratio_max", "ratio_max"))}
