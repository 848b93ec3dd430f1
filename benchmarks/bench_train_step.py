"""Step-time breakdown of MicroCoder-GRPO on verl's CPU backend (issue 6 section 6).

Runs ``python -m training.launcher`` in .venv-train for a short GRPO run of the embedded
SmolLM2-135M on shared HumanEval problems and prints verl's per-phase timings (``timing_s/*``)
for every step: generation (hf rollout), reward, old log-probs, advantage (incl. the truncation
mask), actor update, weight sync to the rollout server. The baseline is the whole step: each
phase is shown with its share of it.

    .venv/bin/python benchmarks/bench_train_step.py [--steps 2] [--n 4] [--response 64] [--mini-batch 1]

The actor update runs ``batch / mini-batch`` optimizer updates per step (the profiles' several
updates; ``--mini-batch`` equal to ``--batch`` gives one).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.samplers.default_model import default_model_path  # noqa: E402

PHASES = [("gen", "generation"), ("reward", "reward"), ("old_log_prob", "old log-probs"), ("adv", "advantage+mask"),
          ("update_actor", "actor update"), ("update_weights", "weight sync"), ("testing", "validation")]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--response", type=int, default=64)
    ap.add_argument("--mini-batch", type=int, default=1, help="prompts per update (batch / mini-batch updates per step)")
    args = ap.parse_args()
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.paths import shared_data_dir

    shared = shared_data_dir()
    if shared is None:
        print("../shared/data is absent")
        return 1
    train_py = ROOT / ".venv-train" / "bin" / "python"
    rows = []
    with gzip.open(shared / "humaneval" / "HumanEval.jsonl.gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            tests = {"kind": "assert", "fn_name": r["entry_point"], "cases": [],
                     "assert_code": f"{r['test']}\ncheck({r['entry_point']})\n", "checker": None}
            rows.append({"prompt": [{"role": "user", "content": "Complete this Python function in one ```python "
                                     "code block.\n\n" + r["prompt"]}],
                         "data_source": "humaneval", "ability": "code",
                         "reward_model": {"style": "rule", "ground_truth": json.dumps(tests)},
                         "extra_info": {"index": len(rows)}})
            if len(rows) == args.batch * args.steps + 2:
                break
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pq.write_table(pa.Table.from_pylist(rows[:-2]), tmp / "train.parquet")
        pq.write_table(pa.Table.from_pylist(rows[-2:]), tmp / "test.parquet")
        cfg = {"model_path": default_model_path(), "train_files": [str(tmp / "train.parquet")], "val_files": [str(tmp / "test.parquet")],
               "output_dir": str(tmp / "run"), "steps": args.steps, "eval_attempts": 1, "save_checkpoint": False,
               "eval_response_lengths": [args.response],
               "algorithm": {"train_batch_size": args.batch, "ppo_mini_batch_size": args.mini_batch, "samples_per_query": args.n,
                             "max_prompt_length": 256, "max_response_length": args.response, "mask_repeat_window": 16}}
        (tmp / "cfg.json").write_text(json.dumps(cfg))
        proc = subprocess.run([str(train_py), "-m", "training.launcher", str(tmp / "cfg.json")], cwd=ROOT,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stderr[-4000:])
        return proc.returncode
    steps = [json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines() if line.startswith("MICROCODER ")]
    steps = [s for s in steps if s["type"] == "step"]
    print(f"verl CPU backend, SmolLM2-135M, batch {args.batch} x n {args.n}, response <= {args.response} tokens, "
          f"{args.batch // args.mini_batch} updates per step")
    print(f"{'phase':<16}" + "".join(f"{'step ' + str(s['step']):>16}" for s in steps))
    for key, label in PHASES + [("step", "whole step")]:
        cells = []
        for s in steps:
            m = s["metrics"]
            v, total = m.get(f"timing_s/{key}"), m.get("timing_s/step") or float("nan")
            cells.append(f"{v:8.2f}s {100 * v / total:4.0f}%" if v is not None else f"{'-':>14}")
        print(f"{label:<16}" + "".join(f"{c:>16}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
