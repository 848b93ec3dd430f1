"""Helpers for tests that start servers and clusters on loopback."""

from __future__ import annotations

import socket
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pids_using(marker: str) -> list[int]:
    """Processes whose command line contains ``marker`` (a cluster's temp dir, a node's address)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids
