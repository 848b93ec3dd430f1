"""A problem's new inputs, before any program runs: generated, validated, and its edges.

Planning is pure and per problem, and it is the one part of generation that runs in the driver
rather than on the evaluator's workers: a quarter of a second a problem (a grammar inferred from
``stdin`` examples, a thousand candidate inputs validated), so at 10,000 problems it would be most
of a 64-core run. :class:`Planner` spreads it over processes of its own where there are enough
problems to pay for starting them; the planned :class:`~pipeline.verify.testgen.kind.Candidate`
comes back pickled (which is why the checks it holds are module functions, not closures).
"""

from __future__ import annotations

import multiprocessing
import pickle
import time
from collections.abc import Generator, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Protocol

from pipeline.verify.testgen import timing
from pipeline.verify.testgen.kind import Candidate, NoInputs
from pipeline.verify.testgen.registry import kind_for


class PlanSettings(Protocol):
    """What planning reads of :class:`~pipeline.verify.testgen.generate.TestGenConfig` (the driver
    imports this module, so this one names the fields rather than import the driver)."""

    inputs: int
    seed: int
    edges: int

PER_WORKER = 8  # fewer problems than this per worker are planned in this process (a pool costs more there)


def plan_inputs(row: dict[str, Any], config: PlanSettings) -> Candidate:
    """New inputs for the row's tests (or a note saying why there are none)."""
    from pipeline.process.public import statement_text

    cand = Candidate(row, kind_for(row["tests"]))
    statement = statement_text(row)  # with the constraints a source keeps apart
    try:
        with _clock(cand, "proposing"):
            cand.plan = cand.kind.plan(row, statement)
        cand.note = cand.plan.note
        if cand.note is None:
            n = max(1, round(config.inputs * cand.kind.inputs_share))
            batches = cand.kind.propose(cand.plan, n, config.seed)
            _validated_batch(cand, batches, n)
            if cand.invalid and len(cand.inputs) < n:  # make up for the refused
                _validated_batch(cand, batches, n, short=n - len(cand.inputs))
            batches.close()
    except NoInputs as why:
        cand.inputs, cand.labels = [], []
        cand.note = str(why)
    except Exception as exc:  # noqa: BLE001 - one problem's generator never sinks the stage
        cand.inputs, cand.labels = [], []
        cand.note = f"input generation failed: {type(exc).__name__}: {exc}"[:300]
    if not cand.inputs and cand.note is None:
        cand.note = "no new input could be made from the examples"
        if cand.invalid:
            cand.note = "every generated input was refused by the validator (" + ", ".join(
                f"{why} {n}" for why, n in cand.invalid.most_common(3)) + ")"
    return cand


def _validated_batch(cand: Candidate, batches: Generator[list[tuple[Any, str]], int, None], n: int,
                     short: int | None = None) -> None:
    """The kind's next batch of proposed inputs (``short``: how many the driver still needs),
    validated (each step timed apart while recording)."""
    with _clock(cand, "proposing"):
        try:
            made = next(batches) if short is None else batches.send(short)
        except StopIteration:
            made = []
    with _clock(cand, "validating"):
        add_validated(cand, made, n)


class _Clock:
    """Adds its block's wall time to ``cand.spent[name]``: planning may run in a forked
    process, whose figures reach the driver on the pickled candidate, not in its recorder."""

    def __init__(self, cand: Candidate, name: str) -> None:
        self.cand, self.name, self.start = cand, name, 0.0

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *_: object) -> None:
        self.cand.spent[self.name] = self.cand.spent.get(self.name, 0.0) + time.perf_counter() - self.start


def _clock(cand: Candidate, name: str) -> Any:
    """A :class:`_Clock` while a benchmark records (:mod:`pipeline.verify.testgen.timing`); a no-op otherwise."""
    return _Clock(cand, name) if timing.on() else timing.NOTHING


def add_validated(cand: Candidate, made: list[tuple[Any, str]], limit: int) -> None:
    """Add the made inputs the validator accepts (and no input twice), up to ``limit``; count the refused."""
    seen = {repr(x) for x in cand.inputs}
    for value, label in made:
        if len(cand.inputs) >= limit or repr(value) in seen:
            continue
        seen.add(repr(value))
        why = cand.plan.refuses(value)
        if why is not None:
            cand.invalid[why] += 1
            continue
        cand.inputs.append(value)
        cand.labels.append(label)


def add_edges(cand: Candidate, config: PlanSettings) -> None:
    """The kind's edges, after the inputs generation made (so the kind has read the examples)."""
    if not config.edges or not cand.inputs:
        return
    try:
        with _clock(cand, "edges"):
            made = cand.kind.edges(cand.plan, config.edges)
    except Exception:  # noqa: BLE001 - edges are extra: a problem whose edges fail keeps its other inputs
        return
    seen = {repr(x) for x in cand.inputs}
    for value, label in made:
        if repr(value) not in seen:
            seen.add(repr(value))
            cand.inputs.append(value)
            cand.labels.append(label)


def plan(row: dict[str, Any], config: PlanSettings) -> Candidate:
    """Everything before a program runs: the inputs, then the edges."""
    cand = plan_inputs(row, config)
    add_edges(cand, config)
    return cand


def _plan_apart(row: dict[str, Any], config: PlanSettings) -> bytes | None:
    """:func:`plan` in a pool's process, pickled without its row (the owner has it); None where
    the plan does not pickle, and the owner plans the row itself: one problem never sinks the stage."""
    cand = plan(row, config)
    cand.row = {}
    try:
        return pickle.dumps(cand, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a check that is a closure (a reader added without care)
        return None


class Planner:
    """Plans rows in this process, or on ``pool`` (see :func:`planner`), in input order."""

    def __init__(self, config: PlanSettings, pool: ProcessPoolExecutor | None = None) -> None:
        self.config, self.pool = config, pool

    def __call__(self, rows: list[dict[str, Any]]) -> list[Candidate]:
        cands = self._plan(rows)
        for cand in cands:
            timing.add_all(cand.spent)
        return cands

    def _plan(self, rows: list[dict[str, Any]]) -> list[Candidate]:
        if self.pool is None:
            return [plan(row, self.config) for row in rows]
        cands = []
        for row, planned in zip(rows, self.pool.map(_plan_apart, rows, [self.config] * len(rows))):
            if planned is None:
                cands.append(plan(row, self.config))
                continue
            cand = pickle.loads(planned)
            cand.row = row
            cands.append(cand)
        return cands


@contextmanager
def planner(config: PlanSettings, workers: int, problems: int) -> Iterator[Planner]:
    """A :class:`Planner` on ``workers`` processes of its own when ``problems`` gives each at
    least :data:`PER_WORKER`; in this process otherwise. Forked, as the Filter's MinHash pool is:
    a fresh interpreter (spawn) would import the caller's main module again, which a script
    without a ``__main__`` guard cannot survive, and planning is pure Python over the row, which
    takes none of the locks a caller's other threads may hold."""
    if workers <= 1 or problems < PER_WORKER * workers:
        yield Planner(config)
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        yield Planner(config, pool)
