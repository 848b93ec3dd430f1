"""T(D) in the run's step metrics: the probe's curve and the chosen T in step 1, a switch in the
step that first samples at the new T. Scalars only (they travel with verl's metrics, through the
launcher's stream, into Dagster); the words (the rule, the reason) are in the run's
``temperature.json`` (:meth:`training.grpo.temperature_control.DiversityTemperature.record`),
which the launcher puts on the training card and in the summary. No verl imports.
"""

from __future__ import annotations

from training.grpo.temperature_control import TemperatureChoice, TemperatureSwitch

PREFIX = "microcoder/probe/"
CHOSEN = "microcoder/probe/chosen_temperature"
TARGET = "microcoder/probe/target_diversity"
SWITCH = "microcoder/temperature_switch"  # +1 up (declining below the level), -1 down (fluctuating)
SWITCH_FROM = "microcoder/temperature_switch_from"


def choice_metrics(choice: TemperatureChoice, target: float) -> dict[str, float]:
    out = {CHOSEN: choice.temperature, TARGET: target}
    for p in choice.probes:
        out[f"{PREFIX}T={p.temperature:g}/diversity"] = p.mean
        out[f"{PREFIX}T={p.temperature:g}/spread"] = p.spread
    return out


def switch_metrics(switch: TemperatureSwitch) -> dict[str, float]:
    return {SWITCH: float(switch.code), SWITCH_FROM: switch.from_t}
