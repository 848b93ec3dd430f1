"""Collect and Process: per-source assets over the pipeline library."""


import polars as pl
import dagster as dg

from assets.frames import to_frame, to_rows
from assets.metadata import length_metadata, rejects_metadata, table_metadata
from assets.resources import SamplerResource, TranslationResource
from assets.sources import source_partitions, spec_for
from pipeline.process import process_rows
from pipeline.process.checkers import checker_counts
from pipeline.schema import PROBLEM_SCHEMA, PROCESSED_SCHEMA, REJECT_SCHEMA
from pipeline.sources import collect

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
    rows = to_frame(result.rows, PROBLEM_SCHEMA)
    rejects = to_frame(result.rejects, REJECT_SCHEMA)
    context.log.info(f"{spec.name}: {result.records} records -> {rows.height} rows, {rejects.height} rejects")
    yield dg.Output(rows, "raw_problems", metadata={**table_metadata(rows), "source_records": result.records})
    yield dg.Output(rejects, "collect_rejects", metadata=rejects_metadata(rejects))


@dg.multi_asset(
    outs={
        "processed_problems": dg.AssetOut(description="Cleaned statements, canonical tests, English only."),
        "process_rejects": dg.AssetOut(description="Rows the Process stage rejected, with the reason."),
    },
    ins={"raw_problems": dg.AssetIn()},
    partitions_def=source_partitions,
    group_name=GROUP,
)
def process_source(context: dg.AssetExecutionContext, raw_problems: pl.DataFrame, translation: TranslationResource, sampler: SamplerResource):
    rows_in = to_rows(raw_problems)
    translator = translation.make_translator(sampler)
    try:
        result = process_rows(rows_in, translator=translator, max_translations=translation.max_statements)
    finally:
        if translator is not None:  # a model started for this partition stops with it (a vLLM engine holds GBs)
            translator.sampler.close()
    rows = to_frame(result.rows, PROCESSED_SCHEMA)
    rejects = to_frame(result.rejects, REJECT_SCHEMA)
    context.log.info(f"{context.partition_key}: {raw_problems.height} rows -> {rows.height} kept, {rejects.height} rejected")
    yield dg.Output(rows, "processed_problems", metadata={**table_metadata(rows), **length_metadata(rows), "input_rows": raw_problems.height,
                                                         "checkers": dg.MetadataValue.json(checker_counts(result.rows))})
    yield dg.Output(rejects, "process_rejects", metadata=rejects_metadata(rejects))
