"""Evaluator workloads from the shared sets, built through the pipeline's own adapters.

Each item is ``{"id", "set", "code", "tests", "special_judge", "expect_pass"}`` with canonical tests
exactly as the Process stage produces them, so the benchmark judges what the pipeline verifies.
Known-incorrect attempts (KodCode's confirmed failures) come as set ``<name>_incorrect``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")  # a table, not bars, on the terminal
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.process.checkers import derive_checker  # noqa: E402
from pipeline.process.tests_format import normalize_tests
from pipeline.schema import Tests  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402
from pipeline.stage import Rejected  # noqa: E402

SETS = ("humaneval", "mbpp", "leetcode", "taco", "humaneval_xl", "kodcode")


def _items(name: str):
    spec = default_specs().get(name)
    if spec is None:
        raise SystemExit(f"source {name!r} is not available here (no ../shared/data?)")
    for row in collect(spec).kept:
        meta = json.loads(row["metadata"] or "{}")
        if name == "leetcode" and meta.get("split") != "test":
            continue  # the figure is LeetCodeDataset's test split
        try:
            tests = normalize_tests(row).to_dict()
        except Rejected:
            continue  # e.g. TACO problems whose statement had no parsable example
        if (tests["kind"] != "assert" and not tests["cases"]) or not row["solutions"]:
            continue
        derived = derive_checker(row["statement"], Tests.from_dict(tests))
        base = {"set": name, "tests": tests, "special_judge": bool(meta.get("special_judge")),
                "derived_checker": str(derived[0]) if derived else None}
        yield {**base, "id": f"{name}/{row['source_id']}", "code": row["solutions"][0], "expect_pass": True}
        for j, code in enumerate(row["incorrect_solutions"]):
            yield {**base, "set": f"{name}_incorrect", "id": f"{name}/{row['source_id']}/bad{j}", "code": code,
                   "expect_pass": False}


def load(names: list[str], limit: int | None = None, incorrect: bool = False) -> list[dict]:
    out: list[dict] = []
    for name in names:
        rows = [item for item in _items(name) if incorrect or item["expect_pass"]]
        out += rows[:limit] if limit else rows
    return out


def jobs(items: list[dict]) -> list[tuple[str, str, dict]]:
    """``evaluate_many`` jobs for ``items``: ``(id, code, tests)``, the id coming back as each result's key."""
    return [(item["id"], item["code"], item["tests"]) for item in items]


def test_count(item: dict) -> int:
    t = item["tests"]
    return 1 if t["kind"] == "assert" else len(t["cases"])
