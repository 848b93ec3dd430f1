"""The training card and the evaluation summary, from step messages laid out as the trainer emits them."""

from __future__ import annotations

from training.card import training_card
from training.grpo.evaluation import heldout_pass_at_1, metric_prefix
from training.launcher import held_out_eval
from training.verl_ext.config import TrainingConfig


def _steps() -> list[dict]:
    sources = ["livecodebench/atcoder/easy"] * 4 + ["livecodebench/leetcode/medium"] * 4
    uids = ["a"] * 4 + ["b"] * 4
    final = {"microcoder/heldout/temperature": 1.1, "microcoder/heldout/split_problems": 6.0,
             "microcoder/heldout/window_problems": 4.0, "microcoder/heldout/unplaced_problems": 0.0,
             "microcoder/heldout/prompt_limit": 4096.0}
    for length, acc in ((96, [1, 0, 0, 0, 0, 0, 0, 0]), (192, [1, 1, 0, 0, 1, 0, 0, 0])):
        final.update(heldout_pass_at_1(sources, uids, acc, prefix=metric_prefix(length)))
    return [{"step": 1, "metrics": {"critic/score/mean": 0.06, "actor/pg_clipfrac": 0.0, "actor/ratio_min": 0.9,
                                    "actor/ratio_max": 1.1, "microcoder/diversity": 0.93}},
            {"step": 2, "metrics": {"critic/score/mean": 0.31, "actor/pg_clipfrac": 0.0084, "actor/ratio_min": 0.70,
                                    "actor/ratio_max": 1.48, "microcoder/diversity": 0.77, **final}}]


def test_evaluation_summary_per_length():
    evaluation = held_out_eval(_steps(), attempts=4)
    assert list(evaluation["lengths"]) == ["96", "192"]  # in length order
    assert evaluation["pass@1"] == 0.125 and evaluation["problems"] == 2 and evaluation["temperature"] == 1.1
    at_192 = evaluation["lengths"]["192"]
    assert at_192["pass@1"] == 0.375
    assert at_192["groups"]["livecodebench/atcoder"] == {"pass@1": 0.5, "problems": 1.0}
    assert at_192["groups"]["livecodebench/all/medium"]["pass@1"] == 0.25
    assert evaluation["sources"]["livecodebench/atcoder/easy"] == 0.25  # the first length's groups


def test_card_says_what_ran_and_lays_out_table_one():
    cfg = TrainingConfig(model_path="/m")
    steps = _steps()
    record = {"rule": "start at the lowest T ...", "reason": "T=1.1: the lowest T with probe diversity >= 0.8",
              "target_diversity": 0.8, "chosen": 1.1, "switches": [],
              "probe": [{"temperature": 0.7, "diversity": 0.517, "spread": 0.134, "prompts": 2},
                        {"temperature": 1.1, "diversity": 0.85, "spread": 0.093, "prompts": 2}],
              "probe_cost": {"prompts": 2, "samples_per_prompt": 4, "candidates": 3, "tokens_per_sample": 32}}
    summary = {"steps": 2, "eval": held_out_eval(steps, 4), "model_path": "/m", "learning_signal": "learning signal in 2 of 2 steps"}
    card = training_card(cfg, summary, steps, record)
    assert "**4 updates per step**" in card and "The clip bound in step(s) 2." in card
    assert "| 2 | 0.310 | 0.0084 | 0.700 | 1.480 | - |" in card
    assert record["reason"] in card and "| 1.1 | 0.850 | 0.093 |" in card
    assert "mean of its last 2 steps): 0.850" in card  # the plateau: the next run's target
    assert "prompt limit 4096 tokens" in card and "held-out split 6 problems, 4 kept for the `lcb-v6` window" in card
    assert "**Test at 192 tokens**: pass@1 37.5 %" in card
    assert "| AtCoder | 50.0 (1) | - | - | 50.0 (1) |" in card  # Table 1: platform x difficulty, All
    assert "| LiveCodeBench | 50.0 (1) | 25.0 (1) | - |  |" in card
    fixed = training_card(TrainingConfig(model_path="/m", preset="dapo"), summary, steps, {})
    assert "Rule: fixed (from step 1: T 1.2)." in fixed
