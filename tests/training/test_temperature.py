"""Diversity-determined temperature, staged schedules, log-probs at the sampling T."""

import math

import pytest
import torch

from tests.training.logprob_kernels import (
    chunked_logprobs_at_temperature,
    fused_linear_logprobs,
    logprobs_at_temperature,
)
from training.grpo import TemperatureSchedule, choose_temperature, distinct_n, measure_diversity


def test_schedule_stages():
    s = TemperatureSchedule([(1, 0.6), (100, 1.2)])
    assert [s.at(k) for k in (1, 99, 100, 5000)] == [0.6, 0.6, 1.2, 1.2]
    assert TemperatureSchedule([(1, 0.6), (2, 1.2)]).at(2) == 1.2  # one switch is a stage, not a ramp
    three = TemperatureSchedule([(1, 0.6), (50, 0.9), (150, 1.2)])
    assert [three.at(k) for k in (49, 50, 149, 150)] == [0.6, 0.9, 0.9, 1.2]
    assert TemperatureSchedule.starting_at(1.2).at(10**6) == 1.2
    assert TemperatureSchedule(list(three.stages)) == three
    assert TemperatureSchedule.starting_at(1.2, [(30, 1.0)]).stages == ((1, 1.2), (30, 1.0))
    assert TemperatureSchedule.starting_at(1.2, [(1, 0.8)]).stages == ((1, 0.8),)
    with pytest.raises(ValueError):
        s.at(0)  # steps count from 1, as verl's global_steps


@pytest.mark.parametrize(
    "stages",
    [
        [(1, 0.6), (2, 0.7), (3, 0.8), (4, 0.9), (5, 1.0)],  # continuous ramp
        [(1, 0.6), (100, 0.8), (103, 1.2)],  # a 3-step intermediate stage
        [(5, 1.2)],  # must start at 1
        [(0, 1.2)],  # steps count from 1
        [(1, 1.0), (10, 1.0)],  # no-op stage
        [(1, 1.0), (1, 1.2)],  # non-increasing steps
        [(1, -1.0)],
        [(1, float("nan"))],
        [],
    ],
)
def test_schedule_rejects_ramps_and_bad_stages(stages):
    with pytest.raises((ValueError, TypeError)):
        TemperatureSchedule(stages)


def test_schedule_rejects_functions():
    with pytest.raises(TypeError):
        TemperatureSchedule(lambda step: 0.6 + 0.001 * step)
    with pytest.raises(TypeError):
        TemperatureSchedule({0: 0.6, 100: 1.2})


def test_logprobs_at_temperature_matches_manual():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 5, 11, generator=gen, dtype=torch.float64) * 3
    ids = torch.randint(0, 11, (2, 5), generator=gen)
    t = 1.2
    ours = logprobs_at_temperature(logits, ids, t)
    for b in range(2):
        for k in range(5):
            z = [float(v) / t for v in logits[b, k]]
            mx = max(z)
            manual = z[int(ids[b, k])] - (mx + math.log(sum(math.exp(v - mx) for v in z)))
            assert math.isclose(float(ours[b, k]), manual, abs_tol=1e-5)
    # the trainer at T=1 does not agree with rollout at T=1.2
    assert (logprobs_at_temperature(logits, ids, 1.0) - ours).abs().max() > 1e-2
    with pytest.raises(ValueError):
        logprobs_at_temperature(logits, ids, 0.0)


def test_chunked_and_fused_match_reference_values_and_grads():
    gen = torch.Generator().manual_seed(1)
    n, h, v, t = 13, 6, 29, 1.2
    hidden = torch.randn(1, n, h, generator=gen, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(v, h, generator=gen, dtype=torch.float64, requires_grad=True)
    ids = torch.randint(0, v, (1, n), generator=gen)
    upstream = torch.randn(1, n, generator=gen, dtype=torch.float64)

    def grads(fn):
        hidden.grad = weight.grad = None
        out = fn()
        (out * upstream).sum().backward()
        return out.detach(), hidden.grad.clone(), weight.grad.clone()

    ref = grads(lambda: torch.log_softmax((hidden @ weight.T) / t, -1).gather(-1, ids[..., None]).squeeze(-1))
    chunked = grads(lambda: chunked_logprobs_at_temperature(hidden @ weight.T, ids, t, chunk_rows=4))
    fused = grads(lambda: fused_linear_logprobs(hidden, weight, ids, t, chunk_rows=4))
    for got in (chunked, fused):
        for a, b in zip(got, ref):
            assert torch.allclose(a.double(), b, atol=1e-5), (a, b)
    logits = (hidden @ weight.T).detach().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda z: chunked_logprobs_at_temperature(z, ids, t, 5), (logits,))


def _probe_factory(n_queries=12, g=8, length=24, vocab=40, seed=0):
    """A synthetic 'model': each query has peaked logits; sample G responses at T, score distinct-4."""
    gen = torch.Generator().manual_seed(seed)
    base = torch.randn(n_queries, vocab, generator=gen) * 2.5

    def measure(t):
        out = []
        g2 = torch.Generator().manual_seed(seed + 1)
        for q in range(n_queries):
            probs = torch.softmax(base[q] / t, -1)
            samples = torch.multinomial(probs, g * length, replacement=True, generator=g2).reshape(g, length)
            out.append(distinct_n(samples.tolist()))
        return out

    return measure


def test_choose_temperature_on_probe():
    measure = _probe_factory()
    candidates = [0.3, 0.6, 0.9, 1.2, 1.5, 1.8]
    probes = measure_diversity(measure, candidates)
    means = [p.mean for p in probes]
    assert means == sorted(means)  # diversity grows with T on this probe
    target = (means[1] + means[3]) / 2
    chosen = choose_temperature(measure, target, max_spread=1.0, candidates=candidates)
    idx = candidates.index(chosen)
    assert means[idx] >= target and means[idx - 1] < target
    with pytest.raises(ValueError):
        choose_temperature(measure, 1.01, max_spread=1.0, candidates=candidates)


def test_choose_temperature_rejects_fluctuating():
    data = {
        0.6: [0.20, 0.22, 0.21],  # below the converged level: diversity would keep falling
        1.0: [0.30, 0.90, 0.55],  # high enough on average, but wild
        1.2: [0.50, 0.53, 0.49],  # chosen
        1.8: [0.70, 0.72, 0.69],
    }
    assert choose_temperature(data, target_diversity=0.45, max_spread=0.1) == 1.2
    assert choose_temperature(data, target_diversity=0.45, max_spread=0.5) == 1.0
