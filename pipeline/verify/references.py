"""The references: run on every test, trusted over a lone contradicting case, compared for
several valid answers, and timed for the derived time limit (:func:`decide`)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

from evaluator.backend import EvaluatorBackend
from evaluator.compare import either_accepts
from evaluator.model import Limits, Options, Result, Verdict
from pipeline.schema import Tests
from pipeline.stage import VERIFY, reject
from pipeline.verify.config import Job, VerifyConfig

CLEAN_VERDICTS = ("accepted", "wrong_answer")  # the program ran to the end: its output is an answer


def reference_jobs(rows: list[dict[str, Any]], config: VerifyConfig) -> list[Job]:
    """Evaluator jobs: every (problem, reference) pair, all cases, no early stop."""
    return [((row["problem_id"], ref_index), code, row["tests"])
            for row in rows for ref_index, code in enumerate((row.get("solutions") or [])[: config.max_references])]



def failing_cases(result: Result, num_cases: int) -> set[int]:
    """Indices of cases a reference failed (all of them when the evaluator gave no per-case list)."""
    if len(result.cases) != num_cases:
        return set() if result.passed else set(range(num_cases))
    return {i for i, case in enumerate(result.cases) if case.verdict is not Verdict.ACCEPTED}


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
            if not either_accepts(tests.kind, b, a):
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


def _contradicted(tests: Tests, results: list[Result], failures: list[set[int]], passed: int) -> set[int]:
    """Cases to drop: where no reference passes everything, a case that is the only failure of
    some reference contradicts an otherwise-passing one."""
    if results and passed == 0 and tests.kind != "assert":
        return {next(iter(f)) for f in failures if len(f) == 1}
    return set()


def _reference_columns(tests: Tests, results: list[Result], failures: list[set[int]], bad: set[int],
                       disagreement: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "references_run": len(results),
        "references_passed": sum(1 for f in failures if not f),  # passed every original test
        "references_passed_after_drop": sum(1 for f in failures if f <= bad),
        "dropped_tests": json.dumps([{"index": i, **tests.cases[i].__dict__} for i in sorted(bad)], ensure_ascii=False),
        "num_dropped_tests": len(bad),
        "verify_time_s": round(sum(r.time_s for r in results), 4),
        "multiple_answers": disagreement is not None,
        "reference_cpu_s": None,
        "reward_ms_before": _reward_ms(results, failures, bad),
        "reward_ms": None,  # on the released tests: test strength measures it (pipeline.verify.strength)
    }


def _reward_ms(results: list[Result], failures: list[set[int]], bad: set[int]) -> float | None:
    """What judging a correct program on the source's tests costs: the first reference that passes
    them (once the contradicted cases are dropped), in milliseconds of evaluation."""
    passing = [i for i, f in enumerate(failures) if not f] or [i for i, f in enumerate(failures) if f <= bad]
    return round(1000 * results[passing[0]].time_s, 1) if passing else None


def _no_pass_detail(results: list[Result], failures: list[set[int]]) -> str:
    verdicts = [{"reference": i, "verdict": r.verdict.value, "failed_cases": sorted(f)[:20],
                 "message": next((c.message[:200] for c in r.cases if c.verdict is not Verdict.ACCEPTED and c.message), "")}
                for i, (r, f) in enumerate(zip(results, failures))]
    return json.dumps(verdicts)


def _rejection(tests: Tests, results: list[Result], failures: list[set[int]], bad: set[int],
               disagreement: dict[str, Any] | None, config: VerifyConfig) -> tuple[str, str | None] | None:
    """Why the references' results reject the row (reason, detail), or None: it is verified."""
    passed = sum(1 for f in failures if not f)
    if not (passed > 0 or any(f and f <= bad for f in failures)):
        return "no_reference_passes", _no_pass_detail(results, failures)
    remaining = sum(1 for i in range(len(tests.cases)) if i not in bad)
    if tests.kind != "assert" and remaining < config.min_tests:
        return "too_few_tests_after_verify", f"{remaining} left"
    if disagreement is not None and not tests.checker:
        return "multiple_valid_answers", json.dumps(disagreement, ensure_ascii=False)
    return None


def decide(row: dict[str, Any], results: list[Result], config: VerifyConfig) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The verified row (tests possibly trimmed, time limit set) or a reject, from the references' results."""
    tests: Tests = row["tests"]
    num_cases = max(1, len(tests.cases)) if tests.kind != "assert" else 1
    failures = [failing_cases(result, num_cases) for result in results]
    bad = _contradicted(tests, results, failures, sum(1 for f in failures if not f))
    disagreement = answer_disagreement(tests, results, config.min_pass_fraction)
    columns = _reference_columns(tests, results, failures, bad, disagreement)
    if not results:
        if config.require_reference:
            return None, reject(VERIFY, row, "no_reference")
        return {**row, **columns, "verified": False}, None
    why = _rejection(tests, results, failures, bad, disagreement, config)
    if why is not None:
        return None, reject(VERIFY, row, *why)
    keep = set(range(num_cases)) - bad
    row = _passing_first(row, failures, bad, config)
    slowest = reference_cpu_s(results, failures, keep, num_cases)
    columns["reference_cpu_s"] = slowest
    if bad or (config.derive_time_limits and slowest is not None):
        tests = dataclasses.replace(tests, cases=[case for i, case in enumerate(tests.cases) if i not in bad])
        if config.derive_time_limits and slowest is not None:
            tests.time_limit_s = derived_time_limit(slowest, tests.time_limit_s, config)
    return {**row, **columns, "tests": tests, "num_tests": tests.count, "verified": True}, None


def run_references(rows: list[dict[str, Any]], jobs: list[Job], config: VerifyConfig,
                   backend: EvaluatorBackend) -> dict[str, list[Result]]:
    """Every reference on every case, results by problem id (in reference order). A run the
    evaluator itself failed (``internal_error``: never the program's doing) runs once more, so one
    such hiccup does not reject a problem as ``no_reference_passes``."""
    # outputs are only needed where two references can be compared
    keep_output = any(len((row.get("solutions") or [])[: config.max_references]) > 1 for row in rows)

    def run(batch: list[Job]) -> list[Result]:
        limits = Limits(time_s=config.timeout_s, memory_mb=config.memory_mb)
        options = Options(workers=config.workers, stop_on_first_failure=False, keep_output=keep_output)
        return backend.evaluate_many(batch, limits, options) if batch else []

    results = run(jobs)
    failed = [i for i, r in enumerate(results) if r.verdict is Verdict.INTERNAL_ERROR]
    for i, again in zip(failed, run([jobs[i] for i in failed])):
        results[i] = again
    by_problem: dict[str, list[Result]] = {}
    for result in results:
        by_problem.setdefault(result.key[0], []).append(result)
    return by_problem

