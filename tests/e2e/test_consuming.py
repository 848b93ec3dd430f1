"""What docs/consuming.md (the README's "Consuming the shards" in full) tells users to do, done.

- load the shards with ``datasets.load_dataset("parquet", ...)`` and with polars;
- point verl's ``data.train_files`` at ``verl/train.parquet``: load it as verl's RLHFDataset
  does (and with RLHFDataset itself where ``.venv-train`` has verl), render the prompt with the
  SmolLM2 chat template, and score a reference solution against ``reward_model.ground_truth``;
- switch the Dagster instance to Postgres (a real server started from a tmp dir);
- run the ingest job on the multiprocess executor for two source partitions.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl
import pytest

from pipeline.schema import Tests

REPO = Path(__file__).resolve().parents[2]
TRAIN_VENV_PYTHON = REPO / ".venv-train" / "bin" / "python"
INGEST_CONFIG = "resources:\n  translation:\n    config:\n      enabled: false\nexecution:\n  config:\n    multiprocess:\n      max_concurrent: 2\n"
PARTITIONS = ("humaneval", "mbpp")


# -- the shards ---------------------------------------------------------------------------
def _shards(root: Path, split: str) -> list[str]:
    files = sorted(str(p) for p in (root / "dataset" / "data").glob(f"{split}-*.parquet"))
    assert files, f"no {split} shards under {root}/dataset/data"
    return files


def test_load_with_hugging_face_datasets(built, tmp_path):
    import datasets

    root, _ = built
    data_dir = root / "dataset" / "data"
    loaded = datasets.load_dataset(
        "parquet",
        data_files={"train": str(data_dir / "train-*.parquet"), "test": str(data_dir / "test-*.parquet")},
        cache_dir=str(tmp_path / "hf-cache"),
    )
    expected = {split: pl.read_parquet(_shards(root, split)).height for split in ("train", "test")}
    assert {split: loaded[split].num_rows for split in loaded} == expected
    row = loaded["train"][0]
    assert Tests.from_json(row["tests"]).kind in {"stdin", "call", "assert"}
    assert {"problem_id", "source", "statement", "tests", "solutions", "difficulty", "pass_rate", "split"} <= set(row)
    # The card's YAML header declares the same splits: load_dataset on the folder agrees.
    by_card = datasets.load_dataset(str(root / "dataset"), cache_dir=str(tmp_path / "hf-cache-card"))
    assert {split: by_card[split].num_rows for split in by_card} == expected
    # ... and its second config, the problems no program has passed, apart from train
    unverified = datasets.load_dataset(str(root / "dataset"), "unverified", split="train", cache_dir=str(tmp_path / "hf-cache-card"))
    assert unverified.num_rows == pl.read_parquet(root / "dataset" / "unverified" / "train-*.parquet").height > 0
    assert set(unverified["split"]) == {"unverified"} and not set(unverified["problem_id"]) & set(by_card["train"]["problem_id"])


def test_load_with_polars(built):
    root, _ = built
    frame = pl.read_parquet(str(root / "dataset" / "data" / "*.parquet"))
    assert frame["problem_id"].n_unique() == frame.height
    assert set(frame["split"].unique()) <= {"train", "test"}
    lazy = (
        pl.scan_parquet(str(root / "dataset" / "data" / "train-*.parquet"))
        .group_by("source").agg(pl.len().alias("rows"))
        .collect()
    )
    assert lazy["rows"].sum() == frame.filter(pl.col("split") == "train").height


# -- verl ----------------------------------------------------------------------------------
def test_verl_train_files_load_as_rlhf_dataset_does(built, tmp_path):
    """RLHFDataset reads ``data.train_files`` with ``datasets``, renders ``prompt`` with the
    tokenizer's chat template and drops prompts over ``max_prompt_length``; the reward manager
    gets ``reward_model.ground_truth``."""
    import datasets
    from transformers import AutoTokenizer

    from evaluator import compute_score
    from pipeline.samplers.default_model import default_model_path

    root, _ = built
    train_file = root / "dataset" / "verl" / "train.parquet"
    frame = datasets.load_dataset("parquet", data_files=str(train_file), cache_dir=str(tmp_path / "hf"))["train"]
    assert frame.num_rows == pl.read_parquet(_shards(root, "train")).height
    tokenizer = AutoTokenizer.from_pretrained(default_model_path())
    canonical = {r["problem_id"]: r for r in pl.read_parquet(_shards(root, "train")).iter_rows(named=True)}
    scored = 0
    for row in frame:
        messages = row["prompt"]
        assert messages and all(set(m) >= {"role", "content"} for m in messages)
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        assert text.endswith("<|im_start|>assistant\n")
        assert messages[-1]["content"] in text
        assert len(tokenizer(text)["input_ids"]) > 10
        tests = Tests.from_json(row["reward_model"]["ground_truth"])
        assert tests.kind in {"stdin", "call", "assert"}
        assert row["reward_model"]["style"] == "rule" and row["ability"] == "code"
        source = canonical[row["extra_info"]["problem_id"]]
        if source["solutions"] and scored < 3:  # verified problems: a reference earns reward 1
            result = compute_score(row["data_source"], f"```python\n{source['solutions'][0]}\n```", row["reward_model"]["ground_truth"])
            assert result["score"] == 1.0, result
            assert compute_score(row["data_source"], "```python\nprint('no')\n```", row["reward_model"]["ground_truth"])["score"] == 0.0
            scored += 1
    assert scored >= 1


RLHF_SCRIPT = """
import json, sys
from omegaconf import OmegaConf
from transformers import AutoTokenizer
from verl.utils.dataset.rl_dataset import RLHFDataset
path, model, cache = sys.argv[1:4]
tok = AutoTokenizer.from_pretrained(model)
config = OmegaConf.create({"prompt_key": "prompt", "max_prompt_length": 4096, "filter_overlong_prompts": True,
                           "truncation": "error", "cache_dir": cache})
ds = RLHFDataset(data_files=path, tokenizer=tok, config=config)
item = ds[0]
print(json.dumps({"rows": len(ds), "raw_prompt": item["raw_prompt"], "ground_truth": item["reward_model"]["ground_truth"],
                  "data_source": item["data_source"]}))
"""


def test_verl_rlhf_dataset_reads_train_files(built, tmp_path):
    if not TRAIN_VENV_PYTHON.exists():
        pytest.skip(".venv-train (verl) is not set up here")
    from pipeline.samplers.default_model import default_model_path

    root, _ = built
    train_file = root / "dataset" / "verl" / "train.parquet"
    done = subprocess.run(
        [str(TRAIN_VENV_PYTHON), "-c", RLHF_SCRIPT, str(train_file), default_model_path(), str(tmp_path / "verl-cache")],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    item = json.loads(done.stdout.strip().splitlines()[-1])
    assert item["rows"] == pl.read_parquet(str(train_file)).height
    assert item["raw_prompt"][-1]["role"] == "user"
    assert Tests.from_json(item["ground_truth"]).kind in {"stdin", "call", "assert"}
    assert item["data_source"].startswith("microcoder/")


# -- the instance and the executor ---------------------------------------------------------
def _dagster(args: list[str], env: dict[str, str], timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).with_name("dagster")), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _ingest_multiprocess(home: Path, data: Path, partitions: tuple[str, ...]) -> list[str]:
    """``dagster job execute`` of ingest_job per partition on the multiprocess executor, as a
    user would from a shell; returns the run ids recorded in the instance at ``home``."""
    env = {**os.environ, "DAGSTER_HOME": str(home), "MICROCODER_DATA": str(data), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    registered = subprocess.run(
        [sys.executable, "-c", "import dagster as dg; from assets.ingest.partitions import register_sources; register_sources(dg.DagsterInstance.get())"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )
    assert registered.returncode == 0, registered.stderr[-3000:]
    config = home / "ingest.yaml"
    config.write_text(INGEST_CONFIG)
    for key in partitions:
        done = _dagster(["job", "execute", "-m", "assets", "-j", "ingest_job", "-c", str(config),
                         "--tags", json.dumps({"dagster/partition": key})], env)
        assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    import dagster as dg

    instance = dg.DagsterInstance.from_config(str(home))
    try:
        runs = instance.get_runs(filters=dg.RunsFilter(job_name="ingest_job"))
        assert sorted(r.tags.get("dagster/partition") for r in runs) == sorted(partitions)
        assert all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
        for run in runs:
            messages = [e.message or "" for e in instance.all_logs(run.run_id)]
            assert any("multiprocess executor" in m for m in messages), f"run {run.run_id} did not use the multiprocess executor"
        done_partitions = instance.get_materialized_partitions(dg.AssetKey("processed_problems"))
        assert set(partitions) <= set(done_partitions)
        return [r.run_id for r in runs]
    finally:
        instance.dispose()


def _pg_bin() -> Path | None:
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return candidate
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def postgres():
    """A throwaway PostgreSQL server on a free port (as the ``postgres`` user when run as root)."""
    pytest.importorskip("dagster_postgres", reason="dagster-postgres is not installed")
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries are not installed (apt-get install -y postgresql)")
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: cannot start postgres as another user")
        prefix = ["runuser", "-u", "postgres", "--"]
    base = Path(tempfile.mkdtemp(prefix="microcoder-pg-"))  # outside pytest's private tmp tree
    pgdata = base / "pgdata"
    pgdata.mkdir()
    if prefix:
        base.chmod(0o755)
        shutil.chown(pgdata, "postgres", "postgres")
    port = _free_port()
    run = lambda *args: subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120)  # noqa: E731
    init = run(str(bin_dir / "initdb"), "-D", str(pgdata), "-A", "trust", "-U", "dagster", "--no-sync")
    if init.returncode != 0:
        pytest.skip(f"initdb failed: {init.stderr[-500:]}")
    started = run(str(bin_dir / "pg_ctl"), "-D", str(pgdata), "-l", str(pgdata / "server.log"), "-w", "-t", "60",
                  "-o", f"-p {port} -k {pgdata} -h 127.0.0.1", "start")
    assert started.returncode == 0, started.stderr + (pgdata / "server.log").read_text()
    try:
        created = run(str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "dagster", "dagster")
        assert created.returncode == 0, created.stderr
        yield {"hostname": "127.0.0.1", "port": port, "username": "dagster", "password": "", "db_name": "dagster"}
    finally:
        run(str(bin_dir / "pg_ctl"), "-D", str(pgdata), "-m", "fast", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)


def postgres_instance_yaml(db: dict) -> str:
    """The dagster.yaml docs/consuming.md shows, with this server's coordinates. ``scheme`` pins the
    psycopg2 driver dagster-postgres is written for (SQLAlchemy 2.1 defaults to psycopg 3,
    under which dagster's ``NOTIFY run_events, <id>`` fails)."""
    return (
        "storage:\n  postgres:\n    postgres_db:\n      scheme: postgresql+psycopg2\n"
        f"      hostname: {db['hostname']}\n      port: {db['port']}\n      username: {db['username']}\n"
        f"      password: \"{db['password']}\"\n      db_name: {db['db_name']}\n"
        "run_coordinator:\n  module: dagster._core.run_coordinator\n  class: DefaultRunCoordinator\n"
    )


def test_two_partitions_on_the_multiprocess_executor_and_a_postgres_instance(postgres, shared_data, tmp_path):
    """The deployment docs/consuming.md describes: Postgres storage, and each partition's run on the
    multiprocess executor (one run per partition, as a shell user would start them)."""
    import dagster as dg
    from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage

    home, data = tmp_path / "dagster_home", tmp_path / "data"
    home.mkdir()
    data.mkdir()
    (home / "dagster.yaml").write_text(postgres_instance_yaml(postgres))
    instance = dg.DagsterInstance.from_config(str(home))
    try:
        assert isinstance(instance.run_storage, PostgresRunStorage)
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
    finally:
        instance.dispose()
    start = time.monotonic()
    run_ids = _ingest_multiprocess(home, data, PARTITIONS)
    print(f"{len(run_ids)} ingest runs on Postgres with the multiprocess executor in {time.monotonic() - start:.1f}s")
    for key in PARTITIONS:
        assert (data / "assets" / "processed_problems" / f"{key}.parquet").exists()
    # The rows are in Postgres, not in a SQLite file beside dagster.yaml.
    assert not list(home.rglob("*.db"))
