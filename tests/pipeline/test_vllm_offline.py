"""The ``vllm`` sampler on a real vLLM engine (PyPI's CPU build in ``.venv-vllm``) and the CPU model.

One engine for the module: vLLM takes 30-40 s to start on CPU. It runs in the worker process the
sampler starts, exactly as the difficulty asset uses it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pipeline.difficulty import DifficultyConfig, score_problems
from pipeline.samplers import build_messages, default_model_path, make_sampler
from pipeline.samplers.vllm_backend import WorkerError, vllm_python

pytestmark = pytest.mark.model


def require_vllm_env() -> str:
    """The vLLM environment's python; CI (scripts/test.sh runs scripts/setup-vllm.sh) must have it."""
    python = vllm_python()
    if python is None or not Path(python).exists():
        message = "no vLLM environment: run scripts/setup-vllm.sh"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return python


@pytest.fixture(scope="module")
def vllm_sampler():
    require_vllm_env()
    sampler = make_sampler("vllm", seed=0)
    yield sampler
    sampler.close()
    assert sampler.engine.process.returncode == 0  # the worker exits cleanly when its input closes


@pytest.fixture(scope="module")
def stop_ids() -> set[int]:
    """The model's end-of-turn ids, from the converted folder's generation config."""
    config = json.loads((Path(default_model_path()) / "generation_config.json").read_text())
    ids = config["eos_token_id"]
    return set(ids if isinstance(ids, list) else [ids])


def test_vllm_shapes_token_counts_and_truncation(vllm_sampler, stop_ids) -> None:
    assert vllm_sampler.where.endswith("python") and vllm_sampler.model_id == "SmolLM2-135M-Instruct.Q4_1"
    prompts: list[Any] = [
        build_messages("Read two integers and print their sum.", None, "stdin", None),
        build_messages("Write a function add(a, b) returning a + b.", None, "assert", "add"),
        "def add(a, b):\n    return",  # a raw (non-chat) prompt goes through LLM.generate
    ]
    results = vllm_sampler.generate(prompts, n=3, temperature=1.0, max_tokens=6, seed=3)
    assert [len(group) for group in results] == [3, 3, 3]
    for completion in (c for group in results for c in group):
        assert completion.num_tokens == len(completion.token_ids) <= 6
        if completion.finish_reason == "length":
            assert completion.num_tokens == 6 and completion.token_ids[-1] not in stop_ids
        else:
            assert completion.token_ids[-1] in stop_ids
    # a code answer does not fit in 6 tokens: the chat answers are truncated
    assert all(c.truncated for group in results[:2] for c in group)


def test_vllm_stops_on_eos_and_is_deterministic_per_seed(vllm_sampler, stop_ids) -> None:
    prompts = [
        [{"role": "user", "content": "Say only the word: yes"}],
        [{"role": "user", "content": "What is 2 + 2? Answer with one number."}],
    ]
    greedy = vllm_sampler.generate(prompts, n=2, temperature=0.0, max_tokens=32, seed=0)
    assert any(c.finish_reason == "stop" for group in greedy for c in group)
    for group in greedy:
        assert len(group) == 2 and group[0] == group[1]  # greedy: the n copies agree
        for c in (c for c in group if c.finish_reason == "stop"):
            assert c.num_tokens < 32 and c.token_ids[-1] in stop_ids and "<|im_end|>" not in c.text
    first = vllm_sampler.generate(prompts, n=4, temperature=1.0, max_tokens=24, seed=7)
    again = vllm_sampler.generate(prompts, n=4, temperature=1.0, max_tokens=24, seed=7)
    other = vllm_sampler.generate(prompts, n=4, temperature=1.0, max_tokens=24, seed=8)
    assert first == again
    assert first != other
    assert len({c.text for c in first[1]}) > 1  # the n samples of one prompt differ


def test_vllm_rejected_request_fails_that_call_only(vllm_sampler) -> None:
    too_long = "word " * 9000  # beyond SmolLM2's 8192-token context
    with pytest.raises(WorkerError, match="maximum context length"):
        vllm_sampler.generate([too_long], n=1, max_tokens=4)
    [group] = vllm_sampler.generate(["def add(a, b):\n    return"], n=1, temperature=0.0, max_tokens=4)
    assert group[0].num_tokens == 4  # the worker lives on


def test_difficulty_stage_on_vllm(vllm_sampler, shared_data) -> None:
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    rows = process_rows(collect(default_specs()["humaneval"]).kept).kept[:3]
    config = DifficultyConfig(k=2, max_tokens=64, sample_size=3, batch_problems=2)
    scored, stats = score_problems(rows, vllm_sampler, config)
    assert [s["problem_id"] for s in scored] == [r["problem_id"] for r in rows]
    assert all(s["difficulty_model"] == "SmolLM2-135M-Instruct.Q4_1" and s["pass_rate"] in (0, 0.5, 1) for s in scored)
    assert stats["generated_tokens"] > 0
    assert stats["problems_per_s"] > 0 and stats["tokens_per_s"] > 0
    assert stats["tokens_per_s"] == pytest.approx(stats["generated_tokens"] / stats["sample_seconds"], rel=0.05)


def test_vllm_says_how_far_a_generate_call_has_got(vllm_sampler) -> None:
    """From inside one call, through the worker: decode steps (the share) rise while samples are
    unfinished, and the last word is every sample done with the tokens they cost."""
    from pipeline.samplers.base import reporting

    heard = []
    prompts = [build_messages(f"Write a function f{i}(x) returning x + {i}.", None, "assert", f"f{i}") for i in range(3)]
    with reporting(vllm_sampler, heard.append):
        results = vllm_sampler.generate(prompts, n=2, temperature=1.0, max_tokens=48, seed=1)
    assert heard and heard[-1].samples_done == heard[-1].samples == 6
    assert heard[-1].tokens == sum(c.num_tokens for group in results for c in group)
    shares = [news.done for news in heard]
    assert shares == sorted(shares) and 0 < shares[0] < 1  # it moved before the call ended
    assert vllm_sampler.on_progress is None  # the hook was the call's only


def test_vllm_worker_that_cannot_start_names_the_cause(tmp_path) -> None:
    python = require_vllm_env()
    with pytest.raises(WorkerError, match=str(tmp_path / "no-model")):
        make_sampler("vllm", model=str(tmp_path / "no-model"), python=python)
