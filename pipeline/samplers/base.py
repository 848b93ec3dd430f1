"""The one sampler interface every backend implements, and the backend registry.

Callers (difficulty scoring, translation) only see :class:`Sampler` and :class:`Completion`,
so a run can switch from the CPU model to a vLLM cluster by configuration alone.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Union

FinishReason = Literal["stop", "length"]
Message = dict[str, str]
Prompt = Union[str, list[Message]]


@dataclass(frozen=True)
class Completion:
    """One sampled answer.

    ``num_tokens`` counts generated tokens including the stop token (what the sample cost);
    ``finish_reason == "length"`` means it hit ``max_tokens`` and the answer is truncated.
    ``token_ids`` is None where the backend does not return them (OpenAI-compatible servers).
    """

    text: str
    token_ids: list[int] | None
    num_tokens: int
    finish_reason: FinishReason

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


def normalize_finish_reason(reason: str | None) -> FinishReason:
    """Backends report "stop", "eos", "length", "abort", None...; truncation is all we need."""
    return "length" if reason == "length" else "stop"


def is_chat(prompt: Prompt) -> bool:
    """A prompt is either raw text or a list of chat messages (``{"role", "content"}``)."""
    if isinstance(prompt, str):
        return False
    if isinstance(prompt, Sequence) and all(isinstance(m, dict) and "role" in m for m in prompt):
        return True
    raise TypeError(f"a prompt must be a str or a list of chat messages, got {type(prompt).__name__}")


@dataclass(frozen=True)
class GenerationProgress:
    """How far one ``generate`` call has got: samples finished of all asked for, the tokens
    generated so far where the backend can tell, and the share of the call done where it knows
    better than the finished samples (a batch whose samples all end at the last decode step)."""

    samples_done: int
    samples: int
    tokens: int | None = None
    share: float | None = None

    @property
    def done(self) -> float:
        """The share of the call done, 0 to 1."""
        counted = self.samples_done / self.samples if self.samples else 1.0
        return max(counted, self.share or 0.0)


ProgressHook = Callable[[GenerationProgress], None]


class Sampler(ABC):
    """Samples ``n`` completions per prompt. Chat prompts go through the model's chat template.

    ``on_progress``, where a caller sets it (:func:`reporting`), hears from inside a long
    ``generate`` call as samples finish; backends that cannot tell never call it.
    """

    on_progress: ProgressHook | None = None

    @property
    @abstractmethod
    def model_id(self) -> str:
        """A stable name of the model, used in cache keys and reports."""

    @abstractmethod
    def generate(
        self,
        prompts: Sequence[Prompt],
        n: int = 1,
        temperature: float = 1.0,
        max_tokens: int = 256,
        seed: int = 0,
    ) -> list[list[Completion]]:
        """Return, for each prompt in order, a list of exactly ``n`` completions."""

    def close(self) -> None:
        """Release model memory, pools or connections; a no-op by default."""

    def __enter__(self) -> "Sampler":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LazySampler(Sampler):
    """Builds the real sampler on first use, so callers that may not need a model pay nothing."""

    def __init__(self, factory: Callable[[], Sampler]) -> None:
        self._factory = factory
        self._sampler: Sampler | None = None

    @property
    def sampler(self) -> Sampler:
        if self._sampler is None:
            self._sampler = self._factory()
            self._sampler.on_progress = self.on_progress
        return self._sampler

    @property
    def model_id(self) -> str:
        return self.sampler.model_id

    def generate(self, prompts: Sequence[Prompt], n: int = 1, temperature: float = 1.0,
                 max_tokens: int = 256, seed: int = 0) -> list[list[Completion]]:
        return self.sampler.generate(prompts, n=n, temperature=temperature, max_tokens=max_tokens, seed=seed)

    def close(self) -> None:
        if self._sampler is not None:
            self._sampler.close()

    def __setattr__(self, name: str, value: Any) -> None:
        """``on_progress`` reaches the real sampler, built or not."""
        super().__setattr__(name, value)
        if name == "on_progress" and getattr(self, "_sampler", None) is not None:
            self._sampler.on_progress = value


@contextmanager
def reporting(sampler: Sampler, hook: ProgressHook) -> Iterator[Sampler]:
    """``sampler`` with ``hook`` as its ``on_progress`` while the block runs."""
    previous = getattr(sampler, "on_progress", None)  # a duck-typed sampler may not declare it
    sampler.on_progress = hook
    try:
        yield sampler
    finally:
        sampler.on_progress = previous


def report(sampler: Sampler, samples_done: int, samples: int, tokens: int | None = None, share: float | None = None) -> None:
    """Tell ``sampler``'s caller how far a call has got, if it listens."""
    if sampler.on_progress is not None:
        sampler.on_progress(GenerationProgress(samples_done, samples, tokens, share))


def check_args(n: int, temperature: float, max_tokens: int) -> None:
    """Reject arguments every backend would reject, with one message for all of them."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")


SamplerFactory = Callable[..., Sampler]
_REGISTRY: dict[str, SamplerFactory] = {}
# Backends register themselves on import; importing lazily keeps vllm/torch out of callers
# that never use them.
_BACKEND_MODULES = {
    "transformers": "pipeline.samplers.hf",
    "openai": "pipeline.samplers.openai_compat",
    "vllm": "pipeline.samplers.vllm_backend",
}
_ALIASES = {"hf": "transformers", "openai-compatible": "openai", "openai_compat": "openai"}


def register_sampler(name: str) -> Callable[[SamplerFactory], SamplerFactory]:
    """Class decorator: make a backend available to :func:`make_sampler` under ``name``."""

    def decorate(factory: SamplerFactory) -> SamplerFactory:
        _REGISTRY[name] = factory
        return factory

    return decorate


def available_backends() -> list[str]:
    return sorted(set(_BACKEND_MODULES) | set(_REGISTRY))


def make_sampler(backend: str, **config: Any) -> Sampler:
    """Build a sampler from configuration, e.g. ``make_sampler("openai", base_url=..., model=...)``."""
    name = _ALIASES.get(backend, backend)
    if name not in _REGISTRY and name in _BACKEND_MODULES:
        importlib.import_module(_BACKEND_MODULES[name])
    if name not in _REGISTRY:
        raise ValueError(f"unknown sampler backend {backend!r}; available: {available_backends()}")
    return _REGISTRY[name](**config)
