"""MicroCoder-GRPO's own parts, in plain torch (paper section 2). No verl imports.

What verl executes, through :mod:`training.verl_ext`: the per-token clipped loss and its clip
metrics (:mod:`.policy_loss`), the conditional truncation mask (:mod:`.truncation_mask`), output
diversity (:mod:`.diversity`), staged temperatures and T(D) (:mod:`.temperature`,
:mod:`.temperature_control`), held-out pass@1 (:mod:`.evaluation`) and the algorithm's config and
presets (:mod:`.presets`). verl computes the group advantages, the loss aggregation and the KL term
itself; their plain-torch references live in ``tests/training/grpo_reference.py``.
"""

from .diversity import batch_group_diversities, distinct_n, group_diversities, group_index, mean_and_stderr
from .policy_loss import masked_mean, token_policy_loss
from .presets import CHOICES, LABELS, PRESETS, GRPOConfig
from .temperature import DiversityProbe, TemperatureSchedule, choose_temperature, measure_diversity
from .truncation_mask import (
    apply_truncation_mask,
    conditional_truncation_mask,
    is_repeat,
    problem_sample_key,
    truncation_mask_eligible,
    uniform_draws,
)

__all__ = [
    "batch_group_diversities", "distinct_n", "group_diversities", "group_index", "mean_and_stderr",
    "masked_mean", "token_policy_loss",
    "CHOICES", "LABELS", "PRESETS", "GRPOConfig",
    "DiversityProbe", "TemperatureSchedule", "choose_temperature", "measure_diversity",
    "apply_truncation_mask", "conditional_truncation_mask", "is_repeat", "problem_sample_key",
    "truncation_mask_eligible", "uniform_draws",
]
