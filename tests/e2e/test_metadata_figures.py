"""The figures people read in the UI: metadata on the real materializations, and the card's PNGs."""

from __future__ import annotations

import base64
import re

import dagster as dg
import polars as pl

from assets.metadata import difficulty_metadata, length_metadata, source_mix_metadata, training_curves_metadata
from pipeline.shards import card_figures

DATA_URI = re.compile(r"!\[[^\]]*\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)")


def _png_of(value: dg.MetadataValue) -> bytes:
    assert isinstance(value, dg.MarkdownMetadataValue)
    match = DATA_URI.fullmatch(value.md_str)
    assert match is not None, value.md_str[:80]
    png = base64.b64decode(match.group(1))
    assert png.startswith(b"\x89PNG")
    return png


def test_figures_from_the_built_assets(built):
    root, _ = built
    verified = pl.read_parquet(root / "assets" / "verified_problems.parquet")
    mix = source_mix_metadata(verified.to_dicts())
    _png_of(mix["source_mix"])
    counts = mix["source_mix_json"].data
    assert counts == dict(verified.group_by("source").len().iter_rows())
    lengths = length_metadata(verified.to_dicts())
    _png_of(lengths["statement_chars"])
    _png_of(lengths["tests_per_problem"])
    assert lengths["statement_chars_median"] > 0
    scores = pl.read_parquet(root / "assets" / "scored_problems.parquet").filter(pl.col("pass_rate").is_not_null())
    histogram = dict(scores.group_by("difficulty").len().iter_rows())
    difficulty = difficulty_metadata(histogram, scores["pass_rate"].to_list())
    _png_of(difficulty["difficulty_chart"])
    _png_of(difficulty["pass_rate_chart"])


def test_training_curves_pick_the_logged_names():
    steps = [{"critic/score/mean": 0.1 * i, "microcoder/diversity": 0.5, "response_length/mean": 100.0 + i} for i in range(4)]
    curves = training_curves_metadata(steps)
    assert set(curves) == {"curve_reward", "curve_diversity", "curve_response_length"}  # no accuracy logged
    for value in curves.values():
        _png_of(value)


def test_card_figures_sit_beside_the_card(built):
    root, _ = built
    card = (root / "dataset" / "README.md").read_text()
    rows = pl.read_parquet(root / "dataset" / "data" / "*.parquet").to_dicts()
    out = root / "card-figures-check"
    figures = card_figures(str(out), rows, {"hard": 1, "easy": 2})
    for title, markdown in figures.items():
        relative = re.fullmatch(r"!\[[^\]]*\]\((figures/[a-z_]+\.png)\)", markdown).group(1)
        assert (out / relative).read_bytes().startswith(b"\x89PNG"), title
    if "figures/" in card:  # wired into microcoder_dataset: the card's images exist beside it
        for relative in re.findall(r"\]\((figures/[a-z_]+\.png)\)", card):
            assert (root / "dataset" / relative).exists()
