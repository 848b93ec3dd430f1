"""Verify: run the references on every test, keep the tests they agree with, and measure the tests.

A problem is verified when at least one reference passes all its tests. A test case that fails
for a reference which passes every other case is a bad test (the references are trusted more
than a single contradicting case): it is dropped and recorded. Problems no reference passes are
rejected with the failing verdicts attached.

Three more questions, because a test suite is only as good as what it accepts and rejects:

* several valid answers: two references that each pass most tests but print different outputs
  (not equal under the evaluator's robust comparison) for one input mean the problem accepts
  several answers; without a checker it is rejected ``multiple_valid_answers``, since exact
  tests would punish valid output;
* time limits: each passing reference's CPU time per test gives ``time_limit_s`` (the larger of
  ``min_time_limit_s`` and ``time_limit_factor`` x the slowest, capped by the source's limit), so
  a looping candidate fails in about a second instead of the 6 s default;
* hidden tests: inputs generated from the examples and answered by the references, chosen for
  the wrong programs they reject (:mod:`pipeline.verify.testgen.generate`); a problem left with only
  the examples its statement prints is ``tests_only_in_statement`` (rejected, or kept and
  marked), never trained on silently;
* test strength: the known-incorrect programs run on the final tests under that limit; a
  problem whose tests accept one is ``weak_tests`` (rejected, or kept and marked); programs the
  source labels correct run too, and how many the tests accept is the TPR the card shows.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from evaluator.backend import EvaluatorBackend, LocalBackend
from evaluator.model import Limits, Options, Result
from pipeline.schema import Tests
from pipeline.stage import VERIFY, StageResult, reject
from pipeline.verify.config import VerifyConfig
from pipeline.verify.references import decide, reference_jobs, run_references
from pipeline.verify.report import outcome_counts
from pipeline.verify.strength import Role, judge_strength, plan_incorrect
from pipeline.verify.testgen import generate_tests, timing


def _statement_only(rows: list[dict[str, Any]], rejects: list[dict[str, Any]], policy: str) -> list[dict[str, Any]]:
    """Rows whose every test is an example the statement prints: rejected, or kept and marked."""
    kept = []
    for row in rows:
        tests: Tests = row["tests"]
        only = tests.count > 0 and tests.hidden_count == 0
        if only and policy == "reject":
            why = row.get("generation_note") or "no hidden test"
            rejects.append(reject(VERIFY, row, "tests_only_in_statement",
                                  f"all {tests.count} tests are examples the statement prints; generation: {why}"))
            continue
        kept.append({**row, "tests_only_in_statement": only})
    return kept


def verify_rows(
    rows: list[dict[str, Any]],
    config: VerifyConfig | None = None,
    *,
    backend: EvaluatorBackend | None = None,
    sampler: Any = None,
    progress: Callable[[str], None] | None = None,
) -> StageResult:
    """Verify ``rows`` with the evaluator: references first (all pairs in parallel), then test
    generation (``sampler``: the model that writes input generators, when the configuration
    asks for it), then the known-incorrect programs on the final tests, under the derived limits.
    ``backend``: where every program runs (default: this machine's pool; the ``evaluator``
    resource's may be a Ray cluster's). Not a list of per-row steps
    (:func:`pipeline.stage.run_steps`): each phase runs every problem's programs as one batch on
    the evaluator, which is what keeps the cores busy."""
    config, backend = config or VerifyConfig(), backend or LocalBackend()
    start = time.monotonic()
    jobs = reference_jobs(rows, config)
    if progress:
        progress(f"verifying {len(rows)} problems: {len(jobs)} reference runs")
    with timing.phase("references"):
        by_problem = run_references(rows, jobs, config, backend)
    kept, rejects = [], []
    for row in rows:
        verified, reject = decide(row, by_problem.get(row["problem_id"], []), config)
        (kept if verified is not None else rejects).append(verified if verified is not None else reject)
    references_s = time.monotonic() - start

    kept, generation = generate_tests(kept, config.generation, backend=backend, workers=config.workers,
                                      memory_mb=config.memory_mb, sampler=sampler, progress=progress)
    kept = _statement_only(kept, rejects, config.generation.tests_only_in_statement)
    generation_s = time.monotonic() - start - references_s

    wrong_jobs = plan_incorrect(kept, config)
    if progress and wrong_jobs:
        progress(f"test strength: {len(wrong_jobs)} known-incorrect programs on {len(kept)} kept problems")
    with timing.phase("strength"):
        wrong_results = backend.evaluate_many(
            wrong_jobs, Limits(memory_mb=config.memory_mb), Options(workers=config.workers, stop_on_first_failure=True),
        ) if wrong_jobs else []
    for result in wrong_results if timing.on() else ():  # the reward's measurement shares that batch
        timing.add(f"busy:strength:{result.key[1][0].value}", result.time_s)
    wrong_by_problem: dict[str, list[tuple[Role, Result]]] = {}
    for result in wrong_results:
        pid, role = result.key  # (ProgramRole, index)
        wrong_by_problem.setdefault(pid, []).append((role, result))
    final = []
    for row in kept:
        judged, reject = judge_strength(row, wrong_by_problem.get(row["problem_id"], []), config)
        if judged is not None:
            final.append(judged)
        else:
            rejects.append(reject)
    elapsed = time.monotonic() - start
    result = StageResult(final, rejects)
    stats = {
        "reference_runs": len(jobs),
        "incorrect_runs": len(wrong_jobs),
        "references_seconds": round(references_s, 2),
        **generation,
        "incorrect_seconds": round(elapsed - references_s - generation_s, 2),
        "seconds": round(elapsed, 2),
        "problems_per_s": round(len(rows) / elapsed, 2) if elapsed else None,
        **outcome_counts(len(rows), result, config.derive_time_limits),
    }
    if progress:
        progress(f"verified {stats['verified']}/{len(rows)} in {elapsed:.1f}s ({stats['problems_per_s']} problems/s)")
    return result.count(len(rows), **stats)


def verify_heldout(
    rows: list[dict[str, Any]],
    config: VerifyConfig | None = None,
    *,
    backend: EvaluatorBackend | None = None,
    progress: Callable[[str], None] | None = None,
) -> StageResult:
    """Verify for the held-out split, with what it can check: the references where a problem has
    them (:func:`decide`, as for training rows). That the tests can judge a program (cases, a
    function to call) Process's completeness rule already saw to, as for every source. No tests
    are generated and no wrong programs run: held-out problems are scored against their own tests.
    Not a list of per-row steps: the references of every problem run as one batch."""
    config, backend = config or VerifyConfig(), backend or LocalBackend()
    start = time.monotonic()
    kept, rejects = [], []
    jobs = reference_jobs(rows, config)
    if progress:
        progress(f"verifying {len(rows)} held-out problems: {len(jobs)} reference runs")
    by_problem = run_references(rows, jobs, config, backend)
    no_references = dataclasses.replace(config, require_reference=False)
    for row in rows:
        verified, rejected = decide(row, by_problem.get(row["problem_id"], []), no_references)
        (kept if verified is not None else rejects).append(verified if verified is not None else rejected)
    return StageResult(kept, rejects).count(len(rows), reference_runs=len(jobs),
                                            with_references=sum(1 for r in kept if r.get("verified")),
                                            seconds=round(time.monotonic() - start, 2))
