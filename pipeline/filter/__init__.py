"""Filter stage: quality rules, decontamination, exact + MinHash-LSH dedup, difficulty mix."""

from pipeline.filter.decontaminate import BenchmarkSet, NgramIndex, default_benchmarks
from pipeline.filter.quality import QualityConfig
from pipeline.filter.rows import DEFAULT_SOURCE_PRIORITY, FilterConfig, filter_rows, find_contamination

__all__ = ["DEFAULT_SOURCE_PRIORITY", "BenchmarkSet", "FilterConfig", "NgramIndex", "QualityConfig",
           "default_benchmarks", "filter_rows", "find_contamination"]
