"""Asset checks: the dataset's promises, checked inside the materialization that makes them.

Each check reads the run's own config and result (not defaults, not a re-read of the asset), so
a run launched with ``min_tests=3`` is checked against 3. The checks are declared as check specs
on their asset and yielded by it after its outputs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import dagster as dg

from pipeline.filter import BenchmarkSet, FilterConfig, benchmark_sets, find_contamination
from pipeline.shards import problem_ids
from pipeline.stage import StageResult
from pipeline.strong_tests import weakness
from pipeline.verify import VerifyConfig

FILTER_CHECKS = {
    "filtered_problems_decontaminated": "No kept problem shares a benchmark n-gram (the benchmark and held-out sources), under the run's thresholds.",
    "filter_accounts_for_input": "Kept + rejected rows account for every input row.",
}
DATASET_CHECKS = {
    "no_benchmark_in_training": "No training row comes from a benchmark or held-out source, or shares a benchmark "
                                "problem's n-grams (the Filter's default thresholds).",
    "no_unverified_in_training": "No problem whose tests no program has passed is in the train split's files "
                                 "(canonical shards and verl's train file): they are in the unverified config "
                                 "(warns when the run's train_on_unverified puts them back).",
    "no_source_tests_in_training": "Every problem in the train split's files has strong tests: generated ones, or "
                                   "source tests measured to reject every adversary (pipeline.strong_tests); the "
                                   "others are in the source_tests config (warns when the run's train_on_source_tests "
                                   "puts them back).",
}
VERIFY_CHECKS = {
    "verified_problem_ids_unique": "Every problem_id appears once.",
    "verified_problems_have_tests": "Every verified problem keeps at least the run's min_tests.",
    "verified_problems_test_strength_consistent": "Test strength is null exactly when no known-incorrect program ran; weak_tests marks every survivor (the hardcoder too).",
    "verified_time_limits_cover_references": "A derived time limit is never below the CPU time its slowest reference needed.",
    "verified_problems_have_hidden_tests": "Every kept problem has a test its statement does not print, or is marked tests_only_in_statement (run config 'mark').",
    "verified_tests_reject_hardcoder": "The program that memorises the statement's examples fails every kept problem's tests, or the problem is marked weak (run config 'mark').",
    "verify_accounts_for_input": "Kept + rejected rows account for every filtered row.",
}


def specs(asset: str, checks: dict[str, str]) -> list[dg.AssetCheckSpec]:
    return [dg.AssetCheckSpec(name, asset=asset, description=text) for name, text in checks.items()]


def _result(asset: str, name: str, passed: bool, **metadata) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(asset_key=asset, check_name=name, passed=bool(passed), metadata=metadata)


def _accounts(asset: str, name: str, inputs: int, result: StageResult) -> dg.AssetCheckResult:
    ids = Counter(r["problem_id"] for r in result.kept) + Counter(r["problem_id"] for r in result.rejects)
    return _result(asset, name, len(result.kept) + len(result.rejects) == inputs, input=inputs, kept=len(result.kept),
                   rejected=len(result.rejects), ids_seen_twice=sum(1 for c in ids.values() if c > 1))


def filter_checks(inputs: int, result: StageResult, config: FilterConfig, benchmarks: list[BenchmarkSet]) -> Iterator[dg.AssetCheckResult]:
    asset = "filtered_problems"
    if config.decontaminate and benchmarks:
        hits = find_contamination(result.kept, benchmarks, config)
        yield _result(asset, "filtered_problems_decontaminated", not hits, hits=len(hits), examples=str(hits[:3]))
    else:  # the promise does not hold for a run that switched it off: say so, without failing the run
        yield dg.AssetCheckResult(asset_key=asset, check_name="filtered_problems_decontaminated", passed=False,
                                  severity=dg.AssetCheckSeverity.WARN, metadata={"decontaminate": config.decontaminate,
                                                                                 "benchmarks": len(benchmarks)})
    yield _accounts(asset, "filter_accounts_for_input", inputs, result)


def verify_checks(inputs: int, result: StageResult, config: VerifyConfig) -> Iterator[dg.AssetCheckResult]:
    asset, rows = "verified_problems", result.kept
    duplicates = [pid for pid, n in Counter(r["problem_id"] for r in rows).items() if n > 1]
    yield _result(asset, "verified_problem_ids_unique", not duplicates, duplicates=len(duplicates), examples=str(duplicates[:5]))
    short = [r["problem_id"] for r in rows if r.get("verified") and (r.get("num_tests") or 0) < config.min_tests]
    yield _result(asset, "verified_problems_have_tests", not short, min_tests=config.min_tests, violations=len(short))
    bad = []
    for r in rows:
        run, rejected, strength = r.get("incorrect_run") or 0, r.get("incorrect_rejected") or 0, r.get("test_strength")
        if ((run == 0) != (strength is None) or (run > 0 and abs(strength - rejected / run) > 1e-3)
                or bool(r.get("weak_tests")) != (rejected < run or r.get("hardcoder_rejected") is False)):
            bad.append(r["problem_id"])
    yield _result(asset, "verified_problems_test_strength_consistent", not bad, violations=len(bad), examples=str(bad[:5]))
    measured = [r for r in rows if r.get("reference_cpu_s") is not None]
    slow = [r["problem_id"] for r in measured if r["tests"].time_limit_s is None or r["tests"].time_limit_s < r["reference_cpu_s"]]
    yield _result(asset, "verified_time_limits_cover_references", not slow, checked=len(measured), violations=len(slow), examples=str(slow[:5]))
    exposed = [r["problem_id"] for r in rows if r["tests"].hidden_count == 0 and not r.get("tests_only_in_statement")]
    yield _result(asset, "verified_problems_have_hidden_tests", not exposed, violations=len(exposed), examples=str(exposed[:5]),
                  marked=sum(1 for r in rows if r.get("tests_only_in_statement")))
    ran = [r for r in rows if r.get("hardcoder_rejected") is not None]
    fooled = [r["problem_id"] for r in ran if not r["hardcoder_rejected"] and not r.get("weak_tests")]
    yield _result(asset, "verified_tests_reject_hardcoder", not fooled, checked=len(ran), violations=len(fooled),
                  examples=str(fooled[:5]), weak_marked=sum(1 for r in ran if not r["hardcoder_rejected"]))
    yield _accounts(asset, "verify_accounts_for_input", inputs, result)


def dataset_checks(train_rows: list[dict], references: list[dict]) -> Iterator[dg.AssetCheckResult]:
    """The released training rows hold no benchmark or held-out problem: none from such a source
    (a role changed after Filter ran), none sharing one's n-grams (a new benchmark since)."""
    sources = {r["source"] for r in references}
    from_source = [r["problem_id"] for r in train_rows if r["source"] in sources]
    copies = [train_rows[i]["problem_id"] for i, _ in find_contamination(train_rows, benchmark_sets(references))]
    leaks = sorted(set(from_source + copies))
    yield _result("microcoder_dataset", "no_benchmark_in_training", not leaks, training_rows=len(train_rows),
                  benchmark_problems=len(references), from_benchmark_source=len(from_source), copies=len(copies),
                  examples=str(leaks[:5]))


def _in_train(manifest: list[dict], ids: set[str]) -> set[str]:
    """Which of ``ids`` the train files the release wrote (the manifest's) hold, read back."""
    found: set[str] = set()
    for entry in manifest:
        if entry["split"] == "train":
            found |= problem_ids(entry["path"], entry["layout"]) & ids
    return found


def _apart_check(name: str, config: str, apart: set[str], manifest: list[dict], allowed: bool) -> dg.AssetCheckResult:
    """No id of ``apart`` (released in ``config``) in the train files, unless ``train_on_<config>``."""
    in_train = _in_train(manifest, apart)
    return dg.AssetCheckResult(
        asset_key="microcoder_dataset", check_name=name, passed=not in_train,
        severity=dg.AssetCheckSeverity.WARN if allowed else dg.AssetCheckSeverity.ERROR,
        metadata={config: len(apart), "in_train": len(in_train), f"train_on_{config}": allowed,
                  "examples": str(sorted(in_train)[:5])})


def unverified_check(released: list[dict], manifest: list[dict], train_on_unverified: bool) -> dg.AssetCheckResult:
    """Reads back the train files the release wrote and looks for unverified ids."""
    unverified = {r["problem_id"] for r in released if not r.get("verified")}
    return _apart_check("no_unverified_in_training", "unverified", unverified, manifest, train_on_unverified)


def source_tests_check(released: list[dict], manifest: list[dict], train_on_source_tests: bool) -> dg.AssetCheckResult:
    """Reads back the train files the release wrote and looks for verified problems whose tests are not strong."""
    weak = {r["problem_id"] for r in released if r.get("verified") and weakness(r) is not None}
    return _apart_check("no_source_tests_in_training", "source_tests", weak, manifest, train_on_source_tests)
