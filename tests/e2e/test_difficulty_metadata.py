"""The difficulty asset's metadata names the model backend and its throughput (the shared graph run)."""

from __future__ import annotations

import pytest


def test_difficulty_metadata_names_backend_and_throughput(built) -> None:
    _, result = built
    [event] = result.asset_materializations_for_node("scored_problems")
    metadata = {key: getattr(value, "value", value) for key, value in event.metadata.items()}
    assert metadata["backend"] == "transformers"  # the resource's default
    assert metadata["model"] == "SmolLM2-135M-Instruct.Q4_1"
    stats = metadata["stage_stats"]
    assert stats["sampled"] == 3 and stats["generated_tokens"] > 0
    assert metadata["tokens_per_s"] == stats["tokens_per_s"] > 0
    assert metadata["problems_per_s"] == stats["problems_per_s"] > 0
    assert metadata["tokens_per_s"] == pytest.approx(stats["generated_tokens"] / stats["sample_seconds"], rel=0.05)
    assert metadata["startup_s"] >= 0
    # the differential round's additions per source (the scored problems), and its totals
    by_source = metadata["differential_round_by_source"]
    assert sum(e["scored"] for e in by_source.values()) == 3
    assert sum(e["inputs_added"] for e in by_source.values()) == stats["round_added"] >= 0
