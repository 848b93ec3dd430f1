"""Where the benchmarks' labelled program sets built from public repositories live.

They are built on this machine from a checkout the user supplies and cached under
``$MICROCODER_DATA/cache/labelled/<name>/``; nothing of those repositories is kept in this one.

- ``apps``: ``build_apps_labelled.py --repo PATH``, from https://github.com/Md-Ashraful-Pramanik/MapCoder
  at ``0027da71030b441cca2bc6f95def86b9aa5c7dea`` (MIT);
- ``leetcode``: ``build_leetcode_labelled.py --repo PATH``, from https://github.com/kamyu104/LeetCode-Solutions
  at ``a42318b19416b86d301d01db278172da59490a69`` (MIT);
- ``mbpp_et``: ``build_mbpp_extended.py --repo PATH``, MBPP-ET's extended asserts (not programs), from
  https://github.com/nickless079/TeamCoder at ``5d87dbff``: the copy the shared labels were cross-checked
  with (``../shared/data/labelled/README.md``); it has no licence file, so it is read, never kept.
"""

from __future__ import annotations

import gzip
import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.paths import local_cache_dir  # noqa: E402


@dataclass(frozen=True)
class LabelledSet:
    name: str
    url: str
    commit: str
    builder: str
    licence: str = "MIT"

    @property
    def path(self) -> Path:
        return local_cache_dir("labelled", self.name) / "programs.jsonl.gz"

    def how_to_build(self) -> str:
        return (f"no {self.name} labelled programs at {self.path}: build them with "
                f"`git clone {self.url} /tmp/{self.name}-src && .venv/bin/python benchmarks/{self.builder} "
                f"--repo /tmp/{self.name}-src` (commit {self.commit[:12]})")

    def write(self, records: list[dict]) -> None:
        """The records, and where they came from (``source.json``)."""
        with gzip.open(self.path, "wt", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        (self.path.parent / "source.json").write_text(json.dumps(
            {"repository": self.url, "commit": self.commit, "licence": self.licence, "records": len(records)}, indent=1))

    def read(self) -> list[dict] | None:
        """The records, or None (after one line on stderr saying how to build them) where they are not built."""
        if not self.path.exists():
            print(self.how_to_build(), file=sys.stderr)
            return None
        with gzip.open(self.path, "rt", encoding="utf-8") as fh:
            return [json.loads(line) for line in fh]


APPS = LabelledSet("apps", "https://github.com/Md-Ashraful-Pramanik/MapCoder",
                   "0027da71030b441cca2bc6f95def86b9aa5c7dea", "build_apps_labelled.py")
LEETCODE = LabelledSet("leetcode", "https://github.com/kamyu104/LeetCode-Solutions",
                       "a42318b19416b86d301d01db278172da59490a69", "build_leetcode_labelled.py")
MBPP_ET = LabelledSet("mbpp_et", "https://github.com/nickless079/TeamCoder",
                      "5d87dbff9ea15994c9a5e3893223650ad8de9c5e", "build_mbpp_extended.py", licence="none stated")
