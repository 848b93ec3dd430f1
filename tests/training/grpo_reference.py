"""The paper's equations 1 and 2 in plain torch: the references verl's numbers are checked against.

verl runs GRPO itself: its GRPO estimator computes the group advantages, its actor aggregates the
per-token loss (:func:`training.grpo.policy_loss.token_policy_loss`, registered as
``loss_mode=microcoder``) and adds the KL term. These functions restate those equations
independently, the way verl keeps its algorithm checks in its tests:
``tests/training/test_verl_algorithms.py`` runs verl's own functions against them, and the unit
tests pin the equations on hand-computed values.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from training.grpo.diversity import group_index
from training.grpo.policy_loss import masked_mean, token_policy_loss
from training.grpo.presets import GRPOConfig
from training.grpo.truncation_mask import apply_truncation_mask, conditional_truncation_mask


def aggregate_loss(loss_mat: torch.Tensor, response_mask: torch.Tensor, mode: str = "token-mean") -> torch.Tensor:
    """Reduce a ``[B, L]`` loss to a scalar. ``token-mean`` (the paper's, DAPO's) weights every
    response token equally across the batch; the ``seq-mean-*`` modes follow verl's names."""
    mask = response_mask.to(loss_mat.dtype)
    if mode == "token-mean":
        return masked_mean(loss_mat, mask)
    per_seq = (loss_mat * mask).sum(-1)
    if mode == "seq-mean-token-sum":
        return per_seq.mean()
    if mode == "seq-mean-token-mean":
        return (per_seq / mask.sum(-1).clamp_min(1.0)).mean()
    raise ValueError(f"unknown loss aggregation {mode!r}")


def policy_loss(log_prob, old_log_prob, advantages, response_mask, *, clip_low=0.2, clip_high=0.28,
                loss_agg="token-mean"):
    """Equation 1's clipped term, negated and aggregated: ``(loss, metrics)``."""
    loss_mat, metrics = token_policy_loss(log_prob, old_log_prob, advantages, response_mask,
                                          clip_low=clip_low, clip_high=clip_high)
    return aggregate_loss(loss_mat, response_mask, loss_agg), metrics


def kl_penalty(log_prob: torch.Tensor, ref_log_prob: torch.Tensor, kind: str = "low_var_kl") -> torch.Tensor:
    """Per-token estimate of KL(pi_theta || pi_ref) (Schulman's k1/k2/k3, verl's names).

    ``low_var_kl``/``k3``: exp(ref - logp) - (ref - logp) - 1, clamped as verl does.
    """
    if kind in ("k1", "kl"):
        return log_prob - ref_log_prob
    if kind in ("k2", "mse"):
        return 0.5 * (log_prob - ref_log_prob).square()
    if kind in ("k3", "low_var_kl"):
        d = torch.clamp(ref_log_prob - log_prob, -20.0, 20.0)
        return torch.clamp(torch.exp(d) - d - 1.0, -10.0, 10.0)
    raise ValueError(f"unknown KL estimator {kind!r}")


def kl_loss(log_prob, ref_log_prob, response_mask, *, kind="low_var_kl", loss_agg="token-mean") -> torch.Tensor:
    """The beta * D_KL term of equation 1 without beta; only the GRPO preset uses it (beta > 0)."""
    return aggregate_loss(kl_penalty(log_prob, ref_log_prob, kind), response_mask, loss_agg)


def group_advantages(rewards: torch.Tensor, group_ids, eps: float = 1e-6, norm_by_std: bool = True,
                     singleton: str = "verl") -> torch.Tensor:
    """A_i = (r_i - mean(r_1..r_G)) / (std(r_1..r_G) + eps) over each query's G samples (eq. 2).

    The unbiased std (divisor G-1), as verl's ``compute_grpo_outcome_advantage``; a group of one
    gets mean 0 and std 1 there (``singleton="verl"``) or advantage 0 (``"zero"``).
    """
    if rewards.dim() != 1:
        raise ValueError(f"rewards must be [B], got shape {tuple(rewards.shape)}")
    if len(group_ids) != rewards.shape[0]:
        raise ValueError(f"{len(group_ids)} group ids for {rewards.shape[0]} rewards")
    scores = rewards.detach().to(torch.float32)
    out = torch.empty_like(scores)
    for positions in group_index(group_ids):
        idx = torch.tensor(positions, device=scores.device)
        group = scores[idx]
        if group.numel() == 1:
            if singleton == "zero":
                out[idx] = 0.0
                continue
            mean, std = torch.tensor(0.0), torch.tensor(1.0)
        else:
            mean, std = torch.mean(group), torch.std(group)
        out[idx] = (group - mean) / (std + eps) if norm_by_std else group - mean
    return out


def to_token_level(advantages: torch.Tensor, response_mask: torch.Tensor) -> torch.Tensor:
    """Broadcast ``[B]`` sequence advantages to verl's ``[B, response_len]`` layout."""
    return advantages.unsqueeze(-1) * response_mask.to(advantages.dtype)


def sample_keys(group_ids: Sequence | torch.Tensor) -> list[str]:
    """Stable per-sample keys ``"<uid>#<k>"`` (k = the sample's rank within its query).

    """
    if isinstance(group_ids, torch.Tensor):
        group_ids = group_ids.tolist()
    seen: dict[str, int] = {}
    keys = []
    for gid in group_ids:
        g = str(gid.item() if hasattr(gid, "item") else gid)
        k = seen.get(g, 0)
        seen[g] = k + 1
        keys.append(f"{g}#{k}")
    return keys


def compute_advantages(config: GRPOConfig, rewards, group_ids, response_ids, lengths, *, step: int, seed: int = 0,
                       keys: Sequence[object] | None = None):
    """Equation 2 whole: ``(advantages [B], mask [B])``, group-normalised then masked, no renorm."""
    adv = group_advantages(rewards, group_ids, norm_by_std=config.norm_adv_by_std)
    mask = conditional_truncation_mask(
        response_ids, lengths, rewards, config.max_response_length, rho=config.mask_rho,
        sample_keys=list(keys) if keys is not None else sample_keys(group_ids), seed=seed, step=step,
        m=config.mask_repeat_window, mask_if=config.mask_if)
    return apply_truncation_mask(adv, mask), mask


def grpo_objective(config: GRPOConfig, log_prob, old_log_prob, advantages, response_mask, ref_log_prob=None):
    """Equation 1 negated: the clipped loss, plus kl_coef * KL(pi || pi_ref) when the preset has a KL loss."""
    loss, metrics = policy_loss(log_prob, old_log_prob, advantages, response_mask, clip_low=config.clip_low,
                                clip_high=config.clip_high, loss_agg=config.loss_agg)
    if config.use_kl_loss:
        if ref_log_prob is None:
            raise ValueError("this preset has a KL loss: ref_log_prob is required")
        kl = kl_loss(log_prob, ref_log_prob, response_mask, kind=config.kl_loss_type, loss_agg=config.loss_agg)
        loss = loss + config.kl_coef * kl
        metrics["kl_loss"] = kl.detach()
    return loss, metrics
