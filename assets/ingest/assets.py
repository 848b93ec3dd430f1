"""Collect and Process: per-source assets over the pipeline library."""

import dagster as dg

from assets.ingest.partitions import source_partitions
from assets.io import Rows
from assets.metadata import length_metadata, rejects_metadata, stage_metadata, table_metadata
from assets.resources import SamplerResource, TranslationResource
from pipeline.process import process_rows
from pipeline.process.checkers import checker_counts
from pipeline.process.public import only_public
from pipeline.schema import PROBLEM_SCHEMA, PROCESSED_SCHEMA, REJECT_SCHEMA, rows_to_table
from pipeline.sources import collect
from pipeline.sources.discovery import spec_for
from training.progress import Pulse

GROUP = "ingest"


@dg.multi_asset(
    outs={
        "raw_problems": dg.AssetOut(description="Source records mapped to canonical rows, one partition per source."),
        "collect_rejects": dg.AssetOut(description="Source records that could not be mapped, with the reason."),
    },
    partitions_def=source_partitions,
    group_name=GROUP,
)
def collect_source(context: dg.AssetExecutionContext):
    spec = spec_for(context.partition_key)
    result = collect(spec)
    context.log.info(f"{spec.name} ({spec.role}): {result.stats.input} records -> {len(result.kept)} rows, {len(result.rejects)} rejects")
    stats = {**stage_metadata(result.stats), "source_role": spec.role}
    yield dg.Output(rows_to_table(result.kept, PROBLEM_SCHEMA), "raw_problems", metadata={**table_metadata(result.kept), **stats})
    yield dg.Output(rows_to_table(result.rejects, REJECT_SCHEMA), "collect_rejects", metadata={**rejects_metadata(result.rejects), **stats})


@dg.multi_asset(
    outs={
        "processed_problems": dg.AssetOut(description="Cleaned statements, canonical tests, English only."),
        "process_rejects": dg.AssetOut(description="Rows the Process stage rejected, with the reason."),
    },
    ins={"raw_problems": dg.AssetIn()},
    partitions_def=source_partitions,
    group_name=GROUP,
)
def process_source(context: dg.AssetExecutionContext, raw_problems: Rows, translation: TranslationResource, sampler: SamplerResource):
    translator = translation.make_translator(sampler)
    what = f"process: {len(raw_problems):,} rows" + (f", translating up to {translation.max_statements} statements"
                                                     if translator is not None else "")
    try:
        with Pulse(context.log.info, what):
            result = process_rows(raw_problems, translator=translator, max_translations=translation.max_statements)
    finally:
        if translator is not None:  # a model started for this partition stops with it (a vLLM engine holds GBs)
            translator.sampler.close()
    context.log.info(f"{context.partition_key}: {len(raw_problems)} rows -> {len(result.kept)} kept, {len(result.rejects)} rejected")
    stats = {**stage_metadata(result.stats), "source_role": spec_for(context.partition_key).role}
    yield dg.Output(rows_to_table(result.kept, PROCESSED_SCHEMA), "processed_problems", metadata={
        **table_metadata(result.kept), **length_metadata(result.kept), **stats,
        "checkers": dg.MetadataValue.json(checker_counts(result.kept)),
        "only_statement_examples": only_public(result.kept)})  # rows whose every test the statement prints
    yield dg.Output(rows_to_table(result.rejects, REJECT_SCHEMA), "process_rejects", metadata={**rejects_metadata(result.rejects), **stats})
