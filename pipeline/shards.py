"""The released dataset: size-capped Parquet shards, a deterministic train/test split, a dataset
card, and the same rows in verl's RL Parquet layout.

Layout under the output directory (a local path or fsspec URL)::

    README.md                                 dataset card (Hugging Face YAML header: configs)
    figures/*.png                             the card's figures (source mix, difficulty, lengths)
    data/{train,test}-00000-of-0000N.parquet  canonical rows
    unverified/train-00000-of-0000N.parquet   config ``unverified``: problems whose tests no program
                                              has passed (pipeline.model_references), not in train
    source_tests/train-00000-of-0000N.parquet config ``source_tests``: problems whose tests were not
                                              made strong (pipeline.strong_tests), not in train
    verl/{train,test}.parquet                 verl's RL layout (data.train_files / data.val_files)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.schema import DATASET_SCHEMA, INTERNAL_COLUMNS, Tests, rows_to_table
from pipeline.stage import StageStats
from pipeline.strong_tests import REASONS, SOURCE_TESTS

ABILITY = "code"
SPLITS = ("train", "test")
UNVERIFIED = "unverified"  # the config (and the rows' ``split``) of the problems no program has passed
APART = (UNVERIFIED, SOURCE_TESTS)  # configs released beside the default one, never in train


@dataclass
class ShardConfig:
    # test split: "heldout" = the verified rows of the sources whose role is heldout (LiveCodeBench;
    # never trained on, date-split on the hub release); "hash" = a random test_fraction of the
    # released problems (only if asked for)
    eval_split: Literal["heldout", "hash"] = "heldout"
    heldout_after: str = ""  # ISO contest date: held-out problems from this date on ("" = all)
    test_fraction: float = 0.1
    split_seed: str = "microcoder"
    max_rows_per_shard: int = 100_000
    max_bytes_per_shard: int = 256 * 1024**2
    # Training-set pass-rate window, inclusive; default drops problems the model always solves.
    min_pass_rate: float = 0.0
    max_pass_rate: float = 0.999999
    # Problems whose tests no program has passed (no reference, no passing model sample) go to the
    # `unverified` config; true puts them in the train split (and verl's train file) with the rest.
    train_on_unverified: bool = False
    # Problems whose tests were not made strong (pipeline.strong_tests) go to the `source_tests`
    # config; true puts them in the train split with the rest.
    train_on_source_tests: bool = False


def split_of(problem_id: str, test_fraction: float, seed: str = "microcoder") -> str:
    """Deterministic split from a hash of the id: stable across runs and when rows are added."""
    bucket = int(hashlib.sha256(f"{seed}:{problem_id}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if bucket < test_fraction else "train"


def chunk_table(table: pa.Table, max_rows: int, max_bytes: int) -> list[pa.Table]:
    """Consecutive slices, each within both caps (a single oversized row still gets a shard)."""
    if table.num_rows == 0:
        return [table]
    bytes_per_row = max(1, table.nbytes // table.num_rows)
    rows_per_shard = max(1, min(max_rows, max_bytes // bytes_per_row))
    return [table.slice(offset, rows_per_shard) for offset in range(0, table.num_rows, rows_per_shard)]


def _write(table: pa.Table, url: str) -> None:
    fs, path = fsspec.core.url_to_fs(url)
    fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    with fs.open(path, "wb") as handle:
        pq.write_table(table, handle, compression="zstd")


def to_verl_row(row: dict[str, Any], split: str, index: int, build_messages: Callable[..., list[dict[str, str]]],
                data_source: str | None = None) -> dict[str, Any]:
    """One row in verl's RL layout; the reward reads the canonical tests from ``ground_truth``.
    ``data_source`` (default ``microcoder/<source>``) is the group verl reports validation by."""
    tests: Tests = row["tests"]
    return {
        "data_source": data_source or f"microcoder/{row['source']}",
        "prompt": build_messages(row["statement"], row.get("starter_code"), tests.kind, tests.fn_name),
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": tests.to_json()},
        "extra_info": {
            "split": split,
            "index": index,
            "problem_id": row["problem_id"],
            "source": row["source"],
            "difficulty": row.get("difficulty"),
            "pass_rate": row.get("pass_rate"),
            "test_kind": tests.kind,
            "contest_date": row.get("contest_date"),
        },
    }


@dataclass
class WrittenDataset:
    files: dict[str, list[str]]  # split -> canonical shard URLs
    verl_files: dict[str, str]  # split -> verl Parquet URL
    counts: dict[str, int]


def write_dataset(
    rows: list[dict[str, Any]],
    out_dir: str,
    build_messages: Callable[..., list[dict[str, str]]],
    config: ShardConfig | None = None,
    heldout: list[dict[str, Any]] | None = None,
    apart: dict[str, list[dict[str, Any]]] | None = None,
) -> WrittenDataset:
    """``heldout``: the evaluation rows (the held-out sources, verified) for ``eval_split="heldout"``:
    they are the test split and every released row trains; ``"hash"`` splits the released rows.
    ``apart``: per config of :data:`APART`, rows written apart (canonical layout only): in neither split."""
    from pipeline.heldout import eval_group

    config = config or ShardConfig()
    out_dir = out_dir.rstrip("/")
    by_split: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    hashed = config.eval_split == "hash"
    for row in sorted(rows, key=lambda r: r["problem_id"]):
        split = split_of(row["problem_id"], config.test_fraction, config.split_seed) if hashed else "train"
        by_split[split].append({**row, "split": split})
    if not hashed:
        by_split["test"] = [{**row, "split": "test"} for row in sorted(heldout or [], key=lambda r: r["problem_id"])]
    files: dict[str, list[str]] = {}
    verl_files: dict[str, str] = {}
    counts: dict[str, int] = {}
    for name in APART:
        rows_apart = [{**row, "split": name} for row in sorted((apart or {}).get(name, []), key=lambda r: r["problem_id"])]
        files[name] = _write_shards(rows_apart, f"{out_dir}/{name}/train", config)
        counts[name] = len(rows_apart)
    for split, split_rows in by_split.items():
        files[split] = _write_shards(split_rows, f"{out_dir}/data/{split}", config)
        verl_rows = [to_verl_row(row, split, i, build_messages,
                                 eval_group(row) if split == "test" and not hashed else None)
                     for i, row in enumerate(split_rows)]
        verl_table = pa.Table.from_pylist(verl_rows) if verl_rows else pa.table({"data_source": pa.array([], pa.string())})
        verl_files[split] = f"{out_dir}/verl/{split}.parquet"
        _write(verl_table, verl_files[split])
    return WrittenDataset(files, verl_files, {**{split: len(r) for split, r in by_split.items()}, **counts})


def _write_shards(rows: list[dict[str, Any]], prefix: str, config: ShardConfig) -> list[str]:
    """Canonical rows as size-capped shards ``<prefix>-NNNNN-of-NNNNN.parquet`` (one, empty, for no rows)."""
    released = [{k: v for k, v in row.items() if k not in INTERNAL_COLUMNS} for row in rows]  # pipeline-only columns stay behind
    shards = chunk_table(rows_to_table(released, DATASET_SCHEMA), config.max_rows_per_shard, config.max_bytes_per_shard)
    urls = [f"{prefix}-{number:05d}-of-{len(shards):05d}.parquet" for number in range(len(shards))]
    for shard, url in zip(shards, urls):
        _write(shard, url)
    return urls


def problem_ids(url: str, layout: str) -> set[str]:
    """The problem ids in one released file (``layout``: "canonical" or "verl", as in the manifest)."""
    column = "problem_id" if layout == "canonical" else "extra_info"
    fs, path = fsspec.core.url_to_fs(url)
    with fs.open(path, "rb") as handle:
        table = pq.read_table(handle)
    if column not in table.column_names:  # an empty verl file has no extra_info
        return set()
    values = table.column(column).to_pylist()
    return {v if layout == "canonical" else v["problem_id"] for v in values}


def write_card(out_dir: str, card_markdown: str) -> str:
    url = f"{out_dir.rstrip('/')}/README.md"
    header = "\n".join(
        [
            "---",
            "configs:",
            "- config_name: default",
            "  data_files:",
            *[f"  - split: {split}\n    path: data/{split}-*" for split in SPLITS],
            *[f"- config_name: {name}\n  data_files:\n  - split: train\n    path: {name}/train-*" for name in APART],
            "---",
            "",
        ]
    )
    with fsspec.open(url, "w", encoding="utf-8") as handle:
        handle.write(header + card_markdown)
    return url


def card_figures(out_dir: str, rows: list[dict[str, Any]], difficulty_histogram: dict[str, int]) -> dict[str, str]:
    """Write the card's PNG figures under ``<out_dir>/figures/``; returns ``{title: markdown}``
    with paths relative to README.md, ready for :func:`card_markdown`'s ``figures``."""
    from collections import Counter

    from pipeline.plots import bar_png, histogram_png

    pngs = {
        ("Source mix", "source_mix"): bar_png(dict(Counter(r["source"] for r in rows).most_common()), "rows per source"),
        ("Difficulty", "difficulty"): bar_png(difficulty_histogram, "problems per difficulty (model pass rate)"),
        ("Statement length", "statement_length"): histogram_png(
            [len(r["statement"]) for r in rows if r.get("statement")], 30, "statement length (chars)"
        ),
        ("Tests per problem", "tests_per_problem"): histogram_png(
            [r["num_tests"] for r in rows if r.get("num_tests") is not None], 30, "tests per problem"
        ),
    }
    figures: dict[str, str] = {}
    for (title, name), png in pngs.items():
        fs, path = fsspec.core.url_to_fs(f"{out_dir.rstrip('/')}/figures/{name}.png")
        fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with fs.open(path, "wb") as handle:
            handle.write(png)
        figures[title] = f"![{title}](figures/{name}.png)"
    return figures


def card_markdown(
    stages: dict[str, StageStats],
    rejects_per_reason: dict[str, int],
    sources: dict[str, dict[str, Any]],
    difficulty_histogram: dict[str, int],
    split_counts: dict[str, int],
    figures: dict[str, str] | None = None,
    test_strength: str | None = None,
    verify_funnel: str | None = None,
    decontamination: list[dict[str, Any]] | None = None,
    unverified: dict[str, dict[str, int]] | None = None,
    train_on_unverified: bool = False,
    differential: dict[str, dict[str, int]] | None = None,
    source_tests: dict[str, dict[str, int]] | None = None,
    train_on_source_tests: bool = False,
    sample: str | None = None,
) -> str:
    """The dataset card body: what went in, what was rejected and why, what came out.

    ``test_strength``: the markdown table of ``pipeline.verify.strength_markdown`` (per source);
    ``verify_funnel``: that of ``pipeline.verify.report.funnel_markdown``; ``decontamination``:
    per benchmark or held-out source, its problems and the training rows removed as their copies;
    ``unverified``: per source, ``pipeline.model_references.unverified_by_source``; ``differential``:
    per source, ``pipeline.difficulty.differential_by_source``; ``source_tests``: per source and
    reason, ``pipeline.strong_tests.source_tests_by_source``; ``sample``: what part of the sources
    the release covers, where a run sampled them.
    """

    def table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        return "\n".join(lines)

    parts = [
        "# MicroCoder-Dataset",
        "",
        "Hard, clean, verified coding problems for reinforcement learning, built by the MicroCoder "
        "pipeline (Collect -> Process -> Filter -> Verify -> Difficulty). Canonical rows are in "
        "`data/`, verl's RL layout in `verl/`.",
        "",
        *([f"**A sample.** {sample}", ""] if sample else []),
        "## Splits",
        table(("split", "rows"), sorted(split_counts.items())),
        "",
        "## Sources and licences",
        table(("source", "rows", "of them unverified", "licence"),
              [(s, v.get("rows", 0), v.get("unverified", 0), v.get("license") or "") for s, v in sorted(sources.items())]),
        "",
        "## Rows per stage",
        table(("stage", "rows in", "kept", "rejected"), [(name, s.input, s.kept, s.rejected) for name, s in stages.items()]),
        "",
        "## Rejects per reason",
        table(("reason", "rows"), sorted(rejects_per_reason.items(), key=lambda kv: -kv[1])),
        "",
        *(["## Decontamination (training rows removed as copies of a benchmark or held-out problem)",
           table(("benchmark source", "problems", "training rows removed"),
                 [(d["benchmark"], d["problems"], d["training_rows_removed"]) for d in decontamination]), ""]
          if decontamination else []),
        *(["## Problems whose tests no source reference passed",
           "A model's sample that passed every test is the reference of such a problem (`solutions`, with "
           "`solution_origins` `model:<model>`; a source's reference says `source`). The rest are unverified: "
           + ("in the `train` split, as the release's `train_on_unverified` setting asks."
              if train_on_unverified else
              f"in the `{UNVERIFIED}` config (`datasets.load_dataset(<this folder>, \"{UNVERIFIED}\")`), "
              "not in `train` nor in `verl/train.parquet`; the release's `train_on_unverified` setting puts them back."),
           "",
           table(("source", "no source reference passed", "model-written reference", "unverified"),
                 [(s, c["without_reference"], c["model_reference"], c["unverified"]) for s, c in unverified.items()]), ""]
          if unverified else []),
        *(["## Problems whose tests were made strong, and those whose were not",
           "`train` holds problems whose tests went through generation (generated tests selected, or the source's "
           "tests rejected every adversary generation ran), or whose source tests rejected every known-wrong program "
           "and every mutant Verify ran. The rest are "
           + ("in the `train` split, as the release's `train_on_source_tests` setting asks."
              if train_on_source_tests else
              f"in the `{SOURCE_TESTS}` config (`datasets.load_dataset(<this folder>, \"{SOURCE_TESTS}\")`), not in "
              "`train` nor in `verl/train.parquet`; the release's `train_on_source_tests` setting puts them back."),
           "Reasons: `examples_only`: three tests or fewer, some printed in the statement (or only such tests); "
           "`not_measured`: no generated test, and no mutant or known-wrong program ran on them; `adversary_passes`: "
           "a mutant, the sample hardcoder or a known-wrong program passes them.",
           "",
           table(("source", "strong (train)", *REASONS), [(s, c.get("strong", 0), *(c.get(r, 0) for r in REASONS))
                                                         for s, c in source_tests.items()]), ""]
          if source_tests else []),
        *(["## Verify funnel and generated tests (per source)", verify_funnel, ""] if verify_funnel else []),
        *(["## Test strength (known-incorrect programs the tests reject, per source)", test_strength, ""] if test_strength else []),
        *(["## Differential round (tests the model's samples earned, per source)",
           "A sample that passed every test but disagreed with the references on an answered input generation "
           "had not selected: the fewest such inputs that reject every such sample were added to the tests, "
           "and the sample no longer counts as passing.",
           "",
           table(("source", "problems scored", "problems given tests", "inputs added"),
                 [(s, d["scored"], d["problems_grown"], d["inputs_added"]) for s, d in differential.items()]), ""]
          if differential else []),
        "## Difficulty (model pass rate)",
        table(("bucket", "rows"), list(difficulty_histogram.items())),
        "",
    ]
    for title, markdown in (figures or {}).items():
        parts += [f"## {title}", markdown, ""]
    parts.append("Loading: `datasets.load_dataset('parquet', data_files={'train': 'data/train-*.parquet'})` or `polars.read_parquet('data/*.parquet')`.")
    return "\n".join(parts) + "\n"
