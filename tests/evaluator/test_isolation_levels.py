"""The sandbox at each level this machine can reach: root (the suite's own process, as in CI),
an unprivileged user in a user namespace, and the degraded Landlock-only level. Each level is
named in the result, and the walls that level promises hold."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator import evaluate

ROOT = Path(__file__).resolve().parents[2]
PROBE = r'''
import json
from evaluator import Limits, evaluate
T = {"kind": "stdin", "cases": [{"input": "2\n", "output": "4\n"}]}
programs = {
    "honest": "print(int(input()) ** 2)",
    "read_project": "print(open(%r).read()[:1] and 4)",
    "read_shadow": "print(open('/etc/shadow').read()[:1] and 4)",
    "write_project": "open(%r, 'w').write('x')\nprint(4)",
    "tcp": "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\nprint(4)",
}
print(json.dumps({k: evaluate(v, T, Limits(time_s=5)).to_dict() for k, v in programs.items()}))
''' % (str(ROOT / "pyproject.toml"), str(ROOT / "mc_level_probe.txt"))


def _probe(env: dict, prefix: list[str]) -> dict:
    proc = subprocess.run(prefix + [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _check_walls(results: dict) -> None:
    assert results["honest"]["passed"], results["honest"]
    for name in ("read_project", "read_shadow", "write_project", "tcp"):
        assert not results[name]["passed"], (name, results[name])
    assert not (ROOT / "mc_level_probe.txt").exists()


def test_ci_level_is_full():
    level = evaluate("print(1)", {"kind": "stdin", "cases": [{"input": "", "output": "1"}]}).isolation
    if os.geteuid() != 0:
        pytest.skip("not root here")
    for part in ("mntns", "pidns", "netns", "uid"):
        assert part in level, level


@pytest.mark.skipif(shutil.which("unshare") is None, reason="util-linux unshare not installed")
def test_unprivileged_user_gets_namespaces():
    """A non-root user (uid 1000 in a user namespace: util-linux ``unshare --map-user``) gets the
    same filesystem, process and network walls through its own user namespace."""
    results, _ = _probe({}, ["unshare", "--user", "--map-user=1000", "--map-group=1000"])
    assert results["honest"]["isolation"].startswith("userns:"), results["honest"]["isolation"]
    for part in ("mntns", "pidns", "netns"):
        assert part in results["honest"]["isolation"]
    _check_walls(results)


def test_degraded_level_is_loud_and_still_walls_files():
    results, stderr = _probe({"MICROCODER_EVAL_NAMESPACES": "0"}, [])
    level = results["honest"]["isolation"]
    assert level.startswith("degraded:") and "landlock" in level, level
    assert "WARNING sandbox degraded" in stderr
    _check_walls(results)
