"""T(D) controller: starting temperature from a probe, staged switches from the measured trend,
and a fluctuation test over time with a threshold of its own (standard errors of the step's D)."""

import json

import pytest

from training.grpo.temperature_control import DOWN, UP, DiversityTemperature, plateau
from training.verl_ext.config import TrainingConfig, algorithm_for
from training.verl_ext.temperature_metrics import choice_metrics, switch_metrics

PROBE = {0.6: [0.40, 0.42, 0.38], 0.8: [0.55, 0.58, 0.52], 1.0: [0.71, 0.69, 0.73], 1.2: [0.8, 0.5, 0.95]}
SE = 0.01  # a step's standard error: 64 queries with a spread of 0.08


def _controller(**kw):
    return DiversityTemperature([0.6, 0.8, 1.0, 1.2], target_diversity=kw.pop("target", 0.5),
                                max_probe_spread=kw.pop("spread", 0.1), window=3, min_stage_steps=4, **kw)


def _observe(td, values, start=1, se=SE):
    for step, d in enumerate(values, start=start):
        td.observe(step, d, se)


def test_starting_temperature_is_the_lowest_at_the_level_with_bounded_spread():
    td = _controller()
    choice = td.choose(PROBE)
    assert choice.temperature == 0.8 and td.temperature == 0.8  # 0.6 below 0.5; 0.8 first above
    assert [p.temperature for p in choice.probes] == [0.6, 0.8, 1.0, 1.2]
    assert "lowest T" in choice.reason and "0.5" in choice.rule and "standard errors" in choice.rule
    assert _controller(target=0.7).choose(PROBE).temperature == 1.0  # 1.2 reaches it but its spread is 0.23
    none = _controller(target=0.9).choose(PROBE)  # nothing reaches 0.9: highest bounded diversity
    assert none.temperature == 1.0 and "no T reaches" in none.reason


def test_switch_up_when_diversity_keeps_falling_below_the_level():
    td = _controller()
    td.choose(PROBE)
    for step, d in zip(range(1, 4), (0.52, 0.50, 0.47)):
        td.observe(step, d, SE)
        assert td.switch_before(step + 1) is None  # the stage is younger than min_stage_steps
    td.observe(4, 0.45, SE)
    switch = td.switch_before(5)
    assert (switch.step, switch.from_t, switch.to_t, switch.code) == (5, 0.8, 1.0, UP)
    assert "still falling" in switch.reason and td.temperature == 1.0 and td.stage_start == 5
    td.observe(5, 0.44, SE)
    assert td.switch_before(6) is None  # a new stage must last min_stage_steps first: no ramp


def test_no_switch_on_a_plateau_or_above_the_level():
    td = _controller()
    td.choose(PROBE)
    _observe(td, (0.56, 0.55, 0.55, 0.54, 0.54, 0.53, 0.53, 0.52))
    assert td.switch_before(9) is None  # falling, but still above the convergence level
    td2 = _controller()
    td2.choose(PROBE)
    _observe(td2, (0.45, 0.46, 0.45, 0.46, 0.46, 0.47))
    assert td2.switch_before(7) is None  # below the level but recovering


def test_fluctuation_is_scatter_around_the_trend_in_standard_errors():
    """Over time, not across prompts: a steady decline of 0.03 a step is a trend (no fluctuation),
    a zigzag of 0.02 is under 2 standard errors of 0.01 (sampling), one of 0.2 is 16 (the policy swings)."""
    td = _controller(fluctuation_z=3.0)
    td.choose({0.6: [0.4], 0.8: [0.6], 1.0: [0.7], 1.2: [0.8]})
    steady = [(s, 0.9 - 0.03 * s, SE) for s in range(1, 4)]
    assert td.fluctuation(steady) == pytest.approx(0.0, abs=1e-9)
    assert td.fluctuation([(1, 0.61, SE), (2, 0.59, SE), (3, 0.61, SE)]) < 2.0
    assert td.fluctuation([(1, 0.7, SE), (2, 0.5, SE), (3, 0.7, SE)]) > 3.0
    # the probe's spread threshold (0.1 here) plays no part: a zigzag of 0.06 across steps is far
    # below it, yet 6 standard errors of a 64-query step
    assert td.fluctuation([(1, 0.66, SE), (2, 0.60, SE), (3, 0.66, SE)]) > 3.0


def test_switch_down_when_diversity_fluctuates():
    td = _controller()
    td.choose({0.6: [0.4], 0.8: [0.6], 1.0: [0.7], 1.2: [0.8]})
    assert td.temperature == 0.8
    _observe(td, (0.6, 0.66, 0.6, 0.66, 0.6))
    switch = td.switch_before(6)
    assert (switch.to_t, switch.code) == (0.6, DOWN) and "standard errors" in switch.reason
    quiet = _controller()
    quiet.choose({0.6: [0.4], 0.8: [0.6], 1.0: [0.7], 1.2: [0.8]})
    _observe(quiet, (0.6, 0.66, 0.6, 0.66, 0.6), se=0.05)  # the same swings, from 4 noisy queries
    assert quiet.switch_before(6) is None


def test_record_and_metrics_carry_the_curve_and_the_rule():
    td = _controller()
    choice = td.choose(PROBE)
    _observe(td, (0.52, 0.50, 0.47, 0.45))
    switch = td.switch_before(5)
    record = td.record()
    assert record["chosen"] == 0.8 and record["target_diversity"] == 0.5 and record["temperature"] == 1.0
    assert [p["temperature"] for p in record["probe"]] == [0.6, 0.8, 1.0, 1.2]
    assert record["probe"][1]["diversity"] == pytest.approx(0.55) and record["probe"][1]["prompts"] == 3
    assert record["reason"] == choice.reason and record["rule"] == td.rule
    assert [s["to_t"] for s in record["switches"]] == [1.0]
    metrics = {**choice_metrics(choice, 0.5), **switch_metrics(switch)}
    assert metrics["microcoder/probe/T=1.2/spread"] == pytest.approx(0.2291, abs=1e-3)
    assert metrics["microcoder/temperature_switch"] == UP


def test_plateau_is_the_next_runs_target():
    assert plateau([0.9, 0.8, 0.7, 0.62, 0.6, 0.61], last=3) == pytest.approx(0.61)
    assert plateau([float("nan")]) is None


def test_typed_temperature_overrides_the_diversity_rule():
    assert TrainingConfig().algorithm.temperature_rule == "diversity"  # microcoder's T(D) unless told otherwise
    assert TrainingConfig(preset="dapo").algorithm.temperature_rule == "fixed"  # the baselines: fixed 1.2
    assert algorithm_for(temperature=1.0).temperature_rule == "fixed"
    assert algorithm_for(temperature_schedule=[(1, 0.8), (40, 1.2)]).temperature_rule == "fixed"
    assert algorithm_for(temperature=1.0, temperature_rule="diversity").temperature_rule == "diversity"
    ov = dict(o.split("=", 1) for o in TrainingConfig(profile="paper").to_hydra_overrides(model_path="/m"))
    block = ov["+microcoder"]
    assert "temperature_rule:'diversity'," in block
    assert "temperature_candidates:[0.6,0.8,1.0,1.2,1.4,1.6]," in block
    assert "probe_prompts:16," in block and "min_stage_steps:10," in block and "diversity_tokens:256," in block
    assert "fluctuation_z:3.0," in block and "max_probe_spread:0.15," in block
    with pytest.raises(ValueError):
        algorithm_for(temperature_candidates=[])
    with pytest.raises(ValueError):
        algorithm_for(diversity_window=5, min_stage_steps=3)
    with pytest.raises(ValueError):
        algorithm_for(diversity_window=2, min_stage_steps=3)  # no scatter around a line through 2 points


def test_controller_state_survives_a_checkpoint():
    """A resumed run continues the stage and its trend (what the trainer saves per checkpoint), and
    keeps the probe's curve and reason for its card."""
    td = DiversityTemperature([0.6, 0.8, 1.0], target_diversity=0.5, max_probe_spread=0.15, window=3, min_stage_steps=3)
    td.choose({0.6: [0.3, 0.3], 0.8: [0.55, 0.6], 1.0: [0.7, 0.8]})
    _observe(td, [0.52, 0.5, 0.45, 0.41])
    resumed = DiversityTemperature([0.6, 0.8, 1.0], target_diversity=0.5, max_probe_spread=0.15, window=3,
                                   min_stage_steps=3)
    resumed.restore(json.loads(json.dumps(td.state())))
    assert (resumed.temperature, resumed.history) == (0.8, td.history)
    assert resumed.record() == td.record()
    switch = resumed.switch_before(5)  # the falling trend seen before the checkpoint still counts
    assert switch is not None and (switch.from_t, switch.to_t, switch.code) == (0.8, 1.0, UP)
    assert resumed.switch_before(6) is None and td.switch_before(5) == switch
    other = DiversityTemperature([0.7, 0.9], target_diversity=0.5, max_probe_spread=0.15, window=3, min_stage_steps=3)
    with pytest.raises(ValueError, match="not among the candidates"):
        other.restore(td.state())
