"""T(D) during a run: pick the starting temperature from a probe, then switch stages from the trend.

Paper section 2.4, read as a procedure:

1. *Initial choice.* Before step 1 the policy samples G responses for a few training prompts at
   each candidate T; per prompt, distinct-n pooled over the group (the run's own diversity
   metric), then mean and spread across prompts per T. The starting T is the lowest candidate
   whose initial diversity is at or above the level diversity converges to during training
   (below it "models experience continued diversity reduction accompanied by training failure")
   and whose spread is bounded (too high a T gives "drastic fluctuations");
   :func:`~training.grpo.temperature.choose_temperature` applies that rule.
2. *The convergence level is configured* (``target_diversity``), not estimated before training:
   the paper shows that diversity converges to about the same value whatever the temperature,
   but that value only shows up late in a run, so it is read off a previous run's
   ``microcoder/diversity`` curve (its plateau) for the same model family and response length.
   When no candidate reaches it, the run starts at the candidate with the highest mean among
   those with a bounded spread and says so.
3. *Staged switches.* Diversity is measured every step. Once a stage has lasted
   ``min_stage_steps`` steps, over the last ``window`` steps of the stage: diversity below the
   convergence level *and* still falling (negative least-squares slope) is the failure
   signature, so the next higher candidate T takes over ("initial low-temperature training
   followed by high-temperature phases"); a spread above ``max_fluctuation`` steps down to the
   next lower T. Each change is a step change between candidates, never a ramp ("even brief
   continuous temperature increases ... can cause irreversible change in output diversity").
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from .temperature import DiversityProbe, choose_temperature, measure_diversity

__all__ = ["TemperatureChoice", "TemperatureSwitch", "DiversityTemperature"]

UP, DOWN = 1, -1  # switch codes, as logged in the run's metrics (microcoder/temperature_switch)


@dataclass(frozen=True)
class TemperatureChoice:
    temperature: float
    reason: str
    probes: tuple[DiversityProbe, ...]

    def table(self) -> list[dict]:
        return [asdict(p) for p in self.probes]


@dataclass(frozen=True)
class TemperatureSwitch:
    step: int  # first step sampled at ``to_t``
    from_t: float
    to_t: float
    code: int  # UP (declining below the convergence level) or DOWN (fluctuating)
    reason: str


def _slope(values: Sequence[float]) -> float:
    n = len(values)
    xm, ym = (n - 1) / 2, statistics.fmean(values)
    den = sum((x - xm) ** 2 for x in range(n))
    return sum((x - xm) * (y - ym) for x, y in enumerate(values)) / den if den else 0.0


@dataclass
class DiversityTemperature:
    """The T(D) controller of one run (plain Python; the verl trainer drives it)."""

    candidates: Sequence[float]
    target_diversity: float
    max_fluctuation: float
    window: int = 5
    min_stage_steps: int = 10
    temperature: float | None = None
    stage_start: int = 1
    history: list[tuple[int, float]] = field(default_factory=list)
    switches: list[TemperatureSwitch] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.candidates = sorted(float(t) for t in self.candidates)
        if not self.candidates or min(self.candidates) <= 0:
            raise ValueError("T(D) needs at least one positive candidate temperature")
        if self.window < 2 or self.min_stage_steps < self.window:
            raise ValueError("window must be >= 2 and min_stage_steps >= window")

    def choose(self, diversity_by_t: Mapping[float, Sequence[float]]) -> TemperatureChoice:
        """The starting T from probe measurements ``{T: [distinct-n per prompt]}``."""
        probes = tuple(measure_diversity(diversity_by_t, self.candidates))
        try:
            t = choose_temperature(diversity_by_t, self.target_diversity, self.max_fluctuation, self.candidates)
            reason = (f"lowest T with initial diversity >= {self.target_diversity} "
                      f"and spread <= {self.max_fluctuation}")
        except ValueError:
            bounded = [p for p in probes if p.spread <= self.max_fluctuation] or list(probes)
            t = max(bounded, key=lambda p: (p.mean, -p.temperature)).temperature
            reason = (f"no T reaches diversity {self.target_diversity} with spread <= {self.max_fluctuation}: "
                      f"highest-diversity T with bounded spread")
        self.temperature, self.stage_start = t, 1
        return TemperatureChoice(t, reason, probes)

    def state(self) -> dict:
        """What a resumed run needs to go on where this one stopped (saved with each checkpoint):
        re-probing a trained policy would pick another T and forget the stage's trend."""
        return {"temperature": self.temperature, "stage_start": self.stage_start,
                "history": [list(h) for h in self.history], "switches": [asdict(s) for s in self.switches]}

    def restore(self, state: Mapping) -> None:
        """Continue from :meth:`state` of an earlier run with the same candidates."""
        t = float(state["temperature"])
        if t not in self.candidates:
            raise ValueError(f"saved temperature {t} is not among the candidates {self.candidates}")
        self.temperature, self.stage_start = t, int(state["stage_start"])
        self.history = [(int(s), float(d)) for s, d in state["history"]]
        self.switches = [TemperatureSwitch(**s) for s in state["switches"]]

    def observe(self, step: int, diversity: float) -> None:
        """Diversity measured at ``step`` (sampled at the current T)."""
        self.history.append((int(step), float(diversity)))

    def switch_before(self, step: int) -> TemperatureSwitch | None:
        """The stage change to apply from ``step`` on, if the trend of the current stage calls for one."""
        if self.temperature is None:
            raise RuntimeError("choose() the starting temperature first")
        if step - self.stage_start < self.min_stage_steps:
            return None
        recent = [d for s, d in self.history if s >= self.stage_start][-self.window:]
        if len(recent) < self.window:
            return None
        i = self.candidates.index(self.temperature) if self.temperature in self.candidates else None
        spread, slope = statistics.stdev(recent), _slope(recent)
        switch = None
        if spread > self.max_fluctuation and i is not None and i > 0:
            switch = TemperatureSwitch(step, self.temperature, self.candidates[i - 1], DOWN,
                                       f"diversity fluctuates: spread {spread:.3f} over {self.window} steps "
                                       f"> {self.max_fluctuation}")
        elif (recent[-1] < self.target_diversity and slope < 0 and i is not None
              and i + 1 < len(self.candidates)):
            switch = TemperatureSwitch(step, self.temperature, self.candidates[i + 1], UP,
                                       f"diversity {recent[-1]:.3f} below the convergence level "
                                       f"{self.target_diversity} and still falling ({slope:+.4f}/step "
                                       f"over {self.window} steps)")
        if switch is not None:
            self.temperature, self.stage_start = switch.to_t, step
            self.switches.append(switch)
        return switch
