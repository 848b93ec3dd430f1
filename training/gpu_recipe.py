"""Paper-scale GPU settings (vLLM rollout, FSDP, bf16) for one node or several through Ray.

The algorithm and the run's length are the ``paper`` profile's (GRPOConfig's defaults, stated once
in :mod:`training.grpo.presets`: 8K responses, train batch 64 in 4 mini-batches, lr 1e-6, 8 samples
per query; 300 steps, pass@1 over 4 attempts at 4K and 8K); the model defaults to
Qwen3-4B-Instruct-2507. What changes with the hardware is derived here (dynamic-batch token budgets
from the sequence length, vLLM's tensor-parallel size from the model size, the checkpoint
frequency) and in :meth:`TrainingConfig.to_hydra_overrides` (sdpa and no padding removal without
flash-attn, ``rollout.max_model_len``, the chat template's thinking switch, offloading on one GPU,
vLLM's seed). Validated through verl's own config checks and dataclasses (no GPU needed) by
tests/training/test_gpu_env.py; it has not run on a GPU here.

    python -m training.gpu_recipe --model Qwen/Qwen3-4B-Instruct-2507 --gpus 8 --nodes 2
prints the ``grpo_training_run`` run config (launchpad YAML) for that cluster;
    python -m training.gpu_recipe --model /models/Qwen3-1.7B --gpus 1 --preset microcoder --verl-overrides
prints the exact verl overrides the launcher passes, one ``key=value`` per line.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import asdict
from pathlib import Path

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


# A two-step smoke run: the same GPU path (vLLM, FSDP, bf16, offloading, sdpa, T(D)'s probe, the
# evaluation at two lengths), at sizes that finish in minutes on one GPU.
SMOKE = {"algorithm": {"train_batch_size": 16, "ppo_mini_batch_size": 4, "max_response_length": 1024,
                       "probe_prompts": 4, "min_stage_steps": 5},
         "steps": 2, "val_max_samples": 8, "eval_response_lengths": [1024, 2048], "save_checkpoint": True}


def smoke_files(out_dir: str) -> tuple[list[str], list[str]]:
    """Training and held-out files for a smoke run without the dataset: the generated easy family
    (``training.demo_data``), k = 1..12 to train, 13..16 held out."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from training.demo_data import easy_problems

    folder = Path(out_dir) / "data"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for name, ks in (("train", range(1, 13)), ("test", range(13, 17))):
        pq.write_table(pa.Table.from_pylist(easy_problems(ks)), folder / f"smoke-{name}.parquet")
        files.append([str((folder / f"smoke-{name}.parquet").resolve())])
    return files[0], files[1]


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
    parser.add_argument("--steps", type=int, default=None, help="default: the paper profile's (300)")
    parser.add_argument("--output-dir", default=None, help="where checkpoints go (the launchpad's default: per run)")
    parser.add_argument("--train-files", nargs="+", default=None, help="verl parquet (the dataset's verl/train.parquet)")
    parser.add_argument("--val-files", nargs="+", default=None, help="verl parquet (the dataset's verl/test.parquet)")
    parser.add_argument("--smoke", action="store_true",
                        help="a two-step smoke run: small batch, 1K responses, 8 held-out problems at 1K and 2K; "
                             "without --train-files, the generated easy problems")
    parser.add_argument("--verl-overrides", action="store_true",
                        help="print the verl overrides the launcher passes, one key=value per line")
    parser.add_argument("--run", action="store_true", help="train here now (python -m training.launcher's standalone mode)")
    args = parser.parse_args(argv)
    extra: dict = {k: v for k, v in (("steps", args.steps), ("output_dir", args.output_dir),
                                     ("train_files", args.train_files), ("val_files", args.val_files)) if v is not None}
    if args.smoke:
        extra = {**SMOKE, "output_dir": "runs/gpu-smoke", **extra, "algorithm": dict(SMOKE["algorithm"])}
        if "train_files" not in extra:
            extra["train_files"], extra["val_files"] = smoke_files(extra["output_dir"])
    cfg = paper_scale(args.model, preset=args.preset, gpus_per_node=args.gpus, nodes=args.nodes,
                      max_response_length=args.response_length, save_freq=args.save_freq, **extra)
    if args.run:
        from training.launcher import run_standalone

        return run_standalone(cfg)
    print("\n".join(cfg.to_hydra_overrides()) if args.verl_overrides else launchpad_yaml(cfg))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
