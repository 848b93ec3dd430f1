"""T(D) controller: starting temperature from a probe, staged switches from the measured trend."""

import pytest

from training.grpo.temperature_control import DOWN, UP, DiversityTemperature
from training.verl_ext.config import TrainingConfig, algorithm_for
from training.verl_ext.temperature_metrics import choice_metrics, switch_metrics, temperature_report

PROBE = {0.6: [0.40, 0.42, 0.38], 0.8: [0.55, 0.58, 0.52], 1.0: [0.71, 0.69, 0.73], 1.2: [0.8, 0.5, 0.95]}


def _controller(**kw):
    return DiversityTemperature([0.6, 0.8, 1.0, 1.2], target_diversity=kw.pop("target", 0.5),
                                max_fluctuation=kw.pop("max_fluctuation", 0.1), window=3, min_stage_steps=4, **kw)


def test_starting_temperature_is_the_lowest_at_the_level_with_bounded_spread():
    td = _controller()
    choice = td.choose(PROBE)
    assert choice.temperature == 0.8 and td.temperature == 0.8  # 0.6 below 0.5; 0.8 first above
    assert [p.temperature for p in choice.probes] == [0.6, 0.8, 1.0, 1.2]
    assert _controller(target=0.7).choose(PROBE).temperature == 1.0  # 1.2 reaches it but fluctuates
    none = _controller(target=0.9).choose(PROBE)  # nothing reaches 0.9: highest bounded diversity
    assert none.temperature == 1.0 and "no T reaches" in none.reason


def test_switch_up_when_diversity_keeps_falling_below_the_level():
    td = _controller()
    td.choose(PROBE)
    for step, d in zip(range(1, 4), (0.52, 0.50, 0.47)):
        td.observe(step, d)
        assert td.switch_before(step + 1) is None  # the stage is younger than min_stage_steps
    td.observe(4, 0.45)
    switch = td.switch_before(5)
    assert (switch.step, switch.from_t, switch.to_t, switch.code) == (5, 0.8, 1.0, UP)
    assert "still falling" in switch.reason and td.temperature == 1.0 and td.stage_start == 5
    td.observe(5, 0.44)
    assert td.switch_before(6) is None  # a new stage must last min_stage_steps first: no ramp


def test_no_switch_on_a_plateau_or_above_the_level():
    td = _controller()
    td.choose(PROBE)
    for step, d in zip(range(1, 9), (0.56, 0.55, 0.55, 0.54, 0.54, 0.53, 0.53, 0.52)):
        td.observe(step, d)
    assert td.switch_before(9) is None  # falling, but still above the convergence level
    td2 = _controller()
    td2.choose(PROBE)
    for step, d in zip(range(1, 7), (0.45, 0.46, 0.45, 0.46, 0.46, 0.47)):
        td2.observe(step, d)
    assert td2.switch_before(7) is None  # below the level but recovering


def test_switch_down_when_diversity_fluctuates():
    td = _controller(max_fluctuation=0.05)
    td.choose({0.6: [0.4], 0.8: [0.6], 1.0: [0.7], 1.2: [0.8]})
    assert td.temperature == 0.8
    for step, d in zip(range(1, 6), (0.6, 0.3, 0.7, 0.2, 0.8)):
        td.observe(step, d)
    switch = td.switch_before(6)
    assert (switch.to_t, switch.code) == (0.6, DOWN) and "fluctuates" in switch.reason


def test_metrics_round_trip_into_the_report():
    td = _controller()
    choice = td.choose(PROBE)
    for step, d in zip(range(1, 5), (0.52, 0.50, 0.47, 0.45)):
        td.observe(step, d)
    switch = td.switch_before(5)
    steps = [{"step": 1, "metrics": {**choice_metrics(choice, 0.5), "microcoder/temperature": 0.8}},
             {"step": 5, "metrics": {**switch_metrics(switch), "microcoder/temperature": 1.0}}]
    report = temperature_report(steps)
    assert report["chosen"] == 0.8 and report["target_diversity"] == 0.5
    assert [p["temperature"] for p in report["probe"]] == [0.6, 0.8, 1.0, 1.2]
    assert report["probe"][1]["diversity"] == pytest.approx(0.55)
    assert report["switches"] == [{"step": 5, "from": 0.8, "to": 1.0, "reason": report["switches"][0]["reason"]}]
    assert temperature_report([{"step": 1, "metrics": {"microcoder/temperature": 1.2}}]) == {}


def test_typed_temperature_overrides_the_diversity_rule():
    assert TrainingConfig().algorithm.temperature_rule == "diversity"  # the paper's T(D) unless told otherwise
    assert algorithm_for(temperature=1.0).temperature_rule == "fixed"
    assert algorithm_for(temperature_schedule=[(1, 0.8), (40, 1.2)]).temperature_rule == "fixed"
    assert algorithm_for(temperature=1.0, temperature_rule="diversity").temperature_rule == "diversity"
    ov = dict(o.split("=", 1) for o in TrainingConfig(profile="paper").to_hydra_overrides(model_path="/m"))
    block = ov["+microcoder"]
    assert "temperature_rule:'diversity'," in block
    assert "temperature_candidates:[0.6,0.8,1.0,1.2,1.4,1.6]," in block
    assert "probe_prompts:16," in block and "min_stage_steps:10," in block
    with pytest.raises(ValueError):
        algorithm_for(temperature_candidates=[])
    with pytest.raises(ValueError):
        algorithm_for(diversity_window=5, min_stage_steps=3)


def test_controller_state_survives_a_checkpoint():
    """A resumed run continues the stage and its trend (what the trainer saves per checkpoint)."""
    import json

    td = DiversityTemperature([0.6, 0.8, 1.0], target_diversity=0.5, max_fluctuation=0.15, window=3, min_stage_steps=3)
    td.choose({0.6: [0.3, 0.3], 0.8: [0.55, 0.6], 1.0: [0.7, 0.8]})
    for step, d in enumerate([0.52, 0.5, 0.45, 0.41], start=1):
        td.observe(step, d)
    resumed = DiversityTemperature([0.6, 0.8, 1.0], target_diversity=0.5, max_fluctuation=0.15, window=3, min_stage_steps=3)
    resumed.restore(json.loads(json.dumps(td.state())))
    assert (resumed.temperature, resumed.history) == (0.8, td.history)
    switch = resumed.switch_before(5)  # the falling trend seen before the checkpoint still counts
    assert switch is not None and (switch.from_t, switch.to_t, switch.code) == (0.8, 1.0, UP)
    assert resumed.switch_before(6) is None and td.switch_before(5) == switch
    other = DiversityTemperature([0.7, 0.9], target_diversity=0.5, max_fluctuation=0.15, window=3, min_stage_steps=3)
    with pytest.raises(ValueError, match="not among the candidates"):
        other.restore(td.state())
