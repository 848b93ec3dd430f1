"""HumanEval-ET asserts that the reference fails too: a wrong label that the reference would also get is
the test's fault, not the program's.

The HumanEval labels in ``../shared/data/labelled`` come from MapCoder's HumanEval-ET, and on 7
problems the canonical solution fails its own extended tests. Some asserts were lifted out of the
loop or set-up they stood in (``assert change_base(x, x + 1) == str(x)`` without its
``for x in range(2, 8)``, ``decode_cyclic(encoded_str)``). Some compare floats exactly
(``truncate_number(3.452) == 0.452``). One asks ``prime_fib(12)`` within the time limit. Every
program on those problems is labelled wrong, correct or not. A TNR that counts them as known-wrong
asks the tests to reject correct programs.

:func:`audited` judges each such program again. It uses the problem's extended asserts that the
canonical solution passes, each judged alone, and nothing else changes. A program that passes
all of them is as correct as the extended tests can tell, and it is counted correct. A program
that fails one of them stays wrong.
"""

from __future__ import annotations

from typing import Any

from evaluator import evaluate_many
from pipeline.sources import collect, default_specs


def _canonical() -> dict[str, str]:
    """HumanEval's task id -> its canonical solution with its prompt, as the source adapter reads it."""
    return {row["source_id"]: row["solutions"][0] for row in collect(default_specs()["humaneval"]).kept}


def _asserts(tests: dict[str, Any]) -> list[str]:
    """The extended tests' assert lines (HumanEval-ET writes one assert per line)."""
    return [line.strip() for line in tests["assert_code"].splitlines() if line.strip().startswith("assert")]


def asserts_the_reference_passes(records: list[dict], workers: int | None = None) -> dict[str, dict[str, Any]]:
    """Per HumanEval task whose canonical solution fails its extended tests: those tests cut to the
    asserts the canonical solution passes alone (tasks where it passes them all are not listed)."""
    canonical = _canonical()
    extended = {r["task_id"]: r["tests_extended"] for r in records
                if r["dataset"] == "humaneval" and isinstance(r.get("tests_extended"), dict)
                and r["task_id"] in canonical}
    whole = evaluate_many([(t, canonical[t], tests) for t, tests in extended.items()], workers=workers)
    broken = [t for t, result in zip(extended, whole) if not result.passed]
    jobs = [((t, i), canonical[t], {**extended[t], "assert_code": line})
            for t in broken for i, line in enumerate(_asserts(extended[t]))]
    passed: dict[str, list[int]] = {t: [] for t in broken}
    for ((t, i), _, _), result in zip(jobs, evaluate_many(jobs, workers=workers)):
        if result.passed:
            passed[t].append(i)
    return {t: {**extended[t], "assert_code": "\n".join(_asserts(extended[t])[i] for i in sorted(kept))}
            for t, kept in passed.items()}


def audited(records: list[dict], workers: int | None = None) -> dict[str, bool]:
    """Record id -> its extended label judged again, for each HumanEval program that was labelled
    wrong (it passes the base tests and fails the extended ones) on a task whose canonical solution
    fails those tests too. The new label is whether the program passes every extended assert
    that the canonical solution passes."""
    cut = asserts_the_reference_passes(records, workers)
    again = [r for r in records if r["dataset"] == "humaneval" and r["task_id"] in cut
             and r["label_base"] is True and r["label_extended"] is False]
    jobs = [(r["id"], r.get("harness_prefix", "") + r["code"], cut[r["task_id"]]) for r in again]
    return {key: result.passed for (key, _, _), result in zip(jobs, evaluate_many(jobs, workers=workers))}
