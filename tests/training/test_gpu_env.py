"""The GPU training environment, proved as far as a machine without a GPU can: pip's resolver
accepts the set ``scripts/setup-train.sh --gpu`` installs (verl 0.9.1's own [vllm] pins), and the
paper-scale overrides for the three presets (vLLM rollout, FSDP, bf16, one node and two) pass
verl's own config validation. Nothing here runs on a GPU."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / ".venv-train" / "bin" / "python"
REQUIREMENTS = ROOT / "scripts" / "requirements-train-gpu.txt"

needs_train = pytest.mark.skipif(not TRAIN_PY.exists(), reason=".venv-train is absent: run scripts/setup-train.sh")


@pytest.mark.train
@needs_train
def test_paper_scale_gpu_overrides_pass_verls_validation():
    code = textwrap.dedent("""
        import json
        from training.gpu_recipe import paper_scale
        from training.launcher import compose_verl_config
        from verl.trainer.ppo.utils import need_critic, need_reference_policy
        from verl.utils.config import validate_config

        def check(cfg):
            config = compose_verl_config(cfg.to_hydra_overrides())
            validate_config(config=config, use_reference_policy=need_reference_policy(config),
                            use_critic=need_critic(config))
            return config

        out = {}
        for preset in ("grpo", "dapo", "microcoder"):
            for model, nodes, length in (("Qwen/Qwen3-4B-Instruct-2507", 1, 8192), ("Qwen/Qwen3-1.7B", 2, 4096)):
                c = check(paper_scale(model, preset=preset, nodes=nodes, max_response_length=length))
                a = c.actor_rollout_ref
                out[f"{preset}/{nodes}"] = {
                    "rollout": a.rollout.name, "strategy": a.actor.strategy, "fsdp_dtype": a.actor.fsdp_config.dtype,
                    "rollout_dtype": a.rollout.dtype, "dynamic": a.actor.use_dynamic_bsz, "tp": a.rollout.tensor_model_parallel_size,
                    "gpu_mem": a.rollout.gpu_memory_utilization, "n": a.rollout.n, "batch": c.data.train_batch_size,
                    "response": c.data.max_response_length, "nnodes": c.trainer.nnodes, "gpus": c.trainer.n_gpus_per_node,
                    "save_freq": c.trainer.save_freq, "use_kl": a.actor.use_kl_loss, "device": c.trainer.device}
        try:  # the validation can fail: a mini-batch larger than the batch is refused
            check(paper_scale(algorithm={"ppo_mini_batch_size": 128}))
            out["bad"] = "accepted"
        except Exception as err:
            out["bad"] = type(err).__name__
        print("RESULT " + json.dumps(out))
    """)
    proc = subprocess.run([str(TRAIN_PY), "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = json.loads(proc.stdout.split("RESULT ", 1)[1])
    assert res.pop("bad") != "accepted"
    assert len(res) == 6
    for key, c in res.items():
        assert (c["rollout"], c["strategy"], c["fsdp_dtype"], c["rollout_dtype"], c["device"]) == (
            "vllm", "fsdp", "bfloat16", "bfloat16", "cuda"), key
        assert c["dynamic"] and c["batch"] == 64 and c["n"] == 8 and c["gpus"] == 8 and c["save_freq"] == 20
        assert c["tp"] == 1 and c["gpu_mem"] == 0.6
        assert c["use_kl"] == key.startswith("grpo/")
    assert res["microcoder/1"]["response"] == 8192 and res["microcoder/2"]["nnodes"] == 2


def test_recipe_prints_a_launchpad_config_the_asset_accepts():
    from assets.training.assets import TrainingRunConfig
    from training.gpu_recipe import launchpad_yaml, main, paper_scale

    config = json.loads(launchpad_yaml(paper_scale(nodes=2)))["ops"]["grpo_training_run"]["config"]
    run_config = TrainingRunConfig(**config)  # what the launchpad would accept
    assert run_config.nnodes == 2 and run_config.device == "cuda"
    assert run_config.preset == "microcoder" and run_config.profile == "paper"  # G 8, batch 64 from the profile
    assert any(o.startswith("actor_rollout_ref.actor.use_dynamic_bsz=") for o in run_config.extra_overrides)
    assert main(["--gpus", "4", "--model", "Qwen/Qwen3-1.7B"]) == 0


@pytest.mark.network
@needs_train
def test_gpu_requirements_resolve(tmp_path):
    """pip's resolver (PyPI, dry run: metadata only) accepts the GPU set, with verl's pins."""
    report = tmp_path / "report.json"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    proc = subprocess.run([str(TRAIN_PY), "-m", "pip", "install", "--dry-run", "--ignore-installed", "-q",
                           "--report", str(report), "-r", str(REQUIREMENTS)],
                          capture_output=True, text=True, timeout=1200, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    versions = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    assert versions["verl"] == "0.9.1" and versions["vllm"] == "0.24.0"
    assert versions["torch"] == "2.11.0" and versions["transformers"] == "5.9.0"
    assert any(name.startswith("nvidia-") for name in versions)  # the CUDA build of torch
