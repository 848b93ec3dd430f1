"""MicroCoder-GRPO in plain torch (paper section 2, equations 1 and 2). No verl imports.

The verl extension (``training.verl_ext``) runs the policy loss, the truncation mask, the
diversity measure and T(D) from here; verl computes the group advantages and the KL term
itself. ``group_advantages``, ``kl_loss``, ``compute_advantages`` and ``grpo_objective`` are the
same equations in plain torch: the references the tests hold verl's numbers to."""

from .advantages import group_advantages, group_index, to_token_level
from .diversity import batch_output_diversity, distinct_n, output_diversity
from .logprobs import chunked_logprobs_at_temperature, fused_linear_logprobs, logprobs_at_temperature
from .policy_loss import aggregate_loss, kl_loss, kl_penalty, masked_mean, policy_loss
from .presets import PRESET_NAMES, GRPOConfig, preset
from .temperature import DiversityProbe, TemperatureSchedule, choose_temperature, measure_diversity
from .truncation_mask import (
    apply_truncation_mask,
    conditional_truncation_mask,
    is_repeat,
    problem_sample_key,
    sample_keys,
    truncation_mask_eligible,
    uniform_draws,
)

__all__ = [
    "group_advantages", "group_index", "to_token_level",
    "batch_output_diversity", "distinct_n", "output_diversity",
    "chunked_logprobs_at_temperature", "fused_linear_logprobs", "logprobs_at_temperature",
    "aggregate_loss", "kl_loss", "kl_penalty", "masked_mean", "policy_loss",
    "PRESET_NAMES", "GRPOConfig", "preset",
    "DiversityProbe", "TemperatureSchedule", "choose_temperature", "measure_diversity",
    "apply_truncation_mask", "conditional_truncation_mask", "is_repeat", "problem_sample_key", "sample_keys",
    "truncation_mask_eligible", "uniform_draws",
]

from .objective import compute_advantages, grpo_objective  # noqa: E402

__all__ += ["compute_advantages", "grpo_objective"]
