"""Held-out pass@1: binary per sample, averaged over the k samples of a problem, then over problems."""

import pytest

from training.grpo.evaluation import heldout_pass_at_1


def test_partial_credit_is_no_pass():
    # every sample passes 3 of 4 tests: acc (fraction) 0.75 would read as 75 %; nothing passed
    sources, uids = ["lcb/stdin"] * 8, ["p1"] * 4 + ["p2"] * 4
    out = heldout_pass_at_1(sources, uids, [0.75] * 8)
    assert out["microcoder/heldout/pass@1"] == 0.0 and out["microcoder/heldout/problems"] == 2


def test_pass_at_1_averages_samples_then_problems_per_group():
    sources = ["lcb/stdin"] * 4 + ["lcb/call"] * 8
    uids = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    acc = [1, 0, 0, 0] + [1, 1, 1, 1] + [0, 0, 0, 0]
    out = heldout_pass_at_1(sources, uids, acc)
    assert out["microcoder/heldout/pass@1"] == pytest.approx((0.25 + 1.0 + 0.0) / 3)
    assert out["microcoder/heldout/lcb/stdin/pass@1"] == 0.25
    assert out["microcoder/heldout/lcb/call/pass@1"] == 0.5 and out["microcoder/heldout/lcb/call/problems"] == 2
    assert heldout_pass_at_1([], [], []) == {}
