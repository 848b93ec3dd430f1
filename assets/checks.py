"""Asset checks: the dataset's promises, checked on every materialization."""


import json

import dagster as dg
import polars as pl

from assets.dataset import ALL_PARTITIONS, _concat
from assets.frames import to_rows
from pipeline.filter import find_contamination, default_benchmarks
from pipeline.verify import VerifyConfig


def _duplicates(frame: pl.DataFrame) -> list[str]:
    counts = frame.group_by("problem_id").len().filter(pl.col("len") > 1)
    return counts["problem_id"].to_list()


@dg.asset_check(asset="verified_problems", description="Every problem_id appears once.")
def verified_problem_ids_unique(verified_problems: pl.DataFrame) -> dg.AssetCheckResult:
    duplicates = _duplicates(verified_problems)
    return dg.AssetCheckResult(passed=not duplicates, metadata={"duplicates": len(duplicates), "examples": str(duplicates[:5])})


@dg.asset_check(asset="verified_problems", description="Every verified problem keeps at least the configured number of tests.")
def verified_problems_have_tests(verified_problems: pl.DataFrame) -> dg.AssetCheckResult:
    minimum = VerifyConfig().min_tests
    if not verified_problems.height:
        return dg.AssetCheckResult(passed=True, metadata={"checked": 0})
    short = verified_problems.filter(pl.col("verified") & (pl.col("num_tests") < minimum))
    return dg.AssetCheckResult(passed=short.height == 0, metadata={"min_tests": minimum, "violations": short.height})


@dg.asset_check(asset="verified_problems", description="Test strength is null exactly when no known-incorrect program ran, and weak_tests marks every survivor.")
def verified_problems_test_strength_consistent(verified_problems: pl.DataFrame) -> dg.AssetCheckResult:
    if not verified_problems.height or "incorrect_run" not in verified_problems.columns:
        return dg.AssetCheckResult(passed=True, metadata={"checked": 0})
    run, rejected = pl.col("incorrect_run").fill_null(0), pl.col("incorrect_rejected").fill_null(0)
    bad = verified_problems.filter(
        ((run == 0) != pl.col("test_strength").is_null())
        | ((run > 0) & ((pl.col("test_strength") - rejected / run).abs() > 1e-3))
        | (pl.col("weak_tests").fill_null(False) != (rejected < run))
    )
    return dg.AssetCheckResult(passed=bad.height == 0, metadata={"violations": bad.height, "examples": str(bad["problem_id"].head(5).to_list())})


@dg.asset_check(asset="verified_problems", description="A derived time limit is never below the CPU time its slowest reference needed.")
def verified_time_limits_cover_references(verified_problems: pl.DataFrame) -> dg.AssetCheckResult:
    if not verified_problems.height or "reference_cpu_s" not in verified_problems.columns:
        return dg.AssetCheckResult(passed=True, metadata={"checked": 0})
    measured = verified_problems.filter(pl.col("reference_cpu_s").is_not_null())
    limits = [json.loads(t).get("time_limit_s") for t in measured["tests"].to_list()]
    short = [pid for pid, cpu, limit in zip(measured["problem_id"].to_list(), measured["reference_cpu_s"].to_list(), limits)
             if limit is None or limit < cpu]
    return dg.AssetCheckResult(passed=not short, metadata={"checked": measured.height, "violations": len(short), "examples": str(short[:5])})


@dg.asset_check(asset="curated_problems", description="No kept problem shares a benchmark n-gram (LiveCodeBench, HumanEval, MBPP test).")
def curated_problems_decontaminated(curated_problems: pl.DataFrame) -> dg.AssetCheckResult:
    hits = find_contamination(to_rows(curated_problems), default_benchmarks())
    return dg.AssetCheckResult(passed=not hits, metadata={"hits": len(hits), "examples": str(hits[:3])})


@dg.asset_check(
    asset="curated_problems",
    additional_ins={"processed_problems": ALL_PARTITIONS, "curation_rejects": dg.AssetIn()},
    description="Kept + rejected rows account for every input row.",
)
def curation_accounts_for_input(curated_problems: pl.DataFrame, processed_problems, curation_rejects: pl.DataFrame) -> dg.AssetCheckResult:
    inputs = _concat(processed_problems)
    accounted = curated_problems.height + curation_rejects.height
    missing = set(inputs["problem_id"].to_list()) - set(curated_problems["problem_id"].to_list()) - set(curation_rejects["problem_id"].to_list()) if inputs.height else set()
    return dg.AssetCheckResult(
        passed=accounted == inputs.height and not missing,
        metadata={"input": inputs.height, "kept": curated_problems.height, "rejected": curation_rejects.height, "unaccounted": len(missing)},
    )


@dg.asset_check(
    asset="verified_problems",
    additional_ins={"curated_problems": dg.AssetIn(), "verification_rejects": dg.AssetIn()},
    description="Kept + rejected rows account for every curated row.",
)
def verification_accounts_for_input(verified_problems: pl.DataFrame, curated_problems: pl.DataFrame, verification_rejects: pl.DataFrame) -> dg.AssetCheckResult:
    accounted = verified_problems.height + verification_rejects.height
    return dg.AssetCheckResult(
        passed=accounted == curated_problems.height,
        metadata={"input": curated_problems.height, "kept": verified_problems.height, "rejected": verification_rejects.height},
    )
