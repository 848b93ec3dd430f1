"""The tail of a batch of jobs: idle workers take over cases of a ``stdin`` test still running.

Why: :func:`evaluator.api.evaluate_many` starts the jobs with the most cases first, but it cannot
see how slow a program is. A slow one started late leaves one worker running its cases while
the others idle: on the 516 outside stdin programs of ``bench_evaluator.py --peers``, 2 workers,
one run lost 1.76 worker-seconds so (its slowest job: 9 cases of about 1 s each). A reward batch
waits for its slowest program the same way.

A test's cases are split into segments of consecutive cases, each run in order on one worker.
An idle worker takes the back half of the cases not yet started of the segment with the most of
them. Each case runs alone, in a fresh process, so which worker runs it changes no verdict; the
results are put back in the given order and cut after the first failure where the test stops
there (and after a case the call's wall budget ended): what one worker would have reported. A
case past such a failure may have run on another worker meanwhile; it is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_POLL_S = 0.5  # an idle worker looks again this often, whatever it was told


@dataclass
class Segment:
    """Cases ``start`` .. ``end - 1`` of one test, on one worker; ``end`` moves down when another
    worker takes the back of it."""

    start: int
    end: int
    results: list = field(default_factory=list)
    done: bool = False
    stop: Callable[[], None] | None = None  # kills the case it runs now (set while a worker runs it)

    @property
    def next(self) -> int:
        """The case this segment runs next (or is running)."""
        return self.start + len(self.results)


class SharedTest:
    """One test's cases, split among the workers that run them.

    ``ends_test(result)``: whether no case after this one counts (a failure where the test stops
    at its first). ``run_elsewhere(segment)``: runs a taken segment on a
    worker of its own, recording each case here (:meth:`record`)."""

    def __init__(self, total: int, ends_test: Callable[[Any], bool],
                 run_elsewhere: Callable[[Segment], None] | None = None,
                 cond: threading.Condition | None = None) -> None:
        self.ends_test, self.run_elsewhere = ends_test, run_elsewhere
        self.cond = cond or threading.Condition()
        self.segments = [Segment(0, total)]
        self.cut = total  # the first case whose result ends the test (``total``: none yet)

    def pending(self, seg: Segment) -> tuple[int, int]:
        """The cases ``seg`` has still to run, as (first, end)."""
        with self.cond:
            return seg.next, min(seg.end, self.cut)

    def record(self, seg: Segment, result: Any, last: bool = False) -> bool:
        """A case's result, in ``seg``'s order; whether ``seg`` goes on to its next case.
        ``last``: no case after this one counts, whatever the result (it stands for the rest)."""
        with self.cond:
            index = seg.next
            seg.results.append(result)
            if (last or self.ends_test(result)) and index < self.cut:
                self.cut = index
                self._stop_past_cut()
            return seg.next < seg.end and seg.next < self.cut

    def _stop_past_cut(self) -> None:
        """Kill the cases other workers run past the cut: none of them counts now, and one may
        run to its time limit. (Under the lock: a worker hands in a case's result, and is told
        to go on, only through :meth:`record`, so the case it runs is the one killed.)"""
        for seg in self.segments:
            if not seg.done and seg.next > self.cut and seg.stop is not None:
                seg.stop()

    def running(self, seg: Segment, stop: Callable[[], None] | None) -> None:
        """``seg`` runs on a worker now, and ``stop`` kills the case it runs (None: no longer)."""
        with self.cond:
            seg.stop = stop

    def finish(self, seg: Segment) -> None:
        with self.cond:
            seg.done, seg.stop = True, None
            self.cond.notify_all()

    def _left(self, seg: Segment) -> int:
        """Cases of ``seg`` not started and still worth running (its next one is started)."""
        return 0 if seg.done else min(seg.end, self.cut) - seg.next - 1

    def most_left(self) -> int:
        with self.cond:
            return max(self._left(s) for s in self.segments)

    def take(self) -> Segment | None:
        """The back half of the not-started cases of the segment with the most, as a new segment
        for the caller to run; None when no segment has a case not started."""
        with self.cond:
            seg = max(self.segments, key=self._left)
            left = self._left(seg)
            if left < 1:
                return None
            share = (left + 1) // 2
            taken = Segment(seg.end - share, seg.end)
            seg.end -= share
            self.segments.append(taken)
            self.cond.notify_all()
            return taken

    def results(self) -> list:
        """Every segment's results in the test's order, cut after the first that ends the test;
        waits for segments other workers still run, up to that one. (Every segment before it ran
        to its end, so a result's place in the list is its case's index.)"""
        with self.cond:
            while not all(s.done for s in self.segments if s.start <= self.cut):
                self.cond.wait()
            out = [r for seg in sorted(self.segments, key=lambda s: s.start) for r in seg.results]
            return out[: self.cut + 1]


class Board:
    """A batch's jobs in flight, and the shared tests among them that idle workers may help run."""

    def __init__(self, jobs: int) -> None:
        self.cond = threading.Condition()
        self.unfinished = jobs
        self.tests: list[SharedTest] = []

    def share(self, total: int, ends_test: Callable[[Any], bool],
              run_elsewhere: Callable[[Segment], None]) -> SharedTest:
        """A test whose cases idle workers may take, until :meth:`withdraw`."""
        shared = SharedTest(total, ends_test, run_elsewhere, self.cond)
        with self.cond:
            self.tests.append(shared)
            self.cond.notify_all()
        return shared

    def withdraw(self, shared: SharedTest) -> None:
        with self.cond:
            self.tests.remove(shared)

    def job_done(self) -> None:
        with self.cond:
            self.unfinished -= 1
            self.cond.notify_all()

    def help(self) -> None:
        """Run taken segments until no job of the batch is left unfinished (an idle worker's loop)."""
        while (got := self._next_segment()) is not None:
            shared, seg = got
            try:
                shared.run_elsewhere(seg)  # type: ignore[misc]
            finally:
                shared.finish(seg)

    def _next_segment(self) -> tuple[SharedTest, Segment] | None:
        with self.cond:
            while self.unfinished > 0:
                shared = max(self.tests, key=SharedTest.most_left, default=None)
                seg = shared.take() if shared is not None else None  # None: no test has a case not started
                if seg is not None:
                    return shared, seg
                self.cond.wait(_POLL_S)
            return None
