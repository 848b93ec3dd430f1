"""Output diversity D: distinct-4 pooled over the first W tokens of a query's G responses."""

import gzip
import json
import math

import pytest
import torch

from pipeline.paths import shared_data_dir
from training.grpo import batch_group_diversities, distinct_n, group_diversities, mean_and_stderr

G = 8


def test_identical_responses_give_one_over_g():
    response = list(range(100, 160))  # 57 distinct 4-grams
    assert math.isclose(distinct_n([response] * G), 1 / G)
    text = " ".join(f"w{i}" for i in range(30))
    assert math.isclose(distinct_n([text] * G), 1 / G)


def test_disjoint_responses_give_one():
    responses = [list(range(1000 * i, 1000 * i + 50)) for i in range(G)]
    assert distinct_n(responses) == 1.0
    assert distinct_n([f"a{i} b{i} c{i} d{i} e{i}" for i in range(G)]) == 1.0
    assert mean_and_stderr(group_diversities([responses, [responses[0]] * G]))[0] == (1.0 + 1 / G) / 2  # the trainer's mean


def test_partial_overlap_and_short_responses():
    assert math.isclose(distinct_n([[1, 2, 3, 4, 5], [1, 2, 3, 4, 6]]), 3 / 4)
    assert math.isnan(distinct_n([[1, 2, 3]] * G))  # no 4-gram at all: undefined
    assert group_diversities([[[1, 2, 3]] * G, [[1, 2, 3, 4]] * 2]) == [0.5]  # NaN group skipped
    assert distinct_n([torch.tensor([1, 2, 3, 4, 5])], n=2) == 1.0


def test_batch_layout_matches_groups():
    ids = torch.tensor([[1, 2, 3, 4, 9, 9], [1, 2, 3, 4, 0, 0], [5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 15, 16]])
    lengths = torch.tensor([4, 4, 6, 6])
    values = batch_group_diversities(ids, lengths, ["a", "a", "b", "b"])
    assert values == [0.5, 1.0]
    mean, stderr = mean_and_stderr(values)
    assert mean == 0.75 and stderr == pytest.approx(0.25)  # stdev 0.354 / sqrt(2)
    assert batch_group_diversities(ids, lengths, ["a", "a", "b", "b"], window=4) == [0.5, 1.0]
    assert math.isnan(mean_and_stderr([0.5])[1]) and math.isnan(mean_and_stderr([])[0])


def _programs() -> list[str]:
    """One model-written program per HumanEval/MBPP problem (the labelled set), in task order."""
    root = shared_data_dir()
    path = root / "labelled" / "programs.jsonl.gz" if root is not None else None
    if path is None or not path.exists():
        pytest.skip("shared data not available")
    first: dict[str, str] = {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            row = json.loads(line)
            first.setdefault(row["task_id"], row["code"])
    return [first[task] for task in sorted(first)]


def test_the_window_keeps_length_growth_from_reading_as_lost_diversity():
    """A group of G responses that grow longer and stay as different as they were: response k is
    made of m real programs, each for a problem no other response touches. Pooled distinct-4 over
    whole responses falls as m grows (a longer text repeats its own idioms: ``return``,
    ``for i in range(len(``); the measure T(D) reads, over a fixed window per response, does not."""
    programs = _programs()
    whole, windowed, lengths = [], [], []
    for m in (1, 2, 4, 8, 16):
        group = ["\n".join(programs[k + G * j] for j in range(m)) for k in range(G)]
        lengths.append(sum(len(r.split()) for r in group) / G)
        whole.append(distinct_n(group))
        windowed.append(distinct_n(group, window=32))
    assert lengths == sorted(lengths) and lengths[-1] > 10 * lengths[0]
    assert whole == sorted(whole, reverse=True) and whole[0] - whole[-1] > 0.05  # 0.92 -> 0.82
    assert len(set(windowed[1:])) == 1  # every response past the window: the same D at any length
