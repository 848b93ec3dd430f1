"""Both notebooks execute top to bottom (nbclient, this environment's python3 kernel) against
data the test suite produced: the shards of the ``built`` session and a metrics file in verl's
file-logger layout computed with the GRPO functions on real problems and real programs."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import nbformat
import polars as pl
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
G = 4  # responses per problem, as GRPO samples G per query
PROBLEMS_PER_STEP = 3


def _execute(name: str, env: dict[str, str]) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    kernel_env = {**os.environ, **env, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
                  "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(REPO)}})
    client.execute(env=kernel_env)
    return notebook


def _text(notebook: nbformat.NotebookNode) -> str:
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            parts.append(output.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def _images(notebook: nbformat.NotebookNode) -> int:
    return sum("image/png" in output.get("data", {}) for cell in notebook.cells for output in cell.get("outputs", []))


def test_explore_dataset_notebook(built):
    root, _ = built
    shards = sorted((root / "dataset" / "data").glob("*.parquet"))
    assert shards, "the built session wrote no shards"
    expected = pl.read_parquet(shards)
    notebook = _execute("explore_dataset.ipynb", {"MICROCODER_DATA": str(root)})
    text = _text(notebook)
    assert f"{expected.height} problems" in text
    for source in expected["source"].unique().to_list():
        assert source in text
    assert "-- tests: kind=" in text  # the problems-with-tests cell printed at least one problem
    assert _images(notebook) >= 2


def _metrics_from_real_problems(root: Path, path: Path) -> list[dict]:
    """Per-step metrics in verl's file-logger layout: each step scores G real programs per
    problem with the evaluator (the problem's reference, and other problems' references as wrong
    answers), then computes GRPO's group advantages, accuracy, response length (SmolLM2 tokens)
    and output diversity from them."""
    import torch
    from transformers import AutoTokenizer

    from evaluator import compute_score_batch
    from pipeline.samplers.default_model import default_model_path
    from tests.training.grpo_reference import group_advantages
    from training.grpo import group_diversities, mean_and_stderr

    verified = pl.read_parquet(root / "assets" / "verified_problems.parquet").filter(pl.col("solutions").list.len() > 0)
    # A group of G real programs per problem: its reference solution (reward 1 when verified)
    # and the references of the next problems from the same source (real code, wrong problem).
    by_source = {source: frame.sort("problem_id").to_dicts()
                 for (source,), frame in verified.sort("source").group_by("source", maintain_order=True)}
    pools = [rows for rows in by_source.values() if len(rows) >= G]
    if not pools:
        pytest.skip("no source with enough verified problems for a group")
    tokenizer = AutoTokenizer.from_pretrained(default_model_path())
    steps = []
    for step in range(1, 6):
        batch, responses, truths, uids = [], [], [], []
        for slot in range(PROBLEMS_PER_STEP):
            pool = pools[(step + slot) % len(pools)]
            index = (step * PROBLEMS_PER_STEP + slot) % len(pool)
            row = pool[index]
            batch.append(row)
            # Like a policy that learns: more of the group repeats the right program each step.
            right = 1 + (step - 1) * (G - 1) // 4
            others = [pool[(index + k) % len(pool)]["solutions"][0] for k in range(1, G - right + 1)]
            for program in [row["solutions"][0]] * right + others:
                responses.append(f"```python\n{program}\n```")
                truths.append(row["tests"])
                uids.append(row["problem_id"])
        scores = compute_score_batch(["microcoder"] * len(responses), responses, truths, workers=2, stop_on_first_failure=True)
        rewards = torch.tensor([s["score"] for s in scores])
        advantages = group_advantages(rewards, uids)
        token_ids = [tokenizer(r, add_special_tokens=False)["input_ids"] for r in responses]
        groups = [[ids for ids, uid in zip(token_ids, uids) if uid == row["problem_id"]] for row in batch]
        data = {
            "critic/score/mean": float(rewards.mean()),
            "critic/advantages/mean": float(advantages.mean()),
            "critic/advantages/max": float(advantages.max()),
            "microcoder/accuracy": float((rewards >= 1.0).float().mean()),
            "response_length/mean": sum(map(len, token_ids)) / len(token_ids),
            "microcoder/diversity": mean_and_stderr(group_diversities(groups))[0],  # as the trainer logs it
        }
        steps.append({"step": step, "data": data})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    return steps


def test_training_run_notebook(built, tmp_path):
    root, _ = built
    metrics = tmp_path / "training" / "metrics.jsonl"
    steps = _metrics_from_real_problems(root, metrics)
    rewards = [s["data"]["critic/score/mean"] for s in steps]
    assert rewards[-1] > rewards[0]  # the evaluator passes the repeated references
    assert steps[-1]["data"]["microcoder/diversity"] < steps[0]["data"]["microcoder/diversity"]
    notebook = _execute("training_run.ipynb", {"MICROCODER_DATA": str(root), "MICROCODER_TRAINING_METRICS": str(metrics)})
    text = _text(notebook)
    assert f"{len(steps)} steps" in text
    for name in ("critic/score/mean", "microcoder/accuracy", "response_length/mean", "microcoder/diversity"):
        assert name in text
    assert _images(notebook) >= 1
    last = steps[-1]["data"]["response_length/mean"]
    # the summary table shows the real last value (polars prints more decimals: rounded or cut at one)
    assert f"{last:.1f}" in text or f"{math.floor(last * 10) / 10:.1f}" in text
