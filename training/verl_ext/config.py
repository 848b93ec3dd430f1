"""One config object for a MicroCoder-GRPO run, rendered as verl 0.9.1 Hydra overrides.

Paper defaults (issue 6 section 1): 8 samples per query, lr 1e-6, T 1.2, eps_high 0.28, no KL,
binary reward, conditional truncation mask with m = 128. Presets select the side-by-side
baselines: ``grpo`` (KL loss, symmetric clip), ``dapo`` (GRPO+: no KL, clip-higher),
``microcoder`` (clip-higher, no KL, truncation mask, diversity-determined temperature).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

def _verl_preset(name: str, loss_mode: str) -> dict:
    """verl settings of one of the algorithm's presets (``training.grpo.presets``: one definition)."""
    from training.grpo.presets import preset

    cfg = preset(name)
    return {"use_kl_loss": cfg.use_kl_loss, "kl_loss_coef": cfg.kl_coef, "clip_ratio_low": cfg.clip_low,
            "clip_ratio_high": cfg.clip_high, "rho": cfg.effective_mask_rho, "loss_mode": loss_mode}


# One policy-loss family for all three (verl's ``vanilla`` adds a dual clip the paper does not use):
# the presets differ only by what training.grpo.presets sets (KL loss, clip, mask).
PRESETS: dict[str, dict] = {
    "grpo": _verl_preset("grpo", "microcoder"),
    "dapo": _verl_preset("dapo", "microcoder"),
    "microcoder": _verl_preset("microcoder-grpo", "microcoder"),
}

REWARD_MODULE = "evaluator.reward"


def _reward_path() -> str:
    import evaluator.reward as reward

    return str(Path(reward.__file__).resolve())


@dataclass
class TrainingConfig:
    """Everything a launcher needs; ``None`` fields take the preset's value."""

    model_path: str | None = None  # HF folder; None: the embedded SmolLM2 default (converted GGUF)
    preset: Literal["grpo", "dapo", "microcoder"] = "microcoder"
    train_files: list[str] = field(default_factory=list)
    val_files: list[str] = field(default_factory=list)
    output_dir: str = "runs/grpo"
    experiment_name: str = "microcoder-grpo"
    project_name: str = "microcoder"
    steps: int = 2
    train_batch_size: int = 2
    ppo_mini_batch_size: int = 2
    micro_batch_size_per_gpu: int = 4
    rollout_n: int = 8
    max_prompt_length: int = 1024
    max_response_length: int = 4096
    temperature: float = 1.2
    temperature_schedule: list[tuple[int, float]] | None = None  # staged [(first_step, T)], step 1-based
    rho: float | None = None
    m: int = 128
    mask_if: Literal["incorrect", "correct"] = "incorrect"
    clip_ratio_low: float | None = None
    clip_ratio_high: float | None = None
    use_kl_loss: bool | None = None
    kl_loss_coef: float | None = None
    lr: float = 1e-6
    seed: int = 0
    device: Literal["cpu", "cuda"] = "cpu"
    n_gpus: int = 1
    nnodes: int = 1
    rollout_tp: int = 1
    gpu_memory_utilization: float = 0.6
    num_cpus: int = 32  # Ray's logical CPUs on the CPU backend (bookkeeping, not cores)
    save_checkpoint: bool = True
    val_before_train: bool = False
    val_max_samples: int = -1  # held-out problems evaluated (-1: the whole split)
    eval_attempts: int = 4  # held-out pass@1 averaged over this many samples per problem
    ray_address: str | None = None  # "http://head:8265": submit as a Ray job instead of running here
    trace_masking: bool = False  # write the per-sample mask trace under <output_dir>/trace (checks)
    extra_overrides: list[str] = field(default_factory=list)

    # -- resolved values ---------------------------------------------------------------------
    def resolved(self, name: str):
        value = getattr(self, name)
        return PRESETS[self.preset][name] if value is None else value

    @property
    def loss_mode(self) -> str:
        return PRESETS[self.preset]["loss_mode"]

    def schedule(self) -> list[tuple[int, float]]:
        """The staged temperature schedule, always starting at step 1."""
        stages = sorted((int(s), float(t)) for s, t in (self.temperature_schedule or []))
        if not stages or stages[0][0] > 1:
            stages.insert(0, (1, float(self.temperature)))
        return stages

    def temperature_at(self, step: int) -> float:
        current = self.schedule()[0][1]
        for start, t in self.schedule():
            if step >= start:
                current = t
        return current

    # -- serialization -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "TrainingConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown TrainingConfig fields: {sorted(unknown)}")
        data = dict(data)
        if data.get("temperature_schedule"):
            data["temperature_schedule"] = [tuple(x) for x in data["temperature_schedule"]]
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    # -- verl --------------------------------------------------------------------------------
    def to_hydra_overrides(self, model_path: str | None = None) -> list[str]:
        """verl 0.9.1 ``main_ppo`` overrides (``key=value`` strings) for this run."""
        model = model_path or self.model_path
        if not model:
            raise ValueError("model_path is not set (the launcher resolves the default model)")
        cpu = self.device == "cpu"
        out = Path(self.output_dir)
        a, r, ref = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.ref"
        use_kl = self.resolved("use_kl_loss")
        ov = [
            "algorithm.adv_estimator=grpo",
            "algorithm.use_kl_in_reward=false",
            "algorithm.norm_adv_by_std_in_grpo=true",
            f"data.train_files={_list(self.train_files)}",
            f"data.val_files={_list(self.val_files or self.train_files)}",
            f"data.val_max_samples={self.val_max_samples}",
            "data.prompt_key=prompt",
            f"data.train_batch_size={self.train_batch_size}",
            f"data.max_prompt_length={self.max_prompt_length}",
            f"data.max_response_length={self.max_response_length}",
            "data.filter_overlong_prompts=true",
            "data.truncation=error",
            f"data.seed={self.seed}",
            f"actor_rollout_ref.model.path={model}",
            f"actor_rollout_ref.model.use_remove_padding={'false' if cpu else 'true'}",
            f"actor_rollout_ref.model.enable_gradient_checkpointing={'false' if cpu else 'true'}",
            f"{a}.optim.lr={self.lr}",
            f"{a}.ppo_mini_batch_size={self.ppo_mini_batch_size}",
            f"{a}.ppo_micro_batch_size_per_gpu={self.micro_batch_size_per_gpu}",
            f"{a}.use_kl_loss={str(bool(use_kl)).lower()}",
            f"{a}.kl_loss_coef={self.resolved('kl_loss_coef')}",
            f"{a}.kl_loss_type=low_var_kl",
            "actor_rollout_ref.actor.entropy_coeff=0",
            f"{a}.clip_ratio_low={self.resolved('clip_ratio_low')}",
            f"{a}.clip_ratio_high={self.resolved('clip_ratio_high')}",
            f"{a}.loss_agg_mode=token-mean",
            f"{a}.policy_loss.loss_mode={self.loss_mode}",
            f"{r}.name={'hf' if cpu else 'vllm'}",
            f"{r}.n={self.rollout_n}",
            f"{r}.temperature={self.temperature_at(1)}",
            f"{r}.top_p=1.0",
            f"{r}.top_k=-1",
            f"{r}.calculate_log_probs=true",
            f"{r}.tensor_model_parallel_size={1 if cpu else self.rollout_tp}",
            f"{r}.log_prob_micro_batch_size_per_gpu={self.micro_batch_size_per_gpu}",
            f"{r}.gpu_memory_utilization={self.gpu_memory_utilization}",
            f"{r}.val_kwargs.n={self.eval_attempts}",
            f"{r}.val_kwargs.do_sample=true",
            f"{r}.val_kwargs.temperature={self.temperature_at(1)}",
            f"{ref}.log_prob_micro_batch_size_per_gpu={self.micro_batch_size_per_gpu}",
            f"reward.custom_reward_function.path={_reward_path()}",
            "reward.custom_reward_function.name=compute_score",
            "trainer.v1.trainer_mode=microcoder_sync",
            f"trainer.project_name={self.project_name}",
            f"trainer.experiment_name={self.experiment_name}",
            "trainer.logger=[console,file]",
            "+actor_rollout_ref.rollout.agent.agent_loop_manager_class="
            "training.verl_ext.agent_loop.StagedTemperatureAgentLoopManager",
            f"trainer.n_gpus_per_node={self.n_gpus}",
            f"trainer.nnodes={self.nnodes}",
            f"trainer.total_training_steps={self.steps}",
            "trainer.total_epochs=1000",
            f"trainer.save_freq={self.steps if self.save_checkpoint else -1}",
            f"trainer.test_freq={self.steps}",
            f"trainer.val_before_train={str(self.val_before_train).lower()}",
            f"trainer.default_local_dir={out / 'checkpoints'}",
            f"trainer.device={self.device}",
            "+microcoder.rho=" + str(self.resolved("rho")),
            f"+microcoder.m={self.m}",
            f"+microcoder.mask_if={self.mask_if}",
            f"+microcoder.seed={self.seed}",
            "+microcoder.temperature_schedule=" + _list([f"[{s},{t}]" for s, t in self.schedule()]),
        ]
        if cpu:
            ov += [
                f"{a}.strategy=fsdp2", f"{ref}.strategy=fsdp2", "critic.strategy=fsdp2",
                f"{a}.fsdp_config.dtype=float32", f"{a}.fsdp_config.use_torch_compile=false",
                f"{a}.use_torch_compile=false", f"{ref}.fsdp_config.dtype=float32",
                f"{ref}.use_torch_compile=false", f"{ref}.fsdp_config.use_torch_compile=false",
                # FSDP's mixed precision computes in bf16 unless told otherwise (4x slower on CPU,
                # and the trainer's log-probs would drift from the fp32 rollout's)
                *(f"+{p}.fsdp_config.mixed_precision.{k}=fp32" for p in (a, ref)
                  for k in ("param_dtype", "reduce_dtype", "buffer_dtype")),
                "+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
                f"{r}.dtype=float32", f"{r}.max_num_seqs=64", "reward.num_workers=1",
                f"{r}.agent.num_workers=1", "transfer_queue.enable=true",
                "transfer_queue.backend.SimpleStorage.num_data_storage_units=1",
                f"ray_kwargs.ray_init.num_cpus={self.num_cpus}",
            ]
        return _merge(ov, self.extra_overrides)


def _merge(base: list[str], extra: list[str]) -> list[str]:
    """``base`` with every key that ``extra`` sets replaced by ``extra``'s value (extra wins)."""
    keys = {o.split("=", 1)[0].lstrip("+~") for o in extra}
    return [o for o in base if o.split("=", 1)[0].lstrip("+~") not in keys] + list(extra)


def _list(items) -> str:
    return "[" + ",".join(str(i) for i in items) + "]"
