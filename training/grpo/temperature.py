"""Diversity-determined temperature T(D) and staged temperature schedules (paper section 2.4).

Two findings drive the design. (1) At a fixed T, output diversity falls during training and
converges to about the same level whatever T is; if the *initial* diversity is already below
that level, diversity keeps falling and training fails, while a too-high T makes diversity
fluctuate wildly. (2) Continuous temperature changes, even over a few steps, can change
diversity irreversibly, so schedules are piecewise constant stages, never ramps.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "FIRST_STEP",
    "TemperatureSchedule",
    "DiversityProbe",
    "measure_diversity",
    "choose_temperature",
]


FIRST_STEP = 1  # training steps are counted as verl's global_steps (and the metrics' "step"): 1, 2, ...


class TemperatureSchedule:
    """Piecewise-constant temperature: ``[(start_step, T), ...]``, each T held until the next start.

    The one schedule implementation: the algorithm config, the training config, the launchpad's
    ``"1:0.8,50:1.2"`` and the verl trainer all read it, with steps counted from ``FIRST_STEP`` (1).

    Validation (a ramp is rejected, not approximated):
    - a list of ``(int step, float T)`` pairs, first stage at step 1, steps strictly increasing;
    - T finite and > 0; consecutive stages must change T (a no-op stage is a typo);
    - every *intermediate* stage lasts at least ``min_stage_steps`` steps, so a sequence of
      small steps (0.6 -> 0.7 -> 0.8 ... one step apart) is refused as a continuous ramp.
    Callables (a T(step) function) are refused outright.
    """

    def __init__(self, stages: Sequence[tuple[int, float]], *, min_stage_steps: int = 10) -> None:
        if callable(stages) or isinstance(stages, (str, bytes, Mapping)) or not isinstance(stages, Iterable):
            raise TypeError("a temperature schedule is a list of (step, temperature) stages, not a function or ramp")
        parsed: list[tuple[int, float]] = []
        for stage in stages:
            if not isinstance(stage, (tuple, list)) or len(stage) != 2:
                raise TypeError(f"stage {stage!r} is not a (step, temperature) pair")
            step, temp = stage
            if isinstance(step, bool) or not isinstance(step, int) or step < 0:
                raise ValueError(f"stage step must be a non-negative int, got {step!r}")
            temp = float(temp)
            if not (math.isfinite(temp) and temp > 0):
                raise ValueError(f"temperature must be finite and > 0, got {temp}")
            parsed.append((step, temp))
        if not parsed:
            raise ValueError("a temperature schedule needs at least one stage")
        if parsed[0][0] != FIRST_STEP:
            raise ValueError(f"the first stage must start at step {FIRST_STEP}")
        for (s0, t0), (s1, t1) in zip(parsed, parsed[1:]):
            if s1 <= s0:
                raise ValueError(f"stage steps must increase strictly: {s0} then {s1}")
            if t1 == t0:
                raise ValueError(f"stages at steps {s0} and {s1} have the same temperature {t0}")
        for (s0, _), (s1, _) in zip(parsed[1:-1], parsed[2:]):
            if s1 - s0 < min_stage_steps:
                raise ValueError(
                    f"stage at step {s0} lasts {s1 - s0} steps (< {min_stage_steps}): "
                    "continuous temperature ramps are not allowed, use a few long stages"
                )
        self.stages: tuple[tuple[int, float], ...] = tuple(parsed)
        self.min_stage_steps = min_stage_steps

    @classmethod
    def starting_at(cls, temperature: float, stages: Sequence | None = None, **kw) -> "TemperatureSchedule":
        """``temperature`` from step 1, then ``stages`` (a stage at step 1 replaces it)."""
        parsed = sorted((int(s), float(t)) for s, t in (stages or []))
        if not parsed or parsed[0][0] > FIRST_STEP:
            parsed.insert(0, (FIRST_STEP, float(temperature)))
        return cls(parsed, **kw)

    def at(self, step: int) -> float:
        """Temperature in force at training ``step`` (1-based, as verl's global_steps)."""
        if step < FIRST_STEP:
            raise ValueError(f"step must be >= {FIRST_STEP}")
        current = self.stages[0][1]
        for start, temp in self.stages:
            if start > step:
                break
            current = temp
        return current

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TemperatureSchedule) and self.stages == other.stages

    def __repr__(self) -> str:
        return f"TemperatureSchedule({list(self.stages)!r})"


@dataclass(frozen=True)
class DiversityProbe:
    """Diversity measured at one temperature: mean and spread of per-query (or per-repeat) values."""

    temperature: float
    mean: float
    spread: float
    n: int


def measure_diversity(
    diversity_by_t: Mapping[float, Sequence[float]] | Callable[[float], Sequence[float]],
    candidates: Sequence[float] | None = None,
) -> list[DiversityProbe]:
    """Probe statistics per candidate T, ascending. ``diversity_by_t`` is measured data
    ``{T: [D per query]}`` or a probe ``measure(T) -> [D per query]`` (sample the probe set at T,
    score with :func:`training.grpo.diversity.group_diversities`)."""
    if callable(diversity_by_t):
        if candidates is None:
            raise ValueError("candidates are required with a probe function")
        data = {float(t): list(diversity_by_t(float(t))) for t in candidates}
    else:
        data = {float(t): list(v) for t, v in diversity_by_t.items()}
        if candidates is not None:
            data = {float(t): data[float(t)] for t in candidates}
    probes = []
    for t in sorted(data):
        values = [v for v in data[t] if not math.isnan(v)]
        if not values:
            raise ValueError(f"no diversity values at T={t}")
        spread = statistics.stdev(values) if len(values) > 1 else 0.0
        probes.append(DiversityProbe(t, statistics.fmean(values), spread, len(values)))
    return probes


def choose_temperature(
    diversity_by_t: Mapping[float, Sequence[float]] | Callable[[float], Sequence[float]],
    target_diversity: float,
    max_spread: float,
    candidates: Sequence[float] | None = None,
) -> float:
    """T(D): the lowest candidate T whose initial diversity is at or above the converged level
    and whose spread across the probe's prompts is bounded.

    Rule: for each T (ascending), mean = mean of the probe diversities, spread = their sample
    std (across probe queries, or across repeated probes). Pick the lowest T with
    ``mean >= target_diversity`` (the level training converges to: below it, diversity keeps
    declining and training fails) and ``spread <= max_spread``. Lowest, because higher T only
    adds noise once the level is reached. Raises ValueError, with the measurements, when no
    candidate qualifies. (Fluctuation over training steps is a separate test, with its own
    threshold: :class:`~training.grpo.temperature_control.DiversityTemperature`.)
    """
    probes = measure_diversity(diversity_by_t, candidates)
    for p in probes:
        if p.mean >= target_diversity and p.spread <= max_spread:
            return p.temperature
    table = ", ".join(f"T={p.temperature}: mean={p.mean:.3f} spread={p.spread:.3f}" for p in probes)
    raise ValueError(
        f"no temperature reaches diversity {target_diversity} with spread <= {max_spread}: {table}"
    )
