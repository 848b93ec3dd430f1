"""Where a training run is inside its steps, for the progress report.

The trainer runs in a Ray actor and the launcher outside it, so the trainer appends one JSON line
per phase to the file ``$MICROCODER_PHASES_FILE`` names, and the launcher follows that file
(:class:`PhaseTail`) and says each phase, and how long it has been in it, at least every 15 s
(:class:`training.progress.Pulse`). Without the variable, announcing costs nothing.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

ENV = "MICROCODER_PHASES_FILE"


def announce(phase: str) -> None:
    """Record that the run entered ``phase`` (``step 1/2: generating rollouts``)."""
    path = os.environ.get(ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"phase": phase, "at": time.time()}) + "\n")


class PhaseTail:
    """Follows the phases file from a thread and hands each new phase to ``say``."""

    def __init__(self, path: Path, say: Callable[[str], None]) -> None:
        self.path, self.say = path, say
        self._stop = threading.Event()
        self._pos = 0
        self._thread = threading.Thread(target=self._run, name="phase-tail", daemon=True)

    def start(self) -> PhaseTail:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self._drain()
            except (OSError, ValueError):  # a half-written line: read again next time
                continue

    def _drain(self) -> None:
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            handle.seek(self._pos)
            for line in handle:
                if not line.endswith(b"\n"):
                    break
                self._pos += len(line)
                self.say("training: " + json.loads(line)["phase"])
