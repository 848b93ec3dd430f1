"""``evaluate`` (one program) and ``evaluate_many`` (parallel): run cases, compare, give verdicts.

Comparison happens here, in the caller's process, never in the child: the child only
reports text (stdout, or the JSON of a returned value). The contract is typed
(:mod:`evaluator.model`): :class:`~evaluator.model.Tests` in, :class:`~evaluator.model.Limits`
for what a program may use, a :class:`~evaluator.model.Result` out. Verdicts come from how the
processes ended (exit status, signal, resource use, the judge's structured report), never from
what a program wrote to stderr.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from evaluator import tail
from evaluator.asserts import lift, lifted
from evaluator.graders import Grader, grader_for
from evaluator.model import (
    VERDICTS,
    CaseResult,
    Cause,
    Checker,
    Limits,
    Options,
    ProcessEnd,
    Result,
    Run,
    SpecialJudge,
    Tests,
    Verdict,
    as_tests,
)
from evaluator.runs import BUDGET_RAN_OUT, SNIPPET, cause_of, classify, last_message, server_request
from evaluator.runtime.request import Request
from evaluator.sandbox import limits
from evaluator.sandbox.pool import WorkerPool, shared_pool

__all__ = ["VERDICTS", "evaluate", "evaluate_many", "isolation_level", "classify"]
Job = tuple[Any, str, "Tests | dict"]  # (the caller's key, the program, its tests)
T, R = TypeVar("T"), TypeVar("R")


def _compare():
    from evaluator import compare  # written alongside; imported lazily

    return compare


def _call_times(report: dict) -> dict:
    """An assert block's calls and their mean wall time, from the judge's report."""
    calls, spent = report.get("calls"), report.get("call_s")
    if type(calls) is not int or calls <= 0 or not isinstance(spent, (int, float)):
        return {}
    return {"calls": calls, "time_per_call_s": round(spent / calls, 6)}


class _Judging:
    """One program's evaluation on a held worker: the fixed inputs every case shares."""

    def __init__(self, worker: Any, code: str, tests: Tests, limits_: Limits, deadline: float | None,
                 options: Options, grader: Grader) -> None:
        self.worker, self.code, self.tests, self.deadline, self.options = worker, code, tests, deadline, options
        self.grader = grader
        self.time_s, self.memory_mb, self.output_mb = limits_.time_for(tests), limits_.memory_for(tests), limits_.output_mb

    def request(self, child: str, *, for_tests: bool = True, **extra: Any) -> Request:
        return server_request(child, self.time_s, self.memory_mb, self.output_mb, self.tests if for_tests else None, **extra)

    def run(self, request: Request, payload: dict) -> Run:
        return Run.from_wire(self.worker.run(request, payload, self.deadline))

    def block_cap(self) -> float:
        return limits.block_cap(self.time_s, None if self.deadline is None else self.deadline - time.monotonic())

    # -- the ways a case is judged ------------------------------------------------------------
    def checker(self, judge: SpecialJudge, case: Any, actual: str) -> tuple[Verdict, str]:
        """Special judge: ``argv = [input.txt, expected.txt, output.txt]`` in its work dir, the
        candidate's output also on stdin; exit status 0 accepts, anything else rejects."""
        files = {"input.txt": case.input, "expected.txt": case.output, "output.txt": actual}
        run = self.run(self.request("checker", for_tests=False, argv=list(files)),
                       {"code": judge.code, "stdin": actual, **files})
        verdict, msg = classify(run, "checker")
        if verdict in (Verdict.TIME_LIMIT, Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT, Verdict.INTERNAL_ERROR):
            return Verdict.INTERNAL_ERROR, f"checker failed: {verdict} {msg}"
        if verdict is not None:
            return Verdict.WRONG_ANSWER, f"checker rejected: {msg}".strip()
        return Verdict.ACCEPTED, ""

    def lifted(self, plan: lift.LiftedTest) -> CaseResult | None:
        """An ``assert`` test whose asserts were lifted: the candidate runs the calls, we compare.
        None when only the judge can say (see :func:`evaluator.asserts.lifted.verdict`)."""
        text, lines = lifted.payload(plan)
        run = self.run(self.request("calls", block_s=self.block_cap()),
                       {"code": self.code, "steps": text, "lines": lifted.lines_text(lines)})
        decided = lifted.verdict(plan, run, classify)
        if decided is None:
            return None
        return CaseResult(**decided, time_s=round(run.wall_s, 4), cause=cause_of(run, decided["verdict"]),
                          cpu_s=round(run.candidate.cpu_s, 4) if run.candidate else None)

    def calls(self, cases: list[Any], *, batch: bool, stop: bool) -> list[CaseResult]:
        """A ``call`` test's cases, as the contract runs them (:mod:`evaluator.model`): in order, in
        one process, module state carried from case to case, a fresh ``Solution()`` for each.

        ``batch``: the first case alone first (most wrong programs fail there, after one call),
        then every case in one process. Else the reference: each case in a process of its own that
        first makes the earlier cases' calls (the state the contract gives it), so the two agree.
        A case that ends its process (a time limit, a crash) fails there; the cases after it run
        in a fresh process (only where ``stop`` is False: the program has failed already)."""
        if not batch:
            out = []
            for j in range(len(cases)):
                res = self._in_one_process(cases[: j + 1], stop=True)
                out.append(res[j] if len(res) > j else res[-1])
                if stop and out[-1].verdict is not Verdict.ACCEPTED:
                    break
            return out
        if stop and len(cases) > 1:
            first = self._in_one_process(cases[:1], stop=True)
            if first[0].verdict is not Verdict.ACCEPTED:
                return first
        return self._in_one_process(cases, stop)

    def _in_one_process(self, cases: list[Any], stop: bool) -> list[CaseResult]:
        from evaluator import values

        out: list[CaseResult] = []
        while len(out) < len(cases):
            todo = cases[len(out):]
            try:
                outcomes, run = values.run_batch(self.worker, self.code, self.tests, [c.input for c in todo],
                                                 ("entry", self.tests.fn_name or ""),
                                                 Limits(self.time_s, self.memory_mb, self.output_mb), self.deadline,
                                                 cases=True)
            except Exception as exc:  # noqa: BLE001 - e.g. the worker died
                return out + [CaseResult(Verdict.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"[:SNIPPET])]
            for case, outcome in zip(todo, outcomes):
                res = self._call_case(case, outcome, batched=len(cases) > 1)
                if outcome.verdict is not None and run.candidate is not None:
                    res.cpu_s = round(run.candidate.cpu_s, 4)  # the call ended the process: all it used
                out.append(res)
                if res.verdict is not Verdict.ACCEPTED and (stop or outcome.verdict is not None):
                    break
            if not outcomes or (stop and out[-1].verdict is not Verdict.ACCEPTED) or run.deadline:
                break
        return out

    def _call_case(self, case: Any, outcome: Any, batched: bool) -> CaseResult:
        """One case's verdict from its call's outcome: the value compared here, the exception or
        the process's end as a process of its own would report it."""
        took = round(outcome.time_s, 4)
        res = CaseResult(Verdict.INTERNAL_ERROR, time_s=took, cpu_s=took, batched=batched)
        if outcome.verdict is not None:  # the call ended the process
            res.verdict, res.message = outcome.verdict, (outcome.error or "").partition(":")[2].strip()
            res.cause = outcome.cause
        elif outcome.unserializable:
            res.verdict, res.message = Verdict.WRONG_ANSWER, outcome.error
        elif outcome.raised is not None:  # as the program's own process ends on it (harness.exit_status_of)
            info = outcome.raised if isinstance(outcome.raised, dict) else {}
            res.verdict = (Verdict.MEMORY_LIMIT if info.get("type") == "MemoryError" else Verdict.OUTPUT_LIMIT
                           if info.get("errno") == errno.EFBIG else Verdict.RUNTIME_ERROR)
            res.message = outcome.error or ""
        elif not outcome.ok:
            res.verdict, res.message = Verdict.RUNTIME_ERROR, outcome.error or ""
        else:
            value, opts = outcome.value, self.options
            if opts.keep_output:
                res.output = value
            cmp = _compare()
            ok = cmp.compare_values(case.output, value, mode=opts.mode, rel_tol=opts.rel_tol, abs_tol=opts.abs_tol)
            res.verdict = Verdict.ACCEPTED if ok else Verdict.WRONG_ANSWER
            res.message = "" if ok else "returned: " + value[:SNIPPET]
        return res

    def case(self, case: Any | None, prefetch_calls: bool = False) -> CaseResult:
        """One case in processes of its own (for ``assert`` tests: the whole block, with the judge;
        ``prefetch_calls``: its predictable calls run ahead, see :mod:`evaluator.asserts.prefetch`)."""
        texts, extra, ahead = self.grader.payload(self, case, prefetch_calls)
        run = self.run(self.request(self.grader.child, **extra), {"code": self.code, **texts})
        report = last_message(run.judge) if run.judge is not None else {}
        if ahead and report.get("status") == "departed" and not run.deadline:
            return self.case(case)  # the test's calls were not the predicted ones: judged one at a time
        out = self._judged(case, run)
        for name, value in _call_times(report).items():
            setattr(out, name, value)
        if ahead and report:
            out.prefetched = report.get("prefetched")
        return out

    def _judged(self, case: Any | None, run: Run) -> CaseResult:
        """A case's verdict from how its run ended and, where it ran to the end, its output compared."""
        verdict, msg = classify(run, self.grader.child)
        out = CaseResult(Verdict.INTERNAL_ERROR, time_s=round(run.wall_s, 4),
                         cpu_s=round(run.candidate.cpu_s, 4) if run.candidate else None)
        if self.options.keep_output and self.grader.keeps_stdout() and run.candidate is not None:
            out.output = run.candidate.stdout
        if verdict is None:
            verdict, msg = self.grader.compared(self, case, run)
        out.verdict, out.message, out.cause = verdict, msg, cause_of(run, verdict)
        return out

    def one_by_one(self, cases: list[Any], plan: lift.LiftedTest | None) -> list[CaseResult]:
        """Each case (an ``assert`` test's one) as a request of its own, in order, until the first
        failure where the options say so."""
        out: list[CaseResult] = []
        for case in cases:
            if self._out_of_budget(out, cases):
                break
            res = (plan and self.lifted(plan)) or self.case(case, self.options.prefetch_calls)
            out.append(res)
            if self.options.stop_on_first_failure and res.verdict is not Verdict.ACCEPTED:
                break
        return out

    def stdin_cases(self, cases: list[Any], shared: tail.SharedTest) -> None:
        """A ``stdin`` test's cases as one request to the worker (``Worker.run_each``): each case
        still in a fresh process of its own, judged here as it ends, the next run only if the test
        goes on. The same verdicts as :meth:`case` a case at a time, with one hand-off a case
        instead of a request, the code sent once (see :func:`evaluator.graders.stdin.batches_stdin`). The results go to
        ``shared`` (:mod:`evaluator.tail`): this worker runs the first segment, then helps with the
        segments idle workers took from it, while any has cases not started."""
        seg: tail.Segment | None = shared.segments[0]
        while seg is not None:
            try:
                self.segment(cases, seg, shared)
            finally:
                shared.finish(seg)
            seg = shared.take()

    def segment(self, cases: list[Any], seg: tail.Segment, shared: tail.SharedTest) -> None:
        """The cases of ``seg``, in order, on this worker, until it ends or the test does."""
        going = [True]

        def judged(raw: dict) -> bool:
            going[0] = shared.record(seg, self._judged(cases[seg.next], Run.from_wire(raw))) and self._in_budget(seg, shared)
            return going[0]

        shared.running(seg, self.worker.stop_case)
        try:
            while going[0]:
                first, end = shared.pending(seg)
                if first >= end or not self._in_budget(seg, shared):
                    return
                self.worker.run_each(self.request("stdin"), self.code, [c.input for c in cases[first:end]],
                                     self.deadline, judged)
        finally:
            shared.running(seg, None)  # before this worker is lent again: no later kill can reach its next case

    def _in_budget(self, seg: tail.Segment, shared: tail.SharedTest) -> bool:
        """Whether the call's wall budget is left; if not, the segment's remaining cases read as time limits."""
        if self._overdue():
            shared.record(seg, out_of_budget(), last=True)
            return False
        return True

    def _overdue(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _out_of_budget(self, out: list[CaseResult], cases: list[Any]) -> bool:
        """Cases remain and the call's wall budget is spent: they read as time limits (``Cause.WALL_BUDGET``)."""
        if len(out) < len(cases) and self._overdue():
            out.append(out_of_budget())
            return True
        return False

    def compare(self, case: Any, cand: ProcessEnd) -> tuple[Verdict, str]:
        """A case's output against its expected one: the problem's checker, its special judge, or
        the robust comparison (:mod:`evaluator.compare`)."""
        cmp, checker, opts = _compare(), self.tests.checker, self.options
        stdout = cand.stdout
        if isinstance(checker, Checker):
            ok, msg = checker.check(case.output, stdout)
            verdict = Verdict.ACCEPTED if ok else Verdict.WRONG_ANSWER
        elif isinstance(checker, SpecialJudge):
            verdict, msg = self.checker(checker, case, stdout)
        else:
            ok = cmp.compare_stdout(case.output, stdout, mode=opts.mode, rel_tol=opts.rel_tol, abs_tol=opts.abs_tol)
            verdict, msg = (Verdict.ACCEPTED if ok else Verdict.WRONG_ANSWER), ""
        if verdict is Verdict.WRONG_ANSWER and not msg:
            msg = "output: " + stdout[:SNIPPET]
        return verdict, msg


def out_of_budget() -> CaseResult:
    """The result of the cases that remain when the call's wall budget is spent."""
    return CaseResult(Verdict.TIME_LIMIT, BUDGET_RAN_OUT, cause=Cause.WALL_BUDGET)


def ends_test(stop: bool) -> Callable[[CaseResult], bool]:
    """Whether no case after this result counts: a failure, where the test stops at its first."""
    return lambda res: stop and res.verdict is not Verdict.ACCEPTED


def evaluate(
    code: str,
    tests: Tests | dict,
    limits: Limits | None = None,
    options: Options | None = None,
    *,
    pool: WorkerPool | None = None,
    board: tail.Board | None = None,
    **overrides: Any,
) -> Result:
    """Judge one program against canonical tests. Never raises for anything the program does.
    ``options`` (:class:`~evaluator.model.Options`), or its fields as keywords, say how.

    ``limits`` (:class:`~evaluator.model.Limits`): the time limit is ``limits.time_s`` if given,
    else the tests' ``time_limit_s``, else 6 s (CPU time; wall clock gets 1.5x + 0.5 s). In an
    ``assert`` test the limit is per call of the program, and the block's budget one limit per
    call made, capped by ``wall_budget_s`` (see :mod:`evaluator.sandbox.limits`); such a case reports
    ``calls`` and ``time_per_call_s``. Memory: the larger of ``memory_mb`` and the tests'
    ``memory_limit_mb``. ``wall_budget_s`` bounds the whole call (waiting for a worker included):
    tests not run by then are ``time_limit``, so one degenerate program never stalls a caller
    such as a reward (such a case's ``cause`` says so). Each case reports ``cpu_s``; ``keep_output``
    adds what it printed (``stdin``) or returned (``call``, as JSON) as ``output``, to compare
    programs with each other.
    ``lift_asserts``: run an ``assert`` test's simple asserts as one batch of calls compared here
    (:mod:`evaluator.asserts.lift`; same verdicts, such a case says ``lifted``); False: always the judge.
    ``prefetch_calls``: where the judge runs the test, the candidate runs the calls it is predicted
    to make first without waiting to be asked (:mod:`evaluator.asserts.prefetch`; same verdicts, the case
    says how many were ``prefetched``); False: one round trip per call.
    ``batch_calls``: a ``call`` test's cases run in one process, in order, as the contract says
    (:mod:`evaluator.model`; after a first case alone, where most wrong programs fail); False:
    the reference, each case in a process of its own that first makes the earlier cases' calls
    (same verdicts, quadratic in the cases).
    ``batch_stdin``: a ``stdin`` test's cases go to the worker as one request, each still in a
    fresh process of its own, the next started once this one's output compared (:func:`~evaluator.graders.stdin.batches_stdin`
    says where); False: a request a case.
    ``smallest_first``: a ``stdin`` test that stops at its first failure runs its smallest case
    first, then the others as given (:func:`~evaluator.graders.stdin.run_order`): the same pass or fail, often found sooner;
    the case that failed is the first found in that order, and ``cases`` lists what ran in that
    order. False: as given.
    ``board``: :func:`evaluate_many`'s, where idle workers take over cases of a ``stdin`` test that
    runs as one request (:mod:`evaluator.tail`; the same verdicts and cases).
    """
    start = time.perf_counter()
    options = Options.of(options, **overrides)
    limits_ = limits or Limits()
    deadline = None if limits_.wall_budget_s is None else time.monotonic() + float(limits_.wall_budget_s)
    pool = pool or shared_pool(1)
    cases: list[CaseResult] = []
    isolation, total = "unknown", 0
    shared: tail.SharedTest | None = None
    try:
        t = as_tests(tests)
        grader = grader_for(t)
        todo = grader.cases(t, options)
        total = len(todo)
        if not todo:
            raise ValueError("tests have no cases")
        lifted_test = grader.lifted(t, options)
        with pool.worker(deadline) as worker:
            isolation = worker.isolation
            judging = _Judging(worker, code, t, limits_, deadline, options, grader)

            def share() -> tail.SharedTest:
                return _shared_test(todo, ends_test(options.stop_on_first_failure), board, pool,
                                    lambda w: _Judging(w, code, t, limits_, deadline, options, grader), deadline)

            graded = grader.grade(judging, todo, lifted_test, share)
            if isinstance(graded, tail.SharedTest):
                shared = graded
            else:
                cases += graded
        if shared is not None:  # waited for with no worker held: those helping need theirs
            cases += shared.results()
        verdict = next((c.verdict for c in cases if c.verdict is not Verdict.ACCEPTED), Verdict.ACCEPTED)
    except TimeoutError:
        verdict, total = Verdict.TIME_LIMIT, max(1, total, len(cases))
        cases.append(CaseResult(verdict, "no free worker within the wall-time budget", cause=Cause.WALL_BUDGET))
    except Exception as exc:  # noqa: BLE001 - one result per input, whatever happens
        verdict, total = Verdict.INTERNAL_ERROR, max(1, len(cases))
        cases.append(CaseResult(verdict, f"{type(exc).__name__}: {exc}"[:SNIPPET]))
    finally:
        if shared is not None and board is not None:
            board.withdraw(shared)
    return Result(verdict, cases, num_tests=total, time_s=round(time.perf_counter() - start, 4), isolation=isolation)


def _shared_test(cases: list[Any], ends: Callable[[CaseResult], bool], board: tail.Board | None, pool: WorkerPool,
                 judging_on: Callable[[Any], _Judging], deadline: float | None) -> tail.SharedTest:
    """A ``stdin`` test's cases as segments (:mod:`evaluator.tail`): on the board, where idle
    workers run what they take on a worker of the pool, judged as on the first."""
    if board is None:
        return tail.SharedTest(len(cases), ends)
    shared: tail.SharedTest

    def run_elsewhere(seg: tail.Segment) -> None:
        try:
            with pool.worker(deadline) as worker:
                judging_on(worker).segment(cases, seg, shared)
        except TimeoutError:
            shared.record(seg, out_of_budget(), last=True)
        except Exception as exc:  # noqa: BLE001 - the case reads as the evaluator's error, as on the first worker
            shared.record(seg, CaseResult(Verdict.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"[:SNIPPET]))

    shared = board.share(len(cases), ends, run_elsewhere)
    return shared


def evaluate_many(
    jobs: Iterable[Job],
    limits: Limits | None = None,
    options: Options | None = None,
    **overrides: Any,
) -> list[Result]:
    """Judge many ``(key, code, tests)`` jobs in parallel, ``options.workers`` at a time; results
    in input order, each carrying its job's key as given. ``limits`` and ``options`` (or its
    fields as keywords) apply to each job (see :func:`evaluate`). Jobs start the largest case first
    (:func:`most_work_first`)."""
    options = Options.of(options, **overrides)
    todo = list(jobs)
    board = tail.Board(len(todo)) if options.share_cases else None

    def one(job: Job, pool: WorkerPool) -> Result:
        key, code, tests = job
        try:
            res = evaluate(code, tests, limits, options, pool=pool, board=board)
        except Exception as exc:  # noqa: BLE001 - e.g. code that is not text
            res = Result.failed(Verdict.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"[:SNIPPET])
        finally:
            if board is not None:
                board.job_done()
        res.key = key
        return res

    order = most_work_first([tests for _, _, tests in todo])
    out: list[Result] = [None] * len(todo)  # type: ignore[list-item]
    for i, res in zip(order, on_pool([todo[i] for i in order], options.workers, one, idle=board and board.help)):
        out[i] = res
    return out


def most_work_first(tests: list[Tests | dict]) -> list[int]:
    """The order to start jobs in: the largest case first, then most cases, then most input, ties
    as given. Why: the workers take jobs as they come free, and a long job taken last keeps one
    worker busy while the others idle. What a program does with its cases is not known before it
    runs; how large they are is, and a program's time goes where its largest input is (time limits
    and slow programs land there). On 515 outside stdin programs, 2 workers, the makespan each
    order gives the jobs' times measured in one run: 22.1 s as given, 21.1 by most cases, 20.0 by
    the largest case, 19.7 if each job's time were known (docs/evaluator-speed.md)."""
    def work(t: Tests | dict) -> tuple[int, int, int]:
        cases = (t.cases if isinstance(t, Tests) else t.get("cases") if isinstance(t, dict) else None) or []
        inputs = (c.input if hasattr(c, "input") else c.get("input") if isinstance(c, dict) else "" for c in cases)
        sizes = [len(i) if isinstance(i, str) else 0 for i in inputs]
        return max(sizes, default=0), len(sizes), sum(sizes)

    sizes = [work(t) for t in tests]
    return sorted(range(len(tests)), key=lambda i: sizes[i], reverse=True)


def on_pool(items: list[T], workers: int | None, one: Callable[[T, WorkerPool], R],
            idle: Callable[[], None] | None = None) -> list[R]:
    """``one(item, pool)`` for each item, ``workers`` (None: one per core) at a time on this
    machine's shared pool of that size, each thread taking the next item as it comes free;
    results in input order. ``idle``: what a thread does once no item is left to take (help
    with the items still running, :meth:`evaluator.tail.Board.help`)."""
    if not items:
        return []
    size = max(1, min(workers or os.cpu_count() or 1, len(items) or 1))
    pool = shared_pool(size)
    out: list[R] = [None] * len(items)  # type: ignore[list-item]
    left = iter(enumerate(items))
    lock = threading.Lock()

    def loop() -> None:
        while True:
            with lock:
                got = next(left, None)
            if got is None:
                break
            out[got[0]] = one(got[1], pool)
        if idle is not None:
            idle()

    with ThreadPoolExecutor(max_workers=size) as ex:
        for done in [ex.submit(loop) for _ in range(size)]:
            done.result()
    return out


def isolation_level() -> str:
    """The sandbox level this machine gives (starts a worker if none is running)."""
    return shared_pool(1).isolation
