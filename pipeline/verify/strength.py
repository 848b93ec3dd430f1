"""Test strength: the known-incorrect programs, the labelled-correct ones and the hardcoder run on
each kept problem's final tests; a problem whose tests accept a wrong one is weak. The first
reference runs there too, where generation added tests: what one reward costs (``reward_ms``)."""

from __future__ import annotations

import enum
import json
from typing import Any

from evaluator.model import Result, Verdict
from pipeline.schema import row_metadata
from pipeline.stage import VERIFY, reject
from pipeline.verify.config import Job, VerifyConfig


class ProgramRole(enum.Enum):
    """Why a program runs on a problem's final tests (the second half of its job key, with its index)."""

    INCORRECT = "incorrect"  # the source's known-wrong program: the tests must reject it
    LABELLED_CORRECT = "labelled_correct"  # a program the source labels correct: the tests must accept it
    HARDCODER = "hardcoder"  # prints the statement's example outputs: the tests must reject it
    REFERENCE = "reference"  # the first reference: what a reward costs on the released tests


Role = tuple[ProgramRole, int]
PROGRAM_CHARS = 4000  # a surviving wrong program kept in a reject's detail


def labelled_correct(row: dict[str, Any]) -> list[str]:
    """Programs the source labels correct besides its references (KodCode's passing attempts)."""
    found = row_metadata(row).get("passing_attempts")
    return [code for code in found if isinstance(code, str)] if isinstance(found, list) else []


def plan_incorrect(rows: list[dict[str, Any]], config: VerifyConfig) -> list[Job]:
    """Evaluator jobs for the known-incorrect programs, the labelled-correct programs and the sample
    hardcoder on each kept row's final tests, keyed ``(problem id, (role, index))``."""
    from pipeline.verify.testgen import hardcoder

    jobs: list[Job] = []
    for row in rows:
        for index, code in enumerate((row.get("incorrect_solutions") or [])[: config.max_incorrect]):
            jobs.append(((row["problem_id"], (ProgramRole.INCORRECT, index)), code, row["tests"]))
        for index, code in enumerate(labelled_correct(row)[: config.max_incorrect]):
            jobs.append(((row["problem_id"], (ProgramRole.LABELLED_CORRECT, index)), code, row["tests"]))
        hard = hardcoder(row) if config.hardcoder else None
        if hard:
            jobs.append(((row["problem_id"], (ProgramRole.HARDCODER, 0)), hard, row["tests"]))
        if row.get("generated_tests") and row.get("solutions"):  # else the reward costs what Verify measured
            jobs.append(((row["problem_id"], (ProgramRole.REFERENCE, 0)), row["solutions"][0], row["tests"]))
    return jobs



def judge_strength(row: dict[str, Any], results: list[tuple[Role, Result]], config: VerifyConfig) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Test strength from the known-incorrect programs' results and the hardcoder's, by role; a
    problem whose tests accept either is weak: rejected or marked.

    An ``internal_error`` says nothing about the tests, so that run is not counted.
    """
    results = [(role, r) for role, r in results if r.verdict is not Verdict.INTERNAL_ERROR]
    hard = [r for (role, _), r in results if role is ProgramRole.HARDCODER]
    reference = [r for (role, _), r in results if role is ProgramRole.REFERENCE]
    correct = [r for (role, _), r in results if role is ProgramRole.LABELLED_CORRECT]
    counted = [(index, r) for (role, index), r in results if role is ProgramRole.INCORRECT]
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
        "reward_ms": round(1000 * reference[0].time_s, 1) if reference else row.get("reward_ms_before"),
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

