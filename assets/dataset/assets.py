"""Filter, Verify, Difficulty and the released dataset: assets over all sources together."""

import time
from collections import Counter

import dagster as dg

from assets.config import run_config_for, to_dataclass
from assets.dataset.checks import (
    DATASET_CHECKS,
    FILTER_CHECKS,
    VERIFY_CHECKS,
    dataset_checks,
    filter_checks,
    source_tests_check,
    specs,
    unverified_check,
    verify_checks,
)
from assets.io import Rows, all_rows
from assets.metadata import (
    difficulty_metadata,
    length_metadata,
    rejects_metadata,
    source_mix_metadata,
    stage_counts,
    stage_metadata,
    table_metadata,
)
from assets.resources import EvaluatorResource, SamplerResource
from pipeline.difficulty import DifficultyConfig, ScoreCache, differential_by_source, score_problems
from pipeline.filter import FilterConfig, benchmark_sets, filter_sources
from pipeline.paths import data_root
from pipeline.release import release
from pipeline.schema import MANIFEST_SCHEMA, PROCESSED_SCHEMA, REJECT_SCHEMA, SCORED_SCHEMA, VERIFIED_SCHEMA, rows_to_table
from pipeline.shards import ShardConfig
from pipeline.stage import StageResult
from pipeline.verify import VerifyConfig, strength_by_source, strength_markdown, verify_heldout
from pipeline.verify.report import funnel_by_source, funnel_markdown
from pipeline.verify.shards import verify_sharded
from training.progress import Pulse

GROUP = "dataset"
ALL_PARTITIONS = dg.AssetIn(metadata={"allow_missing_partitions": True})
EAGER = dg.AutomationCondition.eager()
# The stages the dataset card counts, each by the asset that reports its counts.
STAGE_ASSETS = {"collect": "raw_problems", "process": "processed_problems", "filter": "filtered_problems",
                "verify": "verified_problems", "verify (held out)": "verified_heldout"}  # refresh when inputs change, not through job chains

FilterRunConfig = run_config_for(FilterConfig)
VerifyRunConfig = run_config_for(VerifyConfig)
DifficultyRunConfig = run_config_for(DifficultyConfig)
ShardRunConfig = run_config_for(ShardConfig)


@dg.multi_asset(
    outs={
        "filtered_problems": dg.AssetOut(description="The training sources together after quality rules, decontamination "
                                                     "against the benchmark and held-out sources, dedup and mix.",
                                         automation_condition=EAGER),
        "filter_rejects": dg.AssetOut(description="What the Filter stage removed, with the reason and what it matched.", automation_condition=EAGER),
        "benchmark_problems": dg.AssetOut(description="The rows of the benchmark and held-out sources: what training is "
                                                      "decontaminated against (never trained on).", automation_condition=EAGER),
        "heldout_problems": dg.AssetOut(description="The rows of the held-out sources, on their way to the test split.",
                                        automation_condition=EAGER),
    },
    ins={"processed_problems": ALL_PARTITIONS},
    check_specs=specs("filtered_problems", FILTER_CHECKS),
    group_name=GROUP,
)
def filter_problems(context: dg.AssetExecutionContext, config: FilterRunConfig, processed_problems):
    rows = all_rows(processed_problems)
    settings = to_dataclass(FilterConfig, config)
    split, result = filter_sources(rows, settings)
    stats = stage_metadata(result.stats)
    context.log.info(f"filter: {len(split.train)} training rows in -> {len(result.kept)} kept, {len(result.rejects)} rejected; "
                     f"{len(split.benchmark)} benchmark and {len(split.heldout)} held-out rows decontaminated against")
    yield dg.Output(rows_to_table(result.kept, PROCESSED_SCHEMA), "filtered_problems", metadata={
        **table_metadata(result.kept), **stats, **source_mix_metadata(result.kept), **length_metadata(result.kept),
        "rows_by_role": dg.MetadataValue.json(split.counts()),
    })
    yield dg.Output(rows_to_table(result.rejects, REJECT_SCHEMA), "filter_rejects",
                    metadata={**rejects_metadata(result.rejects), **stats})
    for name, part in (("benchmark_problems", split.references), ("heldout_problems", split.heldout)):
        passed = StageResult(part).count(len(part))  # passed on whole: nothing of theirs is filtered
        yield dg.Output(rows_to_table(part, PROCESSED_SCHEMA), name, metadata={
            **table_metadata(part), **stage_metadata(passed.stats), **source_mix_metadata(part)})
    yield from filter_checks(len(split.train), result, settings, benchmark_sets(split.references))


@dg.multi_asset(
    outs={
        "verified_problems": dg.AssetOut(
            description="Problems whose tests a reference solution passes; contradicting tests dropped, time limits from "
                        "the references, hidden tests generated and answered by the references, test strength from "
                        "known-wrong programs, mutants and the sample hardcoder.", automation_condition=EAGER),
        "verify_rejects": dg.AssetOut(
            description="Problems no reference passes, with several valid answers and no checker, with only the "
                        "examples their statement prints as tests, or with tests a known-wrong program passes.",
            automation_condition=EAGER),
    },
    check_specs=specs("verified_problems", VERIFY_CHECKS),
    group_name=GROUP,
)
def verify_problems(context: dg.AssetExecutionContext, config: VerifyRunConfig, sampler: SamplerResource,
                    evaluator: EvaluatorResource, filtered_problems: Rows):
    settings = to_dataclass(VerifyConfig, config)
    backend = evaluator.make_backend()
    with Pulse(context.log.info, f"verify: {len(filtered_problems):,} problems") as say:
        if settings.generation.model_inputs:  # the model writes input generators: start it only then
            with sampler.make_sampler() as model:
                result = verify_sharded(filtered_problems, settings, backend=backend, sampler=model, progress=say)
        else:
            result = verify_sharded(filtered_problems, settings, backend=backend, progress=say)
    strength = strength_by_source(result.kept, result.rejects)
    funnel = funnel_by_source(result.kept, result.rejects)
    stats = stage_metadata(result.stats)
    yield dg.Output(rows_to_table(result.kept, VERIFIED_SCHEMA), "verified_problems", metadata={
        **table_metadata(result.kept), **stats, "evaluator": evaluator.backend,
        "shards_reused": f"{result.stats['shards_reused']}/{result.stats['shards']}",
        "verify_funnel_by_source": dg.MetadataValue.md(funnel_markdown(funnel)),
        "verify_funnel_by_source_json": dg.MetadataValue.json(funnel),
        "test_strength_by_source": dg.MetadataValue.md(strength_markdown(strength)),
        "test_strength_by_source_json": dg.MetadataValue.json(strength),
    })
    yield dg.Output(rows_to_table(result.rejects, REJECT_SCHEMA), "verify_rejects", metadata={**rejects_metadata(result.rejects), **stats})
    yield from verify_checks(len(filtered_problems), result, settings)


@dg.multi_asset(
    outs={
        "verified_heldout": dg.AssetOut(description="The held-out problems that, where they have references, a "
                                                    "reference passes: the test split.",
                                        automation_condition=EAGER),
        "heldout_rejects": dg.AssetOut(description="Held-out problems none of whose references passes.",
                                       automation_condition=EAGER),
    },
    group_name=GROUP,
)
def verify_heldout_problems(context: dg.AssetExecutionContext, config: VerifyRunConfig, evaluator: EvaluatorResource,
                            heldout_problems: Rows):
    result = verify_heldout(heldout_problems, to_dataclass(VerifyConfig, config), backend=evaluator.make_backend(),
                            progress=context.log.info)
    stats = stage_metadata(result.stats)
    yield dg.Output(rows_to_table(result.kept, VERIFIED_SCHEMA), "verified_heldout", metadata={
        **table_metadata(result.kept), **stats, **source_mix_metadata(result.kept), "evaluator": evaluator.backend})
    yield dg.Output(rows_to_table(result.rejects, REJECT_SCHEMA), "heldout_rejects",
                    metadata={**rejects_metadata(result.rejects), **stats})


@dg.asset(group_name=GROUP, automation_condition=EAGER,
          description="The verified problems with the pass rate of k model samples each (the first sample_size "
                      "scored, scores cached per problem, tests and model/k/T/prompt), the tests the differential "
                      "round grew, and the model's passing sample: the table the release reads.")
def scored_problems(context: dg.AssetExecutionContext, config: DifficultyRunConfig, sampler: SamplerResource,
                    evaluator: EvaluatorResource, verified_problems: Rows):
    settings = to_dataclass(DifficultyConfig, config)
    cache = ScoreCache(f"{data_root()}/cache/difficulty_scores.parquet")
    started = time.monotonic()
    with Pulse(context.log.info, f"difficulty: starting the {sampler.backend} sampler (a first run converts the model; "
                                 "vLLM builds its engine)"):
        model = sampler.make_sampler()
    with model:
        startup_s = round(time.monotonic() - started, 2)  # model load; vLLM's engine start
        problems, stats = score_problems(verified_problems, model, settings, cache, progress=context.log.info,
                                         backend=evaluator.make_backend())
    rated = [p for p in problems if p["pass_rate"] is not None]
    context.add_output_metadata({
        **table_metadata(problems), **difficulty_metadata(dict(Counter(p["difficulty"] for p in rated)), [p["pass_rate"] for p in rated]),
        **stage_metadata(StageResult(problems).count(len(verified_problems), **stats).stats),
        "backend": sampler.backend, "evaluator": evaluator.backend, "model": model.model_id, "startup_s": startup_s,
        "problems_per_s": stats["problems_per_s"], "tokens_per_s": stats["tokens_per_s"],
        "differential_round_by_source": dg.MetadataValue.json(differential_by_source(problems)),
    })
    return rows_to_table(problems, SCORED_SCHEMA)


@dg.asset(
    group_name=GROUP,
    automation_condition=EAGER,
    ins={
        "collect_rejects": ALL_PARTITIONS,
        "process_rejects": ALL_PARTITIONS,
        "filter_rejects": dg.AssetIn(),
        "verify_rejects": dg.AssetIn(),
        "heldout_rejects": dg.AssetIn(),
    },
    description="Every rejected record of every stage, with its source, id and reason.",
)
def rejected_problems(context: dg.AssetExecutionContext, collect_rejects, process_rejects, filter_rejects: Rows,
                      verify_rejects: Rows, heldout_rejects: Rows):
    rows = all_rows(collect_rejects) + all_rows(process_rejects) + filter_rejects + verify_rejects + heldout_rejects
    union = StageResult(rows).count(len(rows), by_stage=dict(Counter(r["stage"] for r in rows)))  # a union: all kept
    context.add_output_metadata({**rejects_metadata(rows), **stage_metadata(union.stats),
                                 "by_stage": dg.MetadataValue.json(union.stats["by_stage"])})
    return rows_to_table(rows, REJECT_SCHEMA)


@dg.asset(group_name=GROUP, automation_condition=EAGER, check_specs=specs("microcoder_dataset", DATASET_CHECKS),
          description="Parquet shards (train: the verified training problems with strong tests; test: the verified "
                      "held-out problems; config unverified: problems whose tests no program has passed; config "
                      "source_tests: problems whose tests were not made strong), dataset card, and verl's RL layout; "
                      "returns the file manifest.")
def microcoder_dataset(context: dg.AssetExecutionContext, config: ShardRunConfig, scored_problems: Rows,
                       rejected_problems: Rows, verified_heldout: Rows, benchmark_problems: Rows):
    out_dir = f"{data_root()}/dataset"
    stages = stage_counts(context.instance, STAGE_ASSETS)
    settings = to_dataclass(ShardConfig, config)
    result = release(scored_problems, rejected_problems, settings, out_dir,
                     heldout=verified_heldout, references=benchmark_problems, stages=stages)
    stats = result.stats
    released = {r["problem_id"] for r in result.kept}
    yield dg.Output(rows_to_table(stats["manifest"], MANIFEST_SCHEMA), metadata={
        "dagster/row_count": len(result.kept), **stage_metadata(stats, omit=("manifest", "card", "card_path")),
        "splits": dg.MetadataValue.json(stats["splits"]),
        "eval_split": stats["eval_split"], "out_of_pass_rate_window": stats.rejected,
        "unverified": stats["splits"]["unverified"], "source_tests": stats["splits"]["source_tests"],
        "model_references": stats["model_references"],
        **({"heldout_groups": dg.MetadataValue.json(stats["heldout_groups"])} if stats["heldout_groups"] is not None else {}),
        **source_mix_metadata([r for r in scored_problems if r["problem_id"] in released]),
        **difficulty_metadata(stats["difficulty"], [r["pass_rate"] for r in result.kept if r.get("pass_rate") is not None]),
        "dataset_dir": dg.MetadataValue.path(out_dir), "card": dg.MetadataValue.md(stats["card"]),
        "card_path": dg.MetadataValue.path(stats["card_path"]),
    })
    yield from dataset_checks(result.kept, benchmark_problems)
    yield unverified_check(result.kept, stats["manifest"], settings.train_on_unverified)
    yield source_tests_check(result.kept, stats["manifest"], settings.train_on_source_tests)
