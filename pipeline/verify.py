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
  the wrong programs they reject (:mod:`pipeline.testgen.generate`); a problem left with only
  the examples its statement prints is ``tests_only_in_statement`` (rejected, or kept and
  marked), never trained on silently;
* test strength: the known-incorrect programs run on the final tests under that limit; a
  problem whose tests accept one is ``weak_tests`` (rejected, or kept and marked); programs the
  source labels correct run too, and how many the tests accept is the TPR the card shows.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from evaluator.model import DEFAULT_MEMORY_MB, Limits, Result, Verdict
from pipeline.schema import Tests, row_metadata
from pipeline.stage import VERIFY, StageResult, reject
from pipeline.testgen.generate import TestGenConfig, generate_tests

CLEAN_VERDICTS = ("accepted", "wrong_answer")  # the program ran to the end: its output is an answer
PROGRAM_CHARS = 4000  # a surviving wrong program kept in a reject's detail


@dataclass
class VerifyConfig:
    require_reference: bool = False  # False: problems without references stay, verified = false
    max_references: int = 10  # references tried per problem (the first ones)
    min_tests: int = 1  # a problem left with fewer tests after dropping bad ones is rejected
    timeout_s: float | None = None  # per test for the references when the test has no time limit
    memory_mb: int = DEFAULT_MEMORY_MB
    workers: int | None = None
    # several valid answers: references passing at least this fraction of cases are compared
    min_pass_fraction: float = 0.5
    # time limits derived from the references' CPU time
    derive_time_limits: bool = True
    time_limit_factor: float = 3.0
    min_time_limit_s: float = 1.0
    # test strength: known-incorrect programs run on the verified tests
    max_incorrect: int = 10  # 0: none run
    hardcoder: bool = True  # also run the program that memorises the statement's examples
    weak_tests: Literal["reject", "mark"] = "reject"
    # a refresh re-verifies only the shards whose problems changed (pipeline.verify_shards)
    shards: int = 16
    cache: bool = True
    # hidden tests: generated inputs answered by the references (pipeline.testgen)
    generation: TestGenConfig = dataclasses.field(default_factory=TestGenConfig)


Job = tuple[tuple[str, Any], str, Tests]  # ((problem id, program index), code, tests)


def plan(rows: list[dict[str, Any]], config: VerifyConfig) -> list[Job]:
    """Evaluator jobs: every (problem, reference) pair, all cases, no early stop."""
    return [((row["problem_id"], ref_index), code, row["tests"])
            for row in rows for ref_index, code in enumerate((row.get("solutions") or [])[: config.max_references])]


def labelled_correct(row: dict[str, Any]) -> list[str]:
    """Programs the source labels correct besides its references (KodCode's passing attempts)."""
    found = row_metadata(row).get("passing_attempts")
    return [code for code in found if isinstance(code, str)] if isinstance(found, list) else []


def plan_incorrect(rows: list[dict[str, Any]], config: VerifyConfig) -> list[Job]:
    """Evaluator jobs for the known-incorrect programs, the sample hardcoder (index ``h``) and the
    labelled-correct programs (``c0``, ``c1``, ...), on each kept row's final tests."""
    from pipeline.testgen.generate import hardcoder

    jobs: list[Job] = []
    for row in rows:
        for index, code in enumerate((row.get("incorrect_solutions") or [])[: config.max_incorrect]):
            jobs.append(((row["problem_id"], index), code, row["tests"]))
        for index, code in enumerate(labelled_correct(row)[: config.max_incorrect]):
            jobs.append(((row["problem_id"], f"c{index}"), code, row["tests"]))
        hard = hardcoder(row) if config.hardcoder else None
        if hard:
            jobs.append(((row["problem_id"], "h"), hard, row["tests"]))
    return jobs


def failing_cases(result: Result, num_cases: int) -> set[int]:
    """Indices of cases a reference failed (all of them when the evaluator gave no per-case list)."""
    if len(result.cases) != num_cases:
        return set() if result.passed else set(range(num_cases))
    return {i for i, case in enumerate(result.cases) if case.verdict is not Verdict.ACCEPTED}


def same_answer(kind: str, a: str, b: str) -> bool:
    """Two programs' outputs are the same answer under the evaluator's robust comparison (either way)."""
    from evaluator.compare import compare_stdout, compare_values

    compare = compare_stdout if kind == "stdin" else compare_values
    return a == b or compare(a, b) or compare(b, a)


def answer_disagreement(tests: Tests, results: list[Result], min_pass_fraction: float) -> dict[str, Any] | None:
    """The first input on which two trusted references print different answers, or None.

    A reference is trusted when it passes at least ``min_pass_fraction`` of the cases; only runs
    that ended cleanly (accepted or wrong answer) are compared, so a crash is never an "answer".
    """
    if tests.kind == "assert" or len(results) < 2 or not tests.cases:
        return None
    num_cases = len(tests.cases)
    trusted = [(i, r.cases) for i, r in enumerate(results)
               if len(r.cases) == num_cases and r.num_passed >= min_pass_fraction * num_cases]
    for case in range(num_cases):
        answers = [(i, cases[case].output) for i, cases in trusted
                   if cases[case].verdict in CLEAN_VERDICTS and isinstance(cases[case].output, str)]
        for i, a in answers[1:]:
            j, b = answers[0]
            if not same_answer(tests.kind, b, a):
                return {"case": case, "references": [j, i], "outputs": [b[:200], a[:200]]}
    return None


def reference_cpu_s(results: list[Result], failures: list[set[int]], keep: set[int], num_cases: int) -> float | None:
    """CPU time of the slowest passing reference on its slowest kept case (None: nothing measured)."""
    slowest = None
    for result, failed in zip(results, failures):
        cases = result.cases
        if failed & keep or len(cases) != num_cases:
            continue
        times = [c.cpu_s for i, c in enumerate(cases) if i in keep and c.cpu_s is not None]
        if times:
            slowest = max(times) if slowest is None else max(slowest, max(times))
    return slowest


def derived_time_limit(slowest_cpu_s: float, source_limit_s: float | None, config: VerifyConfig) -> float:
    """``max(min, factor x slowest)``, capped by the source's limit unless a reference needs more."""
    limit = max(config.min_time_limit_s, config.time_limit_factor * slowest_cpu_s)
    if source_limit_s and slowest_cpu_s <= source_limit_s:
        limit = min(limit, source_limit_s)
    return math.ceil(round(limit * 100, 6)) / 100  # up to the next 10 ms (round: 3 x 0.8 is 2.4000000000000004)


def _passing_first(row: dict[str, Any], failures: list[set[int]], bad: set[int], config: VerifyConfig) -> dict[str, Any]:
    """``row`` with the references that passed every test first, then those that pass once the bad
    cases are dropped: test generation's oracle, its mutants and hardcoder take the first ones (a
    source's second program can be the one that passes)."""
    tried = (row.get("solutions") or [])[: config.max_references]
    rank = [0 if not f else 1 if f <= bad else 2 for f in failures]
    if len(rank) != len(tried) or rank == sorted(rank):
        return row
    order = sorted(range(len(tried)), key=rank.__getitem__)
    solutions = [tried[i] for i in order] + list(row["solutions"][len(tried):])
    return {**row, "solutions": solutions}


def decide(row: dict[str, Any], results: list[Result], config: VerifyConfig) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The verified row (tests possibly trimmed, time limit set) or a reject, from the references' results."""
    tests: Tests = row["tests"]
    num_cases = max(1, len(tests.cases)) if tests.kind != "assert" else 1
    failures = [failing_cases(result, num_cases) for result in results]
    passed = sum(1 for f in failures if not f)
    bad: set[int] = set()
    if results and passed == 0 and tests.kind != "assert":
        # A case that is the only failure of some reference contradicts an otherwise-passing one.
        bad = {next(iter(f)) for f in failures if len(f) == 1}
    remaining = [case for i, case in enumerate(tests.cases) if i not in bad]
    verified = bool(results) and (passed > 0 or any(f and f <= bad for f in failures))
    disagreement = answer_disagreement(tests, results, config.min_pass_fraction)
    columns = {
        "references_run": len(results),
        "references_passed": passed,  # passed every original test
        "references_passed_after_drop": sum(1 for f in failures if f <= bad),
        "dropped_tests": json.dumps([{"index": i, **tests.cases[i].__dict__} for i in sorted(bad)], ensure_ascii=False),
        "num_dropped_tests": len(bad),
        "verify_time_s": round(sum(r.time_s for r in results), 4),
        "multiple_answers": disagreement is not None,
        "reference_cpu_s": None,
    }
    def rejected(reason: str, detail: str | None = None) -> tuple[None, dict[str, Any]]:
        return None, reject(VERIFY, row, reason, detail)

    if not results:
        return rejected("no_reference") if config.require_reference else ({**row, **columns, "verified": False}, None)
    if not verified:
        verdicts = [{"reference": i, "verdict": r.verdict.value, "failed_cases": sorted(f)[:20],
                     "message": next((c.message[:200] for c in r.cases if c.verdict is not Verdict.ACCEPTED and c.message), "")}
                    for i, (r, f) in enumerate(zip(results, failures))]
        return rejected("no_reference_passes", json.dumps(verdicts))
    if tests.kind != "assert" and len(remaining) < config.min_tests:
        return rejected("too_few_tests_after_verify", f"{len(remaining)} left")
    if disagreement is not None and not tests.checker:
        return rejected("multiple_valid_answers", json.dumps(disagreement, ensure_ascii=False))
    keep = set(range(num_cases)) - bad
    row = _passing_first(row, failures, bad, config)
    slowest = reference_cpu_s(results, failures, keep, num_cases)
    columns["reference_cpu_s"] = slowest
    if bad or (config.derive_time_limits and slowest is not None):
        tests = dataclasses.replace(tests, cases=remaining)
        if config.derive_time_limits and slowest is not None:
            tests.time_limit_s = derived_time_limit(slowest, tests.time_limit_s, config)
    return {**row, **columns, "tests": tests, "num_tests": tests.count, "verified": True}, None


def judge_strength(row: dict[str, Any], results: list[tuple[Any, Result]], config: VerifyConfig) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Test strength from the known-incorrect programs' results and the hardcoder's (job index
    ``h``); a problem whose tests accept either is weak: rejected or marked.

    An ``internal_error`` says nothing about the tests, so that run is not counted.
    """
    results = [(job_index, r) for job_index, r in results if r.verdict is not Verdict.INTERNAL_ERROR]
    hard = [r for job_index, r in results if job_index == "h"]
    correct = [r for job_index, r in results if isinstance(job_index, str) and job_index.startswith("c")]
    counted = [(job_index, r) for job_index, r in results if isinstance(job_index, int)]
    survivors = [index for index, r in counted if r.passed]
    hardcoder_passes = bool(hard) and hard[0].passed
    columns = {
        "incorrect_run": len(counted),
        "incorrect_rejected": len(counted) - len(survivors),
        "test_strength": round((len(counted) - len(survivors)) / len(counted), 4) if counted else None,
        "incorrect_survivors": json.dumps(survivors),
        "labelled_correct_run": len(correct),
        "labelled_correct_accepted": sum(r.passed for r in correct),
        "hardcoder_rejected": (not hardcoder_passes) if hard else None,
        "weak_tests": bool(survivors) or hardcoder_passes,
    }
    if columns["weak_tests"] and config.weak_tests == "reject":
        if survivors:
            program = (row.get("incorrect_solutions") or [])[survivors[0]]
            detail = {"incorrect_index": survivors[0], "program": program[:PROGRAM_CHARS], "survivors": survivors,
                      "run": len(counted), "hardcoder_passes": hardcoder_passes}
        else:
            detail = {"survivors": [], "run": len(counted), "hardcoder_passes": True,
                      "why": "a program printing the statement's example outputs passes every test"}
        return None, reject(VERIFY, row, "weak_tests", json.dumps(detail, ensure_ascii=False))
    return {**row, **columns}, None


def strength_by_source(rows: list[dict[str, Any]], rejects: list[dict[str, Any]] = ()) -> dict[str, dict[str, Any]]:
    """Per source: what the dataset card and the asset metadata show about the tests.

    Problems kept; how many (kept or rejected) have known-wrong programs; programs run and
    rejected; mean test strength over the problems that have some (never counting the others as
    1.0); weak problems kept (marked) and rejected; problems rejected for several valid answers;
    the median derived time limit.
    """
    out: dict[str, dict[str, Any]] = {}

    def entry(source: str) -> dict[str, Any]:
        return out.setdefault(source, {"kept": 0, "with_incorrect": 0, "incorrect_run": 0, "incorrect_rejected": 0,
                                       "mean_strength": None, "weak_kept": 0, "weak_rejected": 0,
                                       "multiple_valid_answers_rejected": 0, "time_limit_s_median": None,
                                       "_strengths": [], "_limits": []})

    for row in rows:
        e = entry(row["source"])
        e["kept"] += 1
        if row.get("incorrect_run"):
            e["with_incorrect"] += 1
            e["incorrect_run"] += int(row["incorrect_run"])
            e["incorrect_rejected"] += int(row.get("incorrect_rejected") or 0)
            e["_strengths"].append(float(row["test_strength"]))
            e["weak_kept"] += bool(row.get("weak_tests"))
        if row.get("reference_cpu_s") is not None and row.get("tests"):
            e["_limits"].append(row["tests"].time_limit_s)
    for rej in rejects:
        if rej.get("reason") == "multiple_valid_answers":
            entry(rej["source"])["multiple_valid_answers_rejected"] += 1
        if rej.get("reason") == "weak_tests":
            e = entry(rej["source"])
            detail = json.loads(rej.get("detail") or "{}")
            run, survived = int(detail.get("run", 0)), len(detail.get("survivors", []))
            e["with_incorrect"] += 1
            e["weak_rejected"] += 1
            e["incorrect_run"] += run
            e["incorrect_rejected"] += run - survived
            if run:
                e["_strengths"].append(1 - survived / run)
    for e in out.values():
        strengths, limits = e.pop("_strengths"), sorted(x for x in e.pop("_limits") if x is not None)
        e["mean_strength"] = round(sum(strengths) / len(strengths), 4) if strengths else None
        e["time_limit_s_median"] = limits[len(limits) // 2] if limits else None
    return dict(sorted(out.items()))


STRENGTH_COLUMNS = (
    ("kept", "kept"), ("with_incorrect", "with wrong programs"), ("incorrect_run", "wrong programs run"),
    ("incorrect_rejected", "rejected by the tests"), ("mean_strength", "mean test strength"),
    ("weak_kept", "weak, kept (marked)"), ("weak_rejected", "weak, rejected"),
    ("multiple_valid_answers_rejected", "several valid answers, rejected"), ("time_limit_s_median", "median time limit (s)"),
)


def strength_markdown(summary: dict[str, dict[str, Any]]) -> str:
    """``strength_by_source`` as a markdown table (a missing strength reads "n/a", never 1.0)."""
    lines = ["| source | " + " | ".join(title for _, title in STRENGTH_COLUMNS) + " |", "|---|" + "---|" * len(STRENGTH_COLUMNS)]
    for source, e in summary.items():
        cells = ["n/a" if e.get(key) is None else str(e[key]) for key, _ in STRENGTH_COLUMNS]
        lines.append(f"| {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


Evaluate = Callable[..., list[Result]]  # evaluator.evaluate_many's shape


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


def outcome_counts(problems: int, result: StageResult, config: VerifyConfig) -> dict[str, Any]:
    """The counts a Verify result's rows say (not how they were reached): also what a run that reused
    earlier shards reports over all of them (:mod:`pipeline.verify_shards`)."""
    final = result.kept
    limits = sorted(r["tests"].time_limit_s or 0.0 for r in final
                    if config.derive_time_limits and r.get("reference_cpu_s") is not None)
    return {
        "problems": problems,
        "verified": sum(1 for r in final if r.get("verified")),
        "unverified_kept": sum(1 for r in final if not r.get("verified")),
        "weak_tests_kept": sum(1 for r in final if r.get("weak_tests")),
        "multiple_answers_kept_with_checker": sum(1 for r in final if r.get("multiple_answers")),
        "dropped_tests": sum(r.get("num_dropped_tests", 0) for r in final),
        "derived_time_limits": len(limits),
        "time_limit_s_median": limits[len(limits) // 2] if limits else None,
        "time_limit_s_max": limits[-1] if limits else None,
        "tests_only_in_statement_kept": sum(1 for r in final if r.get("tests_only_in_statement")),
    }


def run_references(rows: list[dict[str, Any]], jobs: list[Job], config: VerifyConfig,
                   evaluate_many: Evaluate) -> dict[str, list[Result]]:
    """Every reference on every case, results by problem id (in reference order). A run the
    evaluator itself failed (``internal_error``: never the program's doing) runs once more, so one
    such hiccup does not reject a problem as ``no_reference_passes``."""
    # outputs are only needed where two references can be compared
    keep_output = any(len((row.get("solutions") or [])[: config.max_references]) > 1 for row in rows)

    def run(batch: list[Job]) -> list[Result]:
        return evaluate_many(batch, Limits(time_s=config.timeout_s, memory_mb=config.memory_mb), workers=config.workers,
                             stop_on_first_failure=False, keep_output=keep_output) if batch else []

    results = run(jobs)
    failed = [i for i, r in enumerate(results) if r.verdict is Verdict.INTERNAL_ERROR]
    for i, again in zip(failed, run([jobs[i] for i in failed])):
        results[i] = again
    by_problem: dict[str, list[Result]] = {}
    for result in results:
        by_problem.setdefault(result.key[0], []).append(result)
    return by_problem


def verify_rows(
    rows: list[dict[str, Any]],
    config: VerifyConfig | None = None,
    *,
    evaluate_many: Evaluate | None = None,
    sampler: Any = None,
    progress: Callable[[str], None] | None = None,
) -> StageResult:
    """Verify ``rows`` with the evaluator: references first (all pairs in parallel), then test
    generation (``sampler``: the model that writes input generators, when the configuration
    asks for it), then the known-incorrect programs on the final tests, under the derived limits.
    Not a list of per-row steps (:func:`pipeline.stage.run_steps`): each phase runs every
    problem's programs as one batch on the evaluator, which is what keeps the cores busy."""
    config = config or VerifyConfig()
    if evaluate_many is None:
        from evaluator import evaluate_many
    start = time.monotonic()
    jobs = plan(rows, config)
    if progress:
        progress(f"verifying {len(rows)} problems: {len(jobs)} reference runs")
    by_problem = run_references(rows, jobs, config, evaluate_many)
    kept, rejects = [], []
    for row in rows:
        verified, reject = decide(row, by_problem.get(row["problem_id"], []), config)
        (kept if verified is not None else rejects).append(verified if verified is not None else reject)
    references_s = time.monotonic() - start

    kept, generation = generate_tests(kept, config.generation, evaluate_many=evaluate_many, workers=config.workers,
                                      memory_mb=config.memory_mb, sampler=sampler, progress=progress)
    kept = _statement_only(kept, rejects, config.generation.tests_only_in_statement)
    generation_s = time.monotonic() - start - references_s

    wrong_jobs = plan_incorrect(kept, config)
    if progress and wrong_jobs:
        progress(f"test strength: {len(wrong_jobs)} known-incorrect programs on {len(kept)} kept problems")
    wrong_results = evaluate_many(
        wrong_jobs, Limits(memory_mb=config.memory_mb), workers=config.workers, stop_on_first_failure=True,
    ) if wrong_jobs else []
    wrong_by_problem: dict[str, list[tuple[Any, Result]]] = {}
    for result in wrong_results:
        pid, index = result.key  # index: a known-incorrect program's, or "h"
        wrong_by_problem.setdefault(pid, []).append((index, result))
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
        **outcome_counts(len(rows), result, config),
    }
    if progress:
        progress(f"verified {stats['verified']}/{len(rows)} in {elapsed:.1f}s ({stats['problems_per_s']} problems/s)")
    return result.count(len(rows), **stats)


def verify_heldout(
    rows: list[dict[str, Any]],
    config: VerifyConfig | None = None,
    *,
    evaluate_many: Evaluate | None = None,
    progress: Callable[[str], None] | None = None,
) -> StageResult:
    """Verify for the held-out split, with what it can check: the references where a problem has
    them (:func:`decide`, as for training rows). That the tests can judge a program (cases, a
    function to call) Process's completeness rule already saw to, as for every source. No tests
    are generated and no wrong programs run: held-out problems are scored against their own tests.
    Not a list of per-row steps: the references of every problem run as one batch."""
    config = config or VerifyConfig()
    if evaluate_many is None:
        from evaluator import evaluate_many
    start = time.monotonic()
    kept, rejects = [], []
    jobs = plan(rows, config)
    if progress:
        progress(f"verifying {len(rows)} held-out problems: {len(jobs)} reference runs")
    by_problem = run_references(rows, jobs, config, evaluate_many)
    no_references = dataclasses.replace(config, require_reference=False)
    for row in rows:
        verified, rejected = decide(row, by_problem.get(row["problem_id"], []), no_references)
        (kept if verified is not None else rejects).append(verified if verified is not None else rejected)
    return StageResult(kept, rejects).count(len(rows), reference_runs=len(jobs),
                                            with_references=sum(1 for r in kept if r.get("verified")),
                                            seconds=round(time.monotonic() - start, 2))
