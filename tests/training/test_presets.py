"""Presets: GRPO, GRPO+ (DAPO), MicroCoder-GRPO with the paper's defaults."""

import pytest

from training.grpo import GRPOConfig, preset


def test_paper_defaults_and_differences():
    mc, dapo, grpo = preset("microcoder-grpo"), preset("dapo"), preset("GRPO")
    for cfg in (mc, dapo, grpo):
        assert (cfg.samples_per_query, cfg.lr, cfg.temperature, cfg.train_batch_size) == (8, 1e-6, 1.2, 64)
        assert cfg.reward == "binary" and cfg.clip_low == 0.2 and cfg.loss_agg == "token-mean"
    assert grpo.use_kl_loss and grpo.kl_coef > 0 and grpo.clip_high == 0.2 and grpo.mask_rho == 0
    assert not dapo.use_kl_loss and dapo.kl_coef == 0 and dapo.clip_high == 0.28 and dapo.mask_rho == 0
    assert not mc.use_kl_loss and mc.clip_high == 0.28 and mc.mask_rho == 0.3
    assert mc.mask_repeat_window == 128 and mc.mask_if == "incorrect" and mc.dual_clip_c is None
    assert preset("grpo+") == dapo and preset("microcoder") == mc


def test_overrides_and_validation():
    cfg = preset("microcoder-grpo", max_response_length=4096, temperature_schedule=[(1, 0.6), (100, 1.2)])
    assert cfg.max_response_length == 4096 and cfg.schedule().at(150) == 1.2
    assert preset("microcoder-grpo").schedule().at(1) == 1.2
    with pytest.raises(ValueError):
        preset("microcoder-grpo", temperature_schedule=[(1, 0.6), (2, 0.7), (3, 0.8)])
    with pytest.raises(ValueError):
        preset("ppo")
    with pytest.raises(ValueError):
        GRPOConfig(use_kl_loss=True, kl_coef=0.0)
    with pytest.raises(ValueError):
        GRPOConfig(mask_rho=1.5)
    with pytest.raises(ValueError, match="loss_agg"):  # a choice typed as text (JSON, the launchpad) is checked
        GRPOConfig(loss_agg="sum")
