"""The algorithm as one verl-style config dataclass, and the paper's three presets (section 5.1).

Paper defaults (section 5): 8 samples per query, lr 1e-6, temperature 1.2, train batch 64,
binary 0/1 reward, eps_high 0.28, max response 8K (the main comparison table trains at 4K).
:class:`GRPOConfig`'s defaults are those values, stated once: the ``paper`` profile changes
nothing, and the GPU recipe starts from that profile. The presets are the paper's comparison
(section 5, Table 1): the baselines run at the paper's default T = 1.2, MicroCoder-GRPO adds the
red terms of equations 1 and 2 and T(D):

==============  ===============  ==========  ============  ===============  ===========
preset          label            KL loss     clip (lo/hi)  truncation mask  temperature
==============  ===============  ==========  ============  ===============  ===========
``grpo``        GRPO             k3, 0.001   0.2 / 0.2     off              fixed 1.2
``dapo``        GRPO+ (DAPO)     off         0.2 / 0.28    off              fixed 1.2
``microcoder``  MicroCoder-GRPO  off         0.2 / 0.28    rho 0.3, m 128   T(D)
==============  ===============  ==========  ============  ===============  ===========

T(D) (``temperature_rule="diversity"``) picks the starting temperature among
``temperature_candidates`` from a probe before step 1 and switches stages from the diversity
trend (:mod:`.temperature_control`); ``fixed`` samples at ``temperature`` or a typed schedule.

Updates per step: verl makes ``train_batch_size / ppo_mini_batch_size`` optimizer updates per
training step, all against the old log-probs taken before the first (section 7.1). The paper does
not state its mini-batch; with one update per step the ratio is always 1 and neither clip bound can
bind, so "no KL, clip-higher" would reduce to "no KL". The default is 4 updates (64 / 16), an
intermediate setting, which section 7.1 finds best.

rho = 0.3: the paper does not state the rate of its final runs; Figure 2 shows 30 % masking
already matches complete masking's length growth while keeping more stability, so 0.3 is the
documented default. Values the paper does not give (mini-batch, prompt length, the diversity
window, the target diversity) are marked.

The dataclass is verl-style: plain field types that OmegaConf understands (so verl's
``omega_conf_to_dataclass`` rebuilds it from the ``microcoder`` block of the verl config), fields
frozen once built (as verl's ``BaseConfig``), checked in ``__post_init__``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from .temperature import TemperatureSchedule

__all__ = ["GRPOConfig", "PRESETS", "LABELS", "CHOICES"]

# Fields that take one of a few words. Typed ``str`` (OmegaConf has no ``Literal``) and checked here.
CHOICES: dict[str, tuple[str, ...]] = {
    "temperature_rule": ("fixed", "diversity"),
    "loss_agg": ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum"),
    "kl_loss_type": ("k1", "kl", "k2", "mse", "k3", "low_var_kl"),
    "mask_if": ("incorrect", "correct"),
}


@dataclass
class GRPOConfig:
    """One algorithm configuration. Every field reaches verl: the standard ones through
    ``training.verl_ext.config.ALGORITHM_KEYS``, the rest through the trainer's ``microcoder`` block."""

    # sampling
    samples_per_query: int = 8  # G
    temperature: float = 1.2  # the fixed rule's T; used when temperature_schedule is None
    temperature_schedule: dict[int, float] | None = None  # fixed rule, staged: {first step (1-based): T}
    # diversity-determined temperature T(D) (section 2.4; training.grpo.temperature_control):
    # "diversity" probes the candidates before step 1 and switches stages from the trend;
    # "fixed" samples at ``temperature`` / ``temperature_schedule`` as typed.
    temperature_rule: str = "diversity"
    temperature_candidates: tuple[float, ...] = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6)
    # D = distinct-4 over the first ``diversity_tokens`` tokens of each of a group's G responses,
    # pooled (training.grpo.diversity): every response contributes the same number of 4-grams, so
    # longer responses alone do not read as less diverse. The probe samples only that many tokens.
    diversity_tokens: int = 256  # not given in the paper
    target_diversity: float = 0.5  # the level D converges to: not given in the paper, calibrate it (docs/training.md)
    max_probe_spread: float = 0.15  # probe: spread of D across prompts above which a T is refused
    fluctuation_z: float = 3.0  # training: D's scatter around its trend over the window, in step standard errors
    probe_prompts: int = 16  # training prompts sampled (G each, diversity_tokens long) per candidate before step 1
    diversity_window: int = 5  # steps of the current stage whose trend decides a switch
    min_stage_steps: int = 10  # no stage (typed or T(D)) shorter than this: stages, not ramps
    max_response_length: int = 8192  # L_max (4096 in the paper's main table)
    max_prompt_length: int = 2048  # not stated in the paper
    # optimisation
    lr: float = 1e-6
    train_batch_size: int = 64  # queries per step
    ppo_mini_batch_size: int = 16  # not stated in the paper: 64 / 16 = 4 updates per step (section 7.1)
    loss_agg: str = "token-mean"
    clip_low: float = 0.2  # eps
    clip_high: float = 0.28  # eps_high
    # KL (beta of eq. 1); only the GRPO preset turns it on
    use_kl_loss: bool = False
    kl_coef: float = 0.0
    kl_loss_type: str = "low_var_kl"
    # advantages (eq. 2): verl's GRPO estimator, mean-centred and divided by the group's std (+1e-6)
    norm_adv_by_std: bool = True
    # conditional truncation mask (eq. 2 indicator); rho 0 turns it off. Its draws are keyed by the
    # run's seed (TrainingConfig.seed), step, problem and sample index
    mask_rho: float = 0.3
    mask_repeat_window: int = 128  # m
    mask_if: str = "incorrect"

    def __setattr__(self, name: str, value) -> None:
        if name in self.__dict__:  # set once, by __init__: a config is a value (verl's BaseConfig does the same)
            raise dataclasses.FrozenInstanceError(f"GRPOConfig.{name} is frozen; use replace()")
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        for name, choices in CHOICES.items():
            if getattr(self, name) not in choices:
                raise ValueError(f"{name} must be one of {choices}, got {getattr(self, name)!r}")
        if self.samples_per_query < 2:
            raise ValueError("GRPO needs at least 2 samples per query")
        if not 0.0 <= self.mask_rho <= 1.0:
            raise ValueError("mask_rho must be in [0, 1]")
        if self.clip_low <= 0 or self.clip_high <= 0:
            raise ValueError("clip ranges must be positive")
        if self.use_kl_loss != (self.kl_coef > 0):
            raise ValueError("use_kl_loss and kl_coef > 0 must agree (beta = 0 means no KL loss)")
        if self.train_batch_size % self.ppo_mini_batch_size:
            raise ValueError("train_batch_size must be a multiple of ppo_mini_batch_size")
        if self.temperature_schedule is not None:
            object.__setattr__(self, "temperature_schedule", _stages(self.temperature_schedule))
        object.__setattr__(self, "temperature_candidates", tuple(float(t) for t in self.temperature_candidates))
        if not self.temperature_candidates or min(self.temperature_candidates) <= 0:
            raise ValueError("temperature_candidates must be positive temperatures")
        if not 0 < self.target_diversity <= 1 or self.max_probe_spread <= 0 or self.probe_prompts < 1:
            raise ValueError("need 0 < target_diversity <= 1, max_probe_spread > 0 and probe_prompts >= 1")
        if self.fluctuation_z <= 0 or self.diversity_tokens < 4:
            raise ValueError("need fluctuation_z > 0 and diversity_tokens >= 4 (one 4-gram)")
        if self.diversity_window < 3 or self.min_stage_steps < self.diversity_window:
            raise ValueError("need diversity_window >= 3 (a trend and a scatter around it) "
                             "and min_stage_steps >= diversity_window")
        self.schedule()  # validates the stages (rejects ramps)

    def schedule(self) -> TemperatureSchedule:
        """The fixed rule's staged schedule (a single stage at ``temperature`` by default)."""
        stages = sorted(self.temperature_schedule.items()) if self.temperature_schedule else None
        return TemperatureSchedule.starting_at(self.temperature, stages, min_stage_steps=self.min_stage_steps)

    @property
    def updates_per_step(self) -> int:
        """Optimizer updates per training step (verl: train batch / mini-batch)."""
        return self.train_batch_size // self.ppo_mini_batch_size

    @property
    def initial_temperature(self) -> float:
        """T of step 1 as rendered for verl; the trainer replaces it by T(D)'s choice under that rule."""
        return self.schedule().at(1)

    def diversity_controller(self):
        """The T(D) controller for a run (:class:`~training.grpo.temperature_control.DiversityTemperature`)."""
        from .temperature_control import DiversityTemperature

        return DiversityTemperature(self.temperature_candidates, self.target_diversity, self.max_probe_spread,
                                    fluctuation_z=self.fluctuation_z, window=self.diversity_window,
                                    min_stage_steps=self.min_stage_steps)

    def replace(self, **changes) -> "GRPOConfig":
        return dataclasses.replace(self, **changes)


def _stages(schedule) -> dict[int, float]:
    """``{first step: T}`` from a map (the launchpad's, OmegaConf's) or ``[(step, T), ...]`` pairs;
    :class:`TemperatureSchedule` validates the stages."""
    pairs = schedule.items() if isinstance(schedule, Mapping) else schedule
    try:
        stages = [(int(step), float(t)) for step, t in pairs]
    except (TypeError, ValueError) as err:
        raise ValueError(f"temperature_schedule is {{first step: T}} or [(step, T), ...], got {schedule!r}") from err
    return dict(sorted(stages))


PRESETS: dict[str, GRPOConfig] = {
    "grpo": GRPOConfig(clip_high=0.2, use_kl_loss=True, kl_coef=0.001, mask_rho=0.0, temperature_rule="fixed"),
    "dapo": GRPOConfig(mask_rho=0.0, temperature_rule="fixed"),
    "microcoder": GRPOConfig(),
}
LABELS: dict[str, str] = {"grpo": "GRPO", "dapo": "GRPO+ (DAPO)", "microcoder": "MicroCoder-GRPO"}
assert set(LABELS) == set(PRESETS)
