"""verl's synchronous semantics under the MicroCoder trainer (registered as ``microcoder_sync``).

verl 0.9.1 decides its replay buffer, ``gen_batch_size``, checkpointed prompts and prompt
re-issue on ``self.trainer_mode == "sync"``. These tests build the real trainer from the config
the launcher renders (no Ray, no workers) and fail if any of those branches goes async, or if
verl reads the mode from the config anywhere this test does not know about.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / ".venv-train" / "bin" / "python"

pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(not TRAIN_PY.exists(), reason=".venv-train is absent: run scripts/setup-train.sh"),
]

# Every verl module that reads trainer.v1.trainer_mode from the config rather than from the
# trainer (self.trainer_mode), with why it is harmless for a sync trainer under another name.
KNOWN_CONFIG_READERS = {
    "trainer/main_ppo.py": "registry lookup of the trainer class (must be our name)",
    "trainer/ppo/v1/trainer_base.py": "the assignment our trainer_mode setter absorbs",
    "utils/skip/rollout_skip.py": "parameter_sync_step of the mode's block: 1 by default, as for sync",
}


def _run(code: str, timeout: int = 600) -> dict:
    proc = subprocess.run([str(TRAIN_PY), "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.split("RESULT ", 1)[1])


def test_every_verl_mode_branch_takes_the_sync_side(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"prompt": [{"role": "user", "content": f"Write a function f{i}."}], "data_source": "t",
             "ability": "code", "reward_model": {"style": "rule", "ground_truth": "{}"},
             "extra_info": {"index": i, "problem_id": f"p{i}"}} for i in range(6)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "train.parquet")
    res = _run(f"""
        import ast, json, pathlib
        import verl
        from pipeline.samplers.default_model import default_model_path
        from training.launcher import compose_verl_config
        from training.verl_ext.config import TrainingConfig
        from training.verl_ext.trainer import MicroCoderTrainer, TRAINER_MODE
        from verl.trainer.ppo.v1 import get_trainer_cls
        from verl.trainer.ppo.v1.replay_buffer import ReplayBuffer

        cfg = TrainingConfig.from_dict({{"train_files": [{str(tmp_path / 'train.parquet')!r}],
                                         "output_dir": {str(tmp_path / 'run')!r},
                                         "algorithm": {{"train_batch_size": 2, "ppo_mini_batch_size": 2, "samples_per_query": 2,
                                                        "max_prompt_length": 128, "max_response_length": 16}}}})
        config = compose_verl_config(cfg.to_hydra_overrides(default_model_path()))
        trainer = get_trainer_cls(config.trainer.v1.trainer_mode)(config=config)
        trainer._init_tokenizer()
        trainer._init_dataloader()

        # every comparison with trainer_mode in verl's v1 trainer code, and every config reader
        root = pathlib.Path(verl.__file__).parent
        compares, readers = [], set()
        for path in root.rglob("*.py"):
            src = path.read_text()
            if "trainer_mode" not in src:
                continue
            for node in ast.walk(ast.parse(src)):
                if isinstance(node, ast.Compare) and "trainer_mode" in ast.unparse(node.left):
                    compares.append([str(path.relative_to(root)), ast.unparse(node)])
                if (isinstance(node, ast.Attribute) and node.attr == "trainer_mode"
                        and ast.unparse(node.value).endswith("trainer.v1")):
                    readers.add(str(path.relative_to(root)))
        print("RESULT " + json.dumps({{
            "mode": trainer.trainer_mode, "registered": trainer.registered_mode,
            "cls": type(trainer).__name__, "expected_cls": MicroCoderTrainer.__name__, "name": TRAINER_MODE,
            "replay_buffer": type(trainer.replay_buffer).__name__,
            "is_sync_buffer": type(trainer.replay_buffer) is ReplayBuffer,
            "buffer_gen_batch_size": trainer.replay_buffer.gen_batch_size,
            "config_gen_batch_size": config.data.get("gen_batch_size", None),
            "dataloader_batch_size": trainer.train_dataloader.batch_size,
            "reissued": trainer._reissue_inflight_prompts(),
            "mode_block": dict(config.trainer.v1.get(trainer.trainer_mode, {{}})),
            "compares": compares, "readers": sorted(readers),
        }}))
    """)
    assert res["cls"] == res["expected_cls"] and res["registered"] == res["name"] == "microcoder_sync"
    assert res["mode"] == "sync"
    # replay buffer: the synchronous class, fetching whole train batches (async forces 1)
    assert res["is_sync_buffer"], res["replay_buffer"]
    assert res["buffer_gen_batch_size"] == 2 and res["dataloader_batch_size"] == 2
    assert res["config_gen_batch_size"] is None
    assert res["reissued"] == 0 and res["mode_block"] == {}
    # every mode branch in verl compares self.trainer_mode (pinned to "sync") with "sync"
    assert res["compares"], "verl no longer branches on trainer_mode: revisit MicroCoderTrainer"
    for path, expr in res["compares"]:
        assert expr in ("self.trainer_mode == 'sync'", "self.trainer_mode != 'sync'"), (path, expr)
    assert set(res["readers"]) <= set(KNOWN_CONFIG_READERS), res["readers"]
