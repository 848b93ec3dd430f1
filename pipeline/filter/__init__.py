"""Filter stage: quality rules, decontamination, exact + MinHash-LSH dedup, difficulty mix."""

from pipeline.filter.decontaminate import BenchmarkSet, NgramIndex
from pipeline.filter.quality import QualityConfig
from pipeline.filter.roles import RoleSplit, benchmark_sets, split_by_role
from pipeline.filter.rows import FilterConfig, filter_rows, filter_sources, find_contamination

__all__ = ["BenchmarkSet", "FilterConfig", "NgramIndex", "QualityConfig", "RoleSplit", "benchmark_sets",
           "filter_rows", "filter_sources", "find_contamination", "split_by_role"]
