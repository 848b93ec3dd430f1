"""The ``transformers`` backend: batched sampling on CPU or GPU, for the embedded default model.

Prompts are sorted by length and generated ``batch_size`` at a time, n samples of each side by side
(left padding), which keeps the matrix multiplies wide; one call per prompt is several times slower
on CPU (see benchmarks/bench_sampler.py). A prompt's n samples share one prefill (``prefill.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.samplers.base import Completion, Prompt, Sampler, check_args, is_chat, register_sampler, report
from pipeline.samplers.default_model import DEFAULT_MODEL_ID, default_model_path
from pipeline.samplers.prefill import shared_prefill

__all__ = ["TransformersSampler", "default_model_path"]


class _DecodeSteps:
    """A stopping criterion that never stops: it counts ``model.generate``'s decode steps and tells
    ``on_step`` at most once a second, so a long batch says how far it has got."""

    every_s = 1.0

    def __init__(self, on_step: Any) -> None:
        self.on_step, self.step, self.said = on_step, 0, 0.0

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import time

        import torch

        self.step += 1
        if time.monotonic() - self.said >= self.every_s:
            self.said = time.monotonic()
            self.on_step(self.step)
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)


def resolve_device(device: str) -> str:
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@register_sampler("transformers")
class TransformersSampler(Sampler):
    """Sample with ``model.generate``; ``model=None`` means the embedded SmolLM2-135M-Instruct.

    Results are reproducible for the same prompts, seed, ``batch_size`` and device: the seed is
    set once per ``generate`` call with ``torch.manual_seed``.
    """

    def __init__(
        self,
        model: str | None = None,
        device: str = "auto",
        batch_size: int = 8,
        dtype: str = "auto",
        model_id: str | None = None,
        top_p: float = 1.0,
        num_threads: int | None = None,
        max_batch_tokens: int = 8192,
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if num_threads is not None:  # CPU workers sharing a machine: oversubscribed OpenMP threads spin
            torch.set_num_threads(num_threads)
        path = model or default_model_path()
        self.device = resolve_device(device)
        if dtype == "auto":
            torch_dtype = torch.bfloat16 if self.device.startswith("cuda") else torch.float32
        else:
            torch_dtype = getattr(torch, dtype)
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.top_p = top_p
        self._model_id = model_id or (DEFAULT_MODEL_ID if model is None else str(path).rstrip("/"))
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, padding_side="left")
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch_dtype)
        self.model.to(self.device).eval()
        self.stop_ids = self._stop_ids()

    @property
    def model_id(self) -> str:
        return self._model_id

    def _stop_ids(self) -> set[int]:
        ids = self.model.generation_config.eos_token_id
        stop = set(ids if isinstance(ids, list) else [ids] if ids is not None else [])
        if self.tokenizer.eos_token_id is not None:
            stop.add(self.tokenizer.eos_token_id)
        return stop

    def encode(self, prompt: Prompt) -> list[int]:
        """Token ids of one prompt; chat messages go through the tokenizer's chat template."""
        if is_chat(prompt):
            text = self.tokenizer.apply_chat_template(list(prompt), tokenize=False, add_generation_prompt=True)
            return self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return self.tokenizer(prompt)["input_ids"]

    def generate(
        self,
        prompts: Sequence[Prompt],
        n: int = 1,
        temperature: float = 1.0,
        max_tokens: int = 256,
        seed: int = 0,
    ) -> list[list[Completion]]:
        import torch

        check_args(n, temperature, max_tokens)
        encoded = [self.encode(p) for p in prompts]
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
        results: list[list[Completion]] = [[] for _ in encoded]
        torch.manual_seed(seed)
        done, tokens, total = 0, 0, len(prompts) * n
        for batch in self._batches(order, [len(e) for e in encoded], n):
            steps = _DecodeSteps(lambda step, d=done, t=tokens, rows=len(batch) * n: report(
                self, d, total, t, (d + rows * min(1.0, step / max_tokens)) / total))
            for index, completions in zip(batch, self._generate_batch([encoded[i] for i in batch], n, temperature,
                                                                      max_tokens, steps)):
                results[index] = completions
                done, tokens = done + n, tokens + sum(c.num_tokens for c in completions)
            report(self, done, total, tokens)
        return results

    def _batches(self, order: list[int], lengths: list[int], n: int) -> list[list[int]]:
        """Cut length-sorted prompts into batches of at most ``batch_size`` prompts whose padded
        size (prompts x n x longest prompt) stays within ``max_batch_tokens``: padding long
        statements to each other's length costs more than batching saves."""
        batches: list[list[int]] = []
        current: list[int] = []
        for index in order:
            grown = current + [index]
            if current and (len(grown) > self.batch_size or len(grown) * n * lengths[index] > self.max_batch_tokens):
                batches.append(current)
                grown = [index]
            current = grown
        return batches + ([current] if current else [])

    def _generate_batch(
        self, batch: list[list[int]], n: int, temperature: float, max_tokens: int, steps: Any = None
    ) -> list[list[Completion]]:
        import torch

        padded = self.tokenizer.pad({"input_ids": batch}, padding=True, return_tensors="pt").to(self.device)
        greedy = temperature == 0
        per_prompt = 1 if greedy else n
        # A prompt's samples side by side (what num_return_sequences does), so they share one prefill.
        ids = padded["input_ids"].repeat_interleave(per_prompt, dim=0)
        mask = padded["attention_mask"].repeat_interleave(per_prompt, dim=0)
        kwargs: dict[str, Any] = {
            "max_new_tokens": max_tokens,
            "pad_token_id": self.tokenizer.pad_token_id,
            "eos_token_id": sorted(self.stop_ids),
            "do_sample": not greedy,
        }
        if not greedy:
            kwargs.update(temperature=temperature, top_p=self.top_p, top_k=0)
        if steps is not None and self.on_progress is not None:
            from transformers import StoppingCriteriaList

            kwargs["stopping_criteria"] = StoppingCriteriaList([steps])
        with torch.inference_mode():
            prefilled = shared_prefill(self.model, ids, mask)
            out = self.model.generate(input_ids=ids, attention_mask=mask, **prefilled, **kwargs)
        generated = out[:, ids.shape[1] :].tolist()
        completions = [self._to_completion(row) for row in generated]
        grouped = [completions[i * per_prompt : (i + 1) * per_prompt] for i in range(len(batch))]
        return [group * n if greedy else group for group in grouped]

    def _to_completion(self, row: list[int]) -> Completion:
        end = next((i for i, t in enumerate(row) if t in self.stop_ids), None)
        if end is None:
            text_ids, token_ids, reason = row, row, "length"
        else:
            text_ids, token_ids, reason = row[:end], row[: end + 1], "stop"
        text = self.tokenizer.decode(text_ids, skip_special_tokens=True)
        return Completion(text=text, token_ids=token_ids, num_tokens=len(token_ids), finish_reason=reason)
