"""Verify's test generation on real records: hidden tests answered by the references, chosen for
the wrong programs they reject, cached, and never trained on silently when there are none."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest

from evaluator import evaluate_many
from pipeline.paths import shared_data_dir
from pipeline.process import process_rows
from pipeline.sources import collect, default_specs
from pipeline.verify import VerifyConfig, verify_rows
from pipeline.verify.testgen import TestGenConfig

GEN = TestGenConfig(inputs=16, max_tests=10, mutants=4, cache=False)


@pytest.fixture(scope="module")
def processed():
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    specs = default_specs()
    return {name: process_rows(collect(specs[name]).kept).kept for name in ("mbpp", "leetcode", "taco")}


def _verify(rows, **generation):
    return verify_rows(rows, VerifyConfig(generation=dataclasses.replace(GEN, **generation)))


def _reference_passes(rows):
    jobs = [(r["problem_id"], r["solutions"][0], r["tests"].to_dict()) for r in rows]
    return [res.passed for res in evaluate_many(jobs, stop_on_first_failure=False)]


def test_leetcode_examples_get_hidden_call_tests(processed):
    rows = processed["leetcode"][:6]
    assert all(r["tests"].hidden_count == 0 for r in rows)  # only the printed examples
    said: list[str] = []
    result = verify_rows(rows, VerifyConfig(generation=dataclasses.replace(GEN, batch_problems=4)), progress=said.append)
    assert len(result.kept) >= 5, result.reasons()
    # in batches, each step of each reported (done/total and, once a batch is done, an ETA)
    lines = [line for line in said if line.startswith("test generation:")]
    steps = [line.split(", ")[:2] for line in lines]
    assert steps == [["test generation: 0/6 problems", f"batch 1/2 {step}"] for step in ("inputs made", "references answered")] + [
        ["test generation: 4/6 problems", "batch 1/2 done"]] + [
        ["test generation: 4/6 problems", f"batch 2/2 {step}"] for step in ("inputs made", "references answered")] + [
        ["test generation: 6/6 problems", "batch 2/2 done"]]
    assert lines[-1].endswith("ETA 0.0 min") and lines[0].endswith("ETA after the first batch")
    for row in result.kept:
        generated = [c for c in row["tests"].cases if c.origin != "source"]
        assert row["generated_tests"] == len(generated) > 0 and row["tests"].hidden_count == len(generated)
        assert all(c.how and not c.public for c in generated)
        assert row["hardcoder_rejected"] is True and row["tests_only_in_statement"] is False
        assert row["mutation_score"] is None or row["mutation_score"] >= (row["mutation_score_before"] or 0)
    assert all(_reference_passes(result.kept))


def test_without_hidden_tests_a_problem_is_rejected_or_marked(processed):
    rows = processed["leetcode"][:3]
    rejected = _verify(rows, enabled=False)
    assert rejected.reasons() == {"tests_only_in_statement": 3}
    detail = rejected.rejects[0]["detail"]
    assert "examples the statement prints" in detail and "generation disabled" in detail
    marked = verify_rows(rows, VerifyConfig(weak_tests="mark", generation=dataclasses.replace(
        GEN, enabled=False, tests_only_in_statement="mark")))
    assert [r["tests_only_in_statement"] for r in marked.kept] == [True] * 3
    assert all(r["weak_tests"] and r["hardcoder_rejected"] is False for r in marked.kept)


def test_mbpp_asserts_grow_and_reject_labelled_wrong_programs(processed):
    rows = processed["mbpp"][:12]
    result = _verify(rows)
    grown = [r for r in result.kept if r["generated_tests"]]
    assert len(grown) >= 10
    for row in grown:
        lines = [ln for ln in row["tests"].assert_code.splitlines() if "# generated: " in ln]
        assert len(lines) == row["generated_tests"] and all(ln.startswith("assert ") for ln in lines)
    assert all(_reference_passes(grown))
    # MapCoder's programs that pass MBPP's three asserts but fail its extended tests
    ids = {r["source_id"]: r for r in grown}
    before_tests = {r["source_id"]: r["tests"].to_dict() for r in rows}
    wrong = []
    with gzip.open(shared_data_dir() / "labelled" / "programs.jsonl.gz", "rt") as fh:
        for line in fh:
            rec = json.loads(line)
            sid = rec["task_id"].split("_")[1] if rec["dataset"] == "mbpp" else None
            if sid in ids and rec["label_base"] is True and rec["label_extended"] is False:
                wrong.append((sid, rec["code"]))
    assert wrong
    before = evaluate_many([(s, c, before_tests[s]) for s, c in wrong])
    after = evaluate_many([(s, c, ids[s]["tests"].to_dict()) for s, c in wrong])
    assert sum(not r.passed for r in after) > sum(not r.passed for r in before)


def test_taco_stdin_problems_get_grammar_tests(processed):
    rows = processed["taco"][:4]
    result = _verify(rows)
    grown = [r for r in result.kept if r["generated_tests"]]
    assert grown, [r.get("generation_note") for r in result.kept] + [j["detail"][:200] for j in result.rejects]
    for row in grown:
        origins = {c.origin for c in row["tests"].cases if not c.public}
        assert origins <= {"grammar", "mutation"} and origins
    assert all(_reference_passes(grown))
    # what one reward costs, measured on the source's tests and on the released ones, and on the card
    from pipeline.verify.report import funnel_by_source, funnel_markdown

    assert all(r["reward_ms_before"] > 0 and r["reward_ms"] > 0 for r in grown)
    funnel = funnel_by_source(result.kept)["taco"]
    assert funnel["reward_ms_after"] > 0 and funnel["reward_ms_before"] > 0
    assert "reward ms before (median)" in funnel_markdown({"taco": funnel})


def test_a_refresh_takes_generated_tests_from_the_cache(processed, monkeypatch, tmp_path):
    monkeypatch.setenv("MICROCODER_DATA", str(tmp_path))
    rows = processed["leetcode"][6:9]
    first = _verify(rows, cache=True)
    second = _verify(rows, cache=True)
    assert first.stats["generation_cache_hits"] == 0 and second.stats["generation_cache_hits"] == 3
    assert [r["tests"].to_json() for r in first.kept] == [r["tests"].to_json() for r in second.kept]


def test_a_reference_that_fails_every_new_input_keeps_its_tests(processed):
    row = dict(processed["leetcode"][0])
    code = row["solutions"][0]  # the reference, made to raise on any input but the examples
    examples = {c.input for c in row["tests"].cases}
    guard = ("import json as _j\n_examples = " + repr(examples) + "\n"
             "def _only(f):\n    def g(self, *a):\n        if _j.dumps(list(a)) not in _examples:\n"
             "            raise ValueError('unseen input')\n        return f(self, *a)\n    return g\n")
    fn = row["tests"].fn_name
    row["solutions"] = [guard + code + f"\nSolution.{fn} = _only(Solution.{fn})\n"]
    result = verify_rows([row], VerifyConfig(weak_tests="mark", generation=dataclasses.replace(
        GEN, tests_only_in_statement="mark")))
    kept = result.kept[0]
    assert kept["generated_tests"] == 0 and "no generated input" in kept["generation_note"]
    assert kept["tests_only_in_statement"] is True


def test_an_answer_the_oracle_cannot_read_costs_only_its_problem(processed, monkeypatch):
    """Reading one problem's answers raises (an answer of 6,535 digits once broke the float check):
    that problem keeps its own tests, with the reason; the others still get generated tests."""
    from pipeline.verify.testgen import generate

    rows = processed["taco"][:3]
    broken = rows[0]["problem_id"]
    real = generate._keep_agreed

    def keep(cand, per_ref, brute=None):
        if cand.row["problem_id"] == broken:
            raise ValueError("an answer this check cannot read")
        return real(cand, per_ref, brute)

    monkeypatch.setattr(generate, "_keep_agreed", keep)
    result = _verify(rows)
    out = {r["problem_id"]: r for r in result.kept}
    # left with the statement's example only, it is rejected as weak, with the note on its record
    rejected = {r["problem_id"]: json.loads(r["record"]) for r in result.rejects}
    assert broken not in out and rejected[broken]["generated_tests"] == 0
    assert "reading the references' answers failed: ValueError" in rejected[broken]["generation_note"]
    assert all(out[r["problem_id"]]["generated_tests"] for r in rows[1:])


# ----------------------------------------------------------------------------- the differential round
def _special_cased(row, value, kind):
    """The reference, but wrong on one input: a program every selected test accepts."""
    code = row["solutions"][0]
    if kind == "stdin":
        return ("import io as _io, sys as _sys\n_data = _sys.stdin.read()\n"
                f"if _data == {value!r}:\n    print('wrong answer')\nelse:\n"
                "    _sys.stdin = _io.TextIOWrapper(_io.BytesIO(_data.encode()))\n"
                f"    exec(compile({code!r}, '<reference>', 'exec'), {{'__name__': '__main__'}})\n")
    if kind == "call":  # a Solution method
        fn = row["tests"].fn_name
        return (code + f"\n_Reference = Solution\nclass Solution(_Reference):\n    def {fn}(self, *args, **kwargs):\n"
                f"        if (args, kwargs) == {value!r}:\n            return 'wrong answer'\n"
                f"        return super().{fn}(*args, **kwargs)\n")
    from pipeline.verify.testgen.asserts import calls as asserts

    name = asserts.examples(row["tests"])[0][-1]
    return (code + f"\n_reference = {name}\ndef {name}(*args, **kwargs):\n"
            f"    if (args, kwargs) == {value!r}:\n        return 'wrong answer'\n    return _reference(*args, **kwargs)\n")


class _Replay:
    """A sampler that answers every prompt with the same programs (any backend returns completions)."""

    model_id = "replay"

    def __init__(self, programs):
        self.programs = programs

    def generate(self, prompts, n=1, temperature=1.0, max_tokens=256, seed=0):
        from pipeline.samplers.base import Completion

        return [[Completion(f"```python\n{code}\n```", None, 10, "stop") for code in self.programs[:n]] for _ in prompts]


@pytest.mark.parametrize(("source", "at"), [("mbpp", 0), ("taco", 1), ("leetcode", 0)])
def test_the_differential_round_adds_the_input_a_passing_wrong_sample_fails(processed, source, at, tmp_path):
    """Generation keeps a reserve; a sample that passes the selected tests but is wrong on one reserve
    input is rejected by the round, which adds exactly that input; the reference adds nothing (an
    ``assert``, a ``stdin`` and a ``call`` problem). The scored problem, cached and released, carries
    the grown tests (the ``assert`` problem); a cached score is one on the same tests."""
    import pyarrow.parquet as pq

    from evaluator.backend import LocalBackend
    from pipeline.difficulty import DifficultyConfig, ScoreCache, score_problems, tests_hash
    from pipeline.release import release
    from pipeline.shards import ShardConfig
    from pipeline.verify.testgen import differential_round, read_reserve

    [row] = _verify([processed[source][at]], max_tests=2).kept
    reserve = read_reserve(row)
    assert row["generated_tests"] == 2 and len(reserve) >= 2
    value = reserve[1][0]
    wrong, right = _special_cased(row, value, row["tests"].kind), row["solutions"][0]
    assert all(_reference_passes([{**row, "solutions": [wrong]}]))  # the selected tests let it through

    [grown] = differential_round([row], [[None, wrong, right]], backend=LocalBackend())
    assert grown.added == 1 and grown.rejected == {1}
    if grown.tests.kind == "stdin":
        assert grown.tests.cases[-1].input == value and grown.tests.count == row["tests"].count + 1
    elif grown.tests.kind == "call":
        assert json.loads(grown.tests.cases[-1].input) == list(value[0]) and grown.tests.count == row["tests"].count + 1
    else:
        from pipeline.verify.testgen.asserts import calls as asserts

        entry = asserts.examples(row["tests"])[0]
        line = asserts.render(entry, *value, reserve[1][1], reserve[1][2])
        assert grown.tests.assert_code.rstrip().endswith(line) and grown.tests.assert_code.count("\nassert ") == \
            row["tests"].assert_code.count("\nassert ") + 1
    results = evaluate_many([(i, code, grown.tests.to_dict()) for i, code in enumerate((wrong, right))])
    assert [r.passed for r in results] == [False, True]
    assert differential_round([row], [[right, right]], backend=LocalBackend())[0].added == 0
    if source != "mbpp":
        return
    cache = ScoreCache(str(tmp_path / "scores.parquet"))
    [problem], stats = score_problems([row], _Replay([wrong, right]), DifficultyConfig(k=2), cache)
    assert problem["pass_rate"] == 0.5 and problem["model_solution"].strip() == right.strip()
    assert problem["tests"].to_json() == grown.tests.to_json() and problem["differential_added"] == 1
    assert problem["num_tests"] == row["tests"].count + 1
    assert stats["round_added"] == 1 and stats["round_rejected"] == 1
    cache.save()
    [again], stats = score_problems([row], _Replay([]), DifficultyConfig(k=2), ScoreCache(cache.url))
    assert stats["cached"] == 1 and again["tests"].to_json() == grown.tests.to_json()  # the cached round, no sample
    changed = {**row, "tests": grown.tests}  # Verify's tests changed since: scored again, on its tests
    [rescored], stats = score_problems([changed], _Replay([right, right]), DifficultyConfig(k=2), ScoreCache(cache.url))
    assert stats["cached"] == 0 and rescored["tests"] is grown.tests and rescored["differential_added"] == 0
    assert stats["cache_pruned"] == 1  # the score on the old tests can never be hit again: gone from the file
    assert [r["tests_hash"] for r in pq.read_table(cache.url).to_pylist()] == [tests_hash(grown.tests)]

    # released as the stage returned it: the grown tests, the count per row and per source, no reserve
    out = release([problem], [], ShardConfig(), str(tmp_path / "dataset")).stats
    [released] = pq.read_table(tmp_path / "dataset" / "data" / "train-00000-of-00001.parquet").to_pylist()
    assert released["differential_added"] == 1 and "reserve_inputs" not in released
    assert released["tests"] == grown.tests.to_json()
    assert "| mbpp | 1 | 1 | 1 |" in out["card"].split("## Differential round")[1]


def _answered_stdin_inputs(row: dict, ref_s: dict[int, float]):
    """A stdin problem's candidate with 30 generated inputs, each answered, made three ways, and
    its reference's CPU time on each (``ref_s``): what selection reads."""
    from pipeline.verify.testgen import Candidate, kind_for

    cand = Candidate(row, kind_for(row["tests"]))
    cand.inputs = [f"{n}\n" for n in range(30)]
    cand.labels = [f"grammar:{n % 3}" for n in range(30)]
    cand.expected = {i: f"{i}\n" for i in range(30)}
    cand.ref_s = ref_s
    return cand


def test_selection_keeps_the_reward_within_its_cap_but_never_drops_an_adversarys_test(processed):
    """A stdin case is a process of its own: padding stops where the estimated reward passes
    ``max_reward_s``; a test that rejects an adversary joins past it."""
    from pipeline.verify.testgen import Program
    from pipeline.verify.testgen.generate import reward_estimate_s, select

    cand = _answered_stdin_inputs(processed["taco"][0], dict.fromkeys(range(30), 0.001))
    config = dataclasses.replace(GEN, max_tests=20)
    padded = select(cand, config)
    assert 0 < len(padded) < 20 and reward_estimate_s(cand, padded) <= config.max_reward_s
    assert reward_estimate_s(cand, padded + [29]) > config.max_reward_s  # it stopped at the cap
    cand.kills = {Program("mutant", 0, "a"): {29}, Program("mutant", 1, "b"): {28}}
    chosen = select(dataclasses.replace(cand, kills=cand.kills), dataclasses.replace(config, max_reward_s=0.0))
    assert chosen == [28, 29] or chosen == [29, 28]


def test_an_input_made_for_slow_programs_counts_its_reference_time_rounded_up(processed):
    """A slow input is large by design: the reward's estimate counts its reference time in whole
    steps rounded up (7 ms: 10), where another input's small time rounds down to nothing."""
    from pipeline.verify.testgen.generate import reward_estimate_s

    cand = _answered_stdin_inputs(processed["taco"][0], dict.fromkeys(range(30), 0.007))
    plain = reward_estimate_s(cand, [0])
    cand.labels[0] = "slow:grammar"
    assert reward_estimate_s(cand, [0]) == pytest.approx(plain + 0.01)


def test_selection_keeps_the_smallest_killer_of_each_way_inputs_are_made(processed):
    """Past the cover of what the source's tests let through, each way of making inputs that
    rejects some adversary keeps its smallest such input (issue 48): a small corner and an extreme
    join, though the source's own tests already reject the mutant they catch."""
    from pipeline.verify.testgen import Program
    from pipeline.verify.testgen.generate import select

    cand = _answered_stdin_inputs(processed["taco"][0], dict.fromkeys(range(30), 0.001))
    cand.labels[5] = cand.labels[9] = "small:exhaustive"
    cand.labels[12] = cand.labels[15] = "boundary:int_hi"
    cand.inputs[5], cand.inputs[9], cand.inputs[12] = "1 1 1\n", "1\n", "1 2 3 4 5 6\n"
    caught, open_ = Program("mutant", 0, "a"), Program("mutant", 1, "b")
    cand.kills = {caught: {5, 9, 12, 15}, open_: {20}}
    cand.killed_by_original = {caught}
    chosen = select(cand, dataclasses.replace(GEN, max_tests=3, max_reward_s=1.0))
    assert chosen == [20, 15, 9]  # the cover, then boundary's smallest killer, then small's


def test_selection_keeps_the_same_tests_whatever_a_small_inputs_clock_says(processed):
    """The references' CPU time counts in whole 10 ms steps: two runs whose small inputs measured a
    millisecond apart (a process's start, already in the kind's ``case_s``) keep the same tests; a
    slow input's work still counts (it does not fit where cheaper inputs after it do)."""
    import random

    from pipeline.verify.testgen.generate import ref_cost_s, select

    config = dataclasses.replace(GEN, max_tests=30)
    picks = []
    for seed in range(3):
        noise = random.Random(seed)
        ref_s = {i: 0.002 + 0.003 * noise.random() for i in range(30)}
        ref_s[7] = 0.025 + 0.004 * noise.random()
        cand = _answered_stdin_inputs(processed["taco"][0], ref_s)
        picks.append(select(cand, config))
        assert ref_cost_s(cand, 3) == 0.0 and ref_cost_s(cand, 7) == pytest.approx(0.02)
    assert picks[0] == picks[1] == picks[2] and 7 not in picks[0] and max(picks[0]) > 7

def test_an_edge_joins_the_tests_only_where_a_second_program_vouches_and_none_refuses(processed):
    """Edges past the examples' envelope wait in the reserve; the round admits one only where
    another sample answers it as the references do and no sample refuses it (raises)."""
    from evaluator.backend import LocalBackend
    from pipeline.verify.testgen import differential_round, read_reserve

    [row] = _verify([processed["mbpp"][0]], max_tests=2).kept
    edges = [(value, label) for value, _, label in read_reserve(row) if label.startswith("edge:")]
    assert edges and all(label.split(":")[1] in {"empty", "single", "ties", "long"} for _, label in edges)
    value = edges[0][0]
    wrong, right = _special_cased(row, value, "assert"), row["solutions"][0]
    refuses = wrong.replace("return 'wrong answer'", "raise ValueError('not an input of this problem')")

    def added(samples):
        [grown] = differential_round([row], [samples], backend=LocalBackend())
        return grown.added, grown.rejected

    assert added([wrong]) == (0, frozenset())  # the references' word alone
    assert added([wrong, right]) == (1, {0})  # a second program answers as they do
    assert added([wrong, right, refuses]) == (0, frozenset())  # a correct program may refuse it


def test_planning_spread_over_processes_plans_what_one_process_plans(processed):
    """The planned problem crosses a pipe and back whole: its inputs, refusals, notes and the
    relations its answers must keep (module functions, not closures)."""
    from pipeline.verify.testgen import planner

    rows = processed["mbpp"][:8] + processed["leetcode"][:4] + processed["taco"][:4]
    config = TestGenConfig(cache=False)
    with planner(config, 1, len(rows)) as plan:
        here = plan(rows)
    with planner(config, 2, len(rows)) as plan:
        assert plan.pool is not None
        apart = plan(rows)
    def seen(cand):
        return cand.inputs, cand.labels, sorted(cand.invalid.items()), cand.note, sorted(cand.relations)

    assert [seen(c) for c in apart] == [seen(c) for c in here]
    assert all(a.row is r for a, r in zip(apart, rows))
    assert sum(len(c.relations) for c in apart) > 0 and sum(len(c.inputs) for c in apart) > 100


def test_a_stdin_problem_makes_a_share_of_the_inputs_a_call_problem_makes(processed):
    """A stdin input costs a process per reference and adversary: its kind makes 33 of the 100
    (30, and 3 made for slow programs)."""
    from pipeline.verify.testgen import planner

    rows = processed["mbpp"][:4] + processed["taco"][:4]
    with planner(TestGenConfig(cache=False), 1, len(rows)) as plan:
        cands = plan(rows)
    calls, stdins = [len(c.inputs) for c in cands[:4]], [len(c.inputs) for c in cands[4:]]
    assert [c.kind.name for c in cands[4:]] == ["stdin"] * 4
    assert 0 < max(stdins) <= 33 < min(calls), (calls, stdins)  # (a call problem's edges come on top)


def test_a_plan_that_does_not_pickle_is_made_again_by_its_owner(processed, monkeypatch):
    from pipeline.verify.testgen import planning

    real = planning.plan_inputs

    def with_a_closure(row, config):
        cand = real(row, config)
        cand.plan.validator = lambda *_: None  # a closure: pickle refuses it
        return cand

    monkeypatch.setattr(planning, "plan_inputs", with_a_closure)
    rows = processed["mbpp"][:16]
    with planning.planner(TestGenConfig(cache=False), 2, len(rows)) as plan:
        cands = plan(rows)
    assert [c.row for c in cands] == rows and all(c.inputs for c in cands[:4])


def test_the_phase_recorder_sees_every_phase_and_costs_nothing_when_off(processed):
    """The benchmark's recorder (:mod:`pipeline.verify.testgen.timing`): on, every phase of a run
    that has one (the planner's from its processes too); off, a shared no-op that keeps nothing."""
    from pipeline.verify.testgen import timing

    assert not timing.on() and timing.phase("oracle") is timing.NOTHING
    timing.add("oracle", 1.0)  # off: dropped
    with timing.recording() as phases:
        _verify(processed["mbpp"][:2] + processed["taco"][:2])
    assert {"references", "planning", "proposing", "validating", "oracle", "adversaries:generated",
            "adversaries:originals", "selection", "strength"} <= set(phases), sorted(phases)
    assert all(v >= 0 for v in phases.values()) and phases["planning"] > 0 and not timing.on()


def test_the_stdin_hardcoders_kills_known_without_running_it_are_the_ones_its_runs_give(processed):
    """A stdin hardcoder is a table lookup: its kills are computed (no process per input), and
    they are exactly what running it on every generated input gives."""
    from evaluator.backend import LocalBackend
    from evaluator.model import Limits, Options
    from pipeline.verify.testgen import Program, Runs, planner
    from pipeline.verify.testgen import generate as g

    rows = [r for r in _verify(processed["taco"][:8]).kept if r.get("solutions")]
    with planner(GEN, 1, len(rows)) as plan:
        cands = plan(rows)
    g.run_oracle(cands, g._trusted, backend=LocalBackend(), workers=None, memory_mb=1024, budget_s=60)
    runs, known = Runs(), {}
    for ci, cand in enumerate(cands):
        g.build_adversaries(cand, GEN)
        hardcoder = Program("hardcoder")
        code = dict(cand.adversaries).get(hardcoder)
        if code and cand.expected:
            kept = sorted(cand.expected)
            known[ci] = cand.kind.known_kills(cand, hardcoder, code, kept)
            runs.add(ci, cand.kind.adversary_jobs(cand, code, g._adversary_tests(cand), kept))
    for ci, result in runs.run(LocalBackend(), Limits(wall_budget_s=60), Options(stop_on_first_failure=False)):
        assert known[ci] == cands[ci].kind.kills(cands[ci], result).rejected
    assert len(known) >= 4 and all(k is not None for k in known.values()) and any(known.values())


def test_a_stdin_adversary_says_which_inputs_it_crashed_on_as_a_call_one_does(processed):
    """The kind-free edge check (``differential.vouched``) reads ``failed`` and ``unrun``: a stdin
    adversary fills them as a call one does, so a program that crashes on an input is told apart
    from one that answers it wrongly."""
    from evaluator.backend import LocalBackend
    from evaluator.model import Limits, Options
    from pipeline.verify.testgen import Runs, planner
    from pipeline.verify.testgen import generate as g

    rows = [r for r in _verify(processed["taco"][:4]).kept if r.get("solutions")]
    with planner(GEN, 1, len(rows)) as plan:
        cands = plan(rows)
    g.run_oracle(cands, g._trusted, backend=LocalBackend(), workers=None, memory_mb=1024, budget_s=60)
    crash_on_odd = "import sys\ndata = sys.stdin.read()\nif len(data) % 2:\n    raise SystemExit(3)\nprint('no')\n"
    runs = Runs()
    for ci, cand in enumerate(cands):
        if cand.expected:
            runs.add(ci, cand.kind.adversary_jobs(cand, crash_on_odd, g._adversary_tests(cand), sorted(cand.expected)))
    checked = 0
    for ci, result in runs.run(LocalBackend(), Limits(wall_budget_s=60), Options(stop_on_first_failure=False)):
        cand = cands[ci]
        kills = cand.kind.kills(cand, result)
        odd = {i for i in cand.expected if len(cand.inputs[i]) % 2}
        assert kills.failed == odd and odd <= kills.rejected and kills.unrun == set()
        checked += bool(odd) and bool(set(cand.expected) - odd)
    assert checked >= 1


QUADRATIC_TRIPLET = '''
class Solution:
    def maximumTripletValue(self, nums):
        n, best = len(nums), 0
        top = [0] * n  # the largest value before each index
        for i in range(1, n):
            top[i] = max(top[i - 1], nums[i - 1])
        for j in range(1, n - 1):  # every (j, k): right on every input, too slow at the stated 10^5
            for k in range(j + 1, n):
                best = max(best, (top[j] - nums[j]) * nums[k])
        return best
'''


def test_an_input_made_for_slow_programs_fails_a_quadratic_program_and_not_the_references(processed):
    """Issue 48 point 2 (after AutoCode): maximum-value-of-an-ordered-triplet-ii states 3 <=
    nums.length <= 10^5. A quadratic program passes its source tests and every input no larger than
    the examples; the released tests hold one near the stated size (up to 20,000 items: ``slow:``),
    which the reference answers in milliseconds. LeetCodeDataset's second program for it is
    quadratic too: with it among the references, no such input is kept (every reference passes its
    row's tests)."""
    row = next(r for r in processed["leetcode"] if r["source_id"] == "maximum-value-of-an-ordered-triplet-ii")
    assert evaluate_many([("q", QUADRATIC_TRIPLET, row["tests"].to_dict())])[0].passed
    both, first = _verify([row, {**row, "problem_id": row["problem_id"] + "-first", "solutions": row["solutions"][:1]}],
                          inputs=100, max_tests=30, mutants=1).kept
    assert not [c for c in both["tests"].cases if (c.how or "").startswith("slow:")]
    slow = [c for c in first["tests"].cases if (c.how or "").startswith("slow:")]
    assert slow and max(len(json.loads(c.input)[0]) for c in slow) > 10_000
    judged = dataclasses.replace(first["tests"], time_limit_s=2.0).to_dict()
    quadratic, reference, second = evaluate_many([("q", QUADRATIC_TRIPLET, judged), ("r", row["solutions"][0], judged),
                                                  ("s", row["solutions"][1], judged)])
    assert not quadratic.passed and quadratic.verdict.value == "time_limit"
    assert reference.passed and second.verdict.value == "time_limit"
