"""The reference group advantages (tests/training/grpo_reference.py) against verl's
compute_grpo_outcome_advantage, transcribed; test_verl_algorithms.py runs verl's own."""

from collections import defaultdict

import numpy as np
import torch

from tests.training.grpo_reference import group_advantages, to_token_level


def verl_grpo_reference(scores, index, epsilon=1e-6, norm=True):
    """verl 0.x core_algos.compute_grpo_outcome_advantage, on scalar scores."""
    scores = scores.clone()
    id2score, id2mean, id2std = defaultdict(list), {}, {}
    for i in range(scores.shape[0]):
        id2score[index[i]].append(scores[i])
    for idx, vals in id2score.items():
        if len(vals) == 1:
            id2mean[idx], id2std[idx] = torch.tensor(0.0), torch.tensor(1.0)
        else:
            t = torch.stack(vals)
            id2mean[idx], id2std[idx] = torch.mean(t), torch.std(t)
    for i in range(scores.shape[0]):
        if norm:
            scores[i] = (scores[i] - id2mean[index[i]]) / (id2std[index[i]] + epsilon)
        else:
            scores[i] = scores[i] - id2mean[index[i]]
    return scores


def test_matches_verl_on_mixed_groups():
    gen = torch.Generator().manual_seed(0)
    rewards = (torch.rand(40, generator=gen) > 0.6).float()
    index = np.array([f"u{i % 5}" for i in range(39)] + ["lonely"], dtype=object)
    for norm in (True, False):
        ours = group_advantages(rewards, index, norm_by_std=norm)
        assert torch.equal(ours, verl_grpo_reference(rewards, index, norm=norm))


def test_values_and_edge_cases():
    r = torch.tensor([1.0, 1, 0, 0, 0, 0, 0, 0])
    a = group_advantages(r, [0] * 8)
    std = torch.tensor([1.0, 1, 0, 0, 0, 0, 0, 0]).std()  # unbiased, 0.4629
    assert torch.allclose(a[:2], (1 - 0.25) / (std + 1e-6)) and torch.allclose(a[2:], -0.25 / (std + 1e-6))
    assert abs(float(a.sum())) < 1e-6
    assert torch.equal(group_advantages(torch.ones(8), [0] * 8), torch.zeros(8))  # all equal -> 0
    assert group_advantages(torch.tensor([1.0]), ["x"], singleton="zero").tolist() == [0.0]
    assert torch.allclose(group_advantages(torch.tensor([1.0]), ["x"]), torch.tensor([1 / (1 + 1e-6)]))
    tok = to_token_level(a, torch.tensor([[1, 1, 0]] * 8))
    assert tok.shape == (8, 3) and torch.equal(tok[:, 2], torch.zeros(8)) and torch.equal(tok[:, 0], a)
