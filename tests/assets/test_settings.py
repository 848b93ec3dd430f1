"""Bad configuration fails when the definitions load (or at launch), naming the setting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from assets.settings import SettingError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROCODER_DATA", str(tmp_path))
    return monkeypatch


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({"MICROCODER_SAMPLER_BACKEND": "vlm"}, "MICROCODER_SAMPLER_BACKEND='vlm'"),
        ({"MICROCODER_SAMPLER_BATCH_SIZE": "0"}, "MICROCODER_SAMPLER_BATCH_SIZE='0'"),
        ({"MICROCODER_SAMPLER_DEVICE": "gpu"}, "MICROCODER_SAMPLER_DEVICE='gpu'"),
        ({"MICROCODER_SAMPLER_BACKEND": "openai"}, "needs base_url and model"),
        ({"MICROCODER_TRANSLATION_ENABLED": "perhaps"}, "MICROCODER_TRANSLATION_ENABLED='perhaps'"),
        ({"MICROCODER_TRANSLATION_MAX_TOKENS": "many"}, "MICROCODER_TRANSLATION_MAX_TOKENS='many'"),
        ({"MICROCODER_HUB_SOURCES": "tacoo"}, "MICROCODER_HUB_SOURCES names unknown hub source 'tacoo'"),
        ({"MICROCODER_REFRESH_CRON": "every monday"}, "MICROCODER_REFRESH_CRON"),
        ({"MICROCODER_DATA": "nosuchfs://bucket/x"}, "MICROCODER_DATA='nosuchfs://bucket/x'"),
    ],
)
def test_bad_setting_fails_at_load_naming_it(env, variables, named):
    from assets.definitions import build_defs

    for name, value in variables.items():
        env.setenv(name, value)
    with pytest.raises(SettingError) as err:
        build_defs()
    assert named in str(err.value)


def test_settings_from_environment_reach_the_resources(env):
    from assets.definitions import build_defs

    env.setenv("MICROCODER_SAMPLER_BACKEND", "openai")
    env.setenv("MICROCODER_SAMPLER_BASE_URL", "http://127.0.0.1:8000/v1")
    env.setenv("MICROCODER_SAMPLER_MODEL", "served-model")
    env.setenv("MICROCODER_TRANSLATION_ENABLED", "false")
    resources = build_defs().resources
    assert (resources["sampler"].backend, resources["sampler"].model) == ("openai", "served-model")
    assert resources["translation"].enabled is False


def test_dagster_refuses_to_load_the_code_location(tmp_path):
    """What ``dagster dev`` hits: the code location fails to load and says which variable."""
    environ = {**os.environ, "DAGSTER_HOME": str(tmp_path), "MICROCODER_DATA": str(tmp_path),
               "MICROCODER_SAMPLER_BATCH_SIZE": "0"}
    dagster = Path(sys.executable).with_name("dagster")
    bad = subprocess.run([str(dagster), "definitions", "validate", "-w", "workspace.yaml"], cwd=ROOT,
                         env=environ, capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0
    assert "MICROCODER_SAMPLER_BATCH_SIZE='0': Input should be greater than or equal to 1" in bad.stdout + bad.stderr
    del environ["MICROCODER_SAMPLER_BATCH_SIZE"]
    good = subprocess.run([str(dagster), "definitions", "validate", "-w", "workspace.yaml"], cwd=ROOT,
                          env=environ, capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stdout + good.stderr


@pytest.mark.parametrize(
    ("job", "run_config", "path"),
    [
        ("training_job", {"ops": {"grpo_training_run": {"config": {"preset": "ppo"}}}}, "grpo_training_run:config:preset"),
        ("training_job", {"ops": {"grpo_training_run": {"config": {"steps": "two"}}}}, "grpo_training_run:config:steps"),
        ("dataset_job", {"resources": {"sampler": {"config": {"backend": "vlm"}}}}, "sampler:config:backend"),
        ("dataset_job", {"ops": {"scored_problems": {"config": {"samples": 4}}}}, "scored_problems:config"),
    ],
)
def test_bad_run_config_is_refused_at_launch(env, job, run_config, path):
    from assets.definitions import defs

    with pytest.raises(dg.DagsterInvalidConfigError) as err:
        dg.validate_run_config(defs.resolve_job_def(job), run_config)
    assert path in str(err.value)


def test_bad_resource_value_in_run_config_fails_before_any_step(env):
    from assets.definitions import defs

    result = defs.resolve_job_def("dataset_job").execute_in_process(
        run_config={"resources": {"sampler": {"config": {"batch_size": 0}}}}, raise_on_error=False
    )
    assert not result.success
    kinds = [e.event_type_value for e in result.all_events]
    assert "STEP_START" not in kinds
    failure = next(e for e in result.all_events if e.event_type_value == "RESOURCE_INIT_FAILURE")
    assert "greater than or equal to 1" in str(failure.event_specific_data)
