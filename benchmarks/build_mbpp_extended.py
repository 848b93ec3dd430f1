"""Build the ``mbpp_et`` set: MBPP-ET's extended asserts, the full tests behind MBPP's labels.

    git clone https://github.com/nickless079/TeamCoder /tmp/mbpp_et-src
    .venv/bin/python benchmarks/build_mbpp_extended.py --repo /tmp/mbpp_et-src

Why: the MBPP labels in ``../shared/data/labelled`` say which programs fail MBPP-ET, but not on which
assert, because MBPP-ET's file is missing from MapCoder's snapshot. Without them a surviving wrong
MBPP program cannot be classed (``escapes.py``), and a label the reference would earn too cannot be
judged again (``extended_audit.py``). TeamCoder at ``5d87dbff`` ships a 397-task copy
(``data/MBPPEval/MBPP_ET.jsonl``, 102 asserts a task) that agrees with the shared labels on 99.0% of
the records (their README's cross-check). It has no licence file, so it is read from the user's
checkout into ``$MICROCODER_DATA/cache/labelled/mbpp_et/`` (``labelled_sets.py``), never kept here.

Each record: MBPP's task id, the name MBPP-ET's asserts call (``entry_point``; MultiPL-E's prompts,
which the labelled programs answer, rename a few: ``extended_audit.named_as_mbpp`` binds them), the asserts, and
the task's reference (MBPP's ``code``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labelled_sets import MBPP_ET  # noqa: E402

PATH = "data/MBPPEval/MBPP_ET.jsonl"


def records(text: str) -> list[dict]:
    """The file's tasks as this set keeps them."""
    out = []
    for line in text.splitlines():
        rec = json.loads(line)
        out.append({"task_id": str(rec["task_id"]), "entry_point": rec["entry_point"],
                    "setup": rec.get("test_setup_code") or "", "asserts": list(rec["test_list"]),
                    "reference": rec["code"]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help=f"a clone (or git directory) of {MBPP_ET.url}")
    args = parser.parse_args()
    text = subprocess.run(["git", "-C", args.repo, "show", f"{MBPP_ET.commit}:{PATH}"], capture_output=True, text=True,
                          check=True).stdout
    tasks = records(text)
    MBPP_ET.path.parent.mkdir(parents=True, exist_ok=True)
    MBPP_ET.write(tasks)
    print(json.dumps({"tasks": len(tasks), "asserts": sum(len(t["asserts"]) for t in tasks), "path": str(MBPP_ET.path)}))


if __name__ == "__main__":
    main()
