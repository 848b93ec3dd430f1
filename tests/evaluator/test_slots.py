"""Worker slots are unique on the machine: a slot is the sandbox uid, and the kernel counts the
process limit per uid, so two pools sharing a slot let one program's fork bomb break another's fork."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from evaluator import Limits, evaluate
from evaluator.sandbox.pool import WorkerPool, claim_slot

ROOT = Path(__file__).resolve().parents[2]
STDIN = {"kind": "stdin", "cases": [{"input": "", "output": "ok\n"}]}
HOLD = """import os, time
try:
    while True:  # as many processes as the uid may have, each alive for 5 s
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
except OSError:
    pass
time.sleep(4)
print('ok')
"""
FORKS = "import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\nprint('ok')\n"


def test_pools_and_processes_never_share_a_slot():
    small, large = WorkerPool(1), WorkerPool(2)
    try:
        with small.worker() as a, large.worker() as b, large.worker() as c:
            slots = {a.slot, b.slot, c.slot}
        assert len(slots) == 3
        other = subprocess.run([sys.executable, "-c", "from evaluator.sandbox.pool import claim_slot\nprint(claim_slot()[0])"],
                               cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert int(other.stdout) not in slots  # another process on the machine takes a free one
    finally:
        small.close()
        large.close()
    slot, fd = claim_slot()
    os.close(fd)
    assert slot in slots  # given back when the pool closes: the lowest free slot is one of them


@pytest.mark.skipif(os.geteuid() != 0, reason="per-slot uids are the root level's")
def test_a_fork_bomb_in_one_pool_does_not_break_a_fork_in_another():
    hog, victim = WorkerPool(1), WorkerPool(1)
    try:
        assert "uid" in victim.isolation
        held = {}
        thread = threading.Thread(target=lambda: held.update(r=evaluate(HOLD, STDIN, Limits(time_s=10), pool=hog)))
        thread.start()
        time.sleep(2)  # the hog now holds every process its uid may have
        res = evaluate(FORKS, STDIN, Limits(time_s=5), pool=victim)
        thread.join()
        assert res.passed, res
    finally:
        hog.close()
        victim.close()
