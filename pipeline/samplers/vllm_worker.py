"""vLLM's offline engine in a worker process of another Python environment (``.venv-vllm``).

The main environment cannot import vLLM's CPU build (it pins an older transformers), so the
``vllm`` sampler starts ``<vllm python> -m pipeline.samplers.vllm_worker`` once and talks to it
in JSON lines over stdin/stdout: one line with ``vllm.LLM``'s keyword arguments, answered by
``{"ok": true}`` once the engine is up, then one line per ``generate`` call, answered with the
completions (after ``{"progress": [samples done, samples, tokens, share]}`` lines, where asked).
The worker runs the same :class:`InProcessEngine` as a GPU machine does in-process. It exits
when its stdin closes, so it never outlives the process that started it. The client side
(:class:`pipeline.samplers.vllm_backend.WorkerEngine`) lives with the sampler, so this module is
only what runs in the worker.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import asdict
from typing import IO, Any


def _send(channel: IO[str], message: dict[str, Any]) -> None:
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def _progress_lines(channel: IO[str], every_s: float = 2.0) -> Any:
    """A generate call's progress as ``{"progress": [done, samples, tokens, share]}`` lines, at most
    one every ``every_s`` seconds (and the last)."""
    last = [0.0]

    def send(done: int, samples: int, tokens: int, share: float) -> None:
        now = time.monotonic()
        if now - last[0] >= every_s or done >= samples:
            last[0] = now
            _send(channel, {"progress": [done, samples, tokens, share]})

    return send


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
            progress = _progress_lines(channel) if request.get("progress") else None
            groups = engine.generate(request["prompts"], request["sampling"], progress)
            _send(channel, {"ok": True, "results": [[asdict(c) for c in group] for group in groups]})
        except Exception as error:  # noqa: BLE001 - a bad request fails that request, not the worker
            _send(channel, {"ok": False, "error": f"{type(error).__name__}: {error}"})
    engine.close()
    return 0


if __name__ == "__main__":  # vLLM starts its engine core with spawn, which re-imports __main__
    sys.exit(main())
