"""Shared fixtures: the shared problem sets and an isolated data root per test session."""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.paths import shared_data_dir
from tests.procs import free_port

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data is not on this machine")
    return path


@pytest.fixture(scope="session")
def leetcode_lines(shared_data) -> Callable[[str, int], list[str]]:
    """``lines(split, n)``: the first ``n`` raw JSON lines of a LeetCodeDataset split, to drop as a source file."""

    def lines(split: str, n: int) -> list[str]:
        with gzip.open(shared_data / "leetcode" / f"LeetCodeDataset-v0.2.0-{split}.jsonl.gz", "rt") as handle:
            return [next(handle) for _ in range(n)]

    return lines


@pytest.fixture(scope="session")
def s3_server():
    """A real S3 API on loopback (moto's standalone server), with a fresh bucket; yields
    ``(bucket_url, env)`` where ``env`` holds the AWS_* settings s3fs/boto read."""
    import subprocess
    import sys
    import time
    import urllib.request

    pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(endpoint, timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint}
        mp = pytest.MonkeyPatch()
        for key, value in env.items():
            mp.setenv(key, value)
        import fsspec

        fsspec.filesystem("s3", skip_instance_cache=True).mkdir("microcoder-test")
        yield "s3://microcoder-test", env
        mp.undo()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


TRAIN_PY = Path(__file__).resolve().parents[1] / ".venv-train" / "bin" / "python"


@pytest.fixture(scope="session")
def cpu_model_path() -> str:
    """The embedded SmolLM2 as a Hugging Face folder, converted once by ``.venv-train``'s Python."""
    import subprocess

    if not TRAIN_PY.exists():
        pytest.skip(".venv-train is absent: run scripts/setup-train.sh")
    proc = subprocess.run([str(TRAIN_PY), "-c", "from pipeline.samplers.default_model import default_model_path; "
                           "print(default_model_path())"], cwd=TRAIN_PY.parents[2], capture_output=True, text=True,
                          timeout=900)
    if proc.returncode != 0:
        pytest.skip(f"default model unavailable: {proc.stderr[-500:]}")
    return proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def humaneval_verl_rows(shared_data) -> Callable[[int], list[dict]]:
    """``rows(n)``: the first ``n`` shared HumanEval problems as verl rows (prompt, reward_model, extra_info)."""
    import json

    def rows(n: int) -> list[dict]:
        out = []
        with gzip.open(shared_data / "humaneval" / "HumanEval.jsonl.gz", "rt") as fh:
            for line in fh:
                r = json.loads(line)
                tests = {"kind": "assert", "fn_name": r["entry_point"], "cases": [],
                         "assert_code": f"{r['test']}\ncheck({r['entry_point']})\n", "checker": None,
                         "time_limit_s": 5.0, "memory_limit_mb": None}
                out.append({"prompt": [{"role": "user", "content": "Complete this Python function. Answer with one "
                                        "```python code block.\n\n" + r["prompt"]}],
                            "data_source": "humaneval", "ability": "code",
                            "reward_model": {"style": "rule", "ground_truth": json.dumps(tests)},
                            "extra_info": {"index": len(out), "problem_id": r["task_id"]}})
                if len(out) == n:
                    break
        return out

    return rows


SLOW_DIRS = ("e2e", "ui")  # the real Dagster graph, verl launches and a browser: minutes, not seconds
SLOW_MARKS = ("model", "train", "network")  # a model loaded, .venv-train started, pip's resolver run


def pytest_collection_modifyitems(config, items):
    """``pytest -m "not slow"`` is the fast tier for development: everything under tests/e2e and
    tests/ui, and every test that loads a model, starts ``.venv-train`` or runs pip's resolver, is
    slow; elsewhere a test says so with ``@pytest.mark.slow``."""
    root = Path(__file__).parent
    for item in items:
        parts = Path(item.fspath).relative_to(root).parts
        if (parts and parts[0] in SLOW_DIRS) or any(item.get_closest_marker(m) for m in SLOW_MARKS):
            item.add_marker(pytest.mark.slow)
