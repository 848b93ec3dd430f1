"""T(D) during a run: pick the starting temperature from a probe, then switch stages from the trend.

Paper section 2.4, read as a procedure:

1. *Initial choice.* Before step 1 the policy samples G responses of ``diversity_tokens`` tokens
   for a few training prompts at each candidate T; per prompt, D (distinct-4 over the group's
   windows, :mod:`training.grpo.diversity`), then mean and spread across prompts per T: the
   probe's curve. The starting T is the lowest candidate whose initial diversity is at or above
   the level diversity converges to during training (below it "models experience continued
   diversity reduction accompanied by training failure") and whose spread across prompts is at
   most ``max_probe_spread``; :func:`~training.grpo.temperature.choose_temperature` applies that
   rule. When no candidate reaches the level, the run starts at the candidate with the highest
   mean among those with a bounded spread, and says so.
2. *The convergence level is configured* (``target_diversity``), not estimated before training:
   the paper shows that diversity converges to about the same value whatever the temperature,
   but that value shows up only late in a run. It is read off a previous run's
   ``microcoder/diversity`` plateau (same model family, same window): :func:`plateau` gives it,
   and the training card prints it as the value to use next time.
3. *Staged switches.* D is measured every step, with its standard error across the step's
   queries. Once a stage has lasted ``min_stage_steps`` steps, over its last ``window`` steps:
   - *fluctuation* (T too high: "drastic fluctuations"): the scatter of D around its
     least-squares line, in units of the steps' own standard error, above ``fluctuation_z``.
     Sampling alone scatters a step's mean by about one standard error, so a ratio of 3 is
     movement the sampling does not explain. This is a test over time with its own threshold;
     the probe's ``max_probe_spread`` (spread across prompts at one moment) plays no part in it.
     It steps down to the next lower candidate.
   - *decline* (T too low): D below the convergence level *and* still falling (negative slope)
     steps up to the next higher candidate ("initial low-temperature training followed by
     high-temperature phases").
   Each change is a step change between candidates, never a ramp ("even brief continuous
   temperature increases ... can cause irreversible change in output diversity").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from .temperature import DiversityProbe, choose_temperature, measure_diversity

__all__ = ["TemperatureChoice", "TemperatureSwitch", "DiversityTemperature", "plateau"]

UP, DOWN = 1, -1  # switch codes, as logged in the run's metrics (microcoder/temperature_switch)
NOISE_FLOOR = 1e-3  # a step's standard error below this (one query, identical groups) counts as this


@dataclass(frozen=True)
class TemperatureChoice:
    temperature: float
    reason: str  # which branch of the rule picked it, with the thresholds
    probes: tuple[DiversityProbe, ...]  # the probe's curve: T -> mean D and spread across prompts
    rule: str = ""  # the rule itself, in words

    def table(self) -> list[dict]:
        return [asdict(p) for p in self.probes]


@dataclass(frozen=True)
class TemperatureSwitch:
    step: int  # first step sampled at ``to_t``
    from_t: float
    to_t: float
    code: int  # UP (declining below the convergence level) or DOWN (fluctuating)
    reason: str


def _line(values: Sequence[float]) -> tuple[float, list[float]]:
    """Least-squares slope per step and the residuals around the line."""
    n = len(values)
    xm, ym = (n - 1) / 2, statistics.fmean(values)
    den = sum((x - xm) ** 2 for x in range(n))
    slope = sum((x - xm) * (y - ym) for x, y in enumerate(values)) / den if den else 0.0
    return slope, [y - (ym + slope * (x - xm)) for x, y in enumerate(values)]


def plateau(diversities: Sequence[float], last: int = 10) -> float | None:
    """The level a run's diversity settled at: the mean of its last ``last`` steps (None if none).
    Read off a finished run, it is the ``target_diversity`` of the next one."""
    values = [d for d in diversities if d is not None and not math.isnan(d)][-last:]
    return statistics.fmean(values) if values else None


@dataclass
class DiversityTemperature:
    """The T(D) controller of one run (plain Python; the verl trainer drives it)."""

    candidates: Sequence[float]
    target_diversity: float
    max_probe_spread: float
    fluctuation_z: float = 3.0
    window: int = 5
    min_stage_steps: int = 10
    temperature: float | None = None
    stage_start: int = 1
    history: list[tuple[int, float, float]] = field(default_factory=list)  # (step, D, standard error)
    switches: list[TemperatureSwitch] = field(default_factory=list)
    choice: TemperatureChoice | None = None

    def __post_init__(self) -> None:
        self.candidates = sorted(float(t) for t in self.candidates)
        if not self.candidates or min(self.candidates) <= 0:
            raise ValueError("T(D) needs at least one positive candidate temperature")
        if self.window < 3 or self.min_stage_steps < self.window:
            raise ValueError("window must be >= 3 and min_stage_steps >= window")

    @property
    def rule(self) -> str:
        return (f"start at the lowest T in {list(self.candidates)} whose probe diversity is >= "
                f"{self.target_diversity} (target) with spread across prompts <= {self.max_probe_spread}; "
                f"after {self.min_stage_steps} steps at a T, over the last {self.window} steps: scatter around "
                f"the trend > {self.fluctuation_z} standard errors -> next lower T, diversity below the "
                f"target and falling -> next higher T")

    def choose(self, diversity_by_t: Mapping[float, Sequence[float]]) -> TemperatureChoice:
        """The starting T from probe measurements ``{T: [D per prompt]}``."""
        probes = tuple(measure_diversity(diversity_by_t, self.candidates))
        try:
            t = choose_temperature(diversity_by_t, self.target_diversity, self.max_probe_spread, self.candidates)
            reason = (f"T={t:g}: the lowest T with probe diversity >= {self.target_diversity} "
                      f"and spread <= {self.max_probe_spread}")
        except ValueError:
            bounded = [p for p in probes if p.spread <= self.max_probe_spread] or list(probes)
            t = max(bounded, key=lambda p: (p.mean, -p.temperature)).temperature
            reason = (f"T={t:g}: no T reaches diversity {self.target_diversity} with spread <= "
                      f"{self.max_probe_spread}; the highest-diversity T with a bounded spread")
        self.temperature, self.stage_start = t, 1
        self.choice = TemperatureChoice(t, reason, probes, self.rule)
        return self.choice

    def record(self) -> dict:
        """The run's T(D) as a card and its metadata show it: the probe's curve (T -> mean D and
        spread across prompts), the rule, why it picked the starting T, the switches since."""
        choice = self.choice
        return {"rule": self.rule, "target_diversity": self.target_diversity,
                "chosen": choice.temperature if choice else None, "reason": choice.reason if choice else None,
                "probe": [{"temperature": p.temperature, "diversity": p.mean, "spread": p.spread, "prompts": p.n}
                          for p in (choice.probes if choice else ())],
                "temperature": self.temperature, "switches": [asdict(s) for s in self.switches]}

    def state(self) -> dict:
        """What a resumed run needs to go on where this one stopped (saved with each checkpoint):
        re-probing a trained policy would pick another T and forget the stage's trend."""
        return {"temperature": self.temperature, "stage_start": self.stage_start,
                "history": [list(h) for h in self.history], "switches": [asdict(s) for s in self.switches],
                "choice": asdict(self.choice) if self.choice else None}

    def restore(self, state: Mapping) -> None:
        """Continue from :meth:`state` of an earlier run with the same candidates."""
        t = float(state["temperature"])
        if t not in self.candidates:
            raise ValueError(f"saved temperature {t} is not among the candidates {self.candidates}")
        self.temperature, self.stage_start = t, int(state["stage_start"])
        self.history = [(int(h[0]), float(h[1]), float(h[2]) if len(h) > 2 else math.nan) for h in state["history"]]
        self.switches = [TemperatureSwitch(**s) for s in state["switches"]]
        saved = state.get("choice")
        if saved:
            self.choice = TemperatureChoice(float(saved["temperature"]), saved["reason"],
                                            tuple(DiversityProbe(**p) for p in saved["probes"]), saved.get("rule", ""))

    def observe(self, step: int, diversity: float, stderr: float = math.nan) -> None:
        """D measured at ``step`` (sampled at the current T) and its standard error across queries."""
        self.history.append((int(step), float(diversity), float(stderr)))

    def fluctuation(self, recent: Sequence[tuple[int, float, float]]) -> float:
        """Scatter of D around its least-squares line over ``recent`` steps, in standard errors."""
        _, residuals = _line([d for _, d, _ in recent])
        scatter = math.sqrt(sum(r * r for r in residuals) / (len(residuals) - 2))
        errors = [e for _, _, e in recent if not math.isnan(e)]
        noise = max(math.sqrt(statistics.fmean(e * e for e in errors)) if errors else NOISE_FLOOR, NOISE_FLOOR)
        return scatter / noise

    def switch_before(self, step: int) -> TemperatureSwitch | None:
        """The stage change to apply from ``step`` on, if the trend of the current stage calls for one."""
        if self.temperature is None:
            raise RuntimeError("choose() the starting temperature first")
        if step - self.stage_start < self.min_stage_steps:
            return None
        recent = [h for h in self.history if h[0] >= self.stage_start][-self.window:]
        if len(recent) < self.window:
            return None
        i = self.candidates.index(self.temperature) if self.temperature in self.candidates else None
        values = [d for _, d, _ in recent]
        slope, _ = _line(values)
        z = self.fluctuation(recent)
        switch = None
        if z > self.fluctuation_z and i is not None and i > 0:
            switch = TemperatureSwitch(step, self.temperature, self.candidates[i - 1], DOWN,
                                       f"diversity fluctuates: scatter around its trend over {self.window} steps "
                                       f"is {z:.1f} standard errors > {self.fluctuation_z}")
        elif (values[-1] < self.target_diversity and slope < 0 and i is not None
              and i + 1 < len(self.candidates)):
            switch = TemperatureSwitch(step, self.temperature, self.candidates[i + 1], UP,
                                       f"diversity {values[-1]:.3f} below the convergence level "
                                       f"{self.target_diversity} and still falling ({slope:+.4f}/step "
                                       f"over {self.window} steps)")
        if switch is not None:
            self.temperature, self.stage_start = switch.to_t, step
            self.switches.append(switch)
        return switch
