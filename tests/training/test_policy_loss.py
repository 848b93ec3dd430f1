"""Policy loss (issue 6 section 5, 'Loss'): -min(rA, clip(r, 1-eps, 1+eps_high)A), token-mean.

``token_policy_loss`` is what verl runs; the reference aggregates it as verl's token-mean does."""

import math

import pytest
import torch

from tests.training.grpo_reference import grpo_objective, kl_loss, kl_penalty, policy_loss
from training.grpo import PRESETS

RATIOS = [0.7, 0.79, 1.0, 1.25, 1.27, 1.35, 4.0]
EPS, EPS_HIGH = 0.2, 0.28


def _inputs():
    r = torch.tensor(RATIOS + RATIOS, dtype=torch.float64)
    adv = torch.tensor([1.0] * 7 + [-1.0] * 7, dtype=torch.float64)
    log_prob = torch.log(r).reshape(2, 7).clone().requires_grad_(True)
    old = torch.zeros(2, 7, dtype=torch.float64)
    return log_prob, old, adv.reshape(2, 7), torch.ones(2, 7)


def _per_token(r, a):
    clipped = min(max(r, 1 - EPS), 1 + EPS_HIGH)
    return -min(r * a, clipped * a)


def test_loss_equals_formula():
    log_prob, old, adv, mask = _inputs()
    loss, metrics = policy_loss(log_prob, old, adv, mask, clip_low=EPS, clip_high=EPS_HIGH)
    expected = sum(_per_token(r, a) for a in (1.0, -1.0) for r in RATIOS) / 14
    assert math.isclose(loss.item(), expected, rel_tol=1e-12)
    # A>0 clipped at r=1.35 and 4.0; A<0 clipped at r=0.7 and 0.79 (< 0.8)
    assert math.isclose(float(metrics["clipfrac_high"]), 2 / 14)
    assert math.isclose(float(metrics["clipfrac_low"]), 2 / 14)
    assert math.isclose(float(metrics["clipfrac"]), 4 / 14)
    assert math.isclose(float(metrics["ppo_kl"]), -sum(math.log(r) for r in RATIOS) * 2 / 14, rel_tol=1e-12)


def test_gradient_zero_where_clipped():
    log_prob, old, adv, mask = _inputs()
    loss, _ = policy_loss(log_prob, old, adv, mask, clip_low=EPS, clip_high=EPS_HIGH)
    loss.backward()
    g = log_prob.grad
    pos, neg = g[0], g[1]
    assert pos[RATIOS.index(1.35)] == 0 and pos[RATIOS.index(4.0)] == 0
    assert pos[RATIOS.index(1.27)] != 0
    # d/dlogp of -rA/N = -rA/N where the unclipped term is active
    for i, r in enumerate(RATIOS):
        clipped_pos = r > 1 + EPS_HIGH
        assert math.isclose(float(pos[i]), 0.0 if clipped_pos else -r / 14, abs_tol=1e-15)
        clipped_neg = r < 1 - EPS
        assert math.isclose(float(neg[i]), 0.0 if clipped_neg else r / 14, abs_tol=1e-15)


def test_padding_and_sequence_advantages():
    log_prob, old, adv, _ = _inputs()
    mask = torch.ones(2, 7)
    mask[:, 5:] = 0  # pad the last two tokens of each row
    loss, _ = policy_loss(log_prob, old, adv[:, 0], mask, clip_low=EPS, clip_high=EPS_HIGH)
    expected = sum(_per_token(r, a) for a in (1.0, -1.0) for r in RATIOS[:5]) / 10
    assert math.isclose(loss.item(), expected, rel_tol=1e-12)


def test_loss_ignores_reference_log_probs_when_beta_zero():
    log_prob, old, adv, mask = _inputs()
    gen = torch.Generator().manual_seed(0)
    ref_a = torch.randn(2, 7, generator=gen, dtype=torch.float64)
    ref_b = torch.randn(2, 7, generator=gen, dtype=torch.float64) * 5
    for name in ("microcoder", "dapo"):
        cfg = PRESETS[name]
        assert cfg.kl_coef == 0 and not cfg.use_kl_loss
        la, _ = grpo_objective(cfg, log_prob, old, adv, mask, ref_log_prob=ref_a)
        lb, _ = grpo_objective(cfg, log_prob, old, adv, mask, ref_log_prob=ref_b)
        ln, _ = grpo_objective(cfg, log_prob, old, adv, mask)
        assert la.item() == lb.item() == ln.item()
    grpo = PRESETS["grpo"]  # beta > 0: the reference model does matter (the check above can fail)
    la, m = grpo_objective(grpo, log_prob, old, adv, mask, ref_log_prob=ref_a)
    lb, _ = grpo_objective(grpo, log_prob, old, adv, mask, ref_log_prob=ref_b)
    assert la.item() != lb.item() and "kl_loss" in m
    with pytest.raises(ValueError):
        grpo_objective(grpo, log_prob, old, adv, mask)


def test_kl_estimators():
    lp = torch.tensor([-1.0, -2.0, -0.5], dtype=torch.float64)
    ref = torch.tensor([-1.5, -1.0, -0.5], dtype=torch.float64)
    assert torch.allclose(kl_penalty(lp, ref, "k1"), lp - ref)
    d = ref - lp
    assert torch.allclose(kl_penalty(lp, ref, "low_var_kl"), torch.exp(d) - d - 1)
    assert kl_penalty(lp, ref, "k3")[2] == 0 and (kl_penalty(lp, ref, "k3") >= 0).all()
    assert torch.allclose(kl_loss(lp[None], ref[None], torch.ones(1, 3), kind="k2"), (0.5 * (lp - ref) ** 2).mean())
    with pytest.raises(ValueError):
        kl_penalty(lp, ref, "k9")
