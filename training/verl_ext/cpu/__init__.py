"""MicroCoder's CPU backend for verl 0.9.1 (CI and the embedded default; GPU runs never import it).

Imported in every verl process through ``VERL_USE_EXTERNAL_MODULES=training.verl_ext.cpu``
(set by ``training.launcher.verl_env`` when the device is ``cpu``). Importing it:

- registers the ``cpu`` device platform (torch.cpu, gloo) selected by ``VERL_PLATFORM=cpu``;
- registers verl's FSDP/FSDP2 engine for the ``cpu`` device (verl lists only cuda/npu);
- makes verl's process group plain ``gloo`` (its ``cpu:gloo,<device>:<backend>`` string
  would name cpu twice);
- registers the ``hf`` rollout: a Ray actor around transformers ``generate`` serving verl's
  token-in/token-out protocol, its weights pushed from the actor after every update;
- gives torch the node's cores (Ray starts each worker on one thread).

What else a CPU run needs is configuration, rendered by
:meth:`training.verl_ext.config.TrainingConfig.to_hydra_overrides` for ``device="cpu"``:
strategy fsdp2 (FSDP1 refuses CPU parameters), ``attn_implementation=sdpa``, fp32, no
torch.compile, no padding removal (flash-attn varlen), rollout tensor parallel size 1.
"""

from __future__ import annotations

import os

import torch

# First: when this package is what first imports verl (e.g. a Ray worker unpickling the hf
# server class), verl's __init__ must run VERL_USE_EXTERNAL_MODULES, which registers the cpu
# platform, before any verl module asks for the device.
import verl  # noqa: F401,I001

from . import platform  # noqa: F401  (registers the platform)
from .hf_rollout import register_hf_rollout


def _register_engine() -> None:
    from verl.workers.engine.base import EngineRegistry
    from verl.workers.engine.fsdp.transformer_impl import FSDPEngineWithLMHead

    registry = EngineRegistry._engines.get("language_model", {})
    missing = [b for b in ("fsdp", "fsdp2") if "cpu" not in registry.get(b, {})]
    if missing:
        EngineRegistry.register(model_type="language_model", backend=missing, device=["cpu"])(FSDPEngineWithLMHead)


def _single_backend_process_group() -> None:
    """verl builds the backend string ``cpu:gloo,<device>:<backend>``; with device ``cpu`` that
    names cpu twice, which torch rejects. Default the backend to plain ``gloo`` instead."""
    import verl.checkpoint_engine.base as checkpoint_base
    import verl.utils.distributed as dist
    import verl.workers.engine_workers as engine_workers

    original = dist.initialize_global_process_group_ray
    if getattr(original, "_microcoder_cpu", False):
        return

    def initialize_global_process_group_ray(timeout_second=None, backend=None):
        return original(timeout_second=timeout_second, backend=backend or "gloo")

    initialize_global_process_group_ray._microcoder_cpu = True
    for module in (dist, engine_workers, checkpoint_base):
        if hasattr(module, "initialize_global_process_group_ray"):
            module.initialize_global_process_group_ray = initialize_global_process_group_ray


def _unpinned_cpu_offload() -> None:
    """verl's FSDP2 engine gives a forward-only model (the GRPO preset's KL reference) a
    ``CPUOffloadPolicy(pin_memory=True)``; pinning needs an accelerator, so on the CPU backend
    the reference failed to build. The parameters already live on the CPU: keep the policy,
    drop the pinning."""
    import verl.workers.engine.fsdp.transformer_impl as impl

    policy = impl.CPUOffloadPolicy
    if policy is None or getattr(policy, "_microcoder_cpu", False):
        return

    def unpinned(*args, **kwargs):
        kwargs["pin_memory"] = False
        return policy(*args, **kwargs)

    unpinned._microcoder_cpu = True
    impl.CPUOffloadPolicy = unpinned


def _use_the_cores() -> None:
    """Ray starts every worker with ``OMP_NUM_THREADS=1``, so verl's actor trained and the hf server
    generated on one core of the node's. On the CPU backend the actor and the rollout take turns
    (hybrid engine), so each may use the node's cores, shared among the node's actor workers.
    ``MICROCODER_TORCH_THREADS`` sets the count."""
    workers_here = int(os.environ.get("RAY_LOCAL_WORLD_SIZE") or 1)
    threads = int(os.environ.get("MICROCODER_TORCH_THREADS") or 0) or len(os.sched_getaffinity(0)) // workers_here
    torch.set_num_threads(max(1, threads))


_use_the_cores()
_register_engine()
_single_backend_process_group()
_unpinned_cpu_offload()
register_hf_rollout()
