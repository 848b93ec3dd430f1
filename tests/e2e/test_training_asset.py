"""Materialize ``grpo_training_run`` for real: verl on CPU for 2 steps, launched through Pipes."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(2400),  # builds the dataset (shared fixture), then 2 verl steps on CPU
    pytest.mark.train,
    pytest.mark.skipif(not (ROOT / ".venv-train" / "bin" / "python").exists(), reason="run scripts/setup-train.sh"),
]


@pytest.fixture(scope="module")
def trained(built):
    from assets.definitions import defs

    root, dataset_result = built
    assert dataset_result.success
    run_config = {"ops": {"grpo_training_run": {"config": {
        "steps": 2, "eval_attempts": 1,
        "algorithm": {"train_batch_size": 2, "ppo_mini_batch_size": 2, "samples_per_query": 2, "max_prompt_length": 512,
                      "max_response_length": 48, "temperature_schedule": {"1": 1.2, "2": 1.0}},
    }}}}
    # The dataset's manifest is read through the IO manager (files under MICROCODER_DATA).
    result = defs.resolve_job_def("training_job").execute_in_process(run_config=run_config)
    return root, result


def test_training_asset_materializes_with_step_metrics(trained):
    _, result = trained
    assert result.success
    [event] = result.asset_materializations_for_node("grpo_training_run")
    metadata = event.metadata
    assert metadata["steps"].value == 2
    steps = metadata["metrics_per_step"].value
    assert [s["step"] for s in steps] == [1, 2]
    for step in steps:
        assert "microcoder/diversity" in step["metrics"] and "microcoder/masked_count" in step["metrics"]
        assert step["metrics"]["microcoder/temperature"] == (1.2 if step["step"] == 1 else 1.0)
    assert {"curve_reward", "curve_accuracy", "curve_response_length", "curve_diversity"} <= set(metadata)
