"""A training run's outputs on shared storage, against a real S3 API (moto's server on loopback):
checkpoints mirrored as verl finishes them, resume from the store on a fresh node, metrics and
evaluation written there; verl's own resume lookup accepts what was restored."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import fsspec
import pytest
import torch

from training.storage import TRACKER, RunStorage, is_remote, localize

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / ".venv-train" / "bin" / "python"


def _fake_verl_save(local: Path, step: int) -> dict[str, torch.Tensor]:
    """What verl's FSDP checkpoint manager and trainer leave for one step (shard, extra state,
    dataloader state, then the tracker file last)."""
    folder = local / "checkpoints" / f"global_step_{step}"
    (folder / "actor").mkdir(parents=True)
    state = {"w": torch.randn(8, 4) * step}
    torch.save(state, folder / "actor" / "model_world_size_1_rank_0.pt")
    (folder / "actor" / "huggingface").mkdir()
    (folder / "actor" / "huggingface" / "config.json").write_text(json.dumps({"step": step}))
    torch.save({"epoch": 0, "step": step}, folder / "data.pt")
    (local / "checkpoints" / TRACKER).write_text(str(step))
    return state


def test_checkpoints_metrics_and_eval_go_to_s3_and_resume_finds_the_latest(s3_server, tmp_path):
    bucket, _ = s3_server
    url = f"{bucket}/runs/run-1"
    node_a = RunStorage(url, scratch=tmp_path / "node-a")
    assert node_a.remote and node_a.latest_checkpoint() is None and node_a.restore_latest() is None
    assert node_a.sync_checkpoints() is None  # nothing finished yet

    _fake_verl_save(node_a.local, 1)
    assert node_a.sync_checkpoints() == f"{url}/checkpoints/global_step_1"
    state2 = _fake_verl_save(node_a.local, 2)
    (node_a.local / "metrics.jsonl").write_text('{"step": 1, "data": {"critic/score/mean": 0.5}}\n')
    node_a.mirror(node_a.local / "metrics.jsonl")
    assert node_a.sync_checkpoints() == f"{url}/checkpoints/global_step_2"
    eval_url = node_a.write_json("eval.json", {"pass@1": 0.25, "attempts": 4})

    # what another node (or a later run) sees, through a fresh s3fs client
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    assert fs.cat(f"{url}/checkpoints/{TRACKER}") == b"2"
    assert json.loads(fs.cat(eval_url)) == {"attempts": 4, "pass@1": 0.25}
    assert fs.cat(f"{url}/metrics.jsonl").decode().startswith('{"step": 1')
    node_b = RunStorage(url, scratch=tmp_path / "node-b")
    assert node_b.latest_checkpoint() == f"{url}/checkpoints/global_step_2"
    assert node_b.restore_latest() == 2
    restored = node_b.local / "checkpoints" / "global_step_2"
    assert torch.equal(torch.load(restored / "actor" / "model_world_size_1_rank_0.pt")["w"], state2["w"])
    assert (node_b.local / "checkpoints" / TRACKER).read_text() == "2"
    assert not (node_b.local / "checkpoints" / "global_step_1").exists()  # only the latest comes down


def test_launcher_latest_checkpoint_reads_the_store(s3_server, tmp_path):
    from training.launcher import latest_checkpoint
    from training.verl_ext.config import TrainingConfig

    bucket, _ = s3_server
    url = f"{bucket}/runs/run-2"
    assert latest_checkpoint(TrainingConfig(output_dir=url)) is None
    writer = RunStorage(url, scratch=tmp_path / "w")
    for step in (3, 10):  # numeric, not lexical, order
        _fake_verl_save(writer.local, step)
        writer.sync_checkpoints()
    assert latest_checkpoint(TrainingConfig(output_dir=url)) == f"{url}/checkpoints/global_step_10"


def test_local_output_is_verls_own_folder(tmp_path):
    storage = RunStorage(str(tmp_path / "run"))
    assert not storage.remote and storage.local == tmp_path / "run"
    _fake_verl_save(storage.local, 4)
    path = str((tmp_path / "run" / "checkpoints" / "global_step_4").resolve())
    assert storage.sync_checkpoints() == path and storage.latest_checkpoint() == path
    assert storage.restore_latest() == 4


def test_remote_inputs_are_copied_locally(s3_server, tmp_path):
    bucket, _ = s3_server
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    fs.pipe_file(f"{bucket}/dataset/verl/train.parquet", b"PAR1 stand-in bytes")
    local_file = tmp_path / "test.parquet"
    local_file.write_bytes(b"x")
    out = localize([f"{bucket}/dataset/verl/train.parquet", str(local_file)], tmp_path / "scratch")
    assert Path(out[0]).read_bytes() == b"PAR1 stand-in bytes" and out[1] == str(local_file)
    assert is_remote(bucket) and not is_remote(str(local_file))


@pytest.mark.train
@pytest.mark.skipif(not TRAIN_PY.exists(), reason=".venv-train is absent: run scripts/setup-train.sh")
def test_verl_resume_lookup_finds_the_restored_checkpoint(s3_server, tmp_path):
    """verl's ``resume_mode=auto`` lookup (``find_latest_ckpt_path``), in .venv-train, over the
    folder a fresh node restored from S3."""
    bucket, env = s3_server
    url = f"{bucket}/runs/run-3"
    writer = RunStorage(url, scratch=tmp_path / "w")
    _fake_verl_save(writer.local, 7)
    writer.sync_checkpoints()
    code = textwrap.dedent(f"""
        from training.storage import RunStorage
        from verl.utils.checkpoint.checkpoint_manager import find_latest_ckpt_path
        s = RunStorage({url!r}, scratch={str(tmp_path / 'fresh')!r})
        assert s.restore_latest() == 7
        print("FOUND", find_latest_ckpt_path(str(s.local_checkpoints)))
    """)
    proc = subprocess.run([str(TRAIN_PY), "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = proc.stdout.split("FOUND ", 1)[1].strip()
    assert found.endswith("global_step_7") and Path(found, "actor", "model_world_size_1_rank_0.pt").exists()
