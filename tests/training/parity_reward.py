"""A reward for plumbing checks only: 1 when the response's hash is even, else 0.

SmolLM2 almost never solves a problem within the few tokens a CPU test allows, so with the real
evaluator every group scores all 0 and every advantage is 0, and a masked sample could not be
told apart from an unmasked one. This reward is a deterministic function of the response that
splits most groups of 4, so the check in test_verl_cpu sees non-zero advantages to mask or keep.
"""

import hashlib


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> float:
    return float(hashlib.sha256(solution_str.encode()).digest()[0] % 2 == 0)
