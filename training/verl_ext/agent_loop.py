"""Staged temperature and per-phase lengths on the rollout side.

verl's agent-loop workers read ``rollout.temperature`` from their own copy of the config,
fixed at start. The MicroCoder trainer attaches the current stage's temperature to each
generation batch (``__temperature__``); this manager takes it off the batch and sets it on
every worker (Ray's ``__ray_call__``) before dispatching, so rollout sampling and the trainer's
log-prob temperature switch at the same step boundary.

The T(D) probe and the held-out evaluation generate at lengths of their own (the probe only the
diversity window, the evaluation its own prompt limit and response lengths): :func:`set_lengths`
sets ``rollout.prompt_length`` / ``response_length`` on every agent-loop worker (each agent loop
reads them when it is built, one per sample) and on every rollout server (vLLM caps
``max_tokens`` with its config's lengths; the CPU ``hf`` server with its ``response_length``).
The engine was started with ``rollout.max_model_len`` covering the longest of them.
"""

from __future__ import annotations

import ray
from omegaconf import open_dict
from verl.trainer.ppo.v1.agent_loop_tq import AgentLoopManagerTQ

from .keys import TEMPERATURE_KEY


def _set_rollout_temperature(worker, temperature: float) -> float:
    with open_dict(worker.config):
        worker.config.actor_rollout_ref.rollout.temperature = temperature
    return temperature


def _set_validation_sampling(worker, temperature: float, n: int) -> tuple[float, int]:
    with open_dict(worker.config):
        worker.config.actor_rollout_ref.rollout.val_kwargs.temperature = temperature
        worker.config.actor_rollout_ref.rollout.val_kwargs.n = n
    return temperature, n


def _set_worker_lengths(worker, prompt_length: int, response_length: int) -> None:
    with open_dict(worker.config):
        worker.config.actor_rollout_ref.rollout.prompt_length = prompt_length
        worker.config.actor_rollout_ref.rollout.response_length = response_length


def _set_server_lengths(server, prompt_length: int, response_length: int) -> None:
    config = getattr(server, "config", None)  # vLLM's server: its RolloutConfig (lengths are mutable fields)
    if config is not None and hasattr(config, "response_length"):
        config.prompt_length = prompt_length
        config.response_length = response_length
    if hasattr(server, "response_length"):  # the CPU hf server
        server.response_length = response_length


def set_lengths(manager, servers, prompt_length: int, response_length: int) -> None:
    """Generate with these prompt and response lengths from now on (workers and servers)."""
    args = (int(prompt_length), int(response_length))
    ray.get([w.__ray_call__.remote(_set_worker_lengths, *args) for w in manager.agent_loop_workers]
            + [s.__ray_call__.remote(_set_server_lengths, *args) for s in servers])


def set_validation_sampling(manager, temperature: float, n: int) -> None:
    """Sample validation-mode batches at ``temperature`` with ``n`` per prompt on every worker
    (the T(D) probe borrows verl's validation path, then restores the evaluation settings)."""
    ray.get([w.__ray_call__.remote(_set_validation_sampling, float(temperature), int(n))
             for w in manager.agent_loop_workers])


class StagedTemperatureAgentLoopManager(AgentLoopManagerTQ):
    def generate_sequences(self, prompts) -> None:
        if TEMPERATURE_KEY in prompts.keys():
            value = prompts.pop(TEMPERATURE_KEY)
            t = float(getattr(value, "data", value))
            ray.get([w.__ray_call__.remote(_set_rollout_temperature, t) for w in self.agent_loop_workers])
        return super().generate_sequences(prompts)
