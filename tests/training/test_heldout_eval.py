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


def test_table_one_groups_platforms_and_difficulties_per_length():
    from training.grpo.evaluation import metric_prefix

    sources = ["livecodebench/atcoder/easy"] * 4 + ["livecodebench/leetcode/easy"] * 4 + ["livecodebench/atcoder/hard"] * 4
    uids = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    acc = [1, 1, 0, 0] + [1, 1, 1, 1] + [0, 0, 0, 0]
    out = heldout_pass_at_1(sources, uids, acc, prefix=metric_prefix(8192))
    p = "microcoder/heldout/L8192"
    assert out[f"{p}/pass@1"] == pytest.approx(0.5) and out[f"{p}/problems"] == 3
    assert out[f"{p}/livecodebench/atcoder/pass@1"] == 0.25  # AtCoder, All: (0.5 + 0) / 2
    assert out[f"{p}/livecodebench/all/easy/pass@1"] == 0.75  # LiveCodeBench, Easy: (0.5 + 1) / 2
    assert out[f"{p}/livecodebench/leetcode/easy/problems"] == 1


def test_the_lcb_v6_window_where_platform_and_date_are_known():
    from training.grpo.evaluation import in_benchmark

    assert in_benchmark("livecodebench/atcoder/hard", {"contest_date": "2025-03-08T00:00:00"}) is True
    assert in_benchmark("livecodebench/leetcode/easy", {"contest_date": "2025-04-30"}) is True
    assert in_benchmark("livecodebench/codeforces/easy", {"contest_date": "2025-03-08"}) is False  # not in Table 1
    assert in_benchmark("livecodebench/atcoder/easy", {"contest_date": "2024-12-28"}) is False  # before v6's window
    assert in_benchmark("livecodebench/leetcode/easy", {"contest_date": "2025-05-01"}) is False
    assert in_benchmark("livecodebench/stdin", {"contest_date": None}) is None  # the shared copy: cannot be placed
    assert in_benchmark("livecodebench/atcoder/easy", {}) is None
    assert in_benchmark("livecodebench/atcoder/easy", {"contest_date": "2024-01-01"}, "all") is True
