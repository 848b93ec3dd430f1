"""Learning check on CPU (not CI): MicroCoder-GRPO and GRPO side by side on easy problems.

The problems are generated (``training.demo_data.easy_problems``, the ``synthetic`` source that
the main job's cpu-demo training also uses), a family the embedded SmolLM2-135M solves sometimes but not
always: ``def add_7(x): "Return x plus 7."`` (and ``sub_k``, ``mul_k``), each checked by three
asserts through the real evaluator. Training uses k = 1..12, the held-out set k = 13..16 (never
trained on). Both presets train from the same model with the same data, seed, fixed temperature
and learning rate (raised from the paper's 1e-6 so that a 135M model moves within a few dozen
steps; say so when quoting the figures) and 4 updates per step where the batch allows (mini-batch
batch / 4, as the profiles), through ``python -m training.launcher`` in .venv-train.

Printed per step: the training reward (``critic/score/mean``) of each preset and, every
``--eval-every`` steps (and before step 1), held-out pass@1 over 4 samples per problem. A PNG
with both curves is written next to the run outputs. The baseline is step 0 (before any update).

    .venv/bin/python benchmarks/bench_learning.py [--steps 30] [--eval-every 5] [--out runs/learning]
        [--presets microcoder grpo]   # a preset left out is read back from its metrics in --out
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))



def problems(ks: range) -> list[dict]:
    """The generated easy family (``training.demo_data``, the cpu-demo profile's ``synthetic`` source)."""
    from training.demo_data import easy_problems

    return easy_problems(ks)


def run(preset: str, out: Path, args) -> list[dict]:
    from pipeline.samplers.default_model import default_model_path

    cfg = {"model_path": default_model_path(), "preset": preset, "profile": "cpu-demo", "train_files": [str(out / "train.parquet")],
           "val_files": [str(out / "test.parquet")], "output_dir": str(out / preset), "steps": args.steps,
           "eval_response_lengths": [args.response],
           "algorithm": {"train_batch_size": args.batch, "ppo_mini_batch_size": max(1, args.batch // 4), "samples_per_query": args.n,
                         "max_prompt_length": 256, "max_response_length": args.response,
                         "temperature": args.temperature, "lr": args.lr},
           "eval_attempts": 4, "val_max_samples": -1, "val_before_train": True,
           "save_checkpoint": False, "seed": 0, "extra_overrides": [f"trainer.test_freq={args.eval_every}"]}
    (out / f"{preset}.json").write_text(json.dumps(cfg))
    started = time.time()
    proc = subprocess.run([str(ROOT / ".venv-train" / "bin" / "python"), "-m", "training.launcher",
                           str(out / f"{preset}.json")], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{preset} failed:\n{proc.stderr[-4000:]}")
    msgs = [json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines() if line.startswith("MICROCODER ")]
    print(f"{preset}: {args.steps} steps in {time.time() - started:.0f} s", flush=True)
    return [m for m in msgs if m["type"] == "step"]


def earlier_steps(metrics: Path) -> list[dict]:
    """A finished (or cut-short) run's steps from verl's metrics file, shaped like :func:`run`'s."""
    if not metrics.exists():
        raise SystemExit(f"{metrics} not found: run that preset (--presets) first")
    from training.launcher import step_message

    steps = [step_message(json.loads(line)) for line in metrics.read_text().splitlines() if line.strip()]
    print(f"{metrics.parent.name}: {len(steps)} logged steps read from {metrics}", flush=True)
    return steps


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--eval-every", type=int, default=5)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--response", type=int, default=96)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=1e-5)
    ap.add_argument("--out", default=str(ROOT / "runs" / "learning"))
    ap.add_argument("--presets", nargs="+", default=["microcoder", "grpo"], choices=["microcoder", "grpo"],
                    help="presets to train now; the other's curve is read from --out")
    args = ap.parse_args()
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(problems(range(1, 13))), out / "train.parquet")
    pq.write_table(pa.Table.from_pylist(problems(range(13, 17))), out / "test.parquet")
    # a preset left out of --presets is read back from an earlier run's metrics in the same --out
    curves = {p: run(p, out, args) if p in args.presets else earlier_steps(out / p / "metrics.jsonl")
              for p in ("microcoder", "grpo")}

    def series(steps, key):
        return {s["step"]: s["metrics"][key] for s in steps if key in s["metrics"]}

    reward = {p: series(s, "critic/score/mean") for p, s in curves.items()}
    heldout = {p: series(s, "microcoder/heldout/pass@1") for p, s in curves.items()}
    print(f"\nSmolLM2-135M on CPU, {args.batch} problems x {args.n} samples per step, lr {args.lr}, T {args.temperature}")
    print(f"{'step':>5} {'reward MC':>10} {'reward GRPO':>12} {'pass@1 MC':>10} {'pass@1 GRPO':>12}")
    for step in sorted(set().union(*reward.values(), *heldout.values())):
        cells = [reward["microcoder"].get(step), reward["grpo"].get(step),
                 heldout["microcoder"].get(step), heldout["grpo"].get(step)]
        print(f"{step:>5} " + " ".join(f"{c:>10.3f}  " if c is not None else f"{'':>12}" for c in cells))
    for p in curves:
        r = [reward[p][k] for k in sorted(reward[p])]
        half = max(1, len(r) // 2)
        print(f"{p}: mean reward first half {sum(r[:half]) / half:.3f}, second half "
              f"{sum(r[half:]) / max(1, len(r) - half):.3f}; held-out pass@1 "
              f"{' -> '.join(f'{heldout[p][k]:.3f}' for k in sorted(heldout[p]))}")
    from pipeline.plots import line_png

    axis = range(0, args.steps + 1)  # index = step (0: before training, held-out only)
    png = line_png({f"reward {p}": [reward[p].get(k) for k in axis] for p in curves}
                   | {f"held-out pass@1 {p}": [heldout[p].get(k) for k in axis] for p in curves},
                   "Learning check: reward per step, held-out pass@1 per evaluation")
    (out / "learning.png").write_bytes(png)
    print(f"plot: {out / 'learning.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
