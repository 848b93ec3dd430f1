"""What the ``cpu-demo`` profile trains on: problems the CPU model solves sometimes.

GRPO learns only from groups whose samples disagree: a problem the model never (or always)
solves gives every sample the same reward and a zero advantage. The embedded SmolLM2-135M solves
almost none of the released problems, so training on them changes nothing. The demo therefore
trains on the released problems whose measured pass rate lies strictly between 0 and 1, and where
the difficulty stage found none, on a generated family of easy problems (``add_7(x)``: "Return x
plus 7.") that the model solves about a quarter of the time. That family is the ``synthetic``
source: it lives in the run's own folder and never in the released dataset.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq

SYNTHETIC = "synthetic"
OPS = {"add": ("plus", lambda x, k: x + k), "sub": ("minus", lambda x, k: x - k), "mul": ("times", lambda x, k: x * k)}


def easy_problems(ks: range) -> list[dict]:
    """verl rows for ``<op>_<k>(x)`` with three asserts each, judged by the real evaluator."""
    rows = []
    for k in ks:
        for op, (word, f) in OPS.items():
            name = f"{op}_{k}"
            asserts = "".join(f"assert {name}({x}) == {f(x, k)}\n" for x in (0, 5, -3))
            tests = {"kind": "assert", "fn_name": name, "cases": [], "assert_code": asserts, "checker": None,
                     "time_limit_s": 5.0, "memory_limit_mb": None}
            prompt = (f"Complete this Python function. Answer with one ```python code block.\n\n"
                      f"def {name}(x):\n    \"\"\"Return x {word} {k}.\"\"\"\n")
            rows.append({"prompt": [{"role": "user", "content": prompt}], "data_source": f"{SYNTHETIC}/{op}",
                         "ability": "code", "reward_model": {"style": "rule", "ground_truth": json.dumps(tests)},
                         "extra_info": {"index": len(rows), "problem_id": f"{SYNTHETIC}/{name}", "source": SYNTHETIC}})
    return rows


@dataclass
class DemoData:
    train_file: str
    source: str  # "dataset" (pass rate in (0, 1)) or "synthetic"
    problems: int
    why: str


def learnable_rows(verl_train_file: str) -> list[dict]:
    """Released training rows whose model pass rate lies strictly between 0 and 1."""
    with fsspec.open(verl_train_file, "rb") as handle:
        rows = pq.read_table(handle).to_pylist()
    return [r for r in rows if (r.get("extra_info") or {}).get("pass_rate") is not None
            and 0.0 < r["extra_info"]["pass_rate"] < 1.0]


def demo_train_file(verl_train_file: str, out_dir: str, ks: range = range(1, 13)) -> DemoData:
    """Write the demo's training rows under ``out_dir`` (any fsspec URL) and say where they came from."""
    rows = learnable_rows(verl_train_file)
    if rows:
        source, why = "dataset", f"{len(rows)} released problems with a CPU-model pass rate strictly between 0 and 1"
    else:
        rows = easy_problems(ks)
        source = SYNTHETIC
        why = (f"no released problem has a CPU-model pass rate strictly between 0 and 1 (no learning signal there): "
               f"{len(rows)} generated easy problems instead (source '{SYNTHETIC}', never released)")
    url = f"{out_dir.rstrip('/')}/{source}-train.parquet"
    fs, path = fsspec.core.url_to_fs(url)
    fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    with fs.open(path, "wb") as handle:
        pq.write_table(pa.Table.from_pylist(rows), handle)
    return DemoData(url, source, len(rows), why)
