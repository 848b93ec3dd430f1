"""Staged temperature on the rollout side: the agent-loop workers sample at the trainer's T.

verl's agent-loop workers read ``rollout.temperature`` from their own copy of the config,
fixed at start. The MicroCoder trainer attaches the current stage's temperature to each
generation batch (``__temperature__``); this manager takes it off the batch and sets it on
every worker (Ray's ``__ray_call__``) before dispatching, so rollout sampling and the trainer's
log-prob temperature switch at the same step boundary.
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
