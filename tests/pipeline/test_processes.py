"""Stopping every process a command started (pipeline.processes): orphans that left the tree, a
session of their own, and a process that ignores SIGTERM included."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import psutil

# A command that adopts orphans, starts a child that double-forks a grandchild into a session of its
# own that ignores SIGTERM (what a daemon, or multiprocessing's resource tracker, looks like), lets
# the child exit, then stops its descendants and says what it saw.
SCRIPT = textwrap.dedent("""
    import json, os, signal, subprocess, sys, time
    from pipeline.processes import adopt_orphans, descendants, stop_descendants
    adopt_orphans()
    escaper = (
        "import os, signal, time\\n"
        "if os.fork() == 0:\\n"
        "    os.setsid()\\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\\n"
        "    print(os.getpid(), flush=True)\\n"
        "    time.sleep(600)\\n"
    )
    child = subprocess.Popen([sys.executable, "-c", escaper], stdout=subprocess.PIPE, text=True)
    orphan = int(child.stdout.readline())
    child.wait()
    time.sleep(0.2)
    before = [p.pid for p in descendants()]
    asked, killed = stop_descendants(grace_s=1.0, kill_s=2.0)
    print(json.dumps({"orphan": orphan, "before": before, "asked": asked, "killed": killed,
                      "after": [p.pid for p in descendants()]}))
""")


def test_an_orphan_in_its_own_session_that_ignores_sigterm_is_still_stopped():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["before"] == [seen["orphan"]]  # re-parented to the subreaper, not to init
    assert seen["asked"] == 1 and seen["killed"] == 1  # SIGTERM ignored: SIGKILL after the grace
    assert seen["after"] == []
    assert not psutil.pid_exists(seen["orphan"]) or psutil.Process(seen["orphan"]).status() == psutil.STATUS_ZOMBIE
