"""Filter stage on real shared records: quality rules, dedup, decontamination, mix."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import numpy as np
import pytest
from datasketch import MinHash, MinHashLSH

from pipeline.filter import BenchmarkSet, FilterConfig, QualityConfig, benchmark_sets, filter_rows, filter_sources
from pipeline.filter.dedup import candidate_pairs, keeper_key, near_duplicates, num_tests
from pipeline.filter.minhash import signatures, to_minhash
from pipeline.filter.mix import subsample
from pipeline.filter.quality import SPECIAL_JUDGE_RE, check
from pipeline.filter.text import normalized_hash, shingles, words
from pipeline.schema import Tests, make_row

SOURCES = ("taco", "apps", "code_contests", "xcodeeval", "leetcode", "kodcode")


@pytest.fixture(scope="module")
def processed(shared_data) -> dict[str, list[dict]]:
    """Processed rows per source, through the real adapters and Process stage."""
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    specs = default_specs()
    out = {}
    for name in SOURCES:
        out[name] = process_rows(collect(specs[name]).kept).kept
    return out


@pytest.fixture(scope="module")
def collected(shared_data) -> dict[str, list[dict]]:
    """Collected rows: Process rejects TACO's call-based tasks (no parsed tests), which hold
    half of the known TACO/APPS overlap, so the dedup facts are checked before Process."""
    from pipeline.sources import collect, default_specs

    specs = default_specs()
    return {name: collect(specs[name]).kept for name in ("taco", "apps", "code_contests", "xcodeeval")}


@pytest.fixture(scope="module")
def reference_rows(shared_data) -> list[dict]:
    """Processed rows of every source whose declared role is benchmark or held-out."""
    from pipeline.process import process_rows
    from pipeline.sources import TRAIN, collect, default_specs

    return [row for spec in default_specs().values() if spec.role != TRAIN for row in process_rows(collect(spec).kept).kept]


@pytest.fixture(scope="module")
def benchmarks(reference_rows) -> list[BenchmarkSet]:
    return benchmark_sets(reference_rows)


def _row(statement: str, **extra) -> dict:
    tests = Tests(kind="stdin", cases=[{"input": "1\n", "output": "1\n"}])
    row = make_row("unit", extra.pop("source_id", "x"), statement=statement, tests=tests, **extra)
    row.update(has_images=False, num_tests=1)
    return row


def test_numpy_minhash_is_bit_identical_to_datasketch(shared_data, processed):
    texts = [r["statement"] for r in processed["taco"][:60] + processed["leetcode"][:60]] + ["", "short text"]
    ours = signatures(texts, num_perm=112, seed=1, workers=1)
    for text, sig in zip(texts, ours):
        ref = MinHash(num_perm=112, seed=1)
        ref.update_batch([s.encode("utf-8") for s in shingles(words(text), 5)])
        assert np.array_equal(ref.hashvalues, sig)
    assert np.array_equal(signatures(texts, workers=2, chunk_size=25), ours)  # pool == in-process
    assert to_minhash(ours[0]).jaccard(to_minhash(ours[0])) == 1.0


def test_normalized_hash_ignores_markup_and_examples():
    a = "Given $n$ ($1 \\le n \\le 10^{5}$), print <b>n</b>.\n\n-----Examples-----\nInput\n3\nOutput\n3\n"
    b = "Given n (1 <= n <= 10^5), print n!"
    assert normalized_hash(a) == normalized_hash(b)
    assert normalized_hash(a) != normalized_hash("Given n, print 2n.")


def test_quality_rules_each_have_their_reason():
    cfg = QualityConfig(min_statement_chars=20, max_statement_chars=200, min_tests=1)
    body = "You are given an array of n integers; find the maximum sum of a subarray. "
    assert check(_row(body), cfg) is None
    assert check(_row("Too short."), cfg)[0] == "statement_too_short"
    assert check(_row(body * 5), cfg)[0] == "statement_too_long"
    few = _row(body)
    few["num_tests"] = 0
    assert check(few, cfg)[0] == "too_few_tests"
    assert check(_row(body + "This is an interactive problem."), cfg)[0] == "interactive"
    assert check(_row(body, tags=["interactive"]), cfg)[0] == "interactive"
    pic = _row(body + "See the picture below. <image>")
    assert check(pic, cfg) is None  # a figure mention without an image is fine
    pic["has_images"] = True
    assert check(pic, cfg)[0] == "needs_images"
    multi = _row(body + "If there are multiple answers, print any.")
    assert check(multi, cfg)[0] == "special_judge_without_checker"
    checked = dict(multi, tests=Tests(kind="stdin", cases=[{"input": "1", "output": "1"}], checker="def check(): ..."))
    assert check(checked, cfg) is None
    assert check(multi, QualityConfig(min_statement_chars=20, require_checker_for_special_judge=False)) is None


def test_in_any_order_of_an_operation_is_no_special_judge(processed):
    """ "Rearrange ... in any order" where the answer is a number, a bool or a string the statement
    fixes has one valid answer: kept. An order the answer itself may take still needs a checker."""
    by_id = {(r["source"], r["source_id"]): r for name in ("leetcode", "code_contests") for r in processed[name]}
    kept = [("leetcode", "maximum-element-after-decreasing-and-rearranging"),  # "Rearrange ... in any order", a number
            ("leetcode", "reordered-power-of-2"),  # "reorder the digits in any order", a bool
            ("code_contests", "test_code_contests/63"),  # stdin: "rearrange them in any order", a number
            ("code_contests", "test_code_contests/80")]  # stdin: one number per test case
    rejected = [("leetcode", "lucky-numbers-in-a-matrix"),  # "return all lucky numbers ... in any order": a list
                ("leetcode", "largest-multiple-of-three"),  # a string the statement does not fix
                ("leetcode", "smallest-rotation-with-highest-score")]  # "if there are multiple answers": a number still
    for key in kept:
        assert SPECIAL_JUDGE_RE.search(by_id[key]["statement"]) and check(by_id[key], QualityConfig()) is None, key
    for key in rejected:
        assert check(by_id[key], QualityConfig())[0] == "special_judge_without_checker", key
    # and Verify releases it: its reference passes, hidden tests are generated
    from pipeline.verify import VerifyConfig, verify_rows

    verified = verify_rows([by_id[kept[0]]], VerifyConfig(workers=2))
    assert [(r["verified"], r["generated_tests"] > 0) for r in verified.kept] == [(True, True)], verified.rejects
    body = "You may rearrange the cards in any order. Print the largest sum, or print \"Impossible\" if none. "
    assert check(_row(body), QualityConfig()) is None  # the answer "1"
    fixed = dict(_row(body), tests=Tests(kind="stdin", cases=[{"input": "1\n", "output": "Impossible\n"}]))
    assert check(fixed, QualityConfig()) is None
    listed = dict(_row(body), tests=Tests(kind="stdin", cases=[{"input": "1\n", "output": "3 1 2\n"}]))
    assert check(listed, QualityConfig())[0] == "special_judge_without_checker"


def test_taco_special_judge_flags_reject_without_checker(processed):
    taco = processed["taco"]
    flagged = [r for r in taco if json.loads(r["metadata"] or "{}").get("special_judge") in (True, "True")]
    assert len(flagged) > 100  # output_spj.jsonl flags 218 of 1000
    outcome = {r["problem_id"]: (check(r, QualityConfig()) or ("kept",))[0] for r in flagged}
    has_checker = {r["problem_id"]: bool(r["tests"].checker) for r in flagged}
    # Flagged problems stay only where Process derived a standard checker from the statement
    # (yes/no in any case, absolute-or-relative error); none without a checker is kept.
    kept = [pid for pid, why in outcome.items() if why == "kept"]
    assert kept and all(has_checker[pid] for pid in kept)
    assert all(outcome[pid] != "kept" for pid in outcome if not has_checker[pid])
    assert Counter(outcome.values())["special_judge_without_checker"] >= 100


def test_filter_finds_cross_source_duplicates_and_accounts_for_every_row(collected):
    rows = [r for name in ("taco", "apps", "code_contests", "xcodeeval") for r in collected[name]]
    cfg = FilterConfig(quality=QualityConfig(min_tests=0, min_statement_chars=1, require_checker_for_special_judge=False,
                                               drop_interactive=False, drop_image_dependent=False), decontaminate=False)
    result = filter_rows(rows, cfg, [])
    assert len(result.kept) + len(result.rejects) == len(rows)
    assert len({r["problem_id"] for r in result.kept}) == len(result.kept)
    clusters = defaultdict(set)  # keeper problem_id -> {(source, source_id)} of the whole cluster
    by_pid = {r["problem_id"]: r for r in rows}
    for rej in result.rejects:
        if rej["reason"] in ("near_duplicate", "exact_duplicate"):
            keeper = by_pid[json.loads(rej["detail"])["duplicate_of"]]
            clusters[keeper["problem_id"]] |= {(keeper["source"], keeper["source_id"]), (rej["source"], rej["source_id"])}
    taco_with = defaultdict(set)
    for members in clusters.values():
        tacos = {sid for src, sid in members if src == "taco"}
        for src in {src for src, _ in members} - {"taco"}:
            taco_with[src] |= tacos
    # DATA.md: TACO overlaps APPS (15), CodeContests (14: 13 near-identical + one easy/hard version
    # at Jaccard 0.28, a different problem) and xCodeEval (8).
    assert len(taco_with["apps"]) >= 15
    assert len(taco_with["code_contests"]) >= 13
    assert len(taco_with["xcodeeval"]) >= 8
    # the richer copy is kept: every removed TACO duplicate points at a row with at least as many tests
    tests_of = {r["problem_id"]: num_tests(r) for r in rows}
    for rej in result.rejects:
        if rej["reason"] == "near_duplicate":
            assert tests_of[json.loads(rej["detail"])["duplicate_of"]] >= tests_of[rej["problem_id"]]


def test_near_dedup_keeper_is_deterministic_and_records_the_kept_id():
    base = " ".join(f"word{i} alpha beta gamma" for i in range(60))
    rows = [_row(base, source_id="a"), _row(base.replace("word7 ", "wordx "), source_id="b"),
            _row("completely different statement about graphs and trees " * 8, source_id="c")]
    rows[1]["num_tests"] = 5  # more tests: b must be kept
    key = keeper_key(())
    for order in (rows, rows[::-1]):
        dups = near_duplicates(order, key, workers=1)
        assert [(order[d.index]["source_id"], order[d.keeper]["source_id"]) for d in dups] == [("a", "b")]


def test_candidate_pairs_match_datasketch_lsh_queries(processed):
    texts = [r["statement"] for r in processed["taco"][:300] + processed["apps"]]
    sigs = signatures(texts, workers=1)
    pairs = set(candidate_pairs(sigs, 14, 8))
    lsh = MinHashLSH(num_perm=112, params=(14, 8))
    ref = []
    for i, t in enumerate(texts):
        m = MinHash(num_perm=112)
        m.update_batch([s.encode() for s in shingles(words(t), 5)])
        ref.append(m)
        lsh.insert(i, m)
    expected = {(min(i, j), max(i, j)) for i, m in enumerate(ref) for j in lsh.query(m) if j != i}
    assert pairs == expected and pairs


def test_leetcode_problems_in_livecodebench_are_contamination(processed, benchmarks):
    assert {b.name for b in benchmarks} >= {"livecodebench", "humaneval", "mbpp_test"}
    assert len(next(b for b in benchmarks if b.name == "mbpp_test").statements) == 500
    train = [r for r in processed["leetcode"] if json.loads(r["metadata"])["split"] == "train"]
    cfg = FilterConfig(exact_dedup=False, near_dedup=False)
    result = filter_rows(train, cfg, benchmarks)
    hits = [r for r in result.rejects if r["reason"] == "benchmark_contamination"]
    assert len(hits) >= 63  # DATA.md: 63 LeetCodeDataset train problems are in LiveCodeBench
    detail = json.loads(hits[0]["detail"])
    assert detail["benchmark"] and detail["benchmark_problem"] and len(detail["matched_ngram"].split()) == 13
    assert len(result.kept) + len(result.rejects) == len(train)


def test_decontamination_catches_a_short_mbpp_prompt_and_spares_boilerplate(benchmarks):
    mbpp = next(b for b in benchmarks if b.name == "mbpp_test")
    copied = _row("Please solve: " + mbpp.statements[0] + " Use a loop.")
    boiler = _row("The first line contains a single integer t (1 <= t <= 10^4) - the number of test cases. "
                  "Each test case contains one integer n. Print the number of divisors of n.")
    result = filter_rows([copied, boiler], FilterConfig(quality=QualityConfig(min_statement_chars=1)), benchmarks)
    assert [r["reason"] for r in result.rejects] == ["benchmark_contamination"]
    assert json.loads(result.rejects[0]["detail"])["benchmark"] == "mbpp_test"


def test_roles_split_the_sources_and_a_launchpad_override_moves_one(processed, reference_rows):
    """Benchmark and held-out rows are never filtered into training; they are what it is
    decontaminated against. Marking LeetCode a benchmark in the launchpad takes it out of training
    and makes it something training is checked against; a typo names the configured sources."""
    from pipeline.paths import SettingError

    rows = processed["leetcode"][:300] + processed["taco"][:300] + reference_rows
    config = FilterConfig(near_dedup=False)
    split, result = filter_sources(rows, config)
    assert {r["source"] for r in split.train} == {"leetcode", "taco"}
    assert {r["source"] for r in split.heldout} == {"livecodebench"}
    assert {r["source"] for r in split.benchmark} >= {"humaneval", "mbpp_test"}
    assert result.stats.input == len(split.train) == 600
    assert result.stats.kept + result.stats.rejected == 600
    assert result.stats["rows_by_role"]["heldout"] == {"livecodebench": 879}
    against = {d["benchmark"]: d for d in result.stats["decontaminated_against"]}
    assert against["livecodebench"]["problems"] == 879 and against["livecodebench"]["training_rows_removed"] > 0

    moved, moved_result = filter_sources(rows, FilterConfig(near_dedup=False, roles={"leetcode": "benchmark"}))
    assert {r["source"] for r in moved.train} == {"taco"} and "leetcode" in {r["source"] for r in moved.benchmark}
    assert {d["benchmark"] for d in moved_result.stats["decontaminated_against"]} >= {"leetcode"}
    with pytest.raises(SettingError, match="no configured source.*taco"):
        filter_sources(rows, FilterConfig(roles={"leetcod": "benchmark"}))
    with pytest.raises(SettingError, match="not one of"):
        filter_sources(rows, FilterConfig(roles={"leetcode": "eval"}))


def test_difficulty_mix_is_deterministic_and_has_its_reason(processed):
    rows = processed["leetcode"]
    labels = Counter(r["source_difficulty"] for r in rows)
    assert labels["Easy"] > 100
    mix = {"Easy": 0.25, "Medium": 50.0}
    first = subsample(rows, mix, seed=3)
    assert first == subsample(list(rows), mix, seed=3) and first != subsample(rows, mix, seed=4)
    cfg = FilterConfig(exact_dedup=False, near_dedup=False, decontaminate=False, mix=mix,
                         quality=QualityConfig(min_tests=0, min_statement_chars=1, require_checker_for_special_judge=False))
    result = filter_rows(rows, cfg, [])
    kept = Counter(r["source_difficulty"] for r in result.kept)
    assert kept["Easy"] == round(labels["Easy"] * 0.25) and kept["Medium"] == 50 and kept["Hard"] == labels["Hard"]
    assert {r["reason"] for r in result.rejects} == {"difficulty_mix"}
    assert len(result.kept) + len(result.rejects) == len(rows)
