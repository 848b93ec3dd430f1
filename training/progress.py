"""How long work says where it is, and what a training run says about itself.

A stage that runs for minutes without a line looks hung. Loops report done/total with an
:func:`eta`; a call that cannot report from inside (an engine starting, a model converting, one
batched generate, a training phase) runs inside a :class:`Pulse`, which speaks whenever the work
has been silent for a while. Stdlib only: the pipeline's stages and the training launcher (in its
own environment) both use it. A training run's step line (:func:`step_line`) is what the launcher
logs and the main job's report prints, so a run that cannot learn says so where people look.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType


def format_duration(seconds: float) -> str:
    """41.2s, 3m05s, 1h02m (the main job's report uses it too)."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        return f"{int(seconds) // 60}m{int(seconds) % 60:02d}s"
    return f"{int(seconds) // 3600}h{int(seconds) % 3600 // 60:02d}m"


def learning_signal(metrics: Mapping[str, float]) -> str | None:
    """Why a step's update is empty, or None when some sample carries an advantage.

    GRPO's advantage is a sample's reward against its group's: when every sample of every group
    got the same reward (or the truncation mask zeroed the rest), the gradient is zero.
    """
    samples = int(metrics.get("microcoder/samples", 0))
    if not samples or metrics.get("microcoder/signal_samples", 1) > 0:
        return None
    low, high = metrics.get("critic/score/min"), metrics.get("critic/score/max")
    if low is not None and low == high:
        return f"no learning signal: reward {low:g} on all {samples} samples"
    return f"no learning signal: every group of the {samples} samples got one reward (or was masked)"


def step_line(step: int, total: int, metrics: Mapping[str, float], elapsed_s: float, step_s: float) -> str:
    """``step 1/2: reward 0.250 · pass@1 0.250 · T 0.9 · diversity 0.71 · length 88 · grad_norm 2.1 ·
    clip 0.009 · ratio 0.66-1.44 · 61.0s, ETA 1m01s``: the clip fraction and the PPO ratio's range
    over the step's updates (a range of exactly 1-1 means one update a step, where no clip can bind)."""
    m = metrics
    parts = [f"reward {m.get('critic/score/mean', float('nan')):.3f}",
             f"pass@1 {m.get('microcoder/accuracy', float('nan')):.3f}",
             f"T {m.get('microcoder/temperature', float('nan')):g}",
             f"diversity {m.get('microcoder/diversity', float('nan')):.2f}",
             f"length {m.get('response_length/mean', float('nan')):.0f}"]
    if "actor/grad_norm" in m:
        parts.append(f"grad_norm {m['actor/grad_norm']:.3g}")
    if "actor/pg_clipfrac" in m:
        parts.append(f"clip {m['actor/pg_clipfrac']:.3g}")
    if "actor/ratio_min" in m and "actor/ratio_max" in m:
        parts.append(f"ratio {m['actor/ratio_min']:.3g}-{m['actor/ratio_max']:.3g}")
    eta = elapsed_s / step * (total - step) if step else 0.0
    line = f"step {step}/{total}: " + " · ".join(parts) + f" · {format_duration(step_s)}" + (f", ETA {format_duration(eta)}" if step < total else "")
    note = learning_signal(m)
    return line + (f" · {note}" if note else "")


def signal_summary(steps: Sequence[Mapping[str, float]]) -> str:
    """The run in one phrase: how many steps had a learning signal, or why none had."""
    if not steps:
        return "no step ran"
    empty = [learning_signal(m) for m in steps]
    silent = [note for note in empty if note]
    if not silent:
        norms = [m["actor/grad_norm"] for m in steps if "actor/grad_norm" in m]
        return f"learning signal in {len(steps)} of {len(steps)} steps" + (f" (mean grad_norm {sum(norms) / len(norms):.3g})" if norms else "")
    if len(silent) == len(steps):
        reasons = sorted(set(silent))
        return f"{reasons[0]} (every step: the update changed nothing)" if len(reasons) == 1 else \
            f"no learning signal in any of {len(steps)} steps: the update changed nothing"
    return f"learning signal in {len(steps) - len(silent)} of {len(steps)} steps ({len(silent)} without: {silent[0]})"


Say = Callable[[str], None]
PULSE_S = 15.0  # well inside the 30 s a stage may stay silent


def eta(done: float, total: float, elapsed_s: float) -> str:
    """``, ETA 1m05s`` from the share done so far; empty before anything is done."""
    if done <= 0 or total <= done:
        return ""
    return f", ETA {format_duration(elapsed_s * (total - done) / done)}"


class Pulse:
    """Relays the work's progress lines to ``say`` (call it with a line), and while the block runs
    speaks from a thread of its own whenever nothing was said for ``every_s`` seconds:
    ``line(seconds since the block began)`` where given, else the last line and how long it has held.

    ``say=None`` makes it silent (a library call with no one listening)."""

    def __init__(self, say: Say | None, what: str = "", line: Callable[[float], str] | None = None,
                 every_s: float = PULSE_S) -> None:
        self.say, self.line, self.every_s = say, line, every_s
        self.last, self.last_at = what, time.monotonic()  # the last line, and when anything was last said
        self.began = self.line_at = self.last_at  # when the block began, and when the last line came
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __call__(self, line: str) -> None:
        with self._lock:
            self.last, self.last_at = line, time.monotonic()
            self.line_at = self.last_at
        if self.say is not None:
            self.say(line)

    def _silent_line(self, now: float) -> str:
        if self.line is not None:
            return self.line(now - self.began)
        return f"{self.last} ({format_duration(now - self.line_at)} so far)"

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.every_s / 4)):
            now = time.monotonic()
            with self._lock:
                due = now - self.last_at >= self.every_s
                if due:
                    self.last_at = now
            if due and self.say is not None:
                try:
                    self.say(self._silent_line(now))
                except Exception:  # noqa: BLE001 - a failed progress line must never fail the work
                    return

    def __enter__(self) -> Pulse:
        self.began = self.last_at = self.line_at = time.monotonic()
        if self.say is not None:
            self._thread = threading.Thread(target=self._beat, name="progress-pulse", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
