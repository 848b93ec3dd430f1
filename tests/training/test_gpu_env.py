"""The GPU training environment, proved as far as a machine without a GPU can: pip's resolver
accepts the set ``scripts/setup-train.sh --gpu`` installs (verl 0.9.1's own [vllm] pins), and the
GPU recipe for the paper's two models on 1 and 8 GPUs passes verl's own config validation and
builds the dataclasses verl's workers build. Nothing here runs on a GPU."""

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


# The architecture fields of the two models' published config.json (the paper's models). No weights
# are needed (or fetched): verl's HFModelConfig reads config.json and a tokenizer; the tokenizer is the
# embedded SmolLM2's, copied beside it.
QWEN3 = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "attention_bias": False, "attention_dropout": 0.0,
         "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
         "initializer_range": 0.02, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": None,
         "sliding_window": None, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "use_cache": True,
         "use_sliding_window": False, "vocab_size": 151936}
MODELS = {
    "Qwen3-1.7B": {**QWEN3, "hidden_size": 2048, "intermediate_size": 6144, "max_position_embeddings": 40960,
                   "max_window_layers": 28, "num_attention_heads": 16, "num_hidden_layers": 28, "rope_theta": 1000000},
    "Qwen3-4B-Instruct-2507": {**QWEN3, "hidden_size": 2560, "intermediate_size": 9728,
                               "max_position_embeddings": 262144, "max_window_layers": 36, "num_attention_heads": 32,
                               "num_hidden_layers": 36, "rope_theta": 5000000},
}


def _model_folders(tmp_path: Path, tokenizer_from: str) -> dict[str, str]:
    import shutil

    out = {}
    for name, config in MODELS.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config))
        for file in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
            if (Path(tokenizer_from) / file).exists():
                shutil.copy(Path(tokenizer_from) / file, folder / file)
        out[name] = str(folder)
    return out


@pytest.mark.train
@needs_train
def test_the_gpu_recipe_composes_validates_and_builds_verls_dataclasses(tmp_path, cpu_model_path):
    """The recipe for 1 and 8 GPUs, Qwen3-1.7B and Qwen3-4B-Instruct-2507: verl's own
    ``validate_config`` passes, and the actor, rollout and reference dataclasses verl's workers build
    (``engine_workers.init_model``: HFModelConfig, ActorConfig, RolloutConfig) come out with item 5
    of issue 36: sdpa without padding removal (no flash-attn here), ``max_model_len`` = the longest
    prompt + response (within the model's positions), thinking off, offloading on one GPU only,
    vLLM's seed from the run's, 4 updates per step."""
    folders = _model_folders(tmp_path, cpu_model_path)
    code = textwrap.dedent(f"""
        import copy, json
        from omegaconf import open_dict
        from training.gpu_recipe import paper_scale
        from training.launcher import compose_verl_config
        from verl.trainer.ppo.utils import need_critic, need_reference_policy
        from verl.utils.config import omega_conf_to_dataclass, validate_config

        out = {{}}
        folders = {folders!r}
        cases = [(name, gpus, "microcoder") for name in folders for gpus in (1, 8)] + [("Qwen3-1.7B", 1, "grpo")]
        for name, gpus, preset in cases:
            cfg = paper_scale(folders[name], preset=preset, gpus_per_node=gpus, seed=7, max_response_length=4096)
            config = compose_verl_config(cfg.to_hydra_overrides())
            validate_config(config=config, use_reference_policy=need_reference_policy(config),
                            use_critic=need_critic(config))
            arr = config.actor_rollout_ref
            model = omega_conf_to_dataclass(arr.model)
            actor = omega_conf_to_dataclass(arr.actor)
            actor.validate(gpus, config.data.train_batch_size, arr.model)
            rollout = omega_conf_to_dataclass(arr.rollout)
            ref_conf = copy.deepcopy(arr.ref)
            with open_dict(ref_conf):  # as verl's engine_workers.init_model turns it into an ActorConfig
                ref_conf.ppo_mini_batch_size = arr.actor.ppo_mini_batch_size
                ref_conf.ppo_micro_batch_size = ref_conf.pop("log_prob_micro_batch_size", None)
                ref_conf.ppo_micro_batch_size_per_gpu = ref_conf.pop("log_prob_micro_batch_size_per_gpu", None)
                ref_conf.use_dynamic_bsz = ref_conf.pop("log_prob_use_dynamic_bsz", False)
                ref_conf.ppo_max_token_len_per_gpu = ref_conf.pop("log_prob_max_token_len_per_gpu", None)
            ref = omega_conf_to_dataclass(ref_conf)
            out[f"{{name}}/{{gpus}}/{{preset}}"] = {{
                "types": [type(x).__name__ for x in (model, actor, rollout, ref)],
                "attn": model.hf_config._attn_implementation, "remove_padding": model.use_remove_padding,
                "positions": model.hf_config.max_position_embeddings, "layers": model.hf_config.num_hidden_layers,
                "max_model_len": rollout.max_model_len, "prompt": rollout.prompt_length,
                "response": rollout.response_length, "seed": rollout.seed, "rollout": rollout.name,
                "tp": rollout.tensor_model_parallel_size, "gpu_mem": rollout.gpu_memory_utilization,
                "thinking": config.data.apply_chat_template_kwargs.enable_thinking,
                "actor_offload": [actor.fsdp_config.param_offload, actor.fsdp_config.optimizer_offload],
                "ref_offload": ref.fsdp_config.param_offload, "dtype": actor.fsdp_config.dtype,
                "updates": config.data.train_batch_size // arr.actor.ppo_mini_batch_size,
                "use_kl": actor.use_kl_loss, "nodes": config.trainer.nnodes, "gpus": config.trainer.n_gpus_per_node}}
        # the evaluation's lengths reach vLLM's server through its RolloutConfig (mutable length fields)
        import types
        from training.verl_ext.agent_loop import _set_server_lengths
        server = types.SimpleNamespace(config=omega_conf_to_dataclass(arr.rollout))
        _set_server_lengths(server, 4096, 8192)
        out["server_lengths"] = [server.config.prompt_length, server.config.response_length]
        try:  # the validation can fail: sequence parallelism needs padding removal, which needs flash-attn
            cfg = paper_scale(folders["Qwen3-1.7B"], gpus_per_node=8, max_response_length=4096)
            cfg.extra_overrides.append("actor_rollout_ref.actor.ulysses_sequence_parallel_size=2")
            validate_config(config=compose_verl_config(cfg.to_hydra_overrides()), use_reference_policy=False,
                            use_critic=False)
            out["bad"] = "accepted"
        except ValueError as err:
            out["bad"] = str(err)
        print("RESULT " + json.dumps(out))
    """)
    proc = subprocess.run([str(TRAIN_PY), "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = json.loads(proc.stdout.split("RESULT ", 1)[1])
    assert "use_remove_padding" in res.pop("bad")
    assert res.pop("server_lengths") == [4096, 8192]
    assert len(res) == 5
    for key, c in res.items():
        name, gpus, preset = key.split("/")
        one_gpu = gpus == "1"
        assert c["types"] == ["HFModelConfig", "FSDPActorConfig", "RolloutConfig", "FSDPActorConfig"], key
        assert c["attn"] == "sdpa" and c["remove_padding"] is False  # flash-attn is not installed
        assert c["max_model_len"] == max(2048 + 4096, 4096 + 8192) <= c["positions"]  # eval: 4K prompts, 8K
        assert (c["prompt"], c["response"]) == (2048, 4096)
        assert c["seed"] == 7 and c["thinking"] is False and c["rollout"] == "vllm" and c["dtype"] == "bfloat16"
        assert c["actor_offload"] == [one_gpu, one_gpu] and c["ref_offload"] is one_gpu, key
        assert c["updates"] == 4 and c["tp"] == 1 and c["gpu_mem"] == 0.6 and c["gpus"] == int(gpus)
        assert c["use_kl"] is (preset == "grpo")
    assert res["Qwen3-4B-Instruct-2507/8/microcoder"]["layers"] == 36


def test_verl_overrides_print_every_key_the_launcher_passes(capsys):
    from training.gpu_recipe import main, paper_scale

    assert main(["--model", "/models/Qwen3-1.7B", "--gpus", "1", "--preset", "microcoder", "--verl-overrides"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == paper_scale("/models/Qwen3-1.7B", gpus_per_node=1).to_hydra_overrides()
    assert all("=" in line and " " not in line.split("=", 1)[0] for line in lines)
    ov = dict(line.split("=", 1) for line in lines)
    assert ov["+actor_rollout_ref.model.override_config.attn_implementation"] == "sdpa"
    assert ov["actor_rollout_ref.model.use_remove_padding"] == "false"
    assert ov["actor_rollout_ref.rollout.max_model_len"] == str(4096 + 8192)
    assert ov["+data.apply_chat_template_kwargs.enable_thinking"] == "false"
    assert ov["actor_rollout_ref.actor.fsdp_config.param_offload"] == "true"
    assert ov["actor_rollout_ref.actor.fsdp_config.optimizer_offload"] == "true"
    assert ov["actor_rollout_ref.rollout.seed"] == ov["data.seed"] == "0"
    assert ov["actor_rollout_ref.actor.ppo_mini_batch_size"] == "16" and ov["data.train_batch_size"] == "64"
    assert "probe_prompts:16," in ov["+microcoder"] and "diversity_tokens:256," in ov["+microcoder"]
    assert main(["--model", "/models/Qwen3-1.7B", "--gpus", "8", "--verl-overrides"]) == 0
    eight = dict(line.split("=", 1) for line in capsys.readouterr().out.strip().splitlines())
    assert eight["actor_rollout_ref.actor.fsdp_config.param_offload"] == "false"  # 8 GPUs shard the actor


def test_the_smoke_run_keeps_the_gpu_path_at_small_sizes(tmp_path, capsys):
    """What the one-GPU smoke command (README, docs/gpu-and-clusters.md) runs (without --run): the generated problems, 4 updates
    per step, 1K responses tested at 1K and 2K, the same GPU keys."""
    import pyarrow.parquet as pq

    from training.gpu_recipe import main

    out = tmp_path / "smoke"
    assert main(["--model", "/models/Qwen3-1.7B", "--gpus", "1", "--smoke", "--output-dir", str(out),
                 "--verl-overrides"]) == 0
    ov = dict(line.split("=", 1) for line in capsys.readouterr().out.strip().splitlines())
    assert (ov["trainer.total_training_steps"], ov["data.train_batch_size"], ov["actor_rollout_ref.actor.ppo_mini_batch_size"]) == (
        "2", "16", "4")
    assert ov["actor_rollout_ref.rollout.max_model_len"] == str(4096 + 2048)
    assert ov["actor_rollout_ref.actor.fsdp_config.param_offload"] == "true" and ov["actor_rollout_ref.rollout.name"] == "vllm"
    assert "eval_response_lengths:[1024,2048]," in ov["+microcoder"] and "val_max_samples:8," in ov["+microcoder"]
    assert ov["data.train_files"] == f"[{out / 'data' / 'smoke-train.parquet'}]"
    assert pq.read_table(out / "data" / "smoke-test.parquet").num_rows == 12


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
    """pip's resolver (PyPI, dry run) accepts the GPU set, with verl's pins.

    fast-deps reads each wheel's metadata by HTTP range requests: a plain dry run downloads every wheel
    (3.7 GB with the CUDA ones) into a temporary folder, which filled CI's disk once.
    """
    report = tmp_path / "report.json"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    proc = subprocess.run([str(TRAIN_PY), "-m", "pip", "install", "--dry-run", "--ignore-installed", "-q",
                           "--use-feature=fast-deps", "--no-cache-dir",
                           "--report", str(report), "-r", str(REQUIREMENTS)],
                          capture_output=True, text=True, timeout=1200, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    versions = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    assert versions["verl"] == "0.9.1" and versions["vllm"] == "0.24.0"
    assert versions["torch"] == "2.11.0" and versions["transformers"] == "5.9.0"
    assert any(name.startswith("nvidia-") for name in versions)  # the CUDA build of torch
