"""Algorithm presets for side-by-side runs (paper section 5.1): GRPO, GRPO+ (DAPO), MicroCoder-GRPO.

Paper defaults (section 5): 8 samples per query, lr 1e-6, temperature 1.2, train batch 64,
binary 0/1 reward, eps_high 0.28, max response 8K (the main comparison table trains at 4K).
Differences between the presets are only the red terms of equations 1 and 2:

========================  ==========  ===========  ==================  ================
preset                    KL loss     clip (lo/hi) truncation mask     temperature
========================  ==========  ===========  ==================  ================
``grpo``                  k3, 0.001   0.2 / 0.2    off                 1.2
``grpo+`` (``dapo``)      off         0.2 / 0.28   off                 1.2
``microcoder-grpo``       off         0.2 / 0.28   rho 0.3, m 128      T(D), 1.2
========================  ==========  ===========  ==================  ================

rho = 0.3: the paper does not state the rate of its final runs; Figure 2 shows 30 % masking
already matches complete masking's length growth while keeping more stability, so 0.3 is the
documented default. Values the paper does not give (mini-batch, prompt length) are marked.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Literal

from .temperature import TemperatureSchedule

__all__ = ["GRPOConfig", "preset", "PRESET_NAMES"]


@dataclass(frozen=True)
class GRPOConfig:
    """One algorithm configuration; the verl extension renders it into Hydra overrides."""

    name: str = "microcoder-grpo"
    # sampling
    samples_per_query: int = 8  # G
    temperature: float = 1.2  # T(D); used when temperature_schedule is None
    temperature_schedule: tuple[tuple[int, float], ...] | None = None  # staged [(first step, T)], 1-based
    # diversity-determined temperature T(D) (section 2.4; training.grpo.temperature_control):
    # "diversity" probes the candidates before step 1 and switches stages from the trend;
    # "fixed" samples at ``temperature`` / ``temperature_schedule`` as typed.
    temperature_rule: Literal["fixed", "diversity"] = "diversity"
    temperature_candidates: tuple[float, ...] = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6)
    target_diversity: float = 0.5  # the level diversity converges to (configured; not given in the paper)
    max_fluctuation: float = 0.15  # spread of distinct-4 above which T is too high
    probe_prompts: int = 16  # training prompts sampled (G each) per candidate before step 1
    diversity_window: int = 5  # steps of the current stage whose trend decides a switch
    min_stage_steps: int = 10  # no stage (typed or T(D)) shorter than this: stages, not ramps
    max_response_length: int = 8192  # L_max (4096 in the paper's main table)
    max_prompt_length: int = 2048  # not stated in the paper
    # optimisation
    lr: float = 1e-6
    train_batch_size: int = 64  # queries per step
    ppo_mini_batch_size: int = 64  # not stated in the paper; = train batch -> one update per step
    loss_agg: Literal["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"] = "token-mean"
    clip_low: float = 0.2  # eps
    clip_high: float = 0.28  # eps_high
    dual_clip_c: float | None = None
    # KL (beta of eq. 1); only the GRPO preset turns it on
    use_kl_loss: bool = False
    kl_coef: float = 0.0
    kl_loss_type: Literal["k1", "kl", "k2", "mse", "k3", "low_var_kl"] = "low_var_kl"
    # advantages (eq. 2)
    norm_adv_by_std: bool = True
    adv_eps: float = 1e-6
    reward: Literal["binary"] = "binary"
    # conditional truncation mask (eq. 2 indicator); rho 0 turns it off. Its draws are keyed by the
    # run's seed (TrainingConfig.seed), step, problem and sample index
    mask_rho: float = 0.3
    mask_repeat_window: int = 128  # m
    mask_if: Literal["incorrect", "correct"] = "incorrect"

    def __post_init__(self) -> None:
        _check_choices(self)
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
            object.__setattr__(self, "temperature_schedule", tuple(tuple(s) for s in self.temperature_schedule))
        object.__setattr__(self, "temperature_candidates", tuple(float(t) for t in self.temperature_candidates))
        if not self.temperature_candidates or min(self.temperature_candidates) <= 0:
            raise ValueError("temperature_candidates must be positive temperatures")
        if not 0 < self.target_diversity <= 1 or self.max_fluctuation <= 0 or self.probe_prompts < 1:
            raise ValueError("need 0 < target_diversity <= 1, max_fluctuation > 0 and probe_prompts >= 1")
        if self.diversity_window < 2 or self.min_stage_steps < self.diversity_window:
            raise ValueError("need diversity_window >= 2 and min_stage_steps >= diversity_window")
        self.schedule()  # validates the stages (rejects ramps)

    def schedule(self) -> TemperatureSchedule:
        """The staged temperature schedule (a single stage at ``temperature`` by default)."""
        return TemperatureSchedule.starting_at(self.temperature, self.temperature_schedule,
                                               min_stage_steps=self.min_stage_steps)

    def diversity_controller(self):
        """The T(D) controller for a run (:class:`~training.grpo.temperature_control.DiversityTemperature`)."""
        from .temperature_control import DiversityTemperature

        return DiversityTemperature(self.temperature_candidates, self.target_diversity, self.max_fluctuation,
                                    window=self.diversity_window, min_stage_steps=self.min_stage_steps)

    def replace(self, **changes) -> "GRPOConfig":
        return dataclasses.replace(self, **changes)


def _check_choices(config: GRPOConfig) -> None:
    """Every ``Literal`` field holds one of its choices (values from JSON or a launchpad are text)."""
    hints = typing.get_type_hints(GRPOConfig)
    for f in dataclasses.fields(config):
        hint = hints[f.name]
        choices = typing.get_args(hint) if typing.get_origin(hint) is Literal else ()
        if choices and getattr(config, f.name) not in choices:
            raise ValueError(f"{f.name} must be one of {choices}, got {getattr(config, f.name)!r}")


_PRESETS: dict[str, GRPOConfig] = {
    "grpo": GRPOConfig(
        name="grpo", clip_high=0.2, use_kl_loss=True, kl_coef=0.001, mask_rho=0.0
    ),
    "grpo+": GRPOConfig(name="grpo+", mask_rho=0.0),
    "microcoder-grpo": GRPOConfig(name="microcoder-grpo"),
}
_ALIASES = {"dapo": "grpo+", "grpo_plus": "grpo+", "grpo-plus": "grpo+", "microcoder": "microcoder-grpo",
            "microcoder_grpo": "microcoder-grpo"}
PRESET_NAMES = tuple(_PRESETS)


def preset(name: str, **overrides) -> GRPOConfig:
    """The named preset (``grpo``, ``grpo+``/``dapo``, ``microcoder-grpo``), with overrides."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {PRESET_NAMES} (or 'dapo')")
    return _PRESETS[key].replace(**overrides) if overrides else _PRESETS[key]
