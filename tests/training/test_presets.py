"""Presets: GRPO, GRPO+ (DAPO), MicroCoder-GRPO with the paper's defaults, one name space."""

import dataclasses

import pytest

from training.grpo import LABELS, PRESETS, GRPOConfig
from training.verl_ext.config import algorithm_for


def test_paper_defaults_and_differences():
    mc, dapo, grpo = PRESETS["microcoder"], PRESETS["dapo"], PRESETS["grpo"]
    for cfg in (mc, dapo, grpo):
        assert (cfg.samples_per_query, cfg.lr, cfg.temperature, cfg.train_batch_size) == (8, 1e-6, 1.2, 64)
        assert cfg.clip_low == 0.2 and cfg.loss_agg == "token-mean"
        assert cfg.updates_per_step == 4  # 64 / 16: the clip can bind (one update a step: ratio 1)
    # the paper's comparison: the baselines at its default T = 1.2, MicroCoder-GRPO with T(D)
    assert (grpo.temperature_rule, dapo.temperature_rule, mc.temperature_rule) == ("fixed", "fixed", "diversity")
    assert grpo.schedule().at(1) == dapo.schedule().at(300) == 1.2
    assert grpo.use_kl_loss and grpo.kl_coef > 0 and grpo.clip_high == 0.2 and grpo.mask_rho == 0
    assert not dapo.use_kl_loss and dapo.kl_coef == 0 and dapo.clip_high == 0.28 and dapo.mask_rho == 0
    assert not mc.use_kl_loss and mc.clip_high == 0.28 and mc.mask_rho == 0.3
    assert mc.mask_repeat_window == 128 and mc.mask_if == "incorrect"
    assert mc == GRPOConfig()  # the dataclass's defaults are the paper's MicroCoder-GRPO
    assert set(LABELS) == set(PRESETS) == {"grpo", "dapo", "microcoder"}
    assert LABELS["microcoder"] == "MicroCoder-GRPO"


def test_overrides_and_validation():
    cfg = PRESETS["microcoder"].replace(max_response_length=4096, temperature_schedule=[(1, 0.6), (100, 1.2)])
    assert cfg.max_response_length == 4096 and cfg.schedule().at(150) == 1.2
    assert cfg.temperature_schedule == {1: 0.6, 100: 1.2} and cfg.initial_temperature == 0.6
    assert cfg.replace(temperature_schedule={"1": 0.6, "100": 1.2}) == cfg  # the launchpad's map
    assert PRESETS["microcoder"].schedule().at(1) == 1.2
    with pytest.raises(ValueError):
        GRPOConfig(temperature_schedule=[(1, 0.6), (2, 0.7), (3, 0.8)])
    with pytest.raises(ValueError, match="unknown preset"):
        algorithm_for("ppo")
    for alias in ("grpo+", "microcoder-grpo", "GRPO"):  # one name space: the paper's names are labels only
        with pytest.raises(ValueError, match="unknown preset"):
            algorithm_for(alias)
    with pytest.raises(ValueError):
        GRPOConfig(use_kl_loss=True, kl_coef=0.0)
    with pytest.raises(ValueError):
        GRPOConfig(mask_rho=1.5)
    with pytest.raises(ValueError, match="loss_agg"):  # a choice typed as text (JSON, the launchpad) is checked
        GRPOConfig(loss_agg="sum")


def test_every_preset_and_profile_makes_several_updates_per_step():
    from training.verl_ext.config import PROFILES

    for preset in PRESETS:
        for profile in PROFILES:
            assert algorithm_for(preset, profile).updates_per_step >= 4, (preset, profile)


def test_a_config_is_a_value():
    cfg = GRPOConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.lr = 1e-5
    assert cfg.replace(lr=1e-5).lr == 1e-5 and cfg.lr == 1e-6


def test_settings_that_did_nothing_are_gone():
    """dual_clip_c, adv_eps, reward and name were offered and never reached verl (issue 25)."""
    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    assert not names & {"dual_clip_c", "adv_eps", "reward", "name"}
    with pytest.raises(ValueError, match="unknown algorithm settings"):
        algorithm_for("microcoder", dual_clip_c=3.0)
