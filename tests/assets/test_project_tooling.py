"""The project loads with Dagster's current tooling (dagster-dg-cli) as it does with ``dagster dev``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_dg_check_defs_loads_every_domain():
    proc = subprocess.run([str(BIN / "dg"), "check", "defs"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "All definitions loaded successfully" in proc.stdout + proc.stderr
    listed = subprocess.run([str(BIN / "dg"), "list", "defs", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr[-2000:]
    for name in ("raw_problems", "filtered_problems", "verified_problems", "microcoder_dataset", "grpo_training_run"):
        assert f'"{name}"' in listed.stdout

