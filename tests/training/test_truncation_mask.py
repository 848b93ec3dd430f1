"""Conditional truncation mask (issue 6 section 5, 'Mask'), paper equation 2."""

import pytest
import torch

from tests.training.grpo_reference import compute_advantages, group_advantages, sample_keys
from training.grpo import (
    PRESETS,
    apply_truncation_mask,
    conditional_truncation_mask,
    is_repeat,
    truncation_mask_eligible,
    uniform_draws,
)

L_MAX, M = 512, 128


def _random(n, gen):
    return torch.randint(0, 5000, (n,), generator=gen).tolist()


@pytest.fixture
def group():
    """G=8, rewards [1,1,0,0,0,0,0,0]; only sample 2 is eligible for masking."""
    gen = torch.Generator().manual_seed(7)
    head = _random(L_MAX - 2 * M, gen)
    block = _random(M, gen)
    responses = [
        _random(L_MAX, gen),          # 0 correct, truncated
        _random(90, gen),             # 1 correct, short
        _random(L_MAX, gen),          # 2 incorrect, truncated, no repeat -> eligible
        head + block + block,         # 3 incorrect, truncated, last 128 repeat the previous 128
        _random(L_MAX - 1, gen),      # 4 incorrect, one token short of L_max
        _random(40, gen),             # 5 incorrect, short
        _random(200, gen),            # 6 incorrect, short
        _random(300, gen),            # 7 incorrect, short
    ]
    rewards = torch.tensor([1.0, 1, 0, 0, 0, 0, 0, 0])
    uids = ["q0"] * 8
    return responses, rewards, uids


def _mask(group, rho, step=0, seed=0, **kw):
    responses, rewards, uids = group
    return conditional_truncation_mask(
        responses, None, rewards, L_MAX, rho=rho, m=M, sample_keys=sample_keys(uids), seed=seed, step=step, **kw
    )


def test_eligibility(group):
    responses, rewards, _ = group
    assert is_repeat(responses[3], M) and not is_repeat(responses[2], M)
    eligible = truncation_mask_eligible(responses, None, rewards, L_MAX, m=M)
    assert eligible.tolist() == [False, False, True, False, False, False, False, False]


def test_rho_zero_is_plain_grpo(group):
    _, rewards, uids = group
    plain = group_advantages(rewards, uids)
    for step in range(50):
        mask = _mask(group, 0.0, step=step)
        assert not mask.any()
        assert torch.equal(apply_truncation_mask(plain, mask), plain)


def test_rho_one_zeroes_exactly_the_eligible(group):
    _, rewards, uids = group
    plain = group_advantages(rewards, uids)
    mask = _mask(group, 1.0)
    assert mask.tolist() == [False, False, True, False, False, False, False, False]
    masked = apply_truncation_mask(plain, mask)
    assert masked[2] == 0
    assert masked[3] < 0 and masked[3] == plain[3]  # the repeating one keeps its negative advantage
    keep = ~mask
    assert torch.equal(masked[keep], plain[keep])  # no renormalization, bit-identical
    token_level = apply_truncation_mask(plain.unsqueeze(-1).expand(8, 5), mask)
    assert torch.equal(token_level[:, 0], masked)


def test_mask_if_correct(group):
    mask = _mask(group, 1.0, mask_if="correct")
    assert mask.tolist() == [True] + [False] * 7


def test_rho_03_frequency_and_never_ineligible(group):
    hits = 0
    steps = 3000
    for step in range(steps):
        mask = _mask(group, 0.3, step=step)
        assert not mask[[0, 1, 3, 4, 5, 6, 7]].any()
        hits += int(mask[2])
    assert abs(hits / steps - 0.3) < 0.035  # binomial sd ~0.008


def test_draws_are_seeded_and_independent_of_sharding():
    gen = torch.Generator().manual_seed(1)
    uids = [f"q{i // 8}" for i in range(64)]
    keys = sample_keys(uids)
    ids = torch.randint(0, 5000, (64, L_MAX), generator=gen)  # every row truncated, incorrect
    lengths = torch.full((64,), L_MAX)
    rewards = torch.zeros(64)
    full = conditional_truncation_mask(ids, lengths, rewards, L_MAX, rho=0.5, sample_keys=keys, seed=3, step=11)
    assert 10 < int(full.sum()) < 54
    # two simulated ranks with an interleaved split
    parts = {}
    for rank in range(2):
        sel = list(range(rank, 64, 2))
        parts[rank] = conditional_truncation_mask(
            ids[sel], lengths[sel], rewards[sel], L_MAX, rho=0.5, sample_keys=[keys[i] for i in sel], seed=3, step=11
        )
    rebuilt = torch.empty(64, dtype=torch.bool)
    rebuilt[0::2], rebuilt[1::2] = parts[0], parts[1]
    assert torch.equal(rebuilt, full)
    # same seed/step -> same draws; another step or seed -> different draws
    assert torch.equal(uniform_draws(3, 11, keys), uniform_draws(3, 11, keys))
    assert not torch.equal(uniform_draws(3, 12, keys), uniform_draws(3, 11, keys))
    assert not torch.equal(uniform_draws(4, 11, keys), uniform_draws(3, 11, keys))
    frac = float((uniform_draws(0, 0, [f"k{i}" for i in range(20000)]) < 0.3).double().mean())
    assert abs(frac - 0.3) < 0.015


def test_short_responses_are_never_repeats():
    periodic = [1, 2, 3, 4] * 60  # 240 tokens < 2m = 256: no two full windows
    assert not is_repeat(periodic, 128)
    assert is_repeat([5] * 256, 128)  # exactly 2m, identical windows
    assert not is_repeat([5] * 255 + [6], 128)
    assert is_repeat(periodic, 4)  # with a small window the loop is caught
    assert not is_repeat([], 128)
    # a short L_max (< 2m): truncated incorrect responses are eligible even if periodic
    eligible = truncation_mask_eligible([periodic], None, torch.tensor([0.0]), 240, m=128)
    assert eligible.tolist() == [True]


def test_compute_advantages_with_preset(group):
    responses, rewards, uids = group
    cfg = PRESETS["microcoder"].replace(max_response_length=L_MAX, mask_rho=1.0)
    adv, mask = compute_advantages(cfg, rewards, uids, responses, None, step=0)
    plain = group_advantages(rewards, uids)
    assert mask.tolist() == [False, False, True, False, False, False, False, False]
    assert adv[2] == 0 and torch.equal(adv[~mask], plain[~mask])
    adv_dapo, mask_dapo = compute_advantages(PRESETS["dapo"].replace(max_response_length=L_MAX), rewards, uids,
                                             responses, None, step=0)
    assert not mask_dapo.any() and torch.equal(adv_dapo, plain)
