"""verl's CPU rollout: the hf rollout's log-probs agree with the trainer's at the sampling temperature.
The 2-step MicroCoder-GRPO run (and its resume) is in tests/e2e/test_training_asset.py, one verl
launch for the asset, the trace and T(D)."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / ".venv-train" / "bin" / "python"

pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(not TRAIN_PY.exists(), reason=".venv-train is absent: run scripts/setup-train.sh"),
]


def _run_train_py(code: str, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run([str(TRAIN_PY), "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_rollout_and_trainer_logprobs_agree_at_the_sampling_temperature(cpu_model_path):
    """hf rollout log-probs (processed, at T) vs the trainer's log softmax(z/T) on the same tokens."""
    proc = _run_train_py(f"""
        import asyncio, json, torch
        import verl  # noqa
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from training.verl_ext.cpu.hf_rollout import HFGenerationServer
        from tests.training.logprob_kernels import logprobs_at_temperature
        torch.manual_seed(0)
        path = {cpu_model_path!r}
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


def test_a_prompt_sent_g_times_is_prefilled_once_with_the_same_samples(cpu_model_path):
    """GRPO's G samples of a prompt share one prefill: the same tokens and log-probs as a prefill per
    sample, greedy and sampled (same seed), with left padding from a shorter prompt in the batch."""
    proc = _run_train_py(f"""
        import json, torch
        import verl  # noqa
        from training.verl_ext.cpu import hf_rollout
        from training.verl_ext.cpu.hf_rollout import HFGenerationServer, _Request
        shared_prefill = hf_rollout.shared_prefill
        server = HFGenerationServer({cpu_model_path!r}, response_length=8)
        long = server.tokenizer("def add(a, b):\\n    return a + b\\n" * 4)["input_ids"]
        short = long[:20]
        reqs = [_Request(p, {{}}, None) for p in [long, short, long, long, short]]
        calls = []  # (rows, tokens) of each forward pass (a hook: a wrapped forward would change generate's inputs)
        server.model.register_forward_pre_hook(lambda m, args, kwargs: calls.append(list(kwargs["input_ids"].shape)),
                                               with_kwargs=True)
        out = {{}}
        for name, temperature in (("greedy", 0.0), ("sampled", 1.0)):
            runs = {{}}
            for shared in (True, False):
                hf_rollout.shared_prefill = shared_prefill if shared else (lambda *a: {{}})
                torch.manual_seed(7)
                calls.clear()
                res = server._generate_batch(reqs, (temperature, 1.0, -1, 8, True))
                runs[shared] = {{"tokens": [r.token_ids for r in res], "logps": [r.log_probs for r in res],
                                 "first_passes": calls[:2]}}
            a, b = runs[True], runs[False]
            out[name] = {{"same_tokens": a["tokens"] == b["tokens"],
                          "logp_diff": max(abs(x - y) for p, q in zip(a["logps"], b["logps"]) for x, y in zip(p, q)),
                          "passes": [a["first_passes"], b["first_passes"]]}}
        print("RESULT " + json.dumps(out))
    """, 600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.split("RESULT ", 1)[1])
    for name, r in res.items():
        assert r["same_tokens"], (name, r)
        assert r["logp_diff"] < 1e-4, (name, r)
        (prefill, step), (alone, _) = r["passes"]
        assert prefill[0] == 2 and step == [5, 1], (name, r)  # the two prompts once; five samples go on from there
        assert alone == [5, prefill[1] + 1], (name, r)      # without: all five rows, every token


def test_the_cpu_backend_gives_torch_the_node_cores():
    """Ray starts each worker with OMP_NUM_THREADS=1; importing the CPU backend (every verl process
    does) gives torch the node's cores, shared among the node's actor workers."""
    code = ("import os, torch, training.verl_ext.cpu; "
            "print('RESULT', torch.get_num_threads(), len(os.sched_getaffinity(0)))")
    for workers in (1, 2):
        env = {**os.environ, "OMP_NUM_THREADS": "1", "RAY_LOCAL_WORLD_SIZE": str(workers), "MICROCODER_TORCH_THREADS": ""}
        proc = subprocess.run([str(TRAIN_PY), "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        threads, cores = map(int, proc.stdout.split("RESULT ", 1)[1].split())
        assert threads == max(1, cores // workers)
