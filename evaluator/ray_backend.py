"""The evaluator across a Ray cluster: one actor per node (or per ``cores_per_actor`` cores), each
holding the machine's own fork-server pool with every wall of the local one. The actors are
named, so the processes of one job that judge (a Dagster step, verl's reward workers) share them.

:class:`RayEvaluator` is an :class:`evaluator.backend.EvaluatorBackend`, as this machine's pool is:
Verify, test generation (its oracle and adversaries through ``values_many``), difficulty and the
reward take either. Jobs go out in batches to whichever actor has
the most free slots (:meth:`RayEvaluator.in_flight_cap` jobs in flight per actor at most), so a slow
program holds its own batch, never the queue. A batch whose actor or node dies runs again on
another actor, up to ``max_retries`` times per job, then :class:`JobLost` names the job.

Ray is imported here only: the rest of the evaluator stays standard library.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from evaluator.api import Job, evaluate
from evaluator.model import Cause, Limits, Options, Result, Verdict, as_tests
from evaluator.runs import BUDGET_RAN_OUT
from evaluator.values import CallOutcome, ValuesJob, values_of

log = logging.getLogger(__name__)

ADDRESS_ENV = "MICROCODER_EVALUATOR_RAY_ADDRESS"  # e.g. "auto", "ray://head:10001"; empty: this machine
ENV_SIZES = {"cores_per_actor": "MICROCODER_EVALUATOR_CORES_PER_ACTOR", "batch_size": "MICROCODER_EVALUATOR_BATCH_SIZE",
             "max_retries": "MICROCODER_EVALUATOR_MAX_RETRIES"}
ENV_NAMES = (ADDRESS_ENV, *ENV_SIZES.values())  # what a training job needs to judge on the same actors
# Actors are named per node and size, so every dispatcher of a job (the Dagster step, each of verl's
# reward workers) shares one pool per node instead of starting its own.
NAMESPACE = "microcoder-evaluator"
# With a wall budget, results are awaited this long past it (an actor's own deadline has fired by
# then); what has not come back is a time limit, so a slow or stuck node never holds the caller.
REPLY_GRACE_S = 1.0


class JobLost(RuntimeError):
    """A job whose actor died ``max_retries + 1`` times: named, with the last error."""


class EvaluatorActor:
    """One node's evaluator: its fork-server pool and the threads that feed it (a Ray actor). Each
    batch comes back with the id of the node that ran it, as the actor itself reads it."""

    def __init__(self, slots: int) -> None:
        import ray

        from evaluator.sandbox.pool import WorkerPool

        self.slots = slots
        self.pool = WorkerPool(slots)
        self.threads = ThreadPoolExecutor(max_workers=slots)
        self.node_id = ray.get_runtime_context().get_node_id()

    def info(self) -> dict[str, Any]:
        import ray

        return {"node_id": self.node_id, "ip": ray.util.get_node_ip_address(),
                "pid": os.getpid(), "slots": self.slots, "isolation": self.pool.isolation}

    def doctor(self) -> dict[str, Any]:
        """``microcoder-eval doctor`` as this actor sees it (isolation inside the actor)."""
        from evaluator.doctor import doctor

        return {**doctor(), **self.info()}

    def evaluate(self, batch: list[tuple[int, str, Any, float | None]], limits: Limits,
                 options: Options) -> tuple[str, list[Result]]:
        """Judge ``(index, code, tests, budget_left_s)`` jobs on this node. ``budget_left_s`` is
        what the dispatcher had left of the job's wall budget when it sent the batch; time queued
        here is spent from it too, as in the local pool."""
        arrived = time.monotonic()

        def one(job: tuple[int, str, Any, float | None]) -> Result:
            index, code, tests, budget = job
            lim = limits
            if budget is not None:
                left = budget - (time.monotonic() - arrived)
                if left <= 0:
                    return Result.failed(Verdict.TIME_LIMIT, BUDGET_RAN_OUT, key=index, isolation=self.pool.isolation,
                                         cause=Cause.WALL_BUDGET)
                lim = dataclasses.replace(limits, wall_budget_s=left)
            try:
                res = evaluate(code, tests, lim, options, pool=self.pool)
            except Exception as exc:  # noqa: BLE001 - one result per input, whatever happens
                res = Result.failed(Verdict.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"[:300])
            res.key = index
            return res

        return self.node_id, list(self.threads.map(one, batch))

    def values(self, batch: list[tuple[int, ValuesJob]], limits: Limits,
               options: Options) -> tuple[str, list[tuple[int, list[CallOutcome]]]]:
        """``values_many``'s ``(index, job)`` on this node, each as this machine's pool runs it
        (:func:`evaluator.values.values_of`)."""
        return self.node_id, list(self.threads.map(lambda job: (job[0], values_of(job[1], limits, options, self.pool)),
                                                   batch))


@dataclasses.dataclass
class _Actor:
    handle: Any
    node_id: str
    slots: int
    in_flight: int = 0  # jobs sent and not yet returned


class RayEvaluator:
    """``evaluate_many`` and ``values_many`` over the actors of a Ray cluster (see the module's docstring).

    ``address``: what ``ray.init`` takes (``"auto"``, ``"ray://head:10001"``, ``"127.0.0.1:6379"``);
    ignored when this process is already connected (inside a Ray job or task).
    ``cores_per_actor``: slots per actor (None: one actor per node with all its CPUs). The actors
    reserve no Ray CPUs: on a training cluster they would otherwise wait behind verl's reservations
    for ever; they run where there are cores, as the local pool does on its machine.
    ``working_dir``: ship this checkout to the cluster (nodes that lack the package).
    """

    def __init__(self, address: str = "auto", *, cores_per_actor: int | None = None, batch_size: int = 8,
                 max_retries: int = 2, working_dir: str | None = None, start_timeout_s: float = 120.0) -> None:
        if batch_size < 1 or max_retries < 0:
            raise ValueError("batch_size must be >= 1 and max_retries >= 0")
        self.address, self.cores_per_actor, self.batch_size = address, cores_per_actor, batch_size
        self.max_retries, self.working_dir, self.start_timeout_s = max_retries, working_dir, start_timeout_s
        self._actors: dict[str, list[_Actor]] = {}  # node id -> its actors
        self.jobs_by_node: Counter[str] = Counter()  # jobs judged, by the node that judged them
        self.values_by_node: Counter[str] = Counter()  # values_many jobs, by the node that ran them
        self.requeued = 0  # jobs sent again after their actor died
        # verl's reward manager calls compute_score from many threads at once: the actors and their
        # counts change under this lock only (waiting on results happens outside it)
        self._lock = threading.RLock()

    # -- the actors -------------------------------------------------------------------------
    def _connect(self) -> None:
        import ray

        if not ray.is_initialized():
            runtime_env = {"working_dir": self.working_dir, "excludes": [".git", ".venv*", "*.parquet"]} \
                if self.working_dir else None
            ray.init(address=self.address, runtime_env=runtime_env, log_to_driver=False)

    def actors(self) -> list[_Actor]:
        """The live actors, starting one (or ``cpus // cores_per_actor``) on each alive node that has none."""
        with self._lock:
            return self._start_actors()

    def _start_actors(self) -> list[_Actor]:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy as affinity

        self._connect()
        remote = ray.remote(EvaluatorActor)
        alive = {n["NodeID"]: n for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU", 0) >= 1}
        for gone in set(self._actors) - set(alive):
            self._actors.pop(gone)
        started = []
        for node_id, node in alive.items():
            if node_id in self._actors:
                continue
            cpus = int(node["Resources"]["CPU"])
            per = max(1, min(cpus, self.cores_per_actor or cpus))
            for i in range(max(1, cpus // per)):
                name = f"evaluator-{node_id[:12]}-{per}-{i}"
                options = dict(name=name, namespace=NAMESPACE, get_if_exists=True, num_cpus=0,
                               max_concurrency=4 * per + 4, max_restarts=0,
                               scheduling_strategy=affinity(node_id, soft=False))
                started.append((node_id, per, lambda options=options: remote.options(**options).remote(per)))
        for node_id, per, start in started:
            # A shared actor found by name may have died since (its name is then free): start it
            # once more. One that still cannot start (its node went away) is dropped.
            for attempt in (1, 2):
                handle = start()
                try:
                    ray.get(handle.info.remote(), timeout=self.start_timeout_s)
                    self._actors.setdefault(node_id, []).append(_Actor(handle, node_id, per))
                    break
                except Exception as exc:  # noqa: BLE001 - the other nodes carry on
                    log.warning("evaluator actor on node %s did not start (try %d): %r", node_id, attempt, exc)
        return [a for group in self._actors.values() for a in group]

    def _drop(self, node_id: str, handle: Any) -> None:
        group = [a for a in self._actors.get(node_id, []) if a.handle is not handle]
        if group:
            self._actors[node_id] = group
        else:
            self._actors.pop(node_id, None)

    def doctor(self) -> list[dict[str, Any]]:
        """``microcoder-eval doctor`` from inside every actor: the isolation each node gives."""
        import ray

        return ray.get([a.handle.doctor.remote() for a in self.actors()])

    # -- judging ----------------------------------------------------------------------------
    def in_flight_cap(self, actor: _Actor) -> int:
        """Jobs an actor may hold: a round for each slot and one queued behind it, and at least two
        batches, so the actor never waits on a round trip to start its next job."""
        return max(2 * actor.slots, 2 * self.batch_size)

    def evaluate_many(self, jobs: Iterable[Job], limits: Limits | None = None, options: Options | None = None,
                      **overrides: Any) -> list[Result]:
        """:func:`evaluator.api.evaluate_many` across the cluster: results in input order, each with
        its job's key. ``options.workers`` is the local pool's knob; the cluster's size is its actors'.
        The wall budget counts from this call: a job not sent in time is a time limit."""
        options = Options.of(options, **overrides)
        jobs = list(jobs)
        limits = limits or Limits()
        results: list[Result | None] = [None] * len(jobs)
        parsed: dict[int, Any] = {}
        todo: deque[int] = deque()
        for i, (_, _, tests) in enumerate(jobs):  # parsed here, once: a bad record fails alone
            try:
                parsed[i] = as_tests(tests)
                todo.append(i)
            except (TypeError, ValueError) as exc:
                results[i] = Result.failed(Verdict.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"[:300],
                                           key=jobs[i][0])
        started = time.monotonic()

        def budget_left() -> float | None:  # the wall budget counts from this call, as compute_score's
            return None if limits.wall_budget_s is None else float(limits.wall_budget_s) - (time.monotonic() - started)

        def out_of_time(indices: Iterable[int], why: str, cause: Cause | None = None) -> None:
            for i in indices:
                results[i] = Result.failed(Verdict.TIME_LIMIT, why, key=jobs[i][0], cause=cause)

        def send(actor: _Actor, batch: list[int]) -> Any:
            wire = [(i, jobs[i][1], parsed[i], budget_left()) for i in batch]
            return actor.handle.evaluate.remote(wire, limits, options)

        def take(out: list[Result]) -> None:
            for res in out:
                index = res.key
                res.key = jobs[index][0]
                results[index] = res

        self._dispatch(todo, send, take, self.jobs_by_node, lambda i: jobs[i][0], budget_left, out_of_time)
        assert all(r is not None for r in results)
        return results  # type: ignore[return-value]

    def values_many(self, jobs: Iterable[ValuesJob], limits: Limits | None = None,
                    options: Options | None = None) -> list[list[CallOutcome]]:
        """:meth:`evaluator.backend.LocalBackend.values_many` across the cluster: each job runs whole
        on one actor, as on this machine's pool (its budget, ``limits.wall_budget_s``, counts from
        its start there); results in input order."""
        jobs, limits, options = list(jobs), limits or Limits(), options or Options()
        results: list[list[CallOutcome] | None] = [None] * len(jobs)

        def send(actor: _Actor, batch: list[int]) -> Any:
            return actor.handle.values.remote([(i, jobs[i]) for i in batch], limits, options)

        def take(out: list[tuple[int, list[CallOutcome]]]) -> None:
            for index, outcomes in out:
                results[index] = outcomes

        self._dispatch(deque(range(len(jobs))), send, take, self.values_by_node, lambda i: f"values job {i}")
        assert all(r is not None for r in results)
        return results  # type: ignore[return-value]

    def _dispatch(self, todo: deque[int], send: Callable[[_Actor, list[int]], Any], take: Callable[[Any], None],
                  by_node: Counter[str], name: Callable[[int], Any],
                  budget_left: Callable[[], float | None] = lambda: None,
                  out_of_time: Callable[..., None] | None = None) -> None:
        """Send the jobs ``todo`` names a batch at a time (``send``) to the freest actor, and hand
        each batch's answer to ``take``, counting its jobs in ``by_node`` under the node that ran
        them. A batch whose actor died goes back to the queue (``name`` names a job lost past its
        retries). With a ``budget_left``, what is not sent or answered in time goes to ``out_of_time``."""
        import ray
        from ray.exceptions import RayError, RayTaskError

        lost = {i: 0 for i in todo}
        in_flight: dict[Any, tuple[_Actor, list[int]]] = {}
        actors = self.actors() if todo else []
        while todo or in_flight:
            left = budget_left()
            if left is not None and left <= 0 and todo:  # spent: nothing more is sent, no actor restarted
                out_of_time(todo, BUDGET_RAN_OUT, Cause.WALL_BUDGET)
                todo.clear()
            with self._lock:
                while todo:  # a batch at a time to the freest actor: a few jobs spread over the nodes
                    open_ = [a for a in actors if a.in_flight < self.in_flight_cap(a)]
                    if not open_:
                        break
                    actor = min(open_, key=lambda a: a.in_flight / a.slots)
                    share = -(-len(todo) // len(open_))  # fewer jobs than batches: an even share each
                    size = min(self.batch_size, self.in_flight_cap(actor) - actor.in_flight, share)
                    batch = [todo.popleft() for _ in range(size)]
                    in_flight[send(actor, batch)] = (actor, batch)
                    actor.in_flight += len(batch)
            if not in_flight:
                if not todo:
                    break
                raise JobLost(f"no evaluator actor is alive; {len(todo)} jobs left, first {name(todo[0])!r}")
            wait_s = None if left is None else max(0.0, budget_left() + REPLY_GRACE_S)
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=wait_s)
            if not ready:  # past the budget and its grace: what is still out is a time limit
                for actor, batch in in_flight.values():
                    with self._lock:
                        actor.in_flight -= len(batch)
                    out_of_time(batch, "no answer from the cluster within the wall-time budget", Cause.WALL_BUDGET)
                in_flight.clear()
                break
            [ref] = ready
            actor, batch = in_flight.pop(ref)
            with self._lock:
                actor.in_flight -= len(batch)
            try:
                node_id, out = ray.get(ref)
            except RayTaskError:
                raise  # the evaluator itself failed: a bug to see, not a node to route around
            except RayError as exc:  # the actor or its node died: its jobs run again elsewhere
                with self._lock:
                    self._drop(actor.node_id, actor.handle)
                    self.requeued += len(batch)
                for i in batch:
                    lost[i] += 1
                    if lost[i] > self.max_retries:
                        raise JobLost(f"job {name(i)!r} was lost with its actor {lost[i]} times: {exc}") from exc
                todo.extendleft(reversed(batch))
                log.warning("evaluator actor on node %s died (%s); %d jobs go to another", actor.node_id,
                            type(exc).__name__, len(batch))
                spent = budget_left() is not None and budget_left() <= 0
                actors = [a for g in self._actors.values() for a in g] if spent else self.actors()
                continue
            with self._lock:
                by_node[node_id] += len(out)
            take(out)


def from_env() -> RayEvaluator | None:
    """The cluster named by ``MICROCODER_EVALUATOR_RAY_ADDRESS`` (``auto`` inside a Ray job), sized by
    ``MICROCODER_EVALUATOR_{CORES_PER_ACTOR,BATCH_SIZE,MAX_RETRIES}`` as the Dagster resource is; None:
    this machine's pool."""
    address = os.environ.get(ADDRESS_ENV, "").strip()
    if not address:
        return None
    sizes = {field: int(os.environ[name]) for field, name in ENV_SIZES.items() if os.environ.get(name, "").strip()}
    sizes["cores_per_actor"] = sizes.get("cores_per_actor") or None  # 0: all of a node's CPUs, as the resource's
    return RayEvaluator(address, **sizes)
