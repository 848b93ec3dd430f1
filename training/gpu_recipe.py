"""Paper-scale GPU settings (vLLM rollout, FSDP, bf16) for one node or several through Ray.

The algorithm and the run's length are the ``paper`` profile's (GRPOConfig's defaults, stated once
in :mod:`training.grpo.presets`: 8K responses, T(D), train batch 64, lr 1e-6, 8 samples per query;
300 steps, pass@1 over 4 attempts); the model defaults to Qwen3-4B-Instruct-2507. What changes with
the hardware is derived here: micro-batch sizes and the
dynamic-batch token budgets from the sequence length, vLLM's tensor-parallel size from the model
size, the checkpoint frequency. Validated through verl's own config checks (no GPU needed) by
tests/training/test_gpu_env.py; it has not run on a GPU here.

    python -m training.gpu_recipe --model Qwen/Qwen3-4B-Instruct-2507 --gpus 8 --nodes 2
prints the ``grpo_training_run`` run config (launchpad YAML) for that cluster.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import asdict

from training.verl_ext.config import REF, A, R, TrainingConfig, algorithm_for


def paper_scale(
    model: str = "Qwen/Qwen3-4B-Instruct-2507",
    *,
    preset: str = "microcoder",
    gpus_per_node: int = 8,
    nodes: int = 1,
    max_response_length: int | None = None,
    save_freq: int = 20,
    gpu_memory_utilization: float = 0.6,
    **overrides,
) -> TrainingConfig:
    """The paper's run on ``nodes`` x ``gpus_per_node`` GPUs: the ``paper`` profile, sized for the
    hardware. ``max_response_length`` (None: the profile's) and ``overrides`` (any TrainingConfig
    field; ``algorithm`` a map of changes) change it."""
    changes = dict(overrides.pop("algorithm", None) or {})
    if max_response_length is not None:
        changes["max_response_length"] = max_response_length
    algorithm = algorithm_for(preset, "paper", **changes)
    seq = algorithm.max_prompt_length + algorithm.max_response_length
    size = re.search(r"(\d+(?:\.\d+)?)b\b", model.lower())
    tp = 2 if size and float(size.group(1)) >= 7 else 1  # 1.7B/4B fit one GPU for vLLM; 7B+ split in two
    extra = [
        # dynamic batching packs sequences up to a token budget per GPU instead of a fixed count
        f"{A}.use_dynamic_bsz=true", f"{A}.ppo_max_token_len_per_gpu={2 * seq}",
        f"{R}.log_prob_use_dynamic_bsz=true", f"{R}.log_prob_max_token_len_per_gpu={3 * seq}",
        f"{REF}.log_prob_use_dynamic_bsz=true", f"{REF}.log_prob_max_token_len_per_gpu={3 * seq}",
        f"{A}.fsdp_config.param_offload=false", f"{A}.fsdp_config.optimizer_offload=false",
        f"{R}.max_num_batched_tokens={max(8192, seq)}",
        f"trainer.save_freq={save_freq}", f"trainer.test_freq={save_freq}", "trainer.max_actor_ckpt_to_keep=3",
        "trainer.logger=[console,file]",
    ]
    values = dict(
        model_path=model, preset=preset, profile="paper", algorithm=algorithm, device="cuda",
        n_gpus=gpus_per_node, nnodes=nodes, rollout_tp=tp,
        micro_batch_size_per_gpu=2,  # the fixed-count fallback; dynamic batching overrides it
        gpu_memory_utilization=gpu_memory_utilization, extra_overrides=extra,
    )
    values.update(overrides)
    return TrainingConfig(**values)


def launchpad_yaml(cfg: TrainingConfig) -> str:
    """The ``grpo_training_run`` run config for ``cfg`` (JSON is valid YAML): its algorithm as
    the changes to its preset and profile, the way the launchpad takes it."""
    config = {k: v for k, v in cfg.to_dict().items() if k not in ("output_dir", "algorithm")}
    preset = asdict(algorithm_for(cfg.preset, cfg.profile))
    changes = {k: v for k, v in asdict(cfg.algorithm).items() if v != preset[k]}
    if changes.get("temperature_schedule"):  # the launchpad's map keys are text: {"first step": T}
        changes["temperature_schedule"] = {str(s): t for s, t in changes["temperature_schedule"].items()}
    config["algorithm"] = changes
    return json.dumps({"ops": {"grpo_training_run": {"config": config}}}, indent=2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.gpu_recipe", description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="Qwen/Qwen3-4B-Instruct-2507")
    parser.add_argument("--preset", default="microcoder", choices=["grpo", "dapo", "microcoder"])
    parser.add_argument("--gpus", type=int, default=8, help="GPUs per node")
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--response-length", type=int, default=None, help="default: the paper profile's (8192)")
    parser.add_argument("--save-freq", type=int, default=20)
    args = parser.parse_args(argv)
    cfg = paper_scale(args.model, preset=args.preset, gpus_per_node=args.gpus, nodes=args.nodes,
                      max_response_length=args.response_length, save_freq=args.save_freq)
    print(launchpad_yaml(cfg))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
