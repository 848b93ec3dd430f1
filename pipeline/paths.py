"""Where data lives: ``$MICROCODER_DATA`` (any fsspec URL) and the shared problem sets."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


class SettingError(ValueError):
    """A setting (an environment variable, a resource field) with a bad value; the message names it."""


def data_root() -> str:
    """Root of everything the project writes; a local path or an fsspec URL (s3://, gs://)."""
    root = os.environ.get("MICROCODER_DATA", "data")
    if "://" in root:
        return root.rstrip("/")
    return str(Path(root).expanduser().resolve())


def local_cache_dir(*parts: str) -> Path:
    """A local directory for caches that must be on disk (converted models, HF caches).

    Falls back to ``./data`` when ``MICROCODER_DATA`` is a remote URL.
    """
    root = data_root()
    base = Path(root) if "://" not in root else Path("data").resolve()
    path = base.joinpath("cache", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_cache_dir(*parts: str) -> Path:
    """A cache shared by every data root, for what depends only on the installed packages (the
    converted default model), as Hugging Face keeps one hub cache per user: ``$XDG_CACHE_HOME/microcoder``
    (default ``~/.cache/microcoder``). Where that cannot be written, the data root's cache."""
    try:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # a relative one is ignored (XDG)
        path = base.joinpath("microcoder", *parts)
        if path.is_absolute():  # no home to expand: never a "~" folder in the working directory
            path.mkdir(parents=True, exist_ok=True)
            if os.access(path, os.W_OK):
                return path
    except (OSError, RuntimeError):  # RuntimeError: Path.home() where no home can be found
        pass
    return local_cache_dir(*parts)


def shared_data_dir() -> Path | None:
    """The shared problem sets (``../shared/data``), or None where this machine has none."""
    override = os.environ.get("MICROCODER_SHARED_DATA")
    candidates = [Path(override)] if override else []
    candidates += [PROJECT_ROOT.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    return None
