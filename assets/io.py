"""Parquet IO manager on Dagster's UPathIOManager: local paths and any fsspec URL alike.

The edge where rows are stored and read: an asset returns an Arrow table (its rows through
``pipeline.schema.rows_to_table``, tests serialized once), and a downstream asset receives plain
rows with canonical tests parsed once (``pipeline.schema.rows_from_table``). No other conversion.
"""

from __future__ import annotations

from typing import Any

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
from upath import UPath

from pipeline.paths import data_root
from pipeline.schema import rows_from_table

Rows = list[dict[str, Any]]


class ParquetIOManager(dg.UPathIOManager):
    extension = ".parquet"

    def dump_to_path(self, context: dg.OutputContext, obj: Any, path: UPath) -> None:
        if not isinstance(obj, pa.Table):
            raise TypeError(f"ParquetIOManager stores Arrow tables (pipeline.schema.rows_to_table), got {type(obj).__name__}")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as handle:
            pq.write_table(obj, handle, compression="zstd")
        tmp.rename(path)  # readers never see a half-written file

    def load_from_path(self, context: dg.InputContext, path: UPath) -> Rows:
        with path.open("rb") as handle:
            return rows_from_table(pq.read_table(handle))


def all_rows(partitions: dict[str, Rows] | Rows) -> Rows:
    """The rows of every materialized partition (in partition order), or ``partitions`` itself."""
    if isinstance(partitions, list):
        return partitions
    return [row for _, rows in sorted(partitions.items()) for row in rows]


class ParquetIOManagerFactory(dg.ConfigurableIOManagerFactory):
    """Configurable from the UI; defaults to ``$MICROCODER_DATA/assets``."""

    base_path: str = ""

    def create_io_manager(self, context: dg.InitResourceContext) -> ParquetIOManager:
        base = self.base_path or f"{data_root()}/assets"
        return ParquetIOManager(base_path=UPath(base))
