"""The ``hf`` rollout: verl's token-in/token-out server protocol on transformers ``generate``.

verl 0.9.1 generates only through async rollout servers (vLLM, SGLang, TRT-LLM), none of which
runs on a plain CPU. This module provides the three pieces verl's rollout registry expects:

- :class:`HFGenerationServer`, a Ray actor holding a transformers causal LM. Concurrent
  ``generate`` calls from verl's agent-loop workers are queued and run as left-padded batches
  (one ``model.generate`` per group of identical sampling parameters; a prompt sent G times is
  prefilled once). Per-token log-probs are the log-softmax of the *processed* scores (after
  temperature / top-k / top-p), the same quantity vLLM returns with ``logprobs_mode=processed_logprobs``.
- :class:`HFReplica`, the :class:`~verl.workers.rollout.replica.RolloutReplica` that launches
  one server per replica on the node of its hybrid actor worker.
- :class:`HFServerAdapter`, the :class:`~verl.workers.rollout.base.BaseRollout` living inside
  the hybrid actor worker: verl's naive (colocated) checkpoint engine hands it the trained
  weights after every update, and it pushes them to the server (``load_state_dict``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Generator

import ray
import torch

from pipeline.samplers.prefill import shared_prefill

logger = logging.getLogger(__name__)

SERVER_PREFIX = "microcoder_hf_server_"


def server_name(replica_rank: int) -> str:
    """Ray actor name of a replica's server (named so the actor-side adapter can find it)."""
    return f"{SERVER_PREFIX}{replica_rank}"


@dataclass
class _Request:
    prompt_ids: list[int]
    params: dict[str, Any]
    future: asyncio.Future = field(repr=False)


def _sampling_key(params: dict[str, Any], max_new: int) -> tuple:
    temperature = float(params.get("temperature", 1.0) or 0.0)
    top_p = float(params.get("top_p", 1.0) if params.get("top_p") is not None else 1.0)
    top_k = int(params.get("top_k", -1) if params.get("top_k") is not None else -1)
    return (temperature, top_p, top_k, max_new, bool(params.get("logprobs", False)))


class HFGenerationServer:
    """A transformers model behind verl's rollout-server methods (generate, sleep, wake_up, ...)."""

    def __init__(self, model_path: str, response_length: int, max_model_len: int | None = None,
                 max_batch: int = 64, batch_window_s: float = 0.05, trust_remote_code: bool = False):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model_path, trust_remote_code=trust_remote_code)
        self.model = AutoModelForCausalLM.from_pretrained(
            model_path, dtype=torch.float32, attn_implementation="sdpa", trust_remote_code=trust_remote_code
        ).eval()
        self.response_length = int(response_length)
        self.max_model_len = max_model_len
        self.max_batch = max_batch
        self.batch_window_s = batch_window_s
        eos = self.model.generation_config.eos_token_id
        eos = [eos] if isinstance(eos, int) else list(eos or [])
        if self.tokenizer.eos_token_id is not None and self.tokenizer.eos_token_id not in eos:
            eos.append(self.tokenizer.eos_token_id)
        self.eos_ids = eos
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else eos[0]
        self._queue: list[_Request] = []
        self._wake = None
        self._worker = None
        self._model_lock = threading.Lock()
        self.weight_version = 0

    # -- weights ---------------------------------------------------------------------------
    def load_weights(self, state: dict[str, torch.Tensor], version: int | None = None) -> dict[str, int]:
        """Load a (possibly partial) state dict pushed by the actor; returns load counts."""
        with self._model_lock:
            own = self.model.state_dict()
            unknown = [k for k in state if k not in own]
            if unknown:
                raise KeyError(f"weights not in the rollout model: {unknown[:5]}")
            with torch.no_grad():
                for name, tensor in state.items():
                    own[name].copy_(tensor.to(own[name].dtype))
            self.weight_version = self.weight_version + 1 if version is None else int(version)
        return {"loaded": len(state), "total": len(own)}

    def get_weight_version(self) -> int:
        return self.weight_version

    # -- generation ------------------------------------------------------------------------
    async def generate(self, prompt_ids: list[int], sampling_params: dict[str, Any], request_id: str,
                       image_data=None, video_data=None, **kwargs):
        """verl's token-in/token-out call: returns a ``TokenOutput`` for one prompt."""
        if image_data or video_data:
            raise NotImplementedError("the hf rollout serves text-only models")
        loop = asyncio.get_running_loop()
        if self._worker is None or self._worker.done() or self._worker.get_loop() is not loop:
            # One serving task per event loop: a caller may come back on a new loop (asyncio.run).
            self._wake = asyncio.Event()
            self._worker = loop.create_task(self._serve())
        req = _Request(list(int(t) for t in prompt_ids), dict(sampling_params), loop.create_future())
        self._queue.append(req)
        self._wake.set()
        return await req.future

    async def _serve(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.batch_window_s)  # let concurrent requests join the batch
            self._wake.clear()
            batch, self._queue = self._queue, []
            groups: dict[tuple, list[_Request]] = {}
            for req in batch:
                groups.setdefault(_sampling_key(req.params, self._max_new(req)), []).append(req)
            for key, reqs in groups.items():
                for start in range(0, len(reqs), self.max_batch):
                    chunk = reqs[start : start + self.max_batch]
                    try:
                        outs = await asyncio.to_thread(self._generate_batch, chunk, key)
                        for req, out in zip(chunk, outs):
                            req.future.set_result(out)
                    except Exception as exc:  # noqa: BLE001 - surface the error to every waiting caller
                        for req in chunk:
                            if not req.future.done():
                                req.future.set_exception(exc)

    def _max_new(self, req: _Request) -> int:
        limit = int(req.params.get("max_tokens") or req.params.get("max_new_tokens") or self.response_length)
        limit = min(limit, self.response_length)
        if self.max_model_len:
            limit = min(limit, self.max_model_len - len(req.prompt_ids))
        return max(limit, 1)

    def _generate_batch(self, reqs: list[_Request], key: tuple) -> list:
        from transformers import GenerationConfig
        from verl.workers.rollout.replica import TokenOutput

        temperature, top_p, top_k, max_new, want_logprobs = key
        width = max(len(r.prompt_ids) for r in reqs)
        ids = torch.full((len(reqs), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(reqs), width), dtype=torch.long)
        for i, r in enumerate(reqs):  # left padding, as decoder-only generation needs
            ids[i, width - len(r.prompt_ids) :] = torch.tensor(r.prompt_ids)
            mask[i, width - len(r.prompt_ids) :] = 1
        do_sample = temperature > 0
        gen_cfg = GenerationConfig(
            max_new_tokens=max_new, do_sample=do_sample,
            temperature=temperature if do_sample else None,
            top_p=top_p if do_sample and top_p < 1.0 else None,
            top_k=top_k if do_sample and top_k > 0 else 0,
            pad_token_id=self.pad_id, eos_token_id=self.eos_ids,
            output_scores=want_logprobs, return_dict_in_generate=True,
        )
        with self._model_lock, torch.inference_mode():
            version = self.weight_version
            prefilled = shared_prefill(self.model, ids, mask)
            out = self.model.generate(input_ids=ids, attention_mask=mask, generation_config=gen_cfg, **prefilled)
        new = out.sequences[:, width:]
        logps = None
        if want_logprobs:
            scores = torch.stack(out.scores, dim=1).float()  # [B, T, V] processed logits
            logps = torch.log_softmax(scores, dim=-1).gather(-1, new[:, : scores.shape[1], None]).squeeze(-1)
        results = []
        for i in range(len(reqs)):
            row = new[i].tolist()
            n = len(row)
            for j, tok in enumerate(row):
                if tok in self.eos_ids:
                    n = j + 1  # keep the stop token, as vLLM does
                    break
            results.append(TokenOutput(
                token_ids=row[:n],
                log_probs=logps[i, :n].tolist() if logps is not None else None,
                stop_reason="completed",
                # the weight version that produced it: verl's staleness bookkeeping reads it
                extra_fields={"global_steps": version},
            ))
        return results

    # -- lifecycle methods verl calls on every rollout server (nothing to free on CPU) -------
    async def wake_up(self):
        return None

    async def sleep(self):
        return None

    async def clear_kv_cache(self):
        return None

    async def release_kv_cache(self):
        return None

    async def resume_kv_cache(self):
        return None

    async def abort_all_requests(self, reject_request: bool = False):
        return None

    async def resume_generation(self):
        return None

    async def start_profile(self, **kwargs):
        return None

    async def stop_profile(self):
        return None


def _replica_class():
    from verl.workers.rollout.replica import RolloutReplica

    class HFReplica(RolloutReplica):
        """One :class:`HFGenerationServer` per replica, placed on its actor worker's node."""

        def rollout_worker_use_gpu(self) -> bool:
            return False

        async def launch_servers(self):
            if not self.workers:
                raise RuntimeError("the hf rollout runs only in hybrid mode (actor and rollout colocated)")
            node_id = await self.workers[0].__ray_call__.remote(lambda w: ray.get_runtime_context().get_node_id())
            mc = self.model_config  # a DictConfig here, not the HFModelConfig dataclass
            model_path = mc.get("local_path", None) or mc.get("path")
            server_cls = ray.remote(HFGenerationServer)
            server = server_cls.options(
                name=server_name(self.replica_rank),
                num_cpus=0,
                max_concurrency=self.max_concurrency,
                scheduling_strategy=ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(
                    node_id=node_id, soft=False
                ),
            ).remote(
                model_path=model_path,
                response_length=self.config.response_length,
                max_model_len=self.config.max_model_len,
                max_batch=max(1, min(self.config.max_num_seqs, 256)),
                trust_remote_code=bool(mc.get("trust_remote_code", False)),
            )
            await server.get_weight_version.remote()  # wait until the model is loaded
            self.servers = [server]
            self._server_handle = server
            self._server_address = f"ray://{server_name(self.replica_rank)}"

    return HFReplica


def _adapter_base():
    from verl.workers.rollout.base import BaseRollout

    return BaseRollout


class HFServerAdapter(_adapter_base()):
    """Rollout-side object in the hybrid actor worker: forwards weight updates to the server."""

    def __init__(self, config, model_config, device_mesh, *args, **kwargs):
        super().__init__(config, model_config, device_mesh, *args, **kwargs)
        world = (self.config.tensor_model_parallel_size * self.config.data_parallel_size
                 * self.config.pipeline_model_parallel_size)
        rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
        self.replica_rank = rank // world
        self.is_leader = rank % world == 0
        self._server = None

    def _handle(self):
        if self._server is None:
            self._server = ray.get_actor(server_name(self.replica_rank))
        return self._server

    async def resume(self, tags: list[str]):
        return None

    async def release(self):
        return None

    async def update_weights(self, weights: Generator[tuple[str, torch.Tensor], None, None],
                             wire_format: str = "named_tensors", **kwargs):
        if wire_format != "named_tensors":
            raise NotImplementedError(f"the hf rollout takes full named tensors, not {wire_format!r}")
        state = {}
        for name, tensor in weights:  # every rank iterates: gathering FSDP shards is collective
            if self.is_leader:
                state[name] = tensor.detach().to("cpu", copy=True)
        if self.is_leader and state:
            await self._handle().load_weights.remote(state, kwargs.get("global_steps"))


def register_hf_rollout() -> None:
    """Add ``hf`` to verl's rollout registries (replica class and in-worker adapter)."""
    from verl.workers.rollout import base, replica

    replica.RolloutReplicaRegistry.register("hf", _replica_class)
    base._ROLLOUT_REGISTRY[("hf", "async")] = f"{__name__}.HFServerAdapter"
