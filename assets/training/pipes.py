"""Pipes messages from a file, read a whole line at a time.

Dagster's ``PipesFileMessageReader`` parses whatever ``readline`` returns. A message larger than
a page (the training run's final materialization, with its per-step metrics) can be read while
the writer is still copying it in: the reader gets half a line, ``json.loads`` fails, the reader
thread dies and every later message is lost, the closing one included (the run "succeeds" with
none of its metadata). This reader keeps a partial line until its newline arrives.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import dagster as dg
from dagster_pipes import PipesDefaultMessageWriter

_POLL_S = 0.05


def whole_lines(path: str, should_stop: Callable[[], bool]) -> Iterator[bytes]:
    """The lines appended to ``path`` until ``should_stop``, each once its newline is written; a last
    line without one, once the writer has stopped, is an error (the message was cut)."""
    pending = b""
    with open(path, "rb") as stream:
        while True:
            stopping = should_stop()  # read once more after the writer is done: nothing is left behind
            chunk = stream.read(1 << 16)
            if chunk:
                pending += chunk
                *lines, pending = pending.split(b"\n")
                yield from lines
            elif stopping:
                break
            else:
                time.sleep(_POLL_S)
    if pending.strip():
        raise ValueError(f"the last Pipes message in {path} has no line end ({len(pending)} bytes): cut off")


class WholeLineMessageReader(dg.PipesMessageReader):
    """A temporary file the external process appends messages to (Pipes' default file writer),
    tailed by :func:`whole_lines`."""

    @contextlib.contextmanager
    def read_messages(self, handler: Any) -> Iterator[dict[str, Any]]:
        with tempfile.TemporaryDirectory(prefix="microcoder-pipes-") as folder:
            path = os.path.join(folder, "messages")
            open(path, "w").close()
            done = threading.Event()
            thread = threading.Thread(target=self._read, args=(path, handler, done), daemon=True)
            thread.start()
            try:
                yield {PipesDefaultMessageWriter.FILE_PATH_KEY: path}
            finally:
                done.set()
                thread.join()

    @staticmethod
    def _read(path: str, handler: Any, done: threading.Event) -> None:
        try:
            for line in whole_lines(path, done.is_set):
                if line.strip():
                    handler.handle_message(json.loads(line))
        except Exception:  # noqa: BLE001 - reported to the run as Dagster's own reader does
            handler.report_pipes_framework_exception(f"{WholeLineMessageReader.__name__} reader thread",
                                                     sys.exc_info())

    def no_messages_debug_text(self) -> str:
        return "Attempted to read messages from a temporary file (whole lines)."


def pipes_subprocess_client(cwd: str) -> dg.PipesSubprocessClient:
    """Dagster's subprocess client with messages read whole (see the module's docstring)."""
    return dg.PipesSubprocessClient(cwd=cwd, message_reader=WholeLineMessageReader())
