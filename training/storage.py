"""A training run's outputs on any fsspec filesystem (local path, ``s3://``, ``gs://``).

verl 0.9.1 writes checkpoints to a local folder only (``trainer.default_local_dir``; its
``default_hdfs_dir`` copies through the ``hdfs`` command and knows no other scheme), and its file
logger opens a local path. So verl keeps writing to a local folder, and :class:`RunStorage` mirrors
what lands there to the run's URL: each finished checkpoint (verl marks one finished by rewriting
``latest_checkpointed_iteration.txt``), the per-step metrics and the final evaluation. Resuming
reads the store, not the local disk, so a run restarted on another node finds its checkpoint.

Layout under the run URL (the same locally and remotely)::

    checkpoints/global_step_<N>/...           verl's checkpoint folders
    checkpoints/latest_checkpointed_iteration.txt
    metrics.jsonl                              one verl file-logger record per step
    eval.json, summary.json                    held-out evaluation, final summary
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import fsspec
from fsspec.core import url_to_fs

TRACKER = "latest_checkpointed_iteration.txt"  # verl's name (verl.utils.checkpoint)
# Where verl's local folder goes for a remote run (default: the system temp dir). With several
# nodes, a filesystem they all mount: each node's FSDP workers write their own shards there.
SCRATCH_ENV = "MICROCODER_TRAIN_SCRATCH"
_STEP = re.compile(r"global_step_(\d+)$")


def is_remote(url: str) -> bool:
    """True for a URL whose filesystem is not the local disk (s3://, gs://, memory://...)."""
    return "://" in url and not url.startswith(("file://", "local://"))


def checkpoint_steps(fs: fsspec.AbstractFileSystem, folder: str) -> dict[int, str]:
    """``{step: path}`` of the ``global_step_<N>`` folders directly under ``folder``."""
    try:
        entries = fs.ls(folder, detail=False)
    except FileNotFoundError:
        return {}
    found = {}
    for entry in entries:
        match = _STEP.search(entry.rstrip("/"))
        if match:
            found[int(match.group(1))] = entry.rstrip("/")
    return found


class RunStorage:
    """The run's URL and the local folder verl writes to (the URL itself when it is local)."""

    def __init__(self, url: str, scratch: str | Path | None = None):
        self.url = url.rstrip("/")
        self.remote = is_remote(self.url)
        self.fs, self.root = url_to_fs(self.url)
        if self.remote:
            digest = hashlib.sha1(self.url.encode()).hexdigest()[:12]
            base = Path(scratch) if scratch else Path(tempfile.gettempdir()) / "microcoder-runs"
            self.local = base / digest
        else:
            self.local = Path(self.root)
        self.local.mkdir(parents=True, exist_ok=True)
        self._synced: set[int] = set()

    # -- paths -------------------------------------------------------------------------------
    @property
    def local_checkpoints(self) -> Path:
        return self.local / "checkpoints"

    def _remote_path(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts])

    def _url(self, path: str) -> str:
        """A path of ``self.fs`` as a URL (the protocol back in front when remote)."""
        return self.fs.unstrip_protocol(path) if self.remote else str(Path(path).resolve())

    # -- checkpoints -------------------------------------------------------------------------
    def latest_checkpoint(self) -> str | None:
        """URL of the newest ``global_step_<N>`` in the store, or None."""
        if not self.remote:
            steps = checkpoint_steps(self.fs, str(self.local_checkpoints))
        else:
            self.fs.invalidate_cache()
            steps = checkpoint_steps(self.fs, self._remote_path("checkpoints"))
        return self._url(steps[max(steps)]) if steps else None

    def restore_latest(self) -> int | None:
        """Bring the store's newest checkpoint into the local folder, where verl's
        ``resume_mode=auto`` finds it (through the tracker file); returns its step or None."""
        latest = self.latest_checkpoint()
        if latest is None:
            return None
        step = int(_STEP.search(latest).group(1))
        if self.remote:
            target = self.local_checkpoints / f"global_step_{step}"
            if not target.exists():
                self.fs.get(self.fs._strip_protocol(latest) + "/", str(target) + "/", recursive=True)
            (self.local_checkpoints / TRACKER).write_text(str(step))
            self._synced.add(step)
        return step

    def finished_local_step(self) -> int | None:
        """The step verl last finished saving locally (its tracker file), or None."""
        try:
            return int((self.local_checkpoints / TRACKER).read_text().strip())
        except (OSError, ValueError):
            return None

    def sync_checkpoints(self) -> str | None:
        """Upload the finished local checkpoint if the store lacks it; returns its URL (or the
        local path when the store is local), None when none is finished yet."""
        step = self.finished_local_step()
        if step is None:
            return None
        local = self.local_checkpoints / f"global_step_{step}"
        if not self.remote:
            return str(local.resolve())
        remote = self._remote_path("checkpoints", f"global_step_{step}")
        if step not in self._synced:
            for attempt in range(1, 4):  # object stores fail a multipart upload now and then
                try:
                    self.fs.put(str(local) + "/", remote + "/", recursive=True)
                    break
                except OSError:
                    if attempt == 3:
                        raise
                    time.sleep(2 * attempt)
            # the tracker goes last: a reader that sees it sees a complete checkpoint
            self.fs.pipe_file(self._remote_path("checkpoints", TRACKER), str(step).encode())
            self._synced.add(step)
        return self._url(remote)

    # -- metrics and results -----------------------------------------------------------------
    def write_text(self, name: str, text: str) -> str:
        """Write ``name`` under the run URL (locally: in the run folder); returns its URL."""
        if not self.remote:
            path = self.local / name
            path.write_text(text)
            return str(path.resolve())
        path = self._remote_path(name)
        self.fs.pipe_file(path, text.encode())
        return self._url(path)

    def write_json(self, name: str, obj: Any) -> str:
        return self.write_text(name, json.dumps(obj, indent=1, sort_keys=True))

    def mirror(self, local_file: Path) -> None:
        """Copy a file of the local run folder (verl's metrics JSONL, the log) to the store (remote only)."""
        if self.remote and local_file.exists():
            self.fs.put_file(str(local_file), self._remote_path(local_file.name))

    def url_of(self, name: str) -> str:
        """Where a file of the run lies in the store."""
        return self._url(self._remote_path(name)) if self.remote else str(self.local / name)

    def read_text(self, name: str) -> str:
        path = str(self.local / name) if not self.remote else self._remote_path(name)
        with self.fs.open(path, "r") as fh:
            return fh.read()


def localize(paths: list[str], scratch: Path) -> list[str]:
    """Remote input files (the dataset's verl parquet on s3://...) copied to ``scratch``: verl's
    dataset reader opens local paths only. Local paths are returned as they are."""
    out = []
    for path in paths:
        if not is_remote(path):
            out.append(path)
            continue
        fs, inner = url_to_fs(path)
        target = scratch / "inputs" / hashlib.sha1(path.encode()).hexdigest()[:12] / Path(inner).name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fs.get_file(inner, str(target))
        out.append(str(target))
    return out
