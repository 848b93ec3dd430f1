"""The main job's progress report (assets.progress): lines and summary built from real materialization metadata.

Fast: the metadata comes from the assets' own helpers (``assets.metadata``), and one tiny job on an
ephemeral instance checks that the report reads events whatever the assets are called.
"""

from __future__ import annotations

import io

import dagster as dg
import pytest

from assets.metadata import rejects_metadata, stage_metadata, table_metadata
from assets.progress import (
    Progress,
    RunReport,
    StepReport,
    finished_line,
    format_duration,
    format_step,
    ingest_eta,
    live_line,
    outputs_table,
    read_events,
    step_eta,
    summary,
)
from pipeline.stage import StageStats


def _stored(metadata: dict) -> dict:
    """Metadata as the instance stores it (``IntMetadataValue``, ``JsonMetadataValue``, ...)."""
    return dict(dg.AssetMaterialization("x", metadata=metadata).metadata)


def _kept(n: int, **extra) -> dict:
    rows = [{"problem_id": f"p{i}", "statement": "s"} for i in range(n)]
    return _stored({**table_metadata(rows), **extra})


def _rejects(reasons: dict[str, int], **extra) -> dict:
    column = [reason for reason, n in reasons.items() for _ in range(n)]
    rows = [{"problem_id": str(i), "reason": reason, "detail": ""} for i, reason in enumerate(column)]
    return _stored({**rejects_metadata(rows), **extra})


def _outputs(read: int, kept: int, reasons: dict[str, int]) -> list[dict]:
    """A stage's two outputs as it stores them: its rows and its rejects, each with the stage's counts."""
    counts = stage_metadata(StageStats(read, kept, sum(reasons.values()), reasons))
    return [_kept(kept, **counts), _rejects(reasons, **counts)]


def _step(name: str, outputs: list[dict], started: float = 0.0, ended: float = 10.0) -> StepReport:
    step = StepReport(name, started=started, ended=ended)
    for metadata in outputs:
        step.add_output(metadata)
    return step


def _partition(source: str, collect: tuple[int, int, dict], process: tuple[int, int, dict], seconds: float = 40.0) -> RunReport:
    report = RunReport(f"ingest[{source}]", "ingest_job", source, run_id="r-" + source, status="ok", started=0.0, ended=seconds)
    records, kept, reasons = collect
    report.steps["collect_source"] = _step("collect_source", _outputs(records, kept, reasons), 0, 10)
    read, kept, reasons = process
    report.steps["process_source"] = _step("process_source", _outputs(read, kept, reasons), 10, seconds)
    return report


def test_step_reads_rows_and_rejects_from_stored_metadata():
    step = _step("process_source", _outputs(790, 701, {"no_tests": 60, "needs_translation": 29}))
    assert (step.rows_in, step.rows_out, step.rejects) == (790, 701, 89)
    assert step.reasons == {"no_tests": 60, "needs_translation": 29}
    assert format_step(step) == "process 790 -> 701 rows, 89 rejects"


def test_an_asset_without_stage_counts_gives_its_rows_or_its_time():
    assert format_step(_step("grpo_checkpoints", [_kept(8)])) == "grpo_checkpoints 8 rows"
    assert format_step(_step("grpo_training_run", [{"steps": 3}], 0, 95)) == "grpo_training_run 1m35s"
    failed = StepReport("collect_source", started=0, ended=1, failed=True)
    assert format_step(failed) == "collect FAILED"


def test_summary_sums_partitions_and_ranks_reasons():
    reports = [
        _partition("taco", (812, 790, {"bad_record": 22}), (790, 701, {"no_tests": 60, "needs_translation": 29})),
        _partition("mbpp", (974, 974, {}), (974, 970, {"no_tests": 4})),
    ]
    union_counts = stage_metadata(StageStats(64, 64, 0))
    union = _step("rejected_problems", [_rejects({"no_tests": 64}, **union_counts, by_stage=dg.MetadataValue.json({}))])
    assert union.aggregate  # only a union of the others' rejects: not counted twice
    dataset = RunReport("dataset_job", "dataset_job", run_id="d", status="ok", started=0, ended=200)
    dataset.steps = {"filter_problems": _step("filter_problems", _outputs(1671, 1500, {"duplicate": 171})),
                     "rejected_problems": union}
    text = summary([*reports, dataset], {"ingest": 81.0, "dataset_job": 200.0, "total": 290.0},
                   outputs_table([*reports, dataset], "/tmp/home"))
    lines = text.splitlines()
    collect = next(line for line in lines if line.strip().startswith("collect"))
    assert collect.split() == ["collect", "2", "1,786", "1,764", "22", "20.0s"]
    process = next(line for line in lines if line.strip().startswith("process"))
    assert process.split()[:5] == ["process", "2", "1,764", "1,671", "93"]
    assert not any(line.strip().startswith("rejected") for line in lines)
    reasons = lines.index(next(line for line in lines if "rejects by reason" in line))
    assert "286 in all" in lines[reasons]
    assert lines[reasons + 1].split() == ["duplicate", "(filter)", "171"]
    assert lines[reasons + 2].split() == ["no_tests", "(process)", "64"]
    assert "ingest 1m21s" in text and "dataset_job 3m20s" in text and "total 4m50s" in text
    assert "DAGSTER_HOME=/tmp/home" in text and "dagster dev" in text and "/dataset" in text


def test_summary_of_an_ingest_only_run_names_no_downstream_job():
    reports = [_partition("taco", (10, 10, {}), (10, 9, {"no_tests": 1}))]
    text = summary(reports, {"ingest": 5.0, "total": 6.0}, outputs_table(reports, "/tmp/home"))
    assert "dataset" not in text and "training" not in text


def test_finished_line_starts_with_label_and_status():
    report = _partition("taco", (812, 790, {"bad_record": 22}), (790, 701, {"no_tests": 89}), seconds=41.2)
    line = finished_line(report, width=30)
    assert line.startswith("ingest[taco]: ok ")
    assert line.endswith("41.2s  collect 812 -> 790 rows, 22 rejects · process 790 -> 701 rows, 89 rejects")
    report.status = "FAILED"
    assert finished_line(report).startswith("ingest[taco]: FAILED   41.2s  collect")


def test_etas():
    done = [RunReport(f"ingest[{i}]", "ingest_job", str(i), status="ok", started=0, ended=40) for i in range(2)]
    running = RunReport("ingest[r]", "ingest_job", "r", status="running", started=90)
    queued = [RunReport(f"ingest[q{i}]", "ingest_job", f"q{i}", status="queued") for i in range(3)]
    # 3 queued x 40s + 30s left of the running one, over 2 workers
    assert ingest_eta([*done, running, *queued], jobs=2, now=100) == (3 * 40 + 30) / 2
    assert ingest_eta([running, *queued], jobs=2, now=100) is None  # nothing finished: no mean yet
    step = StepReport("verify_problems", started=60)
    assert step_eta(step, "verified 40/120 in 40.0s (1.0 problems/s)", now=100) == 80
    assert step_eta(step, "verifying 120 problems", now=100) is None
    running.steps["verify_problems"] = step
    running.message = "verified 40/120 in 40.0s"
    assert "verify running 40.0s, ETA ~1m20s" in live_line(running, 100, mean=None)


def test_progress_prints_lines_and_redraws_only_on_a_terminal():
    plain = io.StringIO()
    progress = Progress(plain, live=False)
    progress.draw(["live"])
    progress.print("done")
    assert plain.getvalue() == "done\n"
    tty = io.StringIO()
    progress = Progress(tty, live=True)
    progress.draw(["a", "b"])
    progress.print("done")
    assert tty.getvalue() == "a\nb\n\x1b[2F\x1b[Jdone\n"
    assert [format_duration(s) for s in (41.24, 185, 3720)] == ["41.2s", "3m05s", "1h02m"]


def test_report_reads_a_runs_events_whatever_the_assets_are_called():
    """Renamed stages (``filtered_problems``/``filter_rejects``) read the same: only metadata keys matter."""

    @dg.multi_asset(outs={"filtered_problems": dg.AssetOut(), "filter_rejects": dg.AssetOut()})
    def filter_problems(context):
        context.log.info("filtered 12/12")
        kept, rejects = _outputs(12, 9, {"duplicate": 2, "contaminated": 1})
        yield dg.Output(1, "filtered_problems", metadata=kept)
        yield dg.Output(2, "filter_rejects", metadata=rejects)

    with dg.instance_for_test() as instance:
        result = dg.materialize([filter_problems], instance=instance, resources={"io_manager": dg.mem_io_manager})
        report = RunReport("dataset_job", "dataset_job", run_id=result.run_id)
        read_events(instance, report)
    step = report.steps["filter_problems"]
    assert (step.rows_in, step.rows_out, step.rejects, dict(step.reasons)) == (12, 9, 3, {"duplicate": 2, "contaminated": 1})
    assert report.started is not None and report.ended is not None and report.message == "filtered 12/12"
    assert format_step(step) == "filter 12 -> 9 rows, 3 rejects"


def test_training_steps_and_their_learning_signal_reach_the_report():
    """A training run's step lines (training.progress.step_line, logged through Pipes) are kept one
    by one, and its materialization's learning signal and log path end up in the line and summary."""
    from training.progress import signal_summary, step_line

    flat = {"critic/score/mean": 0.0, "critic/score/min": 0.0, "critic/score/max": 0.0, "microcoder/accuracy": 0.0,
            "microcoder/temperature": 0.9, "microcoder/diversity": 0.7, "response_length/mean": 96.0,
            "microcoder/samples": 8, "microcoder/signal_samples": 0, "actor/grad_norm": 0.0}

    @dg.asset
    def grpo_training_run(context):
        for step in (1, 2):
            context.log.info(step_line(step, 2, flat, elapsed_s=30.0 * step, step_s=30.0))
        context.log.info("saving checkpoint")  # not a step line
        return dg.MaterializeResult(metadata={"learning_signal": signal_summary([flat, flat]), "eval_pass@1": 0.25,
                                              "train_log": "/data/runs/r1/train.log"})

    with dg.instance_for_test() as instance:
        result = dg.materialize([grpo_training_run], instance=instance)
        report = RunReport("training_job", "training_job", run_id=result.run_id)
        read_events(instance, report)
    report.status = "ok"  # as the main job sets it when the run's future returns
    assert [line.split(":")[0] for line in report.lines] == ["step 1/2", "step 2/2"]
    assert "no learning signal: reward 0 on all 8 samples" in report.lines[0] and "ETA 30.0s" in report.lines[0]
    line = finished_line(report)
    assert "no learning signal: reward 0 on all 8 samples (every step" in line and "held-out pass@1 0.250" in line
    outputs = outputs_table([report], "/tmp/home")
    assert f"/runs/{result.run_id}  (train log: /data/runs/r1/train.log" in outputs["training"]


def test_main_job_run_configs_are_valid_for_their_jobs(monkeypatch):
    """The samples the main job passes (per-source sample, difficulty backend, translation cap) are
    config its jobs accept; no stage after Filter samples again."""
    from assets.cli import (
        MAIN_SAMPLE,
        difficulty_backend,
        main,
        resolve_job,
        sample_run_config,
        training_run_config,
        translate_run_config,
    )
    from pipeline.samplers import vllm_backend

    for job, config in (("dataset_job", sample_run_config(3, "vllm")), ("dataset_job", sample_run_config(None)),
                        ("ingest_job", translate_run_config(1)), ("training_job", training_run_config(1, console_output=True))):
        assert dg.validate_run_config(resolve_job(job), config), job
    ops = sample_run_config(3)["ops"]
    assert ops["filter_problems"]["config"]["sample_per_source"] == 3
    assert "sample_size" not in ops["scored_problems"]["config"] and "verify_problems" not in ops  # every row they get
    assert "filter_problems" not in sample_run_config(None)["ops"]
    assert "resources" not in sample_run_config(8)
    monkeypatch.setenv("MICROCODER_SAMPLER_MODEL", "/models/mine")  # the environment's settings stay
    monkeypatch.setenv("MICROCODER_SAMPLER_BATCH_SIZE", "4")
    assert sample_run_config(8, "vllm")["resources"] == {"sampler": {"config": {"model": "/models/mine", "batch_size": 4, "backend": "vllm"}}}
    monkeypatch.setattr(vllm_backend, "vllm_available", lambda python=None: False)
    assert difficulty_backend() == "transformers"
    monkeypatch.setattr(vllm_backend, "vllm_available", lambda python=None: True)
    assert difficulty_backend() == "vllm"
    monkeypatch.setenv("MICROCODER_SAMPLER_BACKEND", "openai")  # the environment's choice stands
    assert difficulty_backend() is None
    seen = {}
    monkeypatch.setattr("assets.cli.run_main", lambda *a, **kw: seen.update(kw) or 0)
    assert main(["run", "--translate", "3", "--no-training"]) == 0 and seen["translate"] == 3
    assert seen["sample"] == MAIN_SAMPLE  # the main job's problems per training source
    assert main(["run", "--sample", "-1"]) == 0 and seen["sample"] is None  # every problem
    assert seen["steps"] is None and training_run_config(None) == {}  # the profile's steps
    assert main(["run", "--steps", "1"]) == 0 and seen["steps"] == 1
    assert training_run_config(1)["ops"]["grpo_training_run"]["config"] == {"steps": 1}
    with pytest.raises(SystemExit):
        main(["run", "--steps", "0"])


def test_an_empty_dagster_home_means_the_default(tmp_path, monkeypatch):
    """``DAGSTER_HOME=`` (set, empty) once wrote dagster.yaml into the working directory and failed."""
    from assets.cli import _instance

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MICROCODER_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("DAGSTER_HOME", "")
    instance = _instance()
    try:
        assert not (tmp_path / "dagster.yaml").exists()
        assert (tmp_path / "data" / "dagster_home" / "dagster.yaml").exists()
    finally:
        instance.dispose()
