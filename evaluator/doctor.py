"""``microcoder-eval doctor`` and ``--version``: what this evaluator is, and what its sandbox gives on
this machine (the isolation level and the walls it names), as JSON.

Why its own module: the command line prints it, and so does each Ray actor from inside its node
(:meth:`evaluator.ray_backend.EvaluatorActor.doctor`); the Ray backend must not import the command line.
"""

from __future__ import annotations

import os
import platform
import sys

from evaluator.api import isolation_level

VERSION = "0.1.0"
LEVEL_PARTS = {
    "mntns": "own read-only filesystem view (pivot_root): Python + /usr only, private /tmp per test",
    "pidns": "own PID namespace per process: sees and signals only its own processes",
    "netns": "no network (empty network namespace)",
    "ipcns": "own System V IPC",
    "uid": "runs as an unprivileged per-slot uid, no capabilities",
    "userns": "unprivileged: namespaces through a user namespace, no capabilities",
    "rlimits": "CPU, memory, output, processes and file descriptors capped",
}


def doctor() -> dict:
    level = isolation_level()
    parts = level.split(":", 1)[-1].split("+")
    explain = {p: LEVEL_PARTS.get(p, "Landlock: allow-listed paths, no TCP, no signals out of the box"
                                  if p.startswith("landlock") else "") for p in parts}
    return {"version": VERSION, "isolation": level, "degraded": level.startswith("degraded"),
            "walls": explain, "python": sys.version.split()[0], "platform": platform.platform(),
            "cpus": os.cpu_count(), "euid": os.geteuid()}
