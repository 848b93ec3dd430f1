"""The two per-step entry points a trainer calls, driven by a :class:`GRPOConfig`.

- :func:`compute_advantages`: equation 2 (group-normalized A_i times the truncation-mask
  factor), for the trainer's advantage step, where response ids are available.
- :func:`grpo_objective`: equation 1 negated (clipped loss, plus beta * KL only when the
  preset has a KL loss); for a ``register_policy_loss``-style wrapper or a plain loop.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .advantages import group_advantages
from .policy_loss import kl_loss, policy_loss
from .presets import GRPOConfig
from .truncation_mask import apply_truncation_mask, conditional_truncation_mask
from .truncation_mask import sample_keys as _sample_keys

__all__ = ["compute_advantages", "grpo_objective"]


def compute_advantages(
    config: GRPOConfig,
    rewards: torch.Tensor,
    group_ids: Sequence | torch.Tensor,
    response_ids: torch.Tensor | Sequence[Sequence[int]],
    lengths: torch.Tensor | Sequence[int] | None,
    *,
    step: int,
    seed: int = 0,
    sample_keys: Sequence[object] | None = None,
) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
    """``(advantages [B], mask [B] bool, metrics)`` for one batch of G-sample groups.

    ``seed`` is the run's seed (mask draws are keyed by seed, step and sample). ``sample_keys`` default to ``"<uid>#<k>"`` built from ``group_ids`` of this (full) batch;
    pass keys built on the driver when calling on a shard. Metrics: ``mask/masked`` (count),
    ``mask/truncated`` (samples with |o| = L_max), ``mask/truncation_rate``.
    """
    adv = group_advantages(rewards, group_ids, eps=config.adv_eps, norm_by_std=config.norm_adv_by_std)
    keys = list(sample_keys) if sample_keys is not None else _sample_keys(group_ids)
    mask = conditional_truncation_mask(
        response_ids, lengths, rewards, config.max_response_length,
        rho=config.mask_rho, sample_keys=keys, seed=seed, step=step,
        m=config.mask_repeat_window, mask_if=config.mask_if,
    )
    if isinstance(lengths, torch.Tensor):
        lens = lengths.tolist()
    elif lengths is not None:
        lens = list(lengths)
    else:
        lens = [len(r) for r in response_ids]
    truncated = sum(int(n) == config.max_response_length for n in lens)
    metrics = {
        "mask/masked": float(mask.sum()),
        "mask/truncated": float(truncated),
        "mask/truncation_rate": truncated / max(1, len(lens)),
    }
    return apply_truncation_mask(adv, mask.to(adv.device)), mask, metrics


def grpo_objective(
    config: GRPOConfig,
    log_prob: torch.Tensor,
    old_log_prob: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    ref_log_prob: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Loss to minimise: policy loss (eq. 1 clipped term) + kl_coef * KL(pi || pi_ref).

    With beta = 0 (GRPO+, MicroCoder-GRPO) ``ref_log_prob`` is ignored and no reference model is
    needed; the GRPO preset requires it.
    """
    loss, metrics = policy_loss(
        log_prob, old_log_prob, advantages, response_mask,
        clip_low=config.clip_low, clip_high=config.clip_high,
        dual_clip_c=config.dual_clip_c, loss_agg=config.loss_agg,
    )
    if config.use_kl_loss:
        if ref_log_prob is None:
            raise ValueError(f"preset {config.name!r} has a KL loss: ref_log_prob is required")
        kl = kl_loss(log_prob, ref_log_prob, response_mask, kind=config.kl_loss_type, loss_agg=config.loss_agg)
        loss = loss + config.kl_coef * kl
        metrics["kl_loss"] = kl.detach()
    return loss, metrics
