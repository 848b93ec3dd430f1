"""Release: the verified, scored problems in the training window, written as Parquet shards, verl's
RL layout and a dataset card; the held-out sources, verified, are the test split (never trained on).
Not a list of per-row steps: the window is per row, but the shards, the card and the splits are
written over all rows at once.

A problem outside the pass-rate window (one the model always or never solves) is not released; it
is returned as a reject (stage ``release``) so every verified problem is accounted for. A problem
whose tests no program has passed, even after the model's samples (:mod:`pipeline.model_references`),
is released apart, in the ``unverified`` config, unless ``train_on_unverified``; a verified problem
whose tests were not made strong (:mod:`pipeline.strong_tests`), in the ``source_tests`` config,
unless ``train_on_source_tests``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pipeline.difficulty import differential_by_source, in_window
from pipeline.filter.roles import decontaminated_against
from pipeline.heldout import eval_group, from_date
from pipeline.model_references import model_written, split_unverified, unverified_by_source, with_origins
from pipeline.samplers.prompts import build_messages
from pipeline.shards import UNVERIFIED, ShardConfig, card_figures, card_markdown, write_card, write_dataset
from pipeline.stage import FILTER, VERIFY, Row, StageResult, StageStats, reject
from pipeline.strong_tests import SOURCE_TESTS, source_tests_by_source, split_source_tests
from pipeline.verify import strength_by_source, strength_markdown
from pipeline.verify.report import funnel_by_source, funnel_markdown

RELEASE = "release"
OUTSIDE_SAMPLE = "outside_sample"  # Filter's reason for the problems a sampled run left out


def sample_note(rejected: Sequence[Row]) -> str | None:
    """What part of the training sources a sampled run released, and how to release everything;
    None when Filter took no sample."""
    outside = [r for r in rejected if r["stage"] == FILTER and r["reason"] == OUTSIDE_SAMPLE]
    if not outside:
        return None
    cap = json.loads(outside[0]["detail"] or "{}").get("sample_per_source")
    per_source = ", ".join(f"{source} {n:,}" for source, n in sorted(Counter(r["source"] for r in outside).items()))
    return (f"This release is a sample: at most {cap} problems of each training source went through every stage past "
            f"Filter, and the other {len(outside):,} were rejected as `{OUTSIDE_SAMPLE}` ({per_source}). Every problem: "
            "`microcoder run --sample -1`, or materialize from the Dagster UI with its default config "
            "(`filter_problems` `sample_per_source` empty).")


def release(problems: list[Row], rejected: list[Row], config: ShardConfig, out_dir: str, *,
            heldout: Sequence[Row] = (), references: Sequence[Row] = (),
            stages: dict[str, StageStats] | None = None) -> StageResult:
    """Write the dataset under ``out_dir``; ``stats`` holds the split counts, the file manifest and the card.

    ``problems``: the difficulty stage's (:func:`pipeline.difficulty.score_problems`: verified rows
    with their pass rate, the differential round's tests and the model's passing sample; rows with
    no score, such as Verify's own in a run without a model, are released unscored); ``rejected``: every stage's rejects (the card reports them per reason); ``heldout``: the
    verified held-out rows (the test split); ``references``: the benchmark and held-out rows the
    training rows were decontaminated against (the card counts what each removed); ``stages``:
    the earlier stages' counts, in order (the card's rows per stage, with the release's own).
    """
    rows = [with_origins({"pass_rate": None, "difficulty": None, "differential_added": None, **row}) for row in problems]
    kept, rejects = [], []
    for row in rows:
        if in_window(row["pass_rate"], config.min_pass_rate, config.max_pass_rate):
            kept.append(row)
        else:
            rejects.append(reject(RELEASE, row, "outside_pass_rate_window",
                                  f"pass_rate {row['pass_rate']} not in [{config.min_pass_rate}, {config.max_pass_rate}]"))
    heldout = [with_origins(r) for r in from_date(list(heldout), config.heldout_after)] if config.eval_split == "heldout" else None
    verified_rows, unverified = split_unverified(kept, config.train_on_unverified)
    train, weak = split_source_tests(verified_rows, config.train_on_source_tests)
    written = write_dataset(train, out_dir, build_messages, config, heldout=heldout,
                            apart={UNVERIFIED: unverified, SOURCE_TESTS: weak})
    sources: dict[str, dict[str, Any]] = {}
    for row in kept:  # both configs: every released row's licence
        entry = sources.setdefault(row["source"], {"rows": 0, "unverified": 0, "license": row.get("license")})
        entry["rows"] += 1
        entry["unverified"] += not row.get("verified")
    histogram = dict(Counter(str(row["difficulty"]) for row in train))
    verify_rejects = [r for r in rejected if r["stage"] == VERIFY]
    own = StageStats(len(problems), len(kept), len(rejects), dict(Counter(r["reason"] for r in rejects)))
    card = card_markdown(
        {**(stages or {}), RELEASE: own},
        dict(Counter(r["reason"] for r in rejected)), sources, histogram, written.counts,
        figures=card_figures(out_dir, train, histogram),
        test_strength=strength_markdown(strength_by_source(problems, verify_rejects)),
        verify_funnel=funnel_markdown(funnel_by_source(problems, verify_rejects)),
        decontamination=decontaminated_against(references, rejected),
        unverified=unverified_by_source(kept), train_on_unverified=config.train_on_unverified,
        differential=differential_by_source(rows),
        source_tests=source_tests_by_source(verified_rows), train_on_source_tests=config.train_on_source_tests,
        sample=sample_note(rejected),
    )
    manifest = ([{"split": s, "layout": "canonical", "path": p} for s, paths in written.files.items() for p in paths]
                + [{"split": s, "layout": "verl", "path": p} for s, p in written.verl_files.items()])
    return StageResult(kept, rejects).count(
        len(problems), splits=written.counts, manifest=manifest, difficulty=histogram, card=card,
        model_references=sum(1 for r in kept if model_written(r)),
        card_path=write_card(out_dir, card), eval_split=config.eval_split,
        heldout_groups=dict(Counter(eval_group(r) for r in heldout)) if heldout is not None else None,
    )
