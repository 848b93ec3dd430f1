"""The MicroCoder-GRPO trainer: verl's synchronous v1 PPO trainer plus the paper's two hooks.

Registered as ``trainer.v1.trainer_mode=microcoder_sync``. Its settings are the ``microcoder``
block of the verl config, rendered by :class:`training.verl_ext.config.TrainingConfig` and rebuilt
here once with verl's ``omega_conf_to_dataclass`` into
:class:`~training.verl_ext.config.MicroCoderSettings` (the whole
:class:`~training.grpo.presets.GRPOConfig`, validated again, with the run's seed and held-out
cap): no key-by-key reads, no second defaults.

- Sync semantics. verl branches on ``self.trainer_mode == "sync"`` (replay buffer class,
  ``gen_batch_size`` forced to 1, prompts persisted in and re-issued from checkpoints). The
  registry needs its own name, so ``trainer_mode`` is pinned to ``"sync"`` on the instance: every
  such branch takes the synchronous side, exactly as verl's own ``PPOTrainerSync`` does.
- Conditional truncation mask (eq. 2). verl's advantage-estimator hook sees no token ids, so
  the mask is applied in the trainer's advantage step, where responses are available: verl's
  GRPO advantages are computed first, then read back with the responses, masked with
  :func:`training.grpo.truncation_mask.conditional_truncation_mask`, zeroed with
  :func:`~training.grpo.truncation_mask.apply_truncation_mask` and written back, with no
  renormalisation. The draw U is keyed by (seed, step, problem id, sample index within the
  group) (:func:`~training.grpo.truncation_mask.problem_sample_key`), so a rerun with the same
  seed masks the same samples; verl's random prompt uids play no part.
- Staged temperature. At each step boundary the trainer sets ``rollout.temperature`` to the
  current stage: verl passes it to ``compute_log_prob`` and ``update_actor`` (logits / T), and
  the same T is attached to the generation batch for the agent-loop workers (see
  :mod:`training.verl_ext.agent_loop`), so sampling and training use one T.
- Diversity-determined temperature T(D) (``temperature_rule: diversity``): before step 1
  the policy samples G responses of ``diversity_tokens`` tokens for ``probe_prompts`` training
  prompts at each candidate T (through verl's validation path, so the rollout replicas hold the
  current weights), D per prompt is measured (:mod:`training.grpo.diversity`) and the
  algorithm's controller (``GRPOConfig.diversity_controller()``) picks the starting T; after
  every step it sees the measured D and its standard error and may switch stage, logging why.
  The probe's curve, the rule, the reason and the switches go to ``<run>/temperature.json`` and,
  as numbers, into the step metrics (:mod:`training.verl_ext.temperature_metrics`). With
  ``fixed`` the typed schedule applies. Each checkpoint folder carries the controller's state
  (``microcoder_temperature.json``): a resumed run goes on at its stage's T with the stage's
  trend, instead of probing again.
- Held-out evaluation (Table 1): sampled at the temperature training ended with (or the
  configured one), once per evaluation length, with the evaluation's own prompt limit: verl's
  validation runs with the workers' and servers' lengths set for it (:func:`.agent_loop.set_lengths`).
  The held-out set is LiveCodeBench v6's AtCoder and LeetCode window where rows carry platform and
  date, and a prompt over the evaluation's limit fails the run before step 1 instead of being dropped.
- Metrics per step under ``microcoder/``: temperature, masked and eligible counts, truncation
  rate, output diversity (D) and its standard error, accuracy, and how many of the step's samples
  keep a non-zero advantage (``signal_samples`` of ``samples``).
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import math
import os
import uuid
from pathlib import Path

import numpy as np
import torch
import transfer_queue as tq
from omegaconf import open_dict
from tensordict import TensorDict
from verl.trainer.ppo.v1.trainer_base import register_trainer
from verl.trainer.ppo.v1.trainer_sync import PPOTrainerSync
from verl.utils import tensordict_utils as tu
from verl.utils.config import omega_conf_to_dataclass
from verl.workers.utils.padding import response_to_nested

from training.grpo.diversity import batch_group_diversities, group_diversities, mean_and_stderr
from training.grpo.evaluation import heldout_pass_at_1, in_benchmark, metric_prefix
from training.grpo.truncation_mask import (
    apply_truncation_mask,
    conditional_truncation_mask,
    problem_sample_key,
    truncation_mask_eligible,
    uniform_draws,
)

from . import temperature_metrics, trace
from .agent_loop import set_lengths, set_validation_sampling
from .config import MicroCoderSettings
from .keys import TD_RECORD, TEMPERATURE_KEY
from .phases import announce

TRAINER_MODE = "microcoder_sync"
TD_STATE = "microcoder_temperature.json"  # the T(D) controller's state, in each checkpoint folder
logger = logging.getLogger(__name__)


def _as_list(value) -> list:
    if isinstance(value, torch.Tensor):
        return value.tolist()
    if hasattr(value, "tolist"):
        return list(value.tolist())
    return list(value)


def draw_keys(tq_keys: list[str], extra_infos: list) -> list[str]:
    """Mask draw keys ``"<problem id>#<k>"`` from verl's TransferQueue keys ``{uid}_{k}_{turn}``
    (k = the sample's index within its group) and each sample's dataset ``extra_info``."""
    keys = []
    for key, info in zip(tq_keys, extra_infos, strict=True):
        uid, session, _ = str(key).rsplit("_", 2)
        info = info if isinstance(info, dict) else {}
        problem = info.get("problem_id", info.get("index", uid))
        keys.append(problem_sample_key(problem, int(session)))
    return keys


@register_trainer(TRAINER_MODE)
class MicroCoderTrainer(PPOTrainerSync):
    @property
    def trainer_mode(self) -> str:
        """Always ``"sync"`` for verl's branches, whatever name the trainer is registered under."""
        return "sync"

    @trainer_mode.setter
    def trainer_mode(self, registered: str) -> None:  # verl assigns config.trainer.v1.trainer_mode
        self.registered_mode = registered

    @property
    def settings(self) -> MicroCoderSettings:
        """The ``microcoder`` block as the dataclass it was rendered from (rebuilt once, validated)."""
        if "_settings" not in self.__dict__:
            self._settings = omega_conf_to_dataclass(self.config.microcoder, MicroCoderSettings)
        return self._settings

    def _current_temperature(self) -> float:
        return float(self.config.actor_rollout_ref.rollout.temperature)

    def _set_temperature(self, t: float) -> None:
        with open_dict(self.config):
            self.config.actor_rollout_ref.rollout.temperature = float(t)

    # -- phases, announced for the progress report (training.verl_ext.phases) ------------------
    def _step_name(self) -> str:
        return f"step {self.global_steps} of {self.total_training_steps}"  # not "1/2": the report reads that as done/total

    def init(self):
        announce("loading the policy into the actor and rollout workers")
        return super().init()

    def on_sample_begin(self):
        announce(f"{self._step_name()}: generating {self.config.data.train_batch_size} x "
                 f"{self.config.actor_rollout_ref.rollout.n} rollouts")
        return super().on_sample_begin()

    def _compute_old_log_prob(self, batch, metrics: dict):
        announce(f"{self._step_name()}: old log-probs")
        return super()._compute_old_log_prob(batch, metrics)

    def _update_actor(self, batch, metrics: dict):
        actor = self.config.actor_rollout_ref.actor
        updates = int(self.config.data.train_batch_size) // max(1, int(actor.ppo_mini_batch_size))
        announce(f"{self._step_name()}: updating the policy ({updates} mini-batch updates)")
        return super()._update_actor(batch, metrics)

    def on_step_end(self):
        announce(f"{self._step_name()}: checkpoint and weights to the rollout")
        return super().on_step_end()

    # -- staged temperature: typed (fixed) or diversity-determined -------------------------
    def on_train_begin(self):
        super().on_train_begin()
        self._pending_metrics = dict(getattr(self, "_heldout_counts", {}))
        self._td = None
        if self.settings.algorithm.temperature_rule == "diversity":
            self._td = self.settings.algorithm.diversity_controller()
            saved = self._resumed_folder and Path(self._resumed_folder) / TD_STATE
            if saved and saved.exists():  # a resumed run goes on at its stage's T, with its trend
                self._td.restore(json.loads(saved.read_text()))
                self._set_temperature(self._td.temperature)
                self._write_temperature_record()
                logger.warning(f"T(D): resumed from {saved} at T={self._td.temperature:g} "
                               f"(stage since step {self._td.stage_start})")
                return
            a = self.settings.algorithm
            announce(f"T(D) probe: {len(self._td.candidates)} temperatures x {a.probe_prompts} prompts x "
                     f"{a.samples_per_query} samples of {a.diversity_tokens} tokens")
            choice = self._td.choose(self._probe_diversity(self._td.candidates))
            self._set_temperature(choice.temperature)
            self._write_temperature_record()
            self._pending_metrics.update(temperature_metrics.choice_metrics(choice, self._td.target_diversity))
            table = ", ".join(f"T={p.temperature:g}: {p.mean:.3f}±{p.spread:.3f}" for p in choice.probes)
            logger.warning(f"T(D): probe {table}; training at T={choice.temperature:g} ({choice.reason})")

    def _write_temperature_record(self) -> None:
        """``<run>/temperature.json``: what the launcher puts on the training card and in the metadata."""
        if self._td is None or not self.settings.run_dir:
            return
        a = self.settings.algorithm
        record = {**self._td.record(), "probe_cost": {
            "prompts": min(a.probe_prompts, len(self.train_dataset)), "samples_per_prompt": a.samples_per_query,
            "candidates": len(a.temperature_candidates), "tokens_per_sample": a.diversity_tokens}}
        path = Path(self.settings.run_dir) / TD_RECORD
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1))

    # -- checkpoints carry the T(D) controller -------------------------------------------------
    def _load_checkpoint(self):
        super()._load_checkpoint()
        self._resumed_folder = None
        if self.global_steps > 0:  # verl found a checkpoint: the folder it loaded, as verl finds it
            trainer = self.config.trainer
            folder = (trainer.resume_from_path if trainer.resume_mode == "resume_path"
                      else os.path.join(trainer.default_local_dir, f"global_step_{self.global_steps}"))
            self._resumed_folder = os.path.abspath(folder)

    def _save_checkpoint(self):
        td = getattr(self, "_td", None)
        if td is not None:  # written before verl's own files, so before its "latest" marker
            folder = Path(self.config.trainer.default_local_dir) / f"global_step_{self.global_steps}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / TD_STATE).write_text(json.dumps(td.state()))
        super()._save_checkpoint()

    def on_step_begin(self):
        if self._td is not None:
            switch = self._td.switch_before(self.global_steps)
            if switch is not None:
                self._set_temperature(switch.to_t)
                self._write_temperature_record()
                self._pending_metrics.update(temperature_metrics.switch_metrics(switch))
                logger.warning(f"T(D): step {switch.step}: T {switch.from_t:g} -> {switch.to_t:g} ({switch.reason})")
        else:
            self._set_temperature(self.settings.algorithm.schedule().at(self.global_steps))
        return super().on_step_begin()

    def _servers(self) -> list:
        return [server for replica in self.llm_server_manager.get_replicas() for server in replica.servers]

    @contextlib.contextmanager
    def _generation_lengths(self, prompt_length: int, response_length: int):
        """Generate with these lengths inside the block (the probe's, the evaluation's), then training's."""
        rollout = self.config.actor_rollout_ref.rollout
        saved = (int(rollout.prompt_length), int(rollout.response_length))
        set_lengths(self.agent_loop_manager, self._servers(), prompt_length, response_length)
        try:
            yield
        finally:
            set_lengths(self.agent_loop_manager, self._servers(), *saved)

    def _probe_diversity(self, candidates) -> dict[float, list[float]]:
        """D per probe prompt (its G responses, ``diversity_tokens`` tokens each) at each candidate T."""
        from verl.utils.dataset.rl_dataset import collate_fn

        rollout, algo = self.config.actor_rollout_ref.rollout, self.settings.algorithm
        k = min(algo.probe_prompts, len(self.train_dataset))
        rows = [self.train_dataset[i] for i in range(k)]
        saved = (float(rollout.val_kwargs.temperature), int(rollout.val_kwargs.n))
        out = {}
        try:
            with self._generation_lengths(int(rollout.prompt_length), algo.diversity_tokens):
                for t in candidates:
                    set_validation_sampling(self.agent_loop_manager, t, int(rollout.n))
                    out[float(t)] = self._probe_once(collate_fn(rows))
        finally:
            set_validation_sampling(self.agent_loop_manager, *saved)
        return out

    def _probe_once(self, batch_dict: dict) -> list[float]:
        """Sample every prompt of ``batch_dict`` G times (validation partition), score, clear."""
        batch_dict["uid"] = np.array([str(uuid.uuid4()) for _ in range(len(batch_dict["raw_prompt"]))], dtype=object)
        batch = tu.get_tensordict(batch_dict)
        tu.assign_non_tensor_data(batch, "global_steps", self.global_steps)
        tu.assign_non_tensor_data(batch, "validate", True)
        tags = [{"is_prompt": True, "status": "pending", "global_steps": self.global_steps} for _ in range(len(batch))]
        tq.kv_batch_put(keys=list(batch["uid"]), partition_id="val", tags=tags)
        self.agent_loop_manager.generate_sequences(batch)
        meta, _ = self.replay_buffer.sample(global_steps=self.global_steps, partition_id="val", batch_size=len(batch))
        data = tq.kv_batch_get(keys=meta.keys, partition_id=meta.partition_id,
                               select_fields=["responses", "response_mask"]).to_padded_tensor()
        groups: dict[str, list[list[int]]] = {}
        for key, row, n in zip(meta.keys, data["responses"].tolist(), data["response_mask"].sum(-1).tolist()):
            groups.setdefault(str(key).rsplit("_", 2)[0], []).append(row[: int(n)])
        tq.kv_clear(keys=meta.keys, partition_id=meta.partition_id)
        return group_diversities(list(groups.values()), 4, self.settings.algorithm.diversity_tokens)

    def _next_train_batch(self, num_prompts=None):
        batch = super()._next_train_batch(num_prompts)
        tu.assign_non_tensor_data(batch, TEMPERATURE_KEY, self._current_temperature())
        return batch

    # -- conditional truncation mask -------------------------------------------------------
    def _compute_advantage(self, batch, metrics: dict):
        batch = super()._compute_advantage(batch, metrics=metrics)
        fields = ["uid", "responses", "response_mask", "rm_scores", "advantages", "extra_info", "old_log_probs"]
        data = tq.kv_batch_get(keys=batch.keys, partition_id=batch.partition_id, select_fields=fields)
        nested_mask = data["response_mask"]
        extra_infos = _as_list(data["extra_info"])
        uids = [str(u) for u in _as_list(data["uid"])]
        td = data.select("responses", "response_mask", "rm_scores", "advantages", "old_log_probs").to_padded_tensor()
        responses, response_mask = td["responses"], td["response_mask"]
        lengths = response_mask.sum(-1)
        rewards = td["rm_scores"].sum(-1)
        max_len = int(self.config.actor_rollout_ref.rollout.response_length)
        algo, seed, step = self.settings.algorithm, self.settings.seed, int(self.global_steps)
        m, mask_if = algo.mask_repeat_window, algo.mask_if
        keys = draw_keys(list(batch.keys), extra_infos)
        eligible = truncation_mask_eligible(responses, lengths, rewards, max_len, m=m, mask_if=mask_if)
        masked = conditional_truncation_mask(responses, lengths, rewards, max_len, rho=algo.mask_rho,
                                             sample_keys=keys, seed=seed, step=step, m=m, mask_if=mask_if)
        before = td["advantages"]
        after = apply_truncation_mask(before, masked)
        if masked.any():
            out = TensorDict({"advantages": response_to_nested(after, nested_mask)}, batch_size=len(batch))
            batch = tq.kv_batch_put(keys=batch.keys, partition_id=batch.partition_id, fields=out)
        if trace.trace_dir() is not None:
            self._trace(step, keys, eligible, masked, uniform_draws(seed, step, keys), before, after, td, rewards)
        diversity, stderr = mean_and_stderr(batch_group_diversities(responses, lengths, uids, 4, algo.diversity_tokens))
        if getattr(self, "_td", None) is not None and not math.isnan(diversity):
            self._td.observe(step, diversity, stderr)
        metrics.update(getattr(self, "_pending_metrics", {}))
        self._pending_metrics = {}
        metrics.update({
            "microcoder/temperature": self._current_temperature(),
            "microcoder/masked_count": int(masked.sum()),
            "microcoder/eligible_count": int(eligible.sum()),
            "microcoder/truncation_rate": float((lengths >= max_len).float().mean()),
            "microcoder/diversity": float(diversity) if not math.isnan(diversity) else 0.0,
            "microcoder/diversity_stderr": float(stderr) if not math.isnan(stderr) else 0.0,
            "microcoder/accuracy": float((rewards >= 1.0).float().mean()),
            "microcoder/reward_mean": float(rewards.mean()),
            "microcoder/response_length_mean": float(lengths.float().mean()),
            # samples whose advantage survives the mask: 0 means this step's update is empty
            "microcoder/samples": int(len(rewards)),
            "microcoder/signal_samples": int((after.abs().amax(-1) > 0).sum()) if after.numel() else 0,
        })
        return batch

    # -- held-out evaluation ---------------------------------------------------------------
    def _init_dataloader(self):
        """The held-out set, built here with the evaluation's prompt limit: every row of the split
        (a prompt over the limit fails the run, naming the limit to raise), then the benchmark's
        window (:func:`~training.grpo.evaluation.in_benchmark`), then the cap, a seeded sample.
        verl's own val set (the training prompt limit, which would drop long statements) is replaced."""
        with open_dict(self.config):  # verl's val set may come out empty at the training limit
            self.config.data.val_batch_size, saved = 1, self.config.data.get("val_batch_size")
        try:
            super()._init_dataloader()
        finally:
            with open_dict(self.config):
                self.config.data.val_batch_size = saved
        from torchdata.stateful_dataloader import StatefulDataLoader
        from verl.trainer.ppo.utils import create_rl_dataset
        from verl.utils.dataset.rl_dataset import collate_fn

        s = self.settings
        limit = s.eval_max_prompt_length or int(self.config.data.max_prompt_length)
        data_config = copy.deepcopy(self.config.data)
        with open_dict(data_config):
            data_config.max_prompt_length, data_config.filter_overlong_prompts = limit, False
        ds = create_rl_dataset(self.config.data.val_files, data_config, self.tokenizer, self.processor,
                               is_train=False, max_samples=-1)
        split = len(ds.dataframe)
        ds.filter_overlong_prompts = True
        if len(ds.maybe_filter_out_long_prompts(ds.dataframe)) < split:
            raise ValueError(f"held-out prompts longer than eval_max_prompt_length={limit} tokens: "
                             "raise it (no held-out problem is dropped for length)")
        infos = ds.dataframe["extra_info"] if "extra_info" in ds.dataframe.column_names else [None] * split
        placed = [in_benchmark(source, info, s.eval_benchmark) for source, info in zip(ds.dataframe["data_source"], infos)]
        ds.dataframe = ds.dataframe.select([i for i, keep in enumerate(placed) if keep is not False])
        if len(ds.dataframe) == 0:
            raise ValueError(f"no held-out problem in the {s.eval_benchmark} window")
        cap = s.val_max_samples
        if 0 < cap < len(ds.dataframe):
            ds.dataframe = ds.dataframe.shuffle(seed=s.seed).select(range(cap))
        self._heldout_counts = {"microcoder/heldout/split_problems": float(split),
                                "microcoder/heldout/window_problems": float(sum(k is not False for k in placed)),
                                "microcoder/heldout/unplaced_problems": float(sum(k is None for k in placed)),
                                "microcoder/heldout/prompt_limit": float(limit)}
        self.val_dataset = ds
        self.val_dataloader = StatefulDataLoader(
            dataset=ds, batch_size=self.config.data.val_batch_size or len(ds),
            num_workers=self.config.data["dataloader_num_workers"],
            shuffle=self.config.data.get("validation_shuffle", True), drop_last=False, collate_fn=collate_fn)

    def _validate(self):
        """verl's validation once per evaluation length, sampled at the temperature training ended
        with (or ``eval_temperature``), with the evaluation's prompt limit. The first length keeps
        verl's own ``val-*`` names; the others get ``@L<length>`` after the first part."""
        s, rollout = self.settings, self.config.actor_rollout_ref.rollout
        t = float(s.eval_temperature) if s.eval_temperature is not None else self._current_temperature()
        lengths = s.eval_response_lengths or [int(rollout.response_length)]
        prompt = s.eval_max_prompt_length or int(rollout.prompt_length)
        set_validation_sampling(self.agent_loop_manager, t, int(rollout.val_kwargs.n))
        metrics: dict = {}
        for i, length in enumerate(lengths):
            self._eval_length = int(length)
            announce(f"held-out evaluation at {length} tokens ({i + 1}/{len(lengths)})")
            with self._generation_lengths(prompt, length):
                out = super()._validate()
            metrics.update(out if i == 0 else {(k.replace("/", f"@L{length}/", 1) if k.startswith("val-") else k): v
                                               for k, v in out.items()})
        metrics.update({"microcoder/heldout/temperature": t, **getattr(self, "_heldout_counts", {})})
        return metrics

    def _val_metrics_update(self, data_sources, sample_uids, reward_extra_infos_dict, sample_turns,
                            expected_acc_counts=None):
        """verl's validation metrics plus pass@1 as the paper reports it (see :func:`heldout_pass_at_1`)."""
        metrics = super()._val_metrics_update(data_sources, sample_uids, reward_extra_infos_dict, sample_turns,
                                              expected_acc_counts=expected_acc_counts)
        scores = reward_extra_infos_dict.get("acc") or reward_extra_infos_dict.get("reward") or []
        length = getattr(self, "_eval_length", int(self.config.actor_rollout_ref.rollout.response_length))
        metrics.update(heldout_pass_at_1(data_sources, sample_uids, scores, prefix=metric_prefix(length)))
        return metrics

    @staticmethod
    def _trace(step, keys, eligible, masked, draws, before, after, td, rewards) -> None:
        mask = td["response_mask"].to(torch.bool)
        rows = []
        for i, key in enumerate(keys):
            n = int(mask[i].sum())
            rows.append({
                "step": step, "key": key, "eligible": bool(eligible[i]), "masked": bool(masked[i]),
                "u": float(draws[i]), "reward": float(rewards[i]), "length": n,
                "old_logprob_sum": float(td["old_log_probs"][i][mask[i]].double().sum()),
                "adv_before": float(before[i, 0]) if n else 0.0, "adv_after": float(after[i, 0]) if n else 0.0,
            })
        trace.write("trainer", rows)


__all__ = ["MicroCoderTrainer", "TRAINER_MODE", "draw_keys", "heldout_pass_at_1"]
