"""Shared fixtures: the shared problem sets and an isolated data root per test session."""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.paths import shared_data_dir

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
