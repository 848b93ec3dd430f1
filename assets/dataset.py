"""Filter, Verify, Difficulty and the released dataset: assets over all sources together."""


import time
from collections import Counter

import dagster as dg
import polars as pl

from assets.config import run_config_for, to_dataclass
from assets.frames import to_frame, to_rows
from assets.metadata import difficulty_metadata, length_metadata, rejects_metadata, source_mix_metadata, table_metadata
from assets.resources import SamplerResource
from pipeline.difficulty import DifficultyConfig, ScoreCache, in_window, merge_scores, score_problems
from pipeline.filter import CurationConfig, curate, default_benchmarks
from pipeline.paths import data_root
from pipeline.samplers.prompts import build_messages
from pipeline.schema import PROCESSED_SCHEMA, REJECT_SCHEMA, VERIFIED_SCHEMA
from pipeline.heldout import eval_group, heldout_rows
from pipeline.shards import ShardConfig, card_figures, card_markdown, write_card, write_dataset
from pipeline.verify import VerifyConfig, strength_by_source, strength_markdown, verify_rows

GROUP = "dataset"
ALL_PARTITIONS = dg.AssetIn(metadata={"allow_missing_partitions": True})
EAGER = dg.AutomationCondition.eager()  # refresh when inputs change, not through job chains

CurationRunConfig = run_config_for(CurationConfig)
VerifyRunConfig = run_config_for(VerifyConfig)
DifficultyRunConfig = run_config_for(DifficultyConfig)
ShardRunConfig = run_config_for(ShardConfig)


def _concat(partitions: dict[str, pl.DataFrame] | pl.DataFrame) -> pl.DataFrame:
    if isinstance(partitions, pl.DataFrame):
        return partitions
    frames = [frame for _, frame in sorted(partitions.items()) if frame.height]
    return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame(schema=pl.from_arrow(PROCESSED_SCHEMA.empty_table()).schema)


@dg.multi_asset(
    outs={
        "curated_problems": dg.AssetOut(description="All sources together after quality rules, dedup, decontamination and mix.", automation_condition=EAGER),
        "curation_rejects": dg.AssetOut(description="What the Filter stage removed, with the reason and what it matched.", automation_condition=EAGER),
    },
    ins={"processed_problems": ALL_PARTITIONS},
    group_name=GROUP,
)
def curate_problems(context: dg.AssetExecutionContext, config: CurationRunConfig, processed_problems):
    rows = to_rows(_concat(processed_problems))
    result = curate(rows, to_dataclass(CurationConfig, config), default_benchmarks())
    kept = to_frame(result.kept, PROCESSED_SCHEMA)
    rejects = to_frame(result.rejects, REJECT_SCHEMA)
    context.log.info(f"curation: {len(rows)} in -> {kept.height} kept, {rejects.height} rejected")
    yield dg.Output(kept, "curated_problems", metadata={
        **table_metadata(kept), **source_mix_metadata(kept), **length_metadata(kept),
        "input_rows": len(rows), "stats": dg.MetadataValue.json(result.stats),
    })
    yield dg.Output(rejects, "curation_rejects", metadata=rejects_metadata(rejects))


@dg.multi_asset(
    outs={
        "verified_problems": dg.AssetOut(description="Problems whose tests a reference solution passes; contradicting tests dropped, time limits from the references, test strength from known-wrong programs.", automation_condition=EAGER),
        "verification_rejects": dg.AssetOut(description="Problems no reference passes, with several valid answers and no checker, or with tests a known-wrong program passes.", automation_condition=EAGER),
    },
    group_name=GROUP,
)
def verify_problems(context: dg.AssetExecutionContext, config: VerifyRunConfig, curated_problems: pl.DataFrame):
    result = verify_rows(to_rows(curated_problems), to_dataclass(VerifyConfig, config), progress=context.log.info)
    kept = to_frame(result.rows, VERIFIED_SCHEMA)
    rejects = to_frame(result.rejects, REJECT_SCHEMA)
    strength = strength_by_source(result.rows, result.rejects)
    yield dg.Output(kept, "verified_problems", metadata={
        **table_metadata(kept), "stats": dg.MetadataValue.json(result.stats),
        "test_strength_by_source": dg.MetadataValue.md(strength_markdown(strength)),
        "test_strength_by_source_json": dg.MetadataValue.json(strength),
    })
    yield dg.Output(rejects, "verification_rejects", metadata=rejects_metadata(rejects))


@dg.asset(group_name=GROUP, automation_condition=EAGER, description="Pass rate of k model samples per verified problem (cached per model/k/T/prompt).")
def difficulty_scores(
    context: dg.AssetExecutionContext, config: DifficultyRunConfig, sampler: SamplerResource, verified_problems: pl.DataFrame
) -> pl.DataFrame:
    settings = to_dataclass(DifficultyConfig, config)
    cache = ScoreCache(f"{data_root()}/cache/difficulty_scores.parquet")
    started = time.monotonic()
    with sampler.make_sampler() as model:
        startup_s = round(time.monotonic() - started, 2)  # model load; vLLM's engine start
        scores, stats = score_problems(to_rows(verified_problems), model, settings, cache, progress=context.log.info)
    frame = pl.DataFrame(scores) if scores else pl.DataFrame(schema={"problem_id": pl.String, "pass_rate": pl.Float64, "difficulty": pl.String})
    histogram = dict(Counter(frame["difficulty"].to_list())) if frame.height else {}
    context.add_output_metadata({
        **table_metadata(frame), **difficulty_metadata(histogram, frame["pass_rate"].to_list() if frame.height else []),
        "stats": dg.MetadataValue.json(stats),
        "backend": sampler.backend, "model": model.model_id, "startup_s": startup_s,
        "problems_per_s": stats["problems_per_s"], "tokens_per_s": stats["tokens_per_s"],
    })
    return frame


@dg.asset(
    group_name=GROUP,
    automation_condition=EAGER,
    ins={
        "collect_rejects": ALL_PARTITIONS,
        "process_rejects": ALL_PARTITIONS,
        "curation_rejects": dg.AssetIn(),
        "verification_rejects": dg.AssetIn(),
    },
    description="Every rejected record of every stage, with its source, id and reason.",
)
def rejected_problems(context: dg.AssetExecutionContext, collect_rejects, process_rejects, curation_rejects, verification_rejects) -> pl.DataFrame:
    frames = [_concat(collect_rejects), _concat(process_rejects), curation_rejects, verification_rejects]
    frame = pl.concat([f for f in frames if f.height], how="diagonal_relaxed") if any(f.height for f in frames) else pl.from_arrow(REJECT_SCHEMA.empty_table())
    context.add_output_metadata({**rejects_metadata(frame), "by_stage": dg.MetadataValue.json(dict(Counter(frame["stage"].to_list())) if frame.height else {})})
    return frame


@dg.asset(group_name=GROUP, automation_condition=EAGER, description="Parquet shards (train/test), dataset card, and verl's RL layout; returns the file manifest.")
def microcoder_dataset(
    context: dg.AssetExecutionContext,
    config: ShardRunConfig,
    verified_problems: pl.DataFrame,
    difficulty_scores: pl.DataFrame,
    rejected_problems: pl.DataFrame,
) -> pl.DataFrame:
    settings = to_dataclass(ShardConfig, config)
    rows = merge_scores(to_rows(verified_problems), to_rows(difficulty_scores))
    kept = [row for row in rows if in_window(row["pass_rate"], settings.min_pass_rate, settings.max_pass_rate)]
    out_dir = f"{data_root()}/dataset"
    # the test split: LiveCodeBench, kept out of training by decontamination (pipeline.heldout)
    heldout = heldout_rows(hub=settings.heldout_hub, after=settings.heldout_after) if settings.eval_split == "heldout" else None
    written = write_dataset(kept, out_dir, build_messages, settings, heldout=heldout)
    rejects = Counter(rejected_problems["reason"].to_list()) if rejected_problems.height else Counter()
    sources: dict[str, dict] = {}
    for row in kept:
        entry = sources.setdefault(row["source"], {"rows": 0, "license": row.get("license")})
        entry["rows"] += 1
    histogram = Counter(str(row["difficulty"]) for row in kept)
    figures = card_figures(out_dir, kept, dict(histogram))
    card = card_markdown(
        {"verified": verified_problems.height, "released": len(kept), "out_of_pass_rate_window": len(rows) - len(kept)},
        dict(rejects), sources, dict(histogram), written.counts, figures=figures,
        test_strength=strength_markdown(strength_by_source(
            to_rows(verified_problems), to_rows(rejected_problems.filter(pl.col("stage") == "verify")) if rejected_problems.height else [])),
    )
    card_url = write_card(out_dir, card)
    manifest = pl.DataFrame(
        [{"split": s, "layout": "canonical", "path": p} for s, paths in written.files.items() for p in paths]
        + [{"split": s, "layout": "verl", "path": p} for s, p in written.verl_files.items()]
    )
    context.add_output_metadata({
        "dagster/row_count": len(kept), "splits": dg.MetadataValue.json(written.counts),
        "eval_split": settings.eval_split,
        **({"heldout_groups": dg.MetadataValue.json(dict(Counter(eval_group(r) for r in heldout)))} if heldout is not None else {}),
        **source_mix_metadata(verified_problems.filter(pl.col("problem_id").is_in([r["problem_id"] for r in kept]))),
        **difficulty_metadata(dict(histogram), [r["pass_rate"] for r in kept if r.get("pass_rate") is not None]),
        "dataset_dir": dg.MetadataValue.path(out_dir), "card": dg.MetadataValue.md(card), "card_path": dg.MetadataValue.path(card_url),
    })
    return manifest
