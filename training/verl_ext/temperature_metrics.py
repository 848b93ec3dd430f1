"""T(D) in the run's metrics, and back: the probe table, the chosen T and every stage switch.

The trainer writes them as scalar step metrics (so they travel with verl's metrics, through the
launcher's stream, into Dagster): the probe table and the choice in step 1, a switch in the step
that first samples at the new T. :func:`temperature_report` rebuilds the table and the switches
from the steps, for the training asset's metadata. No verl imports.
"""

from __future__ import annotations

from collections.abc import Sequence

from training.grpo.temperature_control import DOWN, UP, TemperatureChoice, TemperatureSwitch

PREFIX = "microcoder/probe/"
CHOSEN = "microcoder/probe/chosen_temperature"
TARGET = "microcoder/probe/target_diversity"
SWITCH = "microcoder/temperature_switch"  # +1 up (declining below the level), -1 down (fluctuating)
SWITCH_FROM = "microcoder/temperature_switch_from"
REASONS = {UP: "diversity below the convergence level and still falling: next higher T",
           DOWN: "diversity fluctuating beyond the bound: next lower T"}


def choice_metrics(choice: TemperatureChoice, target: float) -> dict[str, float]:
    out = {CHOSEN: choice.temperature, TARGET: target}
    for p in choice.probes:
        out[f"{PREFIX}T={p.temperature:g}/diversity"] = p.mean
        out[f"{PREFIX}T={p.temperature:g}/spread"] = p.spread
    return out


def switch_metrics(switch: TemperatureSwitch) -> dict[str, float]:
    return {SWITCH: float(switch.code), SWITCH_FROM: switch.from_t}


def temperature_report(steps: Sequence[dict]) -> dict:
    """``{"probe": [{temperature, diversity, spread}], "chosen": T, "switches": [...]}`` from the
    run's ``[{"step": int, "metrics": {...}}]``; empty when the run used a fixed temperature."""
    probe, chosen, target, switches = {}, None, None, []
    for msg in steps:
        m = msg["metrics"]
        for key, value in m.items():
            if key.startswith(PREFIX) and key.count("/") == 3:
                t, what = key[len(PREFIX):].split("/")
                probe.setdefault(float(t.removeprefix("T=")), {})[what] = value
        chosen = m.get(CHOSEN, chosen)
        target = m.get(TARGET, target)
        if m.get(SWITCH):
            code = int(m[SWITCH])
            switches.append({"step": msg["step"], "from": m.get(SWITCH_FROM),
                             "to": m.get("microcoder/temperature"), "reason": REASONS.get(code, str(code))})
    if chosen is None:
        return {}
    table = [{"temperature": t, **v} for t, v in sorted(probe.items())]
    return {"probe": table, "chosen": chosen, "target_diversity": target, "switches": switches}
