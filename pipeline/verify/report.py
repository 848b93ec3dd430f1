"""Verify's funnel per source, for the dataset card and the asset's metadata.

What a maintainer of a test-defined dataset asks first: of the problems each source brought,
how many were verified, how many got generated tests, how many were released; how many tests
a problem has before and after; and how strong they are (known-wrong programs rejected, the
mutation score, the sample hardcoder rejected), with how many problems rest on one reference,
how many of its answers were dropped as suspect, how many generated inputs the validators
refused as ones the statement rules out (per reason), and how many generated tests rest on one
witness, with the generated tests a problem keeps where two witnesses vouch for its answers
against one where a single one does (problems counted in brackets). Then the known-wrong programs'
strength per source (:func:`strength_by_source`), and the counts a Verify result's rows say
(:func:`outcome_counts`).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from typing import TYPE_CHECKING, Any

from pipeline.schema import Tests

if TYPE_CHECKING:
    from pipeline.stage import StageResult


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def funnel_by_source(kept: list[dict[str, Any]], rejects: list[dict[str, Any]] = ()) -> dict[str, dict[str, Any]]:
    """Per source: Verify's funnel and the strength of the released tests."""
    out: dict[str, dict[str, Any]] = {}
    acc: dict[str, dict[str, list[float]]] = {}

    def entry(source: str) -> dict[str, Any]:
        acc.setdefault(source, {"before": [], "after": [], "ms_before": [], "ms_after": [], "two": [], "one": [],
                                "reward_before": [], "reward_after": []})
        return out.setdefault(source, {
            "problems_in": 0, "verified": 0, "with_generated_tests": 0, "released": 0,
            "tests_before": None, "tests_after": None, "correct_programs_run": 0, "tpr": None,
            "wrong_programs_run": 0, "tnr": None, "_accepted_correct": 0,
            "mutation_score_before": None, "mutation_score": None, "mutants_equivalent": 0,
            "oracle_suspects": 0, "single_witness_tests": 0, "inputs_invalid": 0, "_invalid": Counter(),
            "validator_rules": 0, "validator_rules_dropped": 0, "hardcoder_rejected": 0, "hardcoder_run": 0, "single_reference_oracle": 0,
            "tests_only_in_statement_rejected": 0, "tests_only_in_statement_kept": 0, "_rejected_wrong": 0})

    for row in kept:
        _count_kept(entry(row["source"]), acc[row["source"]], row)
    for rej in rejects:
        _count_rejected(entry(rej["source"]), rej)
    for source, e in out.items():
        _summarise(e, acc[source])
    return dict(sorted(out.items()))


def _count_kept(e: dict[str, Any], a: dict[str, list[float]], row: dict[str, Any]) -> None:
    """A released row's share of its source's funnel (``e``) and of the figures averaged later (``a``)."""
    e["problems_in"] += 1
    e["released"] += 1
    e["verified"] += bool(row.get("verified"))
    e["with_generated_tests"] += bool(row.get("generated_tests"))
    tests = row.get("tests")
    after = tests.count if isinstance(tests, Tests) else int(row.get("num_tests") or 0)
    a["after"].append(after)
    a["before"].append(int(row.get("tests_before_generation") or after))
    if row.get("labelled_correct_run"):
        e["correct_programs_run"] += int(row["labelled_correct_run"])
        e["_accepted_correct"] += int(row.get("labelled_correct_accepted") or 0)
    if row.get("incorrect_run"):
        e["wrong_programs_run"] += int(row["incorrect_run"])
        e["_rejected_wrong"] += int(row.get("incorrect_rejected") or 0)
    if row.get("mutation_score") is not None:
        a["ms_after"].append(float(row["mutation_score"]))
        a["ms_before"].append(float(row.get("mutation_score_before") or 0.0))
    if row.get("reward_ms") is not None and row.get("reward_ms_before") is not None:
        a["reward_before"].append(float(row["reward_ms_before"]))
        a["reward_after"].append(float(row["reward_ms"]))
    e["mutants_equivalent"] += int(row.get("mutants_equivalent") or 0)
    e["oracle_suspects"] += int(row.get("oracle_suspects") or 0)
    e["single_witness_tests"] += int(row.get("single_witness_tests") or 0)
    if row.get("oracle_witnesses") and row.get("tests_before_generation") is not None and row.get("verified"):
        a["two" if int(row["oracle_witnesses"]) >= 2 else "one"].append(int(row.get("generated_tests") or 0))
    try:
        e["_invalid"].update(json.loads(row.get("inputs_invalid") or "{}"))
        e["validator_rules_dropped"] += len(json.loads(row.get("validator_rules_dropped") or "[]"))
    except (TypeError, ValueError):
        pass
    e["validator_rules"] += int(row.get("validator_rules") or 0)
    if row.get("hardcoder_rejected") is not None:
        e["hardcoder_run"] += 1
        e["hardcoder_rejected"] += bool(row["hardcoder_rejected"])
    e["single_reference_oracle"] += bool(row.get("single_reference_oracle"))
    e["tests_only_in_statement_kept"] += bool(row.get("tests_only_in_statement"))


def _count_rejected(e: dict[str, Any], rej: dict[str, Any]) -> None:
    """A rejected row's share of its source's funnel."""
    e["problems_in"] += 1
    if rej.get("reason") == "tests_only_in_statement":
        e["tests_only_in_statement_rejected"] += 1
        e["verified"] += 1  # rejected after the references passed
    elif rej.get("reason") in ("weak_tests",):
        e["verified"] += 1


def _summarise(e: dict[str, Any], a: dict[str, list[float]]) -> None:
    """A source's means, medians and rates, from what the rows added up."""
    e["tests_before"], e["tests_after"] = _mean(a["before"]), _mean(a["after"])
    e["generated_two_witnesses"], e["generated_one_witness"] = _mean(a["two"]), _mean(a["one"])
    e["problems_two_witnesses"], e["problems_one_witness"] = len(a["two"]), len(a["one"])
    e["mutation_score_before"], e["mutation_score"] = _mean(a["ms_before"]), _mean(a["ms_after"])
    e["reward_ms_before"], e["reward_ms_after"] = _median(a["reward_before"]), _median(a["reward_after"])
    accepted = e.pop("_accepted_correct")
    e["tpr"] = round(accepted / e["correct_programs_run"], 4) if e["correct_programs_run"] else None
    invalid = e.pop("_invalid")
    e["inputs_invalid"] = sum(invalid.values())
    e["inputs_invalid_by_reason"] = dict(invalid.most_common())
    rejected = e.pop("_rejected_wrong")
    e["tnr"] = round(rejected / e["wrong_programs_run"], 4) if e["wrong_programs_run"] else None


FUNNEL_COLUMNS = (
    ("problems_in", "in"), ("verified", "verified"), ("with_generated_tests", "with generated tests"),
    ("released", "released"), ("tests_before", "tests/problem before"), ("tests_after", "after"),
    ("tpr", "labelled-correct accepted (TPR)"), ("tnr", "known-wrong rejected (TNR)"), ("mutation_score_before", "mutation score before"),
    ("mutation_score", "after"), ("reward_ms_before", "reward ms before (median)"), ("reward_ms_after", "after"),
    ("mutants_equivalent", "possibly equivalent mutants"),
    ("hardcoder_rejected", "hardcoder rejected"), ("single_reference_oracle", "single-reference oracle"),
    ("oracle_suspects", "answers dropped as suspect"),
    ("inputs_invalid", "generated inputs refused as invalid"),
    ("validator_rules", "validator rules tested and kept"), ("validator_rules_dropped", "dropped (let a just-illegal input through)"),
    ("single_witness_tests", "tests on one witness only"),
    ("generated_two_witnesses", "generated tests/problem, 2+ witnesses"), ("generated_one_witness", "1 witness"),
    ("tests_only_in_statement_rejected", "only statement examples, rejected"),
)


def funnel_markdown(summary: dict[str, dict[str, Any]]) -> str:
    """:func:`funnel_by_source` as a markdown table; a figure nothing measured reads ``n/a``."""
    head = "| source | " + " | ".join(title for _, title in FUNNEL_COLUMNS) + " |"
    lines = [head, "|---|" + "---|" * len(FUNNEL_COLUMNS)]
    for source, e in summary.items():
        cells = []
        for key, _ in FUNNEL_COLUMNS:
            value = e.get(key)
            if key == "hardcoder_rejected":
                value = f"{value}/{e['hardcoder_run']}" if e["hardcoder_run"] else None
            if key in ("generated_two_witnesses", "generated_one_witness") and value is not None:
                value = f"{value} ({e['problems_two_witnesses' if key == 'generated_two_witnesses' else 'problems_one_witness']})"
            if key == "inputs_invalid" and value:
                top = ", ".join(f"{why} {n}" for why, n in list(e.get("inputs_invalid_by_reason", {}).items())[:3])
                value = f"{value} ({top})"
            cells.append("n/a" if value is None else str(value))
        lines.append(f"| {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


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



def outcome_counts(problems: int, result: StageResult, derive_time_limits: bool) -> dict[str, Any]:
    """The counts a Verify result's rows say (not how they were reached): also what a run that reused
    earlier shards reports over all of them (:mod:`pipeline.verify.shards`)."""
    final = result.kept
    limits = sorted(r["tests"].time_limit_s or 0.0 for r in final
                    if derive_time_limits and r.get("reference_cpu_s") is not None)
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

