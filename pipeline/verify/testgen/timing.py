"""Where test generation's time goes, per phase: a recorder that costs nothing when off.

``benchmarks/bench_generation_scale.py`` turns it on (:func:`recording`) to print which phase to
make faster; the pipeline never does, and then :func:`phase` is a shared no-op context and
:func:`add` returns at once. Phases that run in a planner's forked processes (proposing,
validating, edges) add to the recorder the child inherited: the child sends its figures back on
the planned :class:`~pipeline.verify.testgen.kind.Candidate` (``spent``), and the driver adds them.

Phases are wall seconds of the driver, except the planner's (CPU of its processes, summed) and the
adversaries' split by family (``adversaries:mutants``, ``adversaries:hardcoder``), which is the
summed time of each family's runs: the runs of every family share one batch on the pool.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

_RECORDER: Counter | None = None  # phase -> seconds, while a benchmark records
NOTHING = nullcontext()  # what :func:`phase` gives when not recording: shared, reentrant


def on() -> bool:
    """Whether a benchmark is recording (the callers that would build something only to record it ask)."""
    return _RECORDER is not None


def add(name: str, seconds: float) -> None:
    """Add ``seconds`` to phase ``name`` (nothing when not recording)."""
    if _RECORDER is not None:
        _RECORDER[name] += seconds


def add_all(spent: dict[str, float]) -> None:
    """Add figures measured elsewhere (a planner's process)."""
    if _RECORDER is not None:
        _RECORDER.update(spent)


def phase(name: str) -> Any:
    """A context that adds its wall time to ``name`` while recording, and a shared no-op otherwise."""
    return _timed(name) if _RECORDER is not None else NOTHING


@contextmanager
def _timed(name: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        add(name, time.perf_counter() - start)


@contextmanager
def recording() -> Iterator[Counter]:
    """Record every phase inside the block into the Counter it gives (phase -> seconds)."""
    global _RECORDER
    previous, _RECORDER = _RECORDER, Counter()
    try:
        yield _RECORDER
    finally:
        _RECORDER = previous
