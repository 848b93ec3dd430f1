"""Model samplers behind one interface: ``make_sampler(backend, **config).generate(...)``.

Backends: ``transformers`` (CPU/GPU, the embedded SmolLM2 default), ``openai`` (any
OpenAI-compatible server, ``vllm serve`` on a cluster) and ``vllm`` (vLLM's offline engine,
in-process on GPUs or in a worker of ``.venv-vllm``'s CPU build). They are imported lazily.
"""

from pipeline.samplers.base import (
    Completion,
    FinishReason,
    Prompt,
    Sampler,
    available_backends,
    make_sampler,
    register_sampler,
)
from pipeline.samplers.default_model import default_model_path
from pipeline.samplers.prompts import PROMPT_VERSION, build_messages

__all__ = [
    "PROMPT_VERSION",
    "Completion",
    "FinishReason",
    "Prompt",
    "Sampler",
    "available_backends",
    "build_messages",
    "default_model_path",
    "make_sampler",
    "register_sampler",
]
