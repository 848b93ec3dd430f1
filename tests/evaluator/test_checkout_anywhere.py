"""A checkout and environment under ``/tmp`` (where many people clone): candidates still see the
evaluator's Python installation and its packages, at every sandbox level, and the private
``/tmp`` of each case neither hides that installation nor lets a program change it (issue 26.1).

The environment is real: a venv made under ``/tmp`` by the base interpreter, holding its own
numpy (hard links, or a copy, of the project's), and a copy of ``evaluator/`` beside it; the
command line runs from there exactly as a user's clone would run it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy
import pytest

ROOT = Path(__file__).resolve().parents[2]
PY = f"python{sys.version_info.major}.{sys.version_info.minor}"


def _link_tree(src: Path, dst: Path) -> None:
    try:
        shutil.copytree(src, dst, copy_function=os.link)
    except (OSError, shutil.Error):  # another filesystem: copy instead
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)


@pytest.fixture(scope="module")
def tmp_clone():
    """``/tmp/mc-clone-*/``: ``venv/`` (no system site-packages, its own numpy) and ``checkout/``."""
    top = Path(tempfile.mkdtemp(prefix="mc-clone-", dir="/tmp"))
    top.chmod(0o755)  # as `git clone` leaves it (mkdtemp's 0700 would hide it from other uids)
    try:
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", "--without-pip", str(top / "venv")], check=True, timeout=120)
        site = top / "venv" / "lib" / PY / "site-packages"
        numpy_dir = Path(numpy.__file__).parent
        for name in ("numpy", "numpy.libs"):
            if (numpy_dir.parent / name).is_dir():
                _link_tree(numpy_dir.parent / name, site / name)
        shutil.copytree(ROOT / "evaluator", top / "checkout" / "evaluator",
                        ignore=shutil.ignore_patterns("__pycache__"))
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _items(venv: str) -> list[dict]:
    numpy_init = f"{venv}/lib/{PY}/site-packages/numpy/__init__.py"
    stdin = {"kind": "stdin", "cases": [{"input": "3\n", "output": "6 True\n"}]}
    uses_numpy = (f"import numpy\nn = int(input())\n"
                  f"print(int(numpy.arange(n + 1).sum()), numpy.__file__.startswith({venv!r}))\n")
    return [
        {"id": "stdin_numpy", "code": uses_numpy, "tests": stdin},
        {"id": "call_numpy", "code": "import numpy\ndef f(x):\n    return numpy.int64(x) ** 2\n",
         "tests": {"kind": "call", "fn_name": "f", "cases": [{"input": "[3]", "output": "9"}]}},
        {"id": "assert_numpy_both_sides", "code": "import numpy as np\ndef f(x):\n    return int(np.int64(x) ** 2)\n",
         "tests": {"kind": "assert", "fn_name": "f",
                   "assert_code": "import numpy\nassert f(3) == numpy.int64(9)\n"}},
        # A program that tries to change the installation: it must fail and change nothing.
        {"id": "write_into_venv", "code": f"open({numpy_init!r}, 'a').write('x')\nprint(6, True)\n", "tests": stdin},
        {"id": "rename_venv", "code": f"import os\nos.rename({venv!r}, '/tmp/gone')\nprint(6, True)\n", "tests": stdin},
        {"id": "remove_venv", "code": f"import shutil\nshutil.rmtree({venv!r})\nprint(6, True)\n", "tests": stdin},
        {"id": "after_the_attempts", "code": uses_numpy, "tests": stdin},
    ]


EXPECTED = {"stdin_numpy": True, "call_numpy": True, "assert_numpy_both_sides": True, "write_into_venv": False,
            "rename_venv": False, "remove_venv": False, "after_the_attempts": True}


def _run_cli(top: Path, prefix: list[str], env: dict) -> tuple[dict, str]:
    """Results by id, and what the command printed on stderr."""
    venv = str(top / "venv")
    work = Path(tempfile.mkdtemp(prefix="mc-clone-io-"))
    try:
        (work / "in.jsonl").write_text("".join(json.dumps(i) + "\n" for i in _items(venv)))
        proc = subprocess.run(
            prefix + [f"{venv}/bin/python", "-m", "evaluator.cli", "run", str(work / "in.jsonl"),
                      "-o", str(work / "out.jsonl"), "--workers", "1", "--timeout", "10"],
            cwd=top / "checkout", capture_output=True, text=True, timeout=300,
            env={**os.environ, "PYTHONPATH": str(top / "checkout"), **env})
        assert proc.returncode == 0, proc.stderr[-3000:]
        results = [json.loads(line) for line in (work / "out.jsonl").read_text().splitlines()]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {r["id"]: r for r in results}, proc.stderr


def _mount_ro(top: Path) -> list[str]:
    """Run inside a private mount namespace where ``top`` is a read-only bind mount."""
    script = f'mount --bind "{top}" "{top}" && mount -o remount,bind,ro "{top}" && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]


LEVELS = {
    "full": ([], {}, "mntns"),
    "userns": (["unshare", "--user", "--map-user=1000", "--map-group=1000"], {}, "userns:"),
    "degraded": ([], {"MICROCODER_EVAL_NAMESPACES": "0"}, "degraded:"),
    "degraded_unprivileged": (["unshare", "--user", "--map-user=1000", "--map-group=1000"],
                              {"MICROCODER_EVAL_NAMESPACES": "0"}, "degraded:"),
    "read_only_mount": (None, {}, "mntns"),
}


@pytest.mark.parametrize("level", list(LEVELS))
def test_numpy_from_a_venv_under_tmp(tmp_clone, level):
    prefix, env, marker = LEVELS[level]
    if level == "read_only_mount":
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            pytest.skip("needs root and util-linux unshare to make a read-only mount")
        prefix = _mount_ro(tmp_clone)
    elif prefix and shutil.which(prefix[0]) is None:
        pytest.skip("util-linux unshare not installed")
    elif level == "full" and os.geteuid() != 0:
        pytest.skip("the full level needs root here")
    elif level == "degraded" and _hidden_from_sandbox_uid():
        pytest.skip("the base installation is out of the sandbox uid's reach here (see the warning test)")
    numpy_init = tmp_clone / "venv" / "lib" / PY / "site-packages" / "numpy" / "__init__.py"
    before = numpy_init.read_bytes()
    results, _ = _run_cli(tmp_clone, prefix, env)
    isolation = results["stdin_numpy"]["isolation"]
    assert marker in isolation, isolation
    got = {name: results[name]["passed"] for name in EXPECTED}
    assert got == EXPECTED, {n: results[n]["cases"][-1] for n in EXPECTED if got[n] != EXPECTED[n]}
    assert numpy_init.read_bytes() == before
    assert (tmp_clone / "venv" / "bin").is_dir() and not os.path.exists("/tmp/gone")


def _hidden_from_sandbox_uid() -> list[str]:
    """Installation paths the root-mode sandbox uid cannot reach without a mount namespace
    (e.g. pyenv in a 0700 ``/root``): none but root reaches them there."""
    if os.geteuid() != 0:
        return []
    from evaluator.sandbox.jail import SANDBOX_UID_BASE, unreachable, visible_paths

    return unreachable(visible_paths(), SANDBOX_UID_BASE)


def test_degraded_level_warns_when_the_installation_is_out_of_reach(tmp_clone):
    """Where the degraded level cannot show the installation, the command says so on stderr
    (and programs that import from it fail honestly, never pass)."""
    hidden = _hidden_from_sandbox_uid()
    if not hidden:
        pytest.skip("every installation path is reachable by the sandbox uid here")
    results, stderr = _run_cli(tmp_clone, [], {"MICROCODER_EVAL_NAMESPACES": "0"})
    assert "degraded:" in results["stdin_numpy"]["isolation"]
    assert "cannot reach" in stderr and hidden[0] in stderr, stderr[-2000:]
    assert not any(r["passed"] for r in results.values())
