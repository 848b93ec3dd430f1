"""Source adapters on the real shared files, through the production loading code."""

from __future__ import annotations

import base64
import json
import os
import pickle
import zlib
from collections import Counter

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.sources import collect, default_specs, hub_specs  # noqa: E402
from pipeline.sources.livecodebench import decode_private_tests, restricted_loads  # noqa: E402
from pipeline.sources.loading import load_file  # noqa: E402

# Records per shared file (DATA.md); auxiliary files (joined into others) are counted there.
EXPECTED = {
    "taco": 1000, "apps": 150, "code_contests": 165, "code_contests_verify": 10, "livecodebench": 879,
    "leetcode": 2090, "kodcode": 288, "mbpp": 474, "mbpp_test": 500, "humaneval_xl": 240, "xcodeeval": 106, "sandboxfusion": 133,
}


@pytest.fixture(scope="module")
def specs():
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    return default_specs()


@pytest.fixture(scope="module")
def results(specs):
    return {name: collect(spec) for name, spec in specs.items()}


def test_every_record_is_a_row_or_a_reject(specs, results):
    assert set(EXPECTED) <= set(specs)
    read: dict[tuple[str, ...], int] = {}  # a file that several sources split (MBPP's test split) counts once
    for name, spec in specs.items():
        res = results[name]
        read[spec.data_files] = read.get(spec.data_files, 0) + res.stats.input
        if "split" not in spec.options:
            assert res.stats.input == sum(1 for path in spec.data_files for _ in load_file(path)), name
        assert len(res.kept) + len(res.rejects) == res.stats.input, name
        if name in EXPECTED:
            assert res.stats.input == EXPECTED[name], name
        ids = [r["problem_id"] for r in res.kept]
        assert len(ids) == len(set(ids)), f"{name}: duplicate problem ids"
        assert all(r["statement"] and r["source"] == name for r in res.kept)
    for files, n in read.items():
        assert n == sum(1 for path in files for _ in load_file(path)), files


def test_rejects_carry_reasons(results):
    assert Counter(r["reason"] for r in results["kodcode"].rejects) == {"failed_verification": 165}
    assert Counter(r["reason"] for r in results["apps"].rejects) == {"duplicate_record": 22}  # 21 ids repeat, one of them twice
    sbx = Counter(r["reason"] for r in results["sandboxfusion"].rejects)
    assert sbx == {"unsupported_task": 20, "unsupported_language": 8}
    assert all(r["record"] for r in results["kodcode"].rejects)


def test_humaneval_from_package(results):
    rows = {r["source_id"]: r for r in results["humaneval"].kept}
    assert len(rows) == 164
    first = rows["HumanEval/0"]
    assert json.loads(first["tests"])["entry_point"] == "has_close_elements"
    assert first["solutions"][0].startswith(first["starter_code"])


def test_field_mapping_spot_checks(results):
    lc = {r["source_id"]: r for r in results["leetcode"].kept}
    two = lc["two-sum"]
    assert two["source_difficulty"] == "Easy" and json.loads(two["metadata"])["split"] == "train"
    assert Counter(json.loads(r["metadata"])["split"] for r in lc.values()) == {"train": 1890, "test": 200}
    xl_ids = {r["source_id"] for r in results["humaneval_xl"].kept}
    assert {"python/0:Chinese", "python/0:English", "python/0:Russian"} <= xl_ids
    xce = results["xcodeeval"].kept[0]
    tests = json.loads(xce["tests"])
    assert tests["time_limit_s"] == 2.0 and tests["memory_limit_mb"] == 256 and xce["source_difficulty"] == "1600"
    taco = {r["source_id"]: r for r in results["taco"].kept}
    assert json.loads(taco["0"]["tests"])["inputs"] == ["5\n"]
    assert sum(json.loads(r["metadata"])["special_judge"] is True for r in taco.values()) == 218
    kod = results["kodcode"].kept
    assert sum(bool(r["incorrect_solutions"]) for r in kod) == 58
    assert all(json.loads(r["metadata"])["labelled"] for r in kod)
    lcb = results["livecodebench"].kept
    assert Counter(r["starter_code"] != "" for r in lcb)[True] == 381
    verify = results["code_contests_verify"].kept[0]
    assert not verify["solutions"][0].startswith("```")


def test_sandboxfusion_pickled_lcb_tests_decode_safely(results):
    rows = [r for r in results["sandboxfusion"].kept if r["source_id"].startswith("code_eval_live_code_bench_v1/")]
    assert len(rows) == 3
    tests = json.loads(rows[0]["tests"])
    assert rows[0]["tests_format"] == "apps_io" and tests["inputs"][0].startswith("6\nabc")
    assert rows[0]["solutions"] == []  # the placeholder "import sys; sys.exit(0)" is no reference


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_restricted_unpickler_refuses_code():
    with pytest.raises(pickle.UnpicklingError):
        restricted_loads(pickle.dumps(_Evil()))
    blob = base64.b64encode(zlib.compress(pickle.dumps(_Evil()))).decode()
    with pytest.raises(pickle.UnpicklingError):
        decode_private_tests(blob)


def test_restricted_unpickler_admits_plain_data():
    cases = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    for protocol in range(0, pickle.HIGHEST_PROTOCOL + 1):
        blob = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases), protocol=protocol))).decode()
        assert decode_private_tests(blob) == cases
    assert restricted_loads(pickle.dumps({"a": [1, 2.5, None, True, b"x", (1, 2)]})) == {"a": [1, 2.5, None, True, b"x", (1, 2)]}


def test_hub_specs_name_registered_adapters():
    from pipeline.sources import ADAPTERS

    specs = hub_specs()
    assert {"BAAI/TACO", "codeparrot/apps", "deepmind/code_contests", "livecodebench/code_generation_lite",
            "agentica-org/DeepCoder-Preview-Dataset", "KodCode/KodCode-V1", "newfacade/LeetCodeDataset"} == {
        s.hub_path for s in specs.values()}
    assert all(s.adapter in ADAPTERS and s.is_hub for s in specs.values())


@pytest.mark.parametrize("name", ["problems.jsonl.gz", "problems.parquet"])
def test_unreadable_file_fails_the_source_naming_the_file(tmp_path, name):
    """A corrupt file is not a bad record: the source fails, and the message names the file."""
    from pipeline.sources import SourceReadError, SourceSpec

    path = tmp_path / name
    path.write_bytes(b"\x1f\x8b\x08\x00 not a gzip stream" * 10)
    with pytest.raises(SourceReadError, match=f"cannot read {path}"):
        collect(SourceSpec("broken", "leetcode", data_files=(str(path),)))
