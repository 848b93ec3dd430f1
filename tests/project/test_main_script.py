"""``scripts/main.sh`` says what set-up is doing as it goes, and an interrupt stops set-up whole."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]


def _project(tmp_path: Path, vllm_step: str) -> Path:
    """A copy of main.sh beside fake set-up scripts (the first builds, the second is reused, the
    third runs ``vllm_step``) and a fake ``microcoder`` that says what it was asked."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "main.sh", tmp_path / "scripts" / "main.sh")
    steps = {
        "setup.sh": 'echo "setting up .venv ..." >&2\necho "== torch 2.13.0 (CPU)" >&2\n'
                    'echo "Downloading torch-2.13.0-cp311-linux_x86_64.whl (180.2 MB)"\nsleep 2.5\n',
        "setup-train.sh": "exit 0\n",
        "setup-vllm.sh": vllm_step,
    }
    for name, body in steps.items():
        path = tmp_path / "scripts" / name
        path.write_text("#!/usr/bin/env bash\n" + body)
        path.chmod(0o755)
    fake = tmp_path / ".venv" / "bin" / "microcoder"
    fake.parent.mkdir(parents=True)
    fake.write_text('#!/usr/bin/env bash\necho "microcoder $*"\n')
    fake.chmod(0o755)
    return tmp_path / "scripts" / "main.sh"


def test_set_up_reports_each_environment_and_what_it_is_doing(tmp_path):
    script = _project(tmp_path, 'echo "setting up .venv-vllm ..." >&2\n')
    run = subprocess.run(["bash", str(script), "--sample", "1"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "MICROCODER_SETUP_REPORT_S": "1"})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("set-up: full log in ")  # the log's path first
    assert any(line.startswith("set-up: .venv 0m0") and line.endswith(
        "torch 2.13.0 (CPU): Downloading torch-2.13.0-cp311-linux_x86_64.whl (180.2 MB)") for line in lines), lines
    assert any(line.startswith("set-up: .venv ready in 0m0") for line in lines)
    assert "set-up: .venv-train reused (unchanged since it was built)" in lines
    assert any(line.startswith("set-up: .venv-vllm ready in") for line in lines)
    assert lines[-1] == "microcoder run --sample 1"  # then the main job, with the flags passed through


def test_an_interrupt_during_set_up_stops_the_step_and_its_children(tmp_path):
    marker = f"sleep {4000 + os.getpid() % 1000}"
    script = _project(tmp_path, f'echo "setting up .venv-vllm ..." >&2\n{marker} &\nwait\n')
    run = subprocess.Popen(["bash", str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not _running(marker):
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.1)
    stopped = time.monotonic()
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=20)
    assert run.returncode == 130 and time.monotonic() - stopped < 6
    assert "set-up interrupted (SIGTERM)" in err
    assert "microcoder run" not in out  # the main job never started
    assert not _running(marker)


def _running(command: str) -> bool:
    for process in psutil.process_iter(["cmdline"]):
        if " ".join(process.info["cmdline"] or []) == command:
            return True
    return False
