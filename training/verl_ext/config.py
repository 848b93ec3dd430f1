"""One config object for a MicroCoder-GRPO run, rendered as verl 0.9.1 Hydra overrides.

One set of defaults, one road to verl. The algorithm is one validated verl-style dataclass,
:class:`training.grpo.presets.GRPOConfig` (the paper's values, section 5), nested as
``TrainingConfig.algorithm``. When it is not given, ``preset`` picks it: ``grpo`` (KL loss,
symmetric clip), ``dapo`` (GRPO+: no KL, clip-higher) or ``microcoder`` (GRPO+ plus the
conditional truncation mask), and a named ``profile`` sizes it and the run: ``paper`` (the paper's
sizes, which are GRPOConfig's defaults) or ``cpu-demo`` (what runs on a laptop CPU in minutes).
:func:`algorithm_for` is the one place a preset, a profile and a user's changes meet; the
launchpad exposes ``GRPOConfig``'s own fields as that function's changes, never a second copy.

Rendering (:meth:`TrainingConfig.to_hydra_overrides`): the standard verl keys come from two
declarative tables, :data:`ALGORITHM_KEYS` (GRPOConfig field -> verl keys) and :data:`RUN_KEYS`
(TrainingConfig field -> verl keys); the whole algorithm, with the run's seed and held-out cap, is
one ``microcoder:`` block (:class:`MicroCoderSettings`) that the trainer rebuilds with verl's
``omega_conf_to_dataclass``. ``extra_overrides`` may set any other verl key, never one of these.

The run's own keys also make a GPU start work on first try: sdpa and no padding removal where
flash-attn does not import (:func:`default_attention`), ``rollout.max_model_len`` covering training
and the evaluation (:attr:`TrainingConfig.max_model_len`), the chat template's thinking switch off,
the actor's parameters and optimizer offloaded when one GPU holds actor and rollout
(:meth:`TrainingConfig.offloads`), and vLLM's seed from the run's.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from training.grpo.presets import PRESETS, GRPOConfig
from training.verl_ext.keys import LOSS_MODE

Preset = Literal["grpo", "dapo", "microcoder"]
Profile = Literal["paper", "cpu-demo"]

# Named profiles: algorithm sizes (GRPOConfig fields) and run sizes (TrainingConfig fields).
# ``paper`` changes no algorithm field: GRPOConfig's defaults are the paper's.
# Both profiles make 4 updates per step (train batch / mini-batch), so the clip can bind. The
# evaluation has its own lengths (Table 1: train at 4K, test at 4K and 8K) and a prompt limit of its
# own, longer than training's, so that no held-out problem is dropped for length.
PROFILES: dict[str, dict[str, dict]] = {
    "paper": {"algorithm": {}, "run": {"steps": 300, "micro_batch_size_per_gpu": 4, "val_max_samples": -1,
                                       "eval_response_lengths": [4096, 8192], "eval_max_prompt_length": 4096}},
    "cpu-demo": {
        # lr 1e-5 (the paper's is 1e-6): a 135M model over 2 steps, as benchmarks/bench_learning.py
        "algorithm": {"samples_per_query": 4, "max_prompt_length": 512, "max_response_length": 96,
                      "train_batch_size": 4, "ppo_mini_batch_size": 1, "lr": 1e-5, "mask_repeat_window": 16,
                      "temperature_candidates": (0.7, 0.9, 1.1), "probe_prompts": 2, "diversity_tokens": 32,
                      "target_diversity": 0.8, "diversity_window": 3, "min_stage_steps": 3},
        # 1 held-out problem at one length: on CPU the evaluation's cost is the prefill of long
        # statements (about 20 s a problem), and a 135M model's pass@1 is 0 at any length (the
        # paper's two lengths and the whole split: `paper`)
        "run": {"steps": 2, "micro_batch_size_per_gpu": 4, "val_max_samples": 1,
                "eval_response_lengths": [96], "eval_max_prompt_length": 4096},
    },
}

A, R, REF = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.ref"

# GRPOConfig field -> the verl keys that carry it: what verl itself carries out. The fields left
# out (T(D), the truncation mask) are the trainer's, read from the ``microcoder`` block.
ALGORITHM_KEYS: dict[str, tuple[str, ...]] = {
    "samples_per_query": (f"{R}.n",),
    "initial_temperature": (f"{R}.temperature", f"{R}.val_kwargs.temperature"),  # the trainer sets T per step
    "max_prompt_length": ("data.max_prompt_length",),
    "max_response_length": ("data.max_response_length",),
    "train_batch_size": ("data.train_batch_size",),
    "lr": (f"{A}.optim.lr",),
    "ppo_mini_batch_size": (f"{A}.ppo_mini_batch_size",),
    "loss_agg": (f"{A}.loss_agg_mode",),
    "clip_low": (f"{A}.clip_ratio_low",),
    "clip_high": (f"{A}.clip_ratio_high",),
    "use_kl_loss": (f"{A}.use_kl_loss",),
    "kl_coef": (f"{A}.kl_loss_coef",),
    "kl_loss_type": (f"{A}.kl_loss_type",),
    "norm_adv_by_std": ("algorithm.norm_adv_by_std_in_grpo",),
}
# TrainingConfig field -> verl keys.
RUN_KEYS: dict[str, tuple[str, ...]] = {
    "seed": ("data.seed", f"{R}.seed"),  # data order and vLLM's sampling seed
    "micro_batch_size_per_gpu": (f"{A}.ppo_micro_batch_size_per_gpu", f"{R}.log_prob_micro_batch_size_per_gpu",
                                 f"{REF}.log_prob_micro_batch_size_per_gpu"),
    "gpu_memory_utilization": (f"{R}.gpu_memory_utilization",),
    "eval_attempts": (f"{R}.val_kwargs.n",),
    "project_name": ("trainer.project_name",),
    "experiment_name": ("trainer.experiment_name",),
    "n_gpus": ("trainer.n_gpus_per_node",),
    "nnodes": ("trainer.nnodes",),
    "steps": ("trainer.total_training_steps", "trainer.test_freq"),
    "val_before_train": ("trainer.val_before_train",),
    "device": ("trainer.device",),
}
# The same for every run.
FIXED_KEYS: dict[str, str] = {
    "algorithm.adv_estimator": "grpo",
    "algorithm.use_kl_in_reward": "false",
    "data.val_max_samples": "-1",  # the trainer caps the held-out set after verl's length filter
    "data.prompt_key": "prompt",
    "data.filter_overlong_prompts": "true",
    "data.truncation": "error",
    f"{A}.entropy_coeff": "0",
    f"{A}.policy_loss.loss_mode": LOSS_MODE,
    f"{R}.top_p": "1.0",
    f"{R}.top_k": "-1",
    f"{R}.calculate_log_probs": "true",
    f"{R}.val_kwargs.do_sample": "true",
    "reward.custom_reward_function.name": "compute_score",
    "trainer.v1.trainer_mode": "microcoder_sync",
    "trainer.logger": "[console,file]",
    "+actor_rollout_ref.rollout.agent.agent_loop_manager_class":
        "training.verl_ext.agent_loop.StagedTemperatureAgentLoopManager",
    "trainer.total_epochs": "1000",
}
# The CPU backend (fp32 FSDP2, the hf rollout, one worker of each kind).
CPU_KEYS: dict[str, str] = {
    f"{A}.strategy": "fsdp2", f"{REF}.strategy": "fsdp2", "critic.strategy": "fsdp2",
    f"{A}.fsdp_config.dtype": "float32", f"{A}.fsdp_config.use_torch_compile": "false",
    f"{A}.use_torch_compile": "false", f"{REF}.fsdp_config.dtype": "float32",
    f"{REF}.use_torch_compile": "false", f"{REF}.fsdp_config.use_torch_compile": "false",
    # FSDP's mixed precision computes in bf16 unless told otherwise (4x slower on CPU, and the
    # trainer's log-probs would drift from the fp32 rollout's)
    **{f"+{p}.fsdp_config.mixed_precision.{k}": "fp32" for p in (A, REF)
       for k in ("param_dtype", "reduce_dtype", "buffer_dtype")},
    f"{R}.dtype": "float32", f"{R}.max_num_seqs": "64", "reward.num_workers": "1",
    f"{R}.agent.num_workers": "1", "transfer_queue.enable": "true",
    "transfer_queue.backend.SimpleStorage.num_data_storage_units": "1",
}


def algorithm_for(preset: str = "microcoder", profile: str = "cpu-demo", **changes: Any) -> GRPOConfig:
    """The validated algorithm: the preset's values, sized by the profile, then ``changes``.

    A typed ``temperature`` or ``temperature_schedule`` is an explicit override of T(D): unless
    ``temperature_rule`` is also given, the rule becomes ``fixed``.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {sorted(PRESETS)}")
    unknown = set(changes) - {f.name for f in dataclasses.fields(GRPOConfig)}
    if unknown:
        raise ValueError(f"unknown algorithm settings {sorted(unknown)}")
    typed = changes.get("temperature") is not None or bool(changes.get("temperature_schedule"))
    if typed and "temperature_rule" not in changes:
        changes["temperature_rule"] = "fixed"
    return PRESETS[preset].replace(**{**PROFILES[profile]["algorithm"], **changes})


def preset_values() -> dict[str, str]:
    """Per algorithm setting, the value each preset/profile gives it: what an empty field means
    (the launchpad's help text, generated so it never drifts from the presets)."""
    configs = {f"{p}/{prof}": algorithm_for(p, prof) for p in PRESETS for prof in PROFILES}
    described = {}
    for f in dataclasses.fields(GRPOConfig):
        by_value: dict[str, list[str]] = {}
        for label, config in configs.items():
            by_value.setdefault(repr(getattr(config, f.name)), []).append(label)
        described[f.name] = "empty: " + ("; ".join(f"{v} ({', '.join(labels)})" for v, labels in by_value.items())
                                         if len(by_value) > 1 else f"{next(iter(by_value))} (every preset)")
    return described


@dataclass
class MicroCoderSettings:
    """The ``microcoder:`` block of the verl config: the algorithm whole, plus the run's values
    the trainer needs. The trainer rebuilds it with verl's ``omega_conf_to_dataclass``."""

    algorithm: GRPOConfig = field(default_factory=GRPOConfig)
    seed: int = 0  # the truncation mask's draws and the held-out sample
    val_max_samples: int = -1  # held-out problems evaluated (-1: the whole split)
    eval_temperature: float | None = None  # None: the temperature training ended with
    eval_response_lengths: list[int] = field(default_factory=list)  # empty: the training length
    eval_max_prompt_length: int = 0  # 0: the training prompt limit
    eval_benchmark: str = "lcb-v6"  # the held-out window (training.grpo.evaluation.BENCHMARKS)
    run_dir: str = ""  # where the trainer writes temperature.json (the run's output folder)


def default_attention() -> str:
    """flash-attention 2 where the ``flash_attn`` package imports in this environment, else sdpa
    (torch's own kernels): verl's actor defaults to flash-attention, which set-up does not install."""
    import importlib.util

    return "flash_attention_2" if importlib.util.find_spec("flash_attn") is not None else "sdpa"


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
    eval_temperature: float | None = None  # None: the temperature training ended with (Table 1)
    eval_response_lengths: list[int] | None = None  # None: the profile's (paper: 4096 and 8192)
    eval_max_prompt_length: int | None = None  # None: the profile's; a longer prompt fails the run
    eval_benchmark: Literal["lcb-v6", "all"] = "lcb-v6"  # lcb-v6: AtCoder+LeetCode 2025-02..04 where known
    enable_thinking: bool = False  # chat template's thinking switch (hybrid Qwen3): the paper trains non-thinking
    attn_implementation: str | None = None  # None: flash_attention_2 if flash_attn imports, else sdpa
    offload: bool | None = None  # actor params+optimizer on CPU between phases; None: when one GPU holds all
    ray_address: str | None = None  # "http://head:8265": submit as a Ray job instead of running here
    trace_masking: bool = False  # write the per-sample mask trace under <output_dir>/trace (checks)
    console_output: bool = False  # verl's and Ray's output on the terminal; off: in <output_dir>/train.log
    extra_overrides: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.profile not in PROFILES or self.preset not in PRESETS:
            raise ValueError(f"unknown profile {self.profile!r} or preset {self.preset!r}: "
                             f"profiles {sorted(PROFILES)}, presets {sorted(PRESETS)}")
        if self.algorithm is None:
            self.algorithm = algorithm_for(self.preset, self.profile)
        elif not isinstance(self.algorithm, GRPOConfig):
            raise TypeError(f"algorithm must be a GRPOConfig (from algorithm_for), got {type(self.algorithm).__name__}")
        for name, value in PROFILES[self.profile]["run"].items():
            if getattr(self, name) is None:
                setattr(self, name, list(value) if isinstance(value, list) else value)
        self.eval_response_lengths = [int(n) for n in self.eval_response_lengths]
        if not self.eval_response_lengths or min(self.eval_response_lengths) < 1 or self.eval_max_prompt_length < 1:
            raise ValueError("eval_response_lengths needs at least one positive length, eval_max_prompt_length > 0")

    # -- derived sizes ----------------------------------------------------------------------
    @property
    def max_model_len(self) -> int:
        """The longest sequence the rollout engine must hold: training's prompt + response, or the
        evaluation's (its prompt limit + its longest length). vLLM sizes its KV cache from it."""
        a = self.algorithm
        return max(a.max_prompt_length + a.max_response_length,
                   self.eval_max_prompt_length + max(self.eval_response_lengths))

    @property
    def world_size(self) -> int:
        return self.n_gpus * self.nnodes

    def offloads(self) -> bool:
        """Offload the actor's parameters and optimizer between phases: on one GPU, the actor's fp32
        weights and Adam states would sit beside vLLM's share of memory."""
        return self.offload if self.offload is not None else (self.device == "cuda" and self.world_size == 1)

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
        _refuse_owned_keys(self.extra_overrides)
        cpu = self.device == "cpu"
        values = dict(FIXED_KEYS)
        values.update({key: _hydra(getattr(self.algorithm, name)) for name, keys in ALGORITHM_KEYS.items()
                       for key in keys})
        values.update({key: _hydra(getattr(self, name)) for name, keys in RUN_KEYS.items() for key in keys})
        attention = "sdpa" if cpu else (self.attn_implementation or default_attention())
        offload = _hydra(self.offloads())
        values.update({
            "data.train_files": _hydra(self.train_files),
            "data.val_files": _hydra(self.val_files or self.train_files),
            "+data.apply_chat_template_kwargs.enable_thinking": _hydra(self.enable_thinking),
            "actor_rollout_ref.model.path": model,
            "+actor_rollout_ref.model.override_config.attn_implementation": attention,
            # padding removal runs flash-attention's varlen kernels: only with flash-attention
            "actor_rollout_ref.model.use_remove_padding": _hydra(attention == "flash_attention_2"),
            "actor_rollout_ref.model.enable_gradient_checkpointing": _hydra(not cpu),
            f"{R}.name": "hf" if cpu else "vllm",
            f"{R}.tensor_model_parallel_size": str(1 if cpu else self.rollout_tp),
            f"{R}.max_model_len": str(self.max_model_len),
            f"{A}.fsdp_config.param_offload": offload, f"{A}.fsdp_config.optimizer_offload": offload,
            f"{REF}.fsdp_config.param_offload": offload,
            "reward.custom_reward_function.path": _reward_path(),
            "trainer.save_freq": str(self.steps if self.save_checkpoint else -1),
            "trainer.default_local_dir": str(Path(self.output_dir) / "checkpoints"),
        })
        if cpu:
            values.update(CPU_KEYS)
            values["ray_kwargs.ray_init.num_cpus"] = str(self.num_cpus)
        block = MicroCoderSettings(self.algorithm, seed=self.seed, val_max_samples=self.val_max_samples,
                                   eval_temperature=self.eval_temperature,
                                   eval_response_lengths=list(self.eval_response_lengths),
                                   eval_max_prompt_length=self.eval_max_prompt_length,
                                   eval_benchmark=self.eval_benchmark, run_dir=str(Path(self.output_dir)))
        values["+microcoder"] = _hydra(dataclasses.asdict(block), quote=True)
        return _merge([f"{k}={v}" for k, v in values.items()], self.extra_overrides)


def _refuse_owned_keys(extra: list[str]) -> None:
    """An extra override may not set what the algorithm owns: there is one road to each setting."""
    owner = {key: name for name, keys in ALGORITHM_KEYS.items() for key in keys}
    for override in extra:
        key = override.split("=", 1)[0].lstrip("+~")
        if key in owner:
            raise ValueError(f"extra_overrides sets {key}, which algorithm.{owner[key]} sets: change that instead")
        if key == "microcoder" or key.startswith("microcoder."):
            raise ValueError(f"extra_overrides sets {key}: the microcoder block is the algorithm, "
                             "change its fields under algorithm instead")


def _merge(base: list[str], extra: list[str]) -> list[str]:
    """``base`` with every key that ``extra`` sets replaced by ``extra``'s value (extra wins)."""
    keys = {o.split("=", 1)[0].lstrip("+~") for o in extra}
    return [o for o in base if o.split("=", 1)[0].lstrip("+~") not in keys] + list(extra)


def _hydra(value: Any, quote: bool = False) -> str:
    """``value`` in Hydra's override grammar: true/false, null, [a,b], {k:v}; text quoted if ``quote``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{_hydra(v, quote)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_hydra(v, quote) for v in value) + "]"
    if isinstance(value, str) and quote:
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(value)
