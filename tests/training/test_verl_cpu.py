"""verl on CPU (issue 6 sections 3 and 5): the hf rollout's temperature agreement and a 2-step
MicroCoder-GRPO run of SmolLM2 on shared HumanEval problems, through ``python -m
training.launcher`` in ``.venv-train`` (scripts/setup-train.sh creates it)."""

from __future__ import annotations

import gzip
import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from pipeline.paths import shared_data_dir

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / ".venv-train" / "bin" / "python"

pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(not TRAIN_PY.exists(), reason=".venv-train is absent: run scripts/setup-train.sh"),
]


def _run_train_py(code: str, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run([str(TRAIN_PY), "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def model_path() -> str:
    proc = _run_train_py("from pipeline.samplers.default_model import default_model_path; "
                         "print(default_model_path())", 600)
    if proc.returncode != 0:
        pytest.skip(f"default model unavailable: {proc.stderr[-500:]}")
    return proc.stdout.strip().splitlines()[-1]


def _humaneval_rows(n: int) -> list[dict]:
    shared = shared_data_dir()
    if shared is None:
        pytest.skip("../shared/data is absent")
    rows = []
    with gzip.open(shared / "humaneval" / "HumanEval.jsonl.gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            tests = {"kind": "assert", "fn_name": r["entry_point"], "cases": [],
                     "assert_code": f"{r['test']}\ncheck({r['entry_point']})\n", "checker": None,
                     "time_limit_s": 5.0, "memory_limit_mb": None}
            rows.append({
                "prompt": [{"role": "user", "content": "Complete this Python function. Answer with one "
                            "```python code block.\n\n" + r["prompt"]}],
                "data_source": "humaneval", "ability": "code",
                "reward_model": {"style": "rule", "ground_truth": json.dumps(tests)},
                "extra_info": {"index": len(rows), "problem_id": r["task_id"]},
            })
            if len(rows) == n:
                return rows
    return rows


def test_rollout_and_trainer_logprobs_agree_at_the_sampling_temperature(model_path):
    """hf rollout log-probs (processed, at T) vs the trainer's log softmax(z/T) on the same tokens."""
    proc = _run_train_py(f"""
        import asyncio, json, torch
        import verl  # noqa
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from training.verl_ext.cpu.hf_rollout import HFGenerationServer
        from training.grpo.logprobs import logprobs_at_temperature
        torch.manual_seed(0)
        path = {model_path!r}
        server = HFGenerationServer(path, response_length=24)
        tok = AutoTokenizer.from_pretrained(path)
        prompt = tok.apply_chat_template([{{"role": "user", "content": "Write a Python hello world."}}],
                                         add_generation_prompt=True, tokenize=True)
        prompt = list(prompt["input_ids"] if hasattr(prompt, "keys") else prompt)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32, attn_implementation="sdpa").eval()
        out = {{}}
        for t in (1.2, 0.7):
            res = asyncio.run(server.generate(prompt, {{"temperature": t, "top_p": 1.0, "top_k": -1, "logprobs": True}}, "r"))
            ids = torch.tensor([prompt + res.token_ids])
            with torch.no_grad():
                logits = model(ids).logits[0, len(prompt) - 1 : -1]
            resp = torch.tensor(res.token_ids)
            roll = torch.tensor(res.log_probs)
            out[str(t)] = {{
                "same_t": (logprobs_at_temperature(logits, resp, t) - roll).abs().max().item(),
                "ratio_same_t": torch.exp(logprobs_at_temperature(logits, resp, t) - roll).mean().item(),
                "trainer_t1": (logprobs_at_temperature(logits, resp, 1.0) - roll).abs().max().item(),
                "n": len(res.token_ids)}}
        print("RESULT " + json.dumps(out))
    """, 600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.split("RESULT ", 1)[1])
    for t, r in res.items():
        assert r["n"] > 0
        assert r["same_t"] < 1e-4, (t, r)            # trainer at the sampling T: agree
        assert abs(r["ratio_same_t"] - 1.0) < 1e-4   # so the first PPO ratio is 1
        assert r["trainer_t1"] > 1e-2, (t, r)        # trainer at T=1: the check fails


@pytest.mark.slow
def test_two_step_grpo_run_on_cpu(tmp_path, model_path):
    """End to end: 2 MicroCoder-GRPO steps at the diversity-determined temperature T(D) (probe of 3
    candidates before step 1, none of them verl's configured 1.2, so rollout and trainer must both
    follow the choice), metrics streamed per step, verl's sync semantics, and the truncation mask
    traced from the trainer's decision to the actor's loss:
    every sample drawn for masking (eligible: |o| = L_max, incorrect, no repeat) arrives at the loss
    with advantage exactly 0, every other sample with its own GRPO advantage. The reward is a hash
    parity (tests/training/parity_reward.py) so groups have non-zero advantages to mask."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from training.grpo.truncation_mask import uniform_draws
    from training.verl_ext.temperature_metrics import temperature_report
    from training.verl_ext.trace import read

    rows = _humaneval_rows(4)
    pq.write_table(pa.Table.from_pylist(rows[:2]), tmp_path / "train.parquet")
    pq.write_table(pa.Table.from_pylist(rows[2:]), tmp_path / "test.parquet")
    max_len, rho, seed = 32, 0.7, 3
    cfg = {"model_path": model_path, "train_files": [str(tmp_path / "train.parquet")],
           "val_files": [str(tmp_path / "test.parquet")], "output_dir": str(tmp_path / "run"),
           "steps": 2, "eval_attempts": 2, "seed": seed,
           "algorithm": {"train_batch_size": 2, "ppo_mini_batch_size": 2, "samples_per_query": 4,
                         "max_prompt_length": 256, "max_response_length": max_len,
                         "temperature_candidates": [0.7, 0.9, 1.1], "probe_prompts": 2, "target_diversity": 0.8,
                         "max_fluctuation": 0.15, "mask_repeat_window": 8, "mask_rho": rho},
           "trace_masking": True,
           "extra_overrides": [f"reward.custom_reward_function.path={Path(__file__).parent / 'parity_reward.py'}"]}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    proc = subprocess.run([str(TRAIN_PY), "-m", "training.launcher", str(tmp_path / "cfg.json")], cwd=ROOT,
                          capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-5000:])
    msgs = [json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines() if line.startswith("MICROCODER ")]
    steps = [m for m in msgs if m["type"] == "step"]
    done = [m for m in msgs if m["type"] == "done"]
    assert [s["step"] for s in steps] == [1, 2] and len(done) == 1
    probe = temperature_report(steps)
    assert [p["temperature"] for p in probe["probe"]] == [0.7, 0.9, 1.1]
    for p in probe["probe"]:
        assert 0.0 < p["diversity"] <= 1.0 and p["spread"] >= 0.0
    qualified = [p["temperature"] for p in probe["probe"] if p["diversity"] >= 0.8 and p["spread"] <= 0.15]
    bounded = [p for p in probe["probe"] if p["spread"] <= 0.15] or probe["probe"]
    fallback = max(bounded, key=lambda p: (p["diversity"], -p["temperature"]))["temperature"]
    assert probe["chosen"] == (qualified[0] if qualified else fallback)  # the paper's rule, from the table
    assert probe["switches"] == []  # min_stage_steps 2: no switch within 2 steps
    for s in steps:
        m = s["metrics"]
        assert m["microcoder/temperature"] == pytest.approx(probe["chosen"])
        for key in ("critic/score/mean", "response_length/mean", "actor/pg_clipfrac", "microcoder/diversity",
                    "microcoder/masked_count", "microcoder/truncation_rate", "timing_s/gen", "timing_s/update_actor"):
            assert key in m, key
        assert 0.0 < m["microcoder/diversity"] <= 1.0
        # rollout (sampling T) and trainer (log-prob T) agree at the chosen T
        assert m["training/rollout_probs_diff_max"] < 1e-3
    checkpoint = done[0]["checkpoint"]
    assert checkpoint and Path(checkpoint).exists()
    assert not (Path(checkpoint) / "transfer_queue").exists()  # sync: no in-flight prompts saved
    evaluation = done[0]["eval"]  # pass@1 over 2 samples per held-out problem, binary per sample
    assert evaluation["attempts"] == 2 and evaluation["problems"] == 2 and 0.0 <= evaluation["pass@1"] <= 1.0
    assert evaluation["pass@1"] in (0.0, 0.25, 0.5, 0.75, 1.0)  # (k/2 + j/2) / 2: no partial credit
    assert set(evaluation["sources"]) == {"humaneval"}

    decided, received = read(tmp_path / "run" / "trace", "trainer"), read(tmp_path / "run" / "trace", "loss")
    problems = {r["extra_info"]["problem_id"] for r in rows[:2]}
    assert len(decided) == 2 * 2 * 4
    for step in (1, 2):
        keys = sorted(r["key"] for r in decided if r["step"] == step)
        assert keys == sorted(f"{p}#{k}" for p in problems for k in range(4))  # (problem id, sample index)
    for r in decided:  # the draw is the pure function of (seed, step, problem id, sample index)
        assert r["u"] == pytest.approx(float(uniform_draws(seed, r["step"], [r["key"]])[0]), abs=0)
        assert r["masked"] == (r["eligible"] and r["u"] < rho)
        if r["eligible"]:
            assert r["length"] == max_len and r["reward"] < 1.0
    hit = [r for r in decided if r["masked"] and r["adv_before"] != 0.0]
    kept = [r for r in decided if not r["masked"] and r["adv_before"] != 0.0]
    assert hit and kept, decided  # a masked sample that had a signal, and samples that keep theirs
    for r in decided:
        at_loss = [x for x in received
                   if x["length"] == r["length"] and abs(x["old_logprob_sum"] - r["old_logprob_sum"]) < 1e-3]
        assert at_loss, r
        for x in at_loss:
            assert x["adv_min"] == x["adv_max"]  # one advantage over the whole response
            if r["masked"]:
                assert x["adv_max"] == 0.0, (r, x)
            else:
                assert x["adv_max"] == pytest.approx(r["adv_before"], abs=1e-6), (r, x)

    # resumed from that checkpoint, T(D) goes on at the chosen T with its trend: no second probe
    saved = json.loads((Path(checkpoint) / "microcoder_temperature.json").read_text())
    assert saved["temperature"] == pytest.approx(probe["chosen"]) and [s for s, _ in saved["history"]] == [1, 2]
    (tmp_path / "cfg.json").write_text(json.dumps({**cfg, "steps": 3, "trace_masking": False}))
    proc = subprocess.run([str(TRAIN_PY), "-m", "training.launcher", str(tmp_path / "cfg.json")], cwd=ROOT,
                          capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-5000:])
    resumed = [json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines() if line.startswith("MICROCODER ")]
    resumed = [m for m in resumed if m["type"] == "step"]
    train_log = (tmp_path / "run" / "train.log").read_text()  # verl's output, off the terminal
    assert [s["step"] for s in resumed] == [3] and "T(D): resumed from" in train_log
    assert "step 3/3" in proc.stdout and "T(D): resumed from" not in proc.stdout + proc.stderr
    assert temperature_report(resumed) == {}  # no probe table: the saved choice stands
    assert resumed[0]["metrics"]["microcoder/temperature"] == pytest.approx(probe["chosen"])
