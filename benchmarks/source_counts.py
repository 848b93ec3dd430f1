"""Per-source accounting of Collect + Process: every record is a kept row or a reject.

    .venv/bin/python benchmarks/source_counts.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.process import process_rows  # noqa: E402
from pipeline.sources import collect, default_specs  # noqa: E402


def main() -> None:
    print("| source | files | records | collect rejects | processed | process rejects (by reason) |")
    print("|---|---|---|---|---|---|")
    for name, spec in sorted(default_specs().items()):
        collected = collect(spec)
        processed = process_rows(collected.kept)
        assert len(collected.kept) + len(collected.rejects) == collected.stats.input
        assert len(processed.kept) + len(processed.rejects) == len(collected.kept)
        c_reasons = dict(Counter(r["reason"] for r in collected.rejects))
        p_reasons = dict(Counter(r["reason"] for r in processed.rejects))
        files = ", ".join(Path(f).name for f in spec.data_files)
        print(f"| {name} | {files} | {collected.stats.input} | {len(collected.rejects)} {c_reasons or ''} "
              f"| {len(processed.kept)} | {len(processed.rejects)} {p_reasons or ''} |")


if __name__ == "__main__":
    main()
