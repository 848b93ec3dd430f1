"""vLLM's offline engine in a worker process of another Python environment (``.venv-vllm``).

The main environment cannot import vLLM's CPU build (it pins an older transformers), so the
``vllm`` sampler starts ``<vllm python> -m pipeline.samplers.vllm_worker`` once and talks to it
in JSON lines over stdin/stdout: one line with ``vllm.LLM``'s keyword arguments, answered by
``{"ok": true}`` once the engine is up, then one line per ``generate`` call, answered with the
completions. The worker runs the same :class:`InProcessEngine` as a GPU machine does in-process.
It exits when its stdin closes, so it never outlives the process that started it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from pipeline.paths import PROJECT_ROOT
from pipeline.samplers.base import Completion, Prompt


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
        from pipeline.samplers.vllm_backend import cpu_environment

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

    def _call(self, request: dict[str, Any], what: str) -> Any:
        if self.process.poll() is not None or self.process.stdin is None or self.process.stdout is None:
            raise WorkerError(f"{what}: the vLLM worker is not running; its log ({self.log_path}):\n{_tail(self.log_path)}")
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            code = self.process.wait()
            self._kill_group()  # engine-core processes it may have left
            raise WorkerError(f"{what}: the vLLM worker exited with code {code}; its log ({self.log_path}):\n{_tail(self.log_path)}")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise WorkerError(f"{what}: {answer.get('error')}")
        return answer.get("results")

    def generate(self, prompts: Sequence[Prompt], sampling: dict[str, Any]) -> list[list[Completion]]:
        results = self._call({"prompts": list(prompts), "sampling": sampling}, what="vLLM generate")
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


def _send(channel: IO[str], message: dict[str, Any]) -> None:
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def main() -> int:
    """The worker side: build the engine from the first line, then answer one line per request."""
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # vLLM and native libraries print to stdout: keep the protocol channel clean
    sys.stdout = sys.stderr
    from pipeline.samplers.vllm_backend import InProcessEngine

    first = sys.stdin.readline()
    if not first:
        return 0
    try:
        engine = InProcessEngine.build(json.loads(first)["llm_kwargs"])
    except Exception:  # noqa: BLE001 - reported to the client, which raises it
        _send(channel, {"ok": False, "error": traceback.format_exc()})
        return 1
    _send(channel, {"ok": True})
    for line in sys.stdin:
        try:
            request = json.loads(line)
            groups = engine.generate(request["prompts"], request["sampling"])
            _send(channel, {"ok": True, "results": [[asdict(c) for c in group] for group in groups]})
        except Exception as error:  # noqa: BLE001 - a bad request fails that request, not the worker
            _send(channel, {"ok": False, "error": f"{type(error).__name__}: {error}"})
    engine.close()
    return 0


if __name__ == "__main__":  # vLLM starts its engine core with spawn, which re-imports __main__
    sys.exit(main())
