"""The ``openai`` backend: any OpenAI-compatible server (``vllm serve`` in production).

Stdlib only (urllib + a bounded thread pool): one request per prompt with ``n`` choices, retried
with exponential backoff on 429/5xx and connection errors. Servers that ignore ``n``
(llama.cpp's) are detected from the number of choices returned and then sent ``n`` requests of
one choice each, with seeds ``seed, seed+1, ...`` so the samples differ.
"""

from __future__ import annotations

import json
import os
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pipeline.samplers.base import (
    Completion,
    Prompt,
    Sampler,
    check_args,
    is_chat,
    normalize_finish_reason,
    register_sampler,
)

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class SamplerError(RuntimeError):
    """A request to the model server failed for good."""


class ServerUnreachableError(SamplerError):
    """Nothing answers at the configured URL (connection refused, DNS failure, timeouts)."""


class ModelNotFoundError(SamplerError):
    """The server answers but does not serve the configured model."""


def normalize_base_url(url: str) -> str:
    """Accept ``http://host:8000`` or ``http://host:8000/v1``; return the ``/v1`` root."""
    url = url.rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


def apportion(total: int, weights: list[int]) -> list[int]:
    """Split ``total`` tokens in proportion to ``weights`` (largest remainder): exact sum."""
    if not weights:
        return []
    weight_sum = sum(weights) or len(weights)
    weights = weights if sum(weights) else [1] * len(weights)
    shares = [total * w / weight_sum for w in weights]
    counts = [int(s) for s in shares]
    for i in sorted(range(len(shares)), key=lambda i: counts[i] - shares[i])[: total - sum(counts)]:
        counts[i] += 1
    return counts


def choices_to_completions(response: dict[str, Any], max_tokens: int) -> list[Completion]:
    """Map a (chat) completions response to Completions.

    Token counts: a choice's ``token_ids`` where the server returns them (vLLM with
    ``return_token_ids``); else ``usage.completion_tokens`` for a single choice. With several
    choices and only the summed usage, truncated choices count ``max_tokens`` and the rest of the
    sum is apportioned by text length, so totals stay exact.
    """
    choices = sorted(response.get("choices") or [], key=lambda c: c.get("index", 0))
    texts, ids, reasons = [], [], []
    for choice in choices:
        message = choice.get("message")
        text = message.get("content") if isinstance(message, dict) else choice.get("text")
        texts.append(text or "")
        token_ids = choice.get("token_ids")
        ids.append(list(token_ids) if token_ids is not None else None)
        reasons.append(normalize_finish_reason(choice.get("finish_reason")))
    usage = (response.get("usage") or {}).get("completion_tokens")
    counts: list[int | None] = [len(t) if t is not None else None for t in ids]
    if any(c is None for c in counts):
        if usage is None:
            counts = [c if c is not None else (max_tokens if r == "length" else 0) for c, r in zip(counts, reasons)]
        elif len(choices) == 1:
            counts = [int(usage)]
        else:
            fixed = [max_tokens if r == "length" else None for r in reasons]
            rest = max(0, int(usage) - sum(f for f in fixed if f is not None))
            free = [i for i, f in enumerate(fixed) if f is None]
            for i, count in zip(free, apportion(rest, [len(texts[i]) for i in free])):
                fixed[i] = count
            counts = fixed
    return [
        Completion(text=t, token_ids=i, num_tokens=int(c or 0), finish_reason=r)
        for t, i, c, r in zip(texts, ids, counts, reasons)
    ]


@register_sampler("openai")
class OpenAICompatSampler(Sampler):
    """Sample from ``base_url`` (an OpenAI-compatible server) serving ``model``.

    ``n_mode``: "auto" (send ``n``; fall back to ``n`` requests if fewer choices come back),
    "native" (trust the server), or "repeat" (always ``n`` single-choice requests).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        max_concurrency: int = 8,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        timeout_s: float = 600.0,
        n_mode: str = "auto",
        validate_model: bool = True,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        if n_mode not in ("auto", "native", "repeat"):
            raise ValueError(f"n_mode must be auto, native or repeat, got {n_mode!r}")
        self.base_url = normalize_base_url(base_url)
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.max_concurrency = max(1, max_concurrency)
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.timeout_s = timeout_s
        self.n_mode = n_mode
        self.validate_model = validate_model
        self.extra_body = dict(extra_body or {})
        self._ignores_n = n_mode == "repeat"
        self._validated = False
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self.model

    # -- HTTP -----------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One call with retries; raises SamplerError subclasses with the URL and model named."""
        url = self.base_url + path
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        for attempt in range(self.max_retries + 1):
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            retry_after: float | None = None
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read().decode())
            except urllib.error.HTTPError as error:
                detail = error.read().decode(errors="replace")[:500]
                if error.code not in RETRY_STATUS or attempt == self.max_retries:
                    self._raise_http(error.code, detail, url)
                retry_after = _retry_after(error.headers.get("Retry-After") if error.headers else None)
            except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError) as error:
                if attempt == self.max_retries:
                    reason = getattr(error, "reason", error)
                    raise ServerUnreachableError(
                        f"cannot reach the OpenAI-compatible server at {url} after {attempt + 1} attempts: {reason}"
                    ) from error
            delay = min(self.max_backoff_s, self.backoff_s * 2**attempt) * (0.5 + random.random() / 2)
            time.sleep(min(self.max_backoff_s, retry_after) if retry_after is not None else delay)
        raise AssertionError("unreachable")

    def _raise_http(self, code: int, detail: str, url: str) -> None:
        if code in (400, 404) and ("model" in detail.lower() or code == 404):
            raise ModelNotFoundError(
                f"the server at {self.base_url} rejected model {self.model!r} (HTTP {code} from {url}): "
                f"{detail}; models served: {self.served_models()}"
            )
        raise SamplerError(f"HTTP {code} from {url} for model {self.model!r}: {detail}")

    def served_models(self) -> list[str] | None:
        """Model ids listed at ``/v1/models``, or None if the server does not list them."""
        try:
            request = urllib.request.Request(self.base_url + "/models", headers=self._auth_headers())
            with urllib.request.urlopen(request, timeout=min(self.timeout_s, 30)) as response:
                listing = json.loads(response.read().decode())
        except (urllib.error.URLError, ValueError, OSError):
            return None
        return [m.get("id") for m in listing.get("data", []) if isinstance(m, dict)]

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def check_model(self) -> None:
        """Fail early and clearly when the server lists its models and ours is not one of them.

        Raises ServerUnreachableError when nothing answers at the URL.
        """
        try:
            listing = self._request("GET", "/models")
        except SamplerError as error:
            if isinstance(error, ServerUnreachableError):
                raise
            return  # a server without /v1/models: requests themselves will tell
        served = [m.get("id") for m in listing.get("data", []) if isinstance(m, dict)]
        if served and self.model not in served:
            raise ModelNotFoundError(f"the server at {self.base_url} does not serve model {self.model!r}; models served: {served}")

    # -- sampling -------------------------------------------------------------------------
    def _body(self, prompt: Prompt, n: int, temperature: float, max_tokens: int, seed: int) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {
            "model": self.model,
            "n": n,
            "temperature": temperature,
            "top_p": 1.0,
            "max_tokens": max_tokens,
            "seed": seed,
            **self.extra_body,
        }
        if is_chat(prompt):
            return "/chat/completions", {**body, "messages": list(prompt)}
        return "/completions", {**body, "prompt": prompt}

    def _sample_one(self, prompt: Prompt, n: int, temperature: float, max_tokens: int, seed: int) -> list[Completion]:
        completions: list[Completion] = []
        if not self._ignores_n:
            path, body = self._body(prompt, n, temperature, max_tokens, seed)
            completions = choices_to_completions(self._request("POST", path, body), max_tokens)[:n]
            if len(completions) < n and self.n_mode == "auto":
                with self._lock:
                    self._ignores_n = True
            elif len(completions) < n:
                raise SamplerError(f"asked {self.base_url} for n={n} choices of {self.model!r}, got {len(completions)}")
        while len(completions) < n:
            path, body = self._body(prompt, 1, temperature, max_tokens, seed + len(completions))
            got = choices_to_completions(self._request("POST", path, body), max_tokens)
            if not got:
                raise SamplerError(f"{self.base_url} returned no choices for model {self.model!r}")
            completions.extend(got[:1])
        return completions

    def generate(
        self,
        prompts: Sequence[Prompt],
        n: int = 1,
        temperature: float = 1.0,
        max_tokens: int = 256,
        seed: int = 0,
    ) -> list[list[Completion]]:
        check_args(n, temperature, max_tokens)
        for prompt in prompts:
            is_chat(prompt)  # type errors before any request
        if self.validate_model and not self._validated:
            self.check_model()
            self._validated = True
        if not prompts:
            return []
        # Greedy: one choice, copied n times; vLLM refuses n > 1 with temperature 0, and the n would agree.
        asked = 1 if temperature == 0 else n
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(prompts))) as pool:
            futures = [pool.submit(self._sample_one, p, asked, temperature, max_tokens, seed) for p in prompts]
            return [f.result() * (n // asked) for f in futures]


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
