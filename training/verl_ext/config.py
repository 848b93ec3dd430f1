"""One config object for a MicroCoder-GRPO run, rendered as verl 0.9.1 Hydra overrides.

One set of defaults. The algorithm is one validated dataclass,
:class:`training.grpo.presets.GRPOConfig` (the paper's values, section 5), nested as
``TrainingConfig.algorithm``. When it is not given, ``preset`` picks it: ``grpo`` (KL loss,
symmetric clip), ``dapo`` (GRPO+: no KL, clip-higher) or ``microcoder`` (GRPO+ plus the
conditional truncation mask), and a named ``profile`` sizes it and the run: ``paper`` (the paper's
sizes: G 8, 8K responses, batch 64) or ``cpu-demo`` (what runs on a laptop CPU in minutes).
:func:`algorithm_for` is the one place a preset, a profile and a user's changes meet; the
launchpad exposes ``GRPOConfig``'s own fields as that function's changes, never a second copy.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from training.grpo.presets import GRPOConfig
from training.grpo.presets import preset as algorithm_preset

# One policy-loss family for all three (verl's ``vanilla`` adds a dual clip the paper does not use):
# the presets differ only by what training.grpo.presets sets (KL loss, clip, mask).
LOSS_MODE = "microcoder"
_PRESET_NAMES = {"grpo": "grpo", "dapo": "grpo+", "microcoder": "microcoder-grpo"}
Preset = Literal["grpo", "dapo", "microcoder"]
Profile = Literal["paper", "cpu-demo"]

# Named profiles: algorithm sizes (GRPOConfig fields) and run sizes (TrainingConfig fields).
PROFILES: dict[str, dict[str, dict]] = {
    "paper": {"algorithm": {}, "run": {"steps": 300, "micro_batch_size_per_gpu": 4, "val_max_samples": -1}},
    "cpu-demo": {
        "algorithm": {"samples_per_query": 4, "max_prompt_length": 512, "max_response_length": 96,
                      "train_batch_size": 2, "ppo_mini_batch_size": 2, "mask_repeat_window": 16,
                      "temperature_candidates": (0.7, 0.9, 1.1), "probe_prompts": 2, "target_diversity": 0.8,
                      "diversity_window": 2, "min_stage_steps": 2},
        "run": {"steps": 2, "micro_batch_size_per_gpu": 2, "val_max_samples": 4},
    },
}


def algorithm_for(preset: str = "microcoder", profile: str = "cpu-demo", **changes: Any) -> GRPOConfig:
    """The validated algorithm: the preset's values, sized by the profile, then ``changes``.

    A typed ``temperature`` or ``temperature_schedule`` is an explicit override of T(D): unless
    ``temperature_rule`` is also given, the rule becomes ``fixed``.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    if preset not in _PRESET_NAMES:
        raise ValueError(f"unknown preset {preset!r}; choose one of {sorted(_PRESET_NAMES)}")
    unknown = set(changes) - {f.name for f in dataclasses.fields(GRPOConfig)}
    if unknown:
        raise ValueError(f"unknown algorithm settings {sorted(unknown)}")
    typed = changes.get("temperature") is not None or bool(changes.get("temperature_schedule"))
    if typed and "temperature_rule" not in changes:
        changes["temperature_rule"] = "fixed"
    base = algorithm_preset(_PRESET_NAMES[preset]).replace(**PROFILES[profile]["algorithm"])
    return base.replace(**changes)


def preset_values() -> dict[str, str]:
    """Per algorithm setting, the value each preset/profile gives it: what an empty field means
    (the launchpad's help text, generated so it never drifts from the presets)."""
    configs = {f"{p}/{prof}": algorithm_for(p, prof) for p in _PRESET_NAMES for prof in PROFILES}
    described = {}
    for f in dataclasses.fields(GRPOConfig):
        by_value: dict[str, list[str]] = {}
        for label, config in configs.items():
            by_value.setdefault(repr(getattr(config, f.name)), []).append(label)
        described[f.name] = "empty: " + ("; ".join(f"{v} ({', '.join(labels)})" for v, labels in by_value.items())
                                         if len(by_value) > 1 else f"{next(iter(by_value))} (every preset)")
    return described


def _reward_path() -> str:
    import evaluator.reward as reward

    return str(Path(reward.__file__).resolve())


@dataclass
class TrainingConfig:
    """Everything a launcher needs. ``algorithm`` None: the preset's, sized by the profile;
    the run sizes left ``None`` (steps, micro-batch, held-out cap) take the profile's value."""

    model_path: str | None = None  # HF folder; None: the embedded SmolLM2 default (converted GGUF)
    preset: Preset = "microcoder"
    profile: Profile = "cpu-demo"
    algorithm: GRPOConfig = None  # type: ignore[assignment]  # None: the preset's, sized by the profile
    train_files: list[str] = field(default_factory=list)
    val_files: list[str] = field(default_factory=list)
    output_dir: str = "runs/grpo"
    experiment_name: str = "microcoder-grpo"
    project_name: str = "microcoder"
    steps: int | None = None
    micro_batch_size_per_gpu: int | None = None
    seed: int = 0  # data order, rollouts and the truncation mask's draws
    device: Literal["cpu", "cuda"] = "cpu"
    n_gpus: int = 1
    nnodes: int = 1
    rollout_tp: int = 1
    gpu_memory_utilization: float = 0.6
    num_cpus: int = 32  # Ray's logical CPUs on the CPU backend (bookkeeping, not cores)
    save_checkpoint: bool = True
    val_before_train: bool = False
    val_max_samples: int | None = None  # held-out problems evaluated (-1: the whole split)
    eval_attempts: int = 4  # held-out pass@1 averaged over this many samples per problem
    ray_address: str | None = None  # "http://head:8265": submit as a Ray job instead of running here
    trace_masking: bool = False  # write the per-sample mask trace under <output_dir>/trace (checks)
    console_output: bool = False  # verl's and Ray's output on the terminal; off: in <output_dir>/train.log
    extra_overrides: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.profile not in PROFILES or self.preset not in _PRESET_NAMES:
            raise ValueError(f"unknown profile {self.profile!r} or preset {self.preset!r}: "
                             f"profiles {sorted(PROFILES)}, presets {sorted(_PRESET_NAMES)}")
        if self.algorithm is None:
            self.algorithm = algorithm_for(self.preset, self.profile)
        elif not isinstance(self.algorithm, GRPOConfig):
            raise TypeError(f"algorithm must be a GRPOConfig (from algorithm_for), got {type(self.algorithm).__name__}")
        for name, value in PROFILES[self.profile]["run"].items():
            if getattr(self, name) is None:
                setattr(self, name, value)

    @property
    def loss_mode(self) -> str:
        return LOSS_MODE

    def schedule(self) -> list[tuple[int, float]]:
        """The staged temperature schedule, always starting at step 1."""
        return list(self.algorithm.schedule().stages)

    def temperature_at(self, step: int) -> float:
        return self.algorithm.schedule().at(step)

    # -- serialization -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TrainingConfig":
        """From JSON: ``algorithm`` is a map of changes to the preset and profile (all of it, as
        :meth:`to_dict` writes, or only what differs)."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown TrainingConfig fields: {sorted(unknown)}")
        data = dict(data)
        changes = data.pop("algorithm", None) or {}
        algorithm = algorithm_for(data.get("preset", cls.preset), data.get("profile", cls.profile), **changes)
        return cls(**data, algorithm=algorithm)

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
        algo = self.algorithm
        ov = [
            "algorithm.adv_estimator=grpo",
            "algorithm.use_kl_in_reward=false",
            f"algorithm.norm_adv_by_std_in_grpo={str(algo.norm_adv_by_std).lower()}",
            f"data.train_files={_list(self.train_files)}",
            f"data.val_files={_list(self.val_files or self.train_files)}",
            "data.val_max_samples=-1",  # the trainer caps the held-out set after verl's length filter
            "data.prompt_key=prompt",
            f"data.train_batch_size={algo.train_batch_size}",
            f"data.max_prompt_length={algo.max_prompt_length}",
            f"data.max_response_length={algo.max_response_length}",
            "data.filter_overlong_prompts=true",
            "data.truncation=error",
            f"data.seed={self.seed}",
            f"actor_rollout_ref.model.path={model}",
            f"actor_rollout_ref.model.use_remove_padding={'false' if cpu else 'true'}",
            f"actor_rollout_ref.model.enable_gradient_checkpointing={'false' if cpu else 'true'}",
            f"{a}.optim.lr={algo.lr}",
            f"{a}.ppo_mini_batch_size={algo.ppo_mini_batch_size}",
            f"{a}.ppo_micro_batch_size_per_gpu={self.micro_batch_size_per_gpu}",
            f"{a}.use_kl_loss={str(algo.use_kl_loss).lower()}",
            f"{a}.kl_loss_coef={algo.kl_coef}",
            f"{a}.kl_loss_type={algo.kl_loss_type}",
            "actor_rollout_ref.actor.entropy_coeff=0",
            f"{a}.clip_ratio_low={algo.clip_low}",
            f"{a}.clip_ratio_high={algo.clip_high}",
            f"{a}.loss_agg_mode={algo.loss_agg}",
            f"{a}.policy_loss.loss_mode={self.loss_mode}",
            f"{r}.name={'hf' if cpu else 'vllm'}",
            f"{r}.n={algo.samples_per_query}",
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
            "+microcoder.rho=" + str(algo.mask_rho),
            f"+microcoder.m={algo.mask_repeat_window}",
            f"+microcoder.mask_if={algo.mask_if}",
            f"+microcoder.seed={self.seed}",
            f"+microcoder.val_max_samples={self.val_max_samples}",
            "+microcoder.temperature_schedule=" + _list([f"[{s},{t}]" for s, t in self.schedule()]),
            f"+microcoder.temperature_rule={algo.temperature_rule}",
            "+microcoder.temperature_candidates=" + _list(algo.temperature_candidates),
            f"+microcoder.target_diversity={algo.target_diversity}",
            f"+microcoder.max_fluctuation={algo.max_fluctuation}",
            f"+microcoder.probe_prompts={algo.probe_prompts}",
            f"+microcoder.diversity_window={algo.diversity_window}",
            f"+microcoder.min_stage_steps={algo.min_stage_steps}",
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
