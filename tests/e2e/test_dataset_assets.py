"""Materialize the real graph from raw sources to ``microcoder_dataset`` on a few local sources."""

from __future__ import annotations

import polars as pl
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.model]

def test_dataset_job_succeeds_with_passing_checks(built):
    _, result = built
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    assert evaluations, "asset checks ran"
    failed = [e.check_name for e in evaluations if not e.passed]
    assert not failed, failed


def test_every_dataset_asset_reports_its_stage_counts_the_same_way(built, built_instance):
    """Each asset of the ingest and dataset groups carries the stage keys, with counts that add up
    (the training asset is a run, not a stage over rows)."""
    from assets.definitions import defs
    from assets.metadata import STAGE_KEYS

    graph = defs.resolve_asset_graph()
    keys = [k for k in graph.get_all_asset_keys() if graph.get(k).group_name in ("ingest", "dataset")]
    assert len(keys) == 15
    for key in keys:
        event = built_instance.get_latest_materialization_event(key)
        assert event is not None, key
        metadata = event.asset_materialization.metadata
        assert set(STAGE_KEYS) <= set(metadata), (key, sorted(metadata))
        rows_in, kept, rejected = (metadata[k].value for k in ("rows_in", "rows_kept", "rows_rejected"))
        assert rejected == sum(metadata["stage_reasons"].value.values()), key
        if key.to_user_string() != "microcoder_dataset":  # a window
            assert kept + rejected == rows_in, key


def test_the_roles_shape_the_lineage_and_the_card(built, built_instance):
    """Benchmarks and held-out sets flow through the graph as inputs: Filter passes them on, the
    held-out ones are verified into the test split, the card says what removed what, and the
    release's check finds no benchmark problem in a training shard."""
    import dagster as dg

    root, result = built
    meta = {k: built_instance.get_latest_materialization_event(dg.AssetKey(k)).asset_materialization.metadata
            for k in ("filtered_problems", "benchmark_problems", "verified_heldout", "microcoder_dataset")}
    roles = meta["filtered_problems"]["rows_by_role"].value
    assert set(roles["benchmark"]) == {"humaneval"} and set(roles["heldout"]) == {"livecodebench"}
    assert set(roles["train"]) == {"mbpp", "leetcode", "taco", "xcodeeval"}
    assert meta["benchmark_problems"]["rows_in"].value == 164 + 879
    assert meta["microcoder_dataset"]["splits"].value["test"] == meta["verified_heldout"]["rows_kept"].value > 0
    card = (root / "dataset" / "README.md").read_text()
    assert "## Decontamination" in card and "| livecodebench | 879 |" in card
    filtered = meta["filtered_problems"]  # the card's rows per stage are the stages' own counts
    assert (f"| filter | {filtered['rows_in'].value} | {filtered['rows_kept'].value} | "
            f"{filtered['rows_rejected'].value} |") in card
    assert "| collect | " in card and "| process | " in card and "| release | " in card
    check = next(e for e in result.get_asset_check_evaluations() if e.check_name == "no_benchmark_in_training")
    assert check.passed and check.metadata["benchmark_problems"].value == 164 + 879
    train = pl.read_parquet(root / "dataset" / "data" / "train-*.parquet")
    assert not set(train["source"].unique()) & {"humaneval", "livecodebench", "mbpp_test"}


def test_problems_no_program_passed_are_released_apart(built):
    """xCodeEval gives no references: its problems go to the `unverified` config (unless a model's
    sample passes every test), never to train nor verl's train file; the card counts them."""
    root, result = built
    apart = pl.read_parquet(root / "dataset" / "unverified" / "train-*.parquet")
    assert apart.height > 0 and set(apart["source"]) == {"xcodeeval"}
    assert not apart["verified"].any() and set(apart["split"]) == {"unverified"}
    train = pl.read_parquet(root / "dataset" / "data" / "train-*.parquet")
    verl = pl.read_parquet(root / "dataset" / "verl" / "train.parquet")
    trained = set(train["problem_id"]) | {e["problem_id"] for e in verl["extra_info"]}
    assert not trained & set(apart["problem_id"])
    assert train["verified"].all()
    for row in train.iter_rows(named=True):  # every reference says where it comes from
        assert len(row["solution_origins"]) == len(row["solutions"]) > 0
    model_written = train.filter(pl.col("solution_origins").list.eval(pl.element().str.starts_with("model:")).list.any())
    check = next(e for e in result.get_asset_check_evaluations() if e.check_name == "no_unverified_in_training")
    assert check.passed and check.metadata["unverified"].value == apart.height
    card = (root / "dataset" / "README.md").read_text()
    assert "- config_name: unverified" in card and f"| unverified | {apart.height} |" in card
    assert f"| xcodeeval | {apart.height + model_written.height} | {model_written.height} | {apart.height} |" in card


def test_train_holds_only_problems_whose_tests_were_made_strong(built):
    """The shared build generates tests for 4 problems per source: the rest keep only their
    source's tests, which no adversary measured, so they are released in the `source_tests` config
    with their reason, never in train nor verl's train file; the check reads the train files back."""
    from pipeline.schema import Tests
    from pipeline.strong_tests import weakness

    root, result = built
    apart = pl.read_parquet(root / "dataset" / "source_tests" / "train-*.parquet")
    assert apart.height > 0 and set(apart["split"]) == {"source_tests"} and apart["verified"].all()
    train = pl.read_parquet(root / "dataset" / "data" / "train-*.parquet")
    assert train.height > 0
    for row in train.iter_rows(named=True):
        assert weakness({**row, "tests": Tests.from_json(row["tests"])}) is None, row["problem_id"]
        assert row["generated_tests"] > 0 or row["differential_added"]
    verl = pl.read_parquet(root / "dataset" / "verl" / "train.parquet")
    assert {e["problem_id"] for e in verl["extra_info"]} == set(train["problem_id"])
    check = next(e for e in result.get_asset_check_evaluations() if e.check_name == "no_source_tests_in_training")
    assert check.passed and check.metadata["source_tests"].value == apart.height
    card = (root / "dataset" / "README.md").read_text()
    assert "- config_name: source_tests" in card and f"| source_tests | {apart.height} |" in card
    assert "## Problems whose tests were made strong, and those whose were not" in card


def test_shards_load_with_datasets_and_polars(built):
    import datasets

    root, _ = built
    data_dir = root / "dataset" / "data"
    train = datasets.load_dataset("parquet", data_files={"train": str(data_dir / "train-*.parquet")}, split="train")
    frame = pl.read_parquet(data_dir / "*.parquet")
    assert len(train) > 0 and frame.height >= len(train)
    assert set(frame["split"].unique().to_list()) == {"train", "test"}
    assert frame["problem_id"].n_unique() == frame.height
    assert (root / "dataset" / "README.md").read_text().count("## Rejects per reason") == 1


def test_verl_layout(built):
    root, _ = built
    verl = pl.read_parquet(root / "dataset" / "verl" / "train.parquet")
    row = verl.row(0, named=True)
    assert row["ability"] == "code"
    assert row["prompt"][0]["role"] == "system" and row["prompt"][-1]["role"] == "user"
    assert '"kind"' in row["reward_model"]["ground_truth"]
    assert row["extra_info"]["problem_id"]


def test_scored_problems_are_the_verified_problems_with_the_samples_pass_rate(built):
    """Difficulty returns problems, not scores: every verified problem, the sample scored (with the
    model that scored it), one table the release reads."""
    root, _ = built
    problems = pl.read_parquet(root / "assets" / "scored_problems.parquet")
    verified = pl.read_parquet(root / "assets" / "verified_problems.parquet")
    assert sorted(problems["problem_id"].to_list()) == sorted(verified["problem_id"].to_list())
    scored = problems.filter(pl.col("pass_rate").is_not_null())
    assert scored.height == 3 and scored["difficulty_model"].null_count() == 0
    assert all(0.0 <= r <= 1.0 for r in scored["pass_rate"].to_list())
    assert problems.filter(pl.col("pass_rate").is_null())["difficulty"].null_count() == problems.height - 3
