"""Extended asserts that the reference fails too: a wrong label that the reference would also get is
the test's fault, not the program's.

The labels in ``../shared/data/labelled`` come from MapCoder's HumanEval-ET and MBPP-ET runs. On 7
HumanEval problems the canonical solution fails its own extended tests. Some asserts were lifted out
of the loop or set-up they stood in (``assert change_base(x, x + 1) == str(x)`` without its
``for x in range(2, 8)``, ``decode_cyclic(encoded_str)``). Some compare floats exactly
(``truncate_number(3.452) == 0.452``). One asks ``prime_fib(12)`` within the time limit. Every
program on those problems is labelled wrong, correct or not. A TNR that counts them as known-wrong
asks the tests to reject correct programs. MBPP's reference is checked the same way, on MBPP-ET's
asserts where they are built (``build_mbpp_extended.py``: 15 of 397 references fail some, mostly
asserts whose expected string lost its quotes, ``== No solution``).

MBPP's extended labels were never re-run (the file the source judged with is missing from its
snapshot), and the source ran every program in one shared namespace, where an earlier program that
rebinds ``sum`` breaks a later one: ``sort_matrix`` by ``sorted(M, key=sum)``'s equivalent is
labelled wrong and passes every MBPP-ET assert. So each MBPP program labelled wrong is judged
again too, where MBPP-ET's asserts are built.

:func:`audited` judges each such program again. It uses the problem's extended asserts that the
reference passes, each judged alone, and nothing else changes. A program that passes all of them
is as correct as the extended tests can tell, and it is counted correct. A program that fails one
of them stays wrong.
"""

from __future__ import annotations

from typing import Any

from evaluator import evaluate_many
from pipeline.sources import collect, default_specs

Task = tuple[str, str]  # (dataset, task id)
References = dict[Task, tuple[str, dict]]  # a task's reference and its extended tests, as the reference names the function


def asserts_for(task: dict) -> dict:
    """MBPP-ET's asserts for ``task`` (``build_mbpp_extended.py``'s record) as an assert test; they
    call MBPP's own name for the function (``next_Power_Of_2``), as MBPP's rows here do."""
    return {"kind": "assert", "fn_name": task["entry_point"],
            "assert_code": "\n".join([task["setup"], *task["asserts"]]).strip() + "\n"}


def extended_tests(rec: dict, mbpp_et: dict[str, dict]) -> dict | None:
    """A labelled record's extended tests: HumanEval-ET's, shipped with it; MBPP-ET's, where built."""
    if rec["dataset"] == "humaneval":
        return rec.get("tests_extended")
    task = mbpp_et.get(str(rec.get("mbpp_task_id")))
    return asserts_for(task) if task else None


def named_as_mbpp(rec: dict, mbpp_et: dict[str, dict]) -> str:
    """The program, its function also bound to the name MBPP's own tests call where MultiPL-E's prompt
    renamed it (``next_power_of_2`` is MBPP's ``next_Power_Of_2``; 17 tasks): else every program
    there fails the source's tests and MBPP-ET's with a NameError, counted as a wrong program
    rejected. The name is MBPP-ET's, so this needs ``build_mbpp_extended.py``."""
    task = mbpp_et.get(str(rec.get("mbpp_task_id"))) if rec["dataset"] == "mbpp" else None
    own = rec["tests_base"].get("fn_name") if isinstance(rec.get("tests_base"), dict) else None
    if not task or not own or task["entry_point"] == own:
        return rec["code"]
    name = task["entry_point"]  # a program may define MBPP's name itself (and pass MBPP-ET, which calls it)
    return f"{rec['code'].rstrip()}\n\n\nif {name!r} not in globals() and {own!r} in globals():\n    {name} = {own}\n"


def humaneval_references(records: list[dict]) -> References:
    """HumanEval's canonical solutions (with their prompt, as the source adapter reads them) and HumanEval-ET."""
    canonical = {row["source_id"]: row["solutions"][0] for row in collect(default_specs()["humaneval"]).kept}
    return {("humaneval", r["task_id"]): (canonical[r["task_id"]], r["tests_extended"]) for r in records
            if r["dataset"] == "humaneval" and isinstance(r.get("tests_extended"), dict) and r["task_id"] in canonical}


def mbpp_references(records: list[dict], mbpp_et: dict[str, dict]) -> References:
    """MBPP's reference solutions and MBPP-ET's asserts (``build_mbpp_extended.py``'s tasks, by MBPP id)."""
    out: References = {}
    for r in records:
        task = mbpp_et.get(str(r.get("mbpp_task_id"))) if r["dataset"] == "mbpp" else None
        if task:
            out[("mbpp", r["task_id"])] = (task["reference"], asserts_for(task))
    return out


def _asserts(tests: dict[str, Any]) -> list[str]:
    """The extended tests' assert lines (HumanEval-ET and MBPP-ET write one assert per line)."""
    return [line.strip() for line in tests["assert_code"].splitlines() if line.strip().startswith("assert")]


def cut(tests: dict[str, Any], kept: list[int]) -> dict[str, Any]:
    """The tests with only the asserts at ``kept``."""
    lines = _asserts(tests)
    return {**tests, "assert_code": "\n".join(lines[i] for i in kept)}


def asserts_the_reference_passes(references: References, workers: int | None = None) -> dict[Task, list[int]]:
    """Per task whose reference (its code and its extended tests) fails those tests: the indices of
    the asserts it passes alone (tasks where it passes them all are not listed)."""
    tasks = list(references)
    whole = evaluate_many([(str(i), *references[t]) for i, t in enumerate(tasks)], workers=workers)
    broken = [t for t, result in zip(tasks, whole) if not result.passed]
    alone = [(t, i, line) for t in broken for i, line in enumerate(_asserts(references[t][1]))]
    results = evaluate_many([(str(k), references[t][0], {**references[t][1], "assert_code": line})
                             for k, (t, _, line) in enumerate(alone)], workers=workers)
    passed: dict[Task, list[int]] = {t: [] for t in broken}
    for (t, i, _), result in zip(alone, results):
        if result.passed:
            passed[t].append(i)
    return passed


def audited(records: list[dict], references: References, mbpp_et: dict[str, dict],
            workers: int | None = None) -> dict[str, bool]:
    """Record id -> its extended label judged again, for each program labelled wrong (it passes the
    base tests and fails the extended ones) on a task whose reference fails those tests too, or
    whose label was never re-run (MBPP-ET's, ``label_extended_verified`` false: the file the source
    judged with is lost). The new label is whether the program passes every extended assert the
    reference passes (:func:`extended_tests`, MBPP-ET's from ``mbpp_et``)."""
    kept = asserts_the_reference_passes(references, workers)
    jobs = []
    for r in records:
        task, tests = (r["dataset"], r["task_id"]), extended_tests(r, mbpp_et)
        if not (r["label_base"] is True and r["label_extended"] is False and tests):
            continue
        if task in kept:
            jobs.append((r["id"], r["code"], cut(tests, kept[task])))
        elif task in references and not r.get("label_extended_verified"):
            jobs.append((r["id"], r["code"], tests))
    return {key: result.passed for (key, _, _), result in zip(jobs, evaluate_many(jobs, workers=workers))}
