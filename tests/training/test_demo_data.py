"""What the cpu-demo profile trains on: released problems with a pass rate in (0, 1), else the
synthetic family, judged by the real evaluator and written only into the run's folder."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from evaluator.reward import compute_score_batch
from training.demo_data import SYNTHETIC, demo_train_file, easy_problems, learnable_rows


def _released(tmp_path, pass_rates: list[float | None]):
    rows = [r | {"extra_info": r["extra_info"] | {"pass_rate": p}} for r, p in zip(easy_problems(range(1, 5)), pass_rates)]
    path = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    return str(path)


def test_synthetic_problems_are_judged_by_the_evaluator():
    rows = easy_problems(range(1, 3))
    assert len(rows) == 6 and {r["data_source"] for r in rows} == {f"{SYNTHETIC}/add", f"{SYNTHETIC}/sub", f"{SYNTHETIC}/mul"}
    add_2 = next(r for r in rows if r["extra_info"]["problem_id"] == f"{SYNTHETIC}/add_2")
    right, wrong = "```python\ndef add_2(x):\n    return x + 2\n```", "```python\ndef add_2(x):\n    return x * 2\n```"
    scores = compute_score_batch([add_2["data_source"]] * 2, [right, wrong], [add_2["reward_model"]["ground_truth"]] * 2)
    assert [s["score"] for s in scores] == [1.0, 0.0]


def test_demo_trains_on_released_problems_the_model_sometimes_solves(tmp_path):
    released = _released(tmp_path, [0.0, 0.25, 1.0, None, 0.5, 0.0])
    assert [r["extra_info"]["pass_rate"] for r in learnable_rows(released)] == [0.25, 0.5]
    demo = demo_train_file(released, str(tmp_path / "run" / "data"))
    assert demo.source == "dataset" and demo.problems == 2 and demo.train_file.startswith(str(tmp_path / "run" / "data"))
    assert len(pq.read_table(demo.train_file)) == 2


def test_demo_falls_back_to_the_synthetic_family_in_the_runs_folder(tmp_path):
    released = _released(tmp_path, [0.0, 1.0, None])
    demo = demo_train_file(released, str(tmp_path / "run" / "data"))
    assert demo.source == SYNTHETIC and "no released problem" in demo.why
    rows = pq.read_table(demo.train_file).to_pylist()
    assert demo.problems == len(rows) == 36 and all(r["extra_info"]["source"] == SYNTHETIC for r in rows)
    assert len(pq.read_table(released)) == 3  # the released file is untouched
