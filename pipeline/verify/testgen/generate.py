"""Verify's test generation: new inputs, the references' answers, and the tests that reject wrong programs.

For each verified problem with references, after EvalPlus and CodeContests+:

1. inputs: type-aware mutation of the call arguments (``call`` tests, and ``assert`` tests
   whose simple asserts lift into calls) or a grammar inferred from the ``stdin`` examples; each
   reaches the oracle only when a validator accepts it as one the statement allows
   (its kind's: :mod:`pipeline.verify.testgen.stdin.validate`, :mod:`pipeline.verify.testgen.call.validate`;
   refusals are counted per reason, ``inputs_invalid``);
2. the oracle: every reference runs every input; an input is kept only when all of them end
   cleanly within the time limit and agree (the problem's checker, or the evaluator's robust
   comparison). One reference only: the problem is marked ``single_reference_oracle``;
   inputs where references disagree are counted and reported; an answer that lost digits to
   floats (:func:`float_derived`) is dropped, and so is an answer that breaks a relation every
   example's answer keeps with its input (:mod:`pipeline.verify.testgen.call.postconditions`);
3. adversaries: the sample hardcoder (memorises the public examples) and AST mutants of the
   first reference run on the original tests, and those they let through on the generated ones
   (an adversary the original tests reject is rejected whatever is selected). A mutant that no
   input tells from the reference may be equivalent: it is counted apart and left out of the score;
4. selection: greedily the generated tests that reject the most adversaries not yet rejected,
   then others by kind of input, up to ``max_tests`` and ``max_reference_s`` of summed
   reference time, and while the reward's estimated time stays within ``max_reward_s`` (50 ms:
   a ``stdin`` case is a process of its own, so those problems keep fewer), so the reward stays
   fast. Each kept case records its origin and how it was made. The smallest answered inputs
   left out stay with the row as its reserve
   (``reserve_inputs``), for the difficulty stage's differential round
   (:mod:`pipeline.verify.testgen.differential`).

What depends on how a problem's tests are written (``stdin``, ``call``, ``assert``, LeetCode's
``linked`` node asserts) is its kind's (:mod:`pipeline.verify.testgen.kind`); this driver asks the
kind and never branches on it.

Problems go through these steps in batches (``batch_problems``), each reported as it ends (done,
total, an ETA): a full run is an hour on two cores. Step 1 is the driver's own work, pure Python
per problem, so it runs on a process pool of its own (:mod:`pipeline.verify.testgen.planning`);
the rest runs on the evaluator's backend.

A problem whose generation fails keeps its own tests and says why (``generation_note``); the
stage never fails for one problem. Results are cached per (problem, references, tests,
generator version, settings): a refresh generates only for new or changed problems.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.backend import EvaluatorBackend, LocalBackend
from evaluator.model import DEFAULT_MEMORY_MB, DEFAULT_TIME_S, Cause, Limits, Options, Result, Verdict
from pipeline.schema import GenerationColumns, Tests
from pipeline.verify.testgen import timing
from pipeline.verify.testgen.kind import SLOW, AllowAll, Candidate, Job, Program, Runs, answer_limit_s, cover, family, is_edge, smallest_first
from pipeline.verify.testgen.planning import add_validated, planner
from pipeline.verify.testgen.proof import RuleProof
from pipeline.verify.testgen.registry import hardcoder
from pipeline.verify.testgen.settings import TestGenConfig

BATCH_PER_WORKER = 32  # problems a batch holds per worker, unless ``batch_problems`` says
_INTEGER = re.compile(r"(?<!\d)-?\d{16,309}(?!\d)")  # past 309 digits no float reaches


def float_derived(answer: Any) -> bool:
    """Whether an answer holds an integer past float precision that is exactly a float using the
    whole mantissa: the reference computed it in floats and lost digits (MBPP 739's
    ``math.sqrt`` of a 40-digit number), so it is no answer to test against."""
    if isinstance(answer, bool):
        return False
    if isinstance(answer, int):
        if abs(answer) < 1 << 53 or abs(answer) > 1 << 1000 or int(float(answer)) != answer:
            return False
        odd = abs(answer) >> ((abs(answer) & -abs(answer)).bit_length() - 1)
        return odd.bit_length() >= 50
    if isinstance(answer, str):
        return any(float_derived(int(t)) for t in _INTEGER.findall(answer))
    if isinstance(answer, dict):
        return any(float_derived(k) or float_derived(v) for k, v in answer.items())
    if isinstance(answer, (list, tuple, set, frozenset)):
        return any(float_derived(v) for v in answer)
    return False


# ----------------------------------------------------------------------------- running
def run_oracle(cands: list[Candidate], references: Callable[[dict], list[str]], *, backend: EvaluatorBackend,
               workers: int | None, memory_mb: int, budget_s: float) -> None:
    """Every reference's answer on every input, and the brute force's on the small ones; keep
    the inputs all references answer alike, in time, and no witness contradicts."""
    runs = Runs()
    ran: dict[tuple[int, Program], list[int]] = {}  # what each program was given
    for ci, cand in enumerate(cands):
        if not cand.inputs:
            continue
        programs = [(Program("reference", r), code, list(range(len(cand.inputs))))
                    for r, code in enumerate(references(cand.row))]
        if cand.brute:
            programs.append((Program("brute"), cand.brute, [i for i, x in enumerate(cand.inputs) if cand.kind.small(x)]))
        for program, code, indices in programs:
            if indices:
                ran[ci, program] = indices
                runs.add((ci, program), cand.kind.oracle_jobs(cand, program, code, indices))
    answers: dict[int, list[list[tuple[bool, Any, float]]]] = {}
    witnessed: dict[int, dict[int, tuple[bool, Any]]] = {}
    limits = Limits(memory_mb=memory_mb, wall_budget_s=budget_s)
    for (ci, program), result in runs.run(backend, limits, Options(workers=workers, stop_on_first_failure=False,
                                                                   keep_output=True), Options(workers=workers)):
        _busy("oracle", result)
        indices = ran[ci, program]
        got = cands[ci].kind.answers(cands[ci], program, indices, result)
        cands[ci].variant_answers.update(got.variants)
        if program.role == "brute":
            witnessed[ci] = {i: (ok, value) for i, (ok, value, _) in zip(indices, got.answers)}
        else:
            answers.setdefault(ci, []).append(got.answers)
    for ci, per_ref in answers.items():
        cand = cands[ci]
        try:
            _keep_agreed(cand, per_ref, witnessed.get(ci, {}))
        except Exception as exc:  # noqa: BLE001 - one problem's answers never sink the stage
            cand.expected, cand.ref_s = {}, {}
            cand.note = f"reading the references' answers failed: {type(exc).__name__}: {exc}"[:300]
        if not cand.expected and cand.note is None:
            cand.note = "no generated input on which every reference ended cleanly and agreed"


def _keep_agreed(cand: Candidate, per_ref: list[list[tuple[bool, Any, float]]],
                 brute: dict[int, tuple[bool, Any]] | None = None) -> None:
    """The inputs every reference answered cleanly, in time and alike, with the answer, where it
    keeps what every example's answer keeps and the brute force (if it answered) agrees; and how
    many witnesses each answer has (:mod:`pipeline.verify.testgen.witnesses`)."""
    limit = answer_limit_s(cand)  # a tenth of the problem's limit
    kind, checker = cand.kind, cand.row["tests"].checker
    brute = brute or {}
    for i in range(len(cand.inputs)):
        runs = [ref[i] for ref in per_ref]
        if not all(ok and took <= limit for ok, _, took in runs):
            continue
        first = runs[0][1]
        if kind.oversized(first):
            continue
        if float_derived(first):  # the reference lost digits: no answer to hold a program to
            continue
        if not all(kind.same_answer(checker, first, other) for _, other, _ in runs[1:]):
            cand.disagreements += 1
            continue
        why = kind.suspect(cand, i, first)
        if why is not None:
            cand.suspects[why] += 1
            continue
        witnesses = len(runs) + (bool(cand.relations) or i in cand.variant_answers)  # the postconditions checked it
        if i in brute and brute[i][0]:
            if not kind.same_answer(checker, first, brute[i][1]):
                cand.suspects["brute_force_disagrees"] += 1
                continue
            witnesses += 1
        cand.expected[i] = first
        cand.ref_s[i] = max(took for _, _, took in runs)
        cand.witnesses[i] = witnesses


def build_adversaries(cand: Candidate, config: TestGenConfig) -> None:
    """The hardcoder of the public examples and mutants of the first reference."""
    from pipeline.verify.testgen import adversaries

    hard = hardcoder(cand.row, cand.plan, cand.kind)
    if hard:
        cand.adversaries.append((Program("hardcoder"), hard))
    reference = (cand.row.get("solutions") or [""])[0]
    try:
        cand.adversaries += [(Program("mutant", k, label), code) for k, (code, label) in
                             enumerate(adversaries.mutants(reference, limit=config.mutants, seed=config.seed))]
    except Exception:  # noqa: BLE001
        pass


def adversary_limit(cand: Candidate) -> float:
    """An adversary's time limit per input: a few times the slowest reference answer, so a
    looping mutant costs a fraction of a second, never less than the evaluator can tell apart."""
    slowest = max([*cand.ref_s.values(), float(cand.row.get("reference_cpu_s") or 0.0)])
    return round(min(cand.row["tests"].time_limit_s or DEFAULT_TIME_S, max(0.25, 4 * slowest)), 2)


def run_adversaries(cands: list[Candidate], *, backend: EvaluatorBackend, workers: int | None, memory_mb: int,
                    budget_s: float) -> None:
    """Whether the original tests reject each adversary, then which generated inputs reject the
    ones they let through. An input not run (the budget ran out, or the adversary already looped)
    rejects nothing here. A problem with no generated input (KodCode's pytest functions) still
    runs its mutants on its own tests: its mutation score is measured, never ``n/a``.

    Why the original tests first: an adversary they reject is rejected whatever is selected (the
    cover leaves it out, the mutation score counts it killed), so which generated inputs reject it
    decides nothing, and most mutants fail an original test at once."""
    limits = Limits(memory_mb=memory_mb, wall_budget_s=budget_s)
    with timing.phase("adversaries:originals"):
        _run_originals(cands, backend, workers, limits)
    runs = Runs()
    for ci, cand in enumerate(cands):
        if not cand.expected:
            continue
        tests, kept = _adversary_tests(cand), sorted(cand.expected)
        for program, code in cand.adversaries:
            if program in cand.killed_by_original:
                cand.kills[program] = set()  # rejected already: no generated input need reject it
                continue
            known = cand.kind.known_kills(cand, program, code, kept)
            if known is not None:
                cand.kills[program] = known
                continue
            runs.add((ci, program), cand.kind.adversary_jobs(cand, code, tests, kept))
    with timing.phase("adversaries:generated"):
        for (ci, program), result in runs.run(backend, limits, Options(workers=workers, stop_on_first_failure=False),
                                              Options(workers=workers, stop_after_timeout=True)):
            _busy(program.role, result)
            kills = cands[ci].kind.kills(cands[ci], result)
            if kills is not None:
                cands[ci].record(program, kills)


def _adversary_tests(cand: Candidate) -> Tests:
    """The problem's own tests under the adversaries' time limit (:func:`adversary_limit`)."""
    return dataclasses.replace(cand.row["tests"], time_limit_s=adversary_limit(cand))


def _run_originals(cands: list[Candidate], backend: EvaluatorBackend, workers: int | None, limits: Limits) -> None:
    """Every adversary on its problem's original tests, each stopping at its first failure
    (``killed_by_original``); without generated inputs, the mutants only, which score the tests."""
    originals = Runs()
    for ci, cand in enumerate(cands):
        tests = _adversary_tests(cand)
        for program, code in cand.adversaries:
            if not cand.expected:
                if program.role != "mutant":
                    continue
                cand.kills[program] = set()
            originals.add((ci, program), [Job(code, tests)])
    for (ci, program), res in originals.run(backend, limits, Options(workers=workers)):
        _busy(program.role, res)
        cut = any(c.cause is Cause.WALL_BUDGET for c in res.cases)  # the budget ran out: it says nothing
        if res.verdict not in (Verdict.ACCEPTED, Verdict.INTERNAL_ERROR) and not cut:
            cands[ci].killed_by_original.add(program)


def _busy(role: str, result: Result | list[Any]) -> None:
    """While recording, a run's own time under its program's role (``busy:mutant``, ``busy:hardcoder``,
    ``busy:oracle``): the roles share one batch, so their wall times cannot be told apart."""
    if timing.on():
        spent = result.time_s if isinstance(result, Result) else sum(o.time_s for o in result)
        timing.add("busy:" + role, spent)


# ----------------------------------------------------------------------------- selecting
def select(cand: Candidate, config: TestGenConfig) -> list[int]:
    """Generated inputs to keep: greedy cover of the adversaries the originals let through, then
    the smallest input of each way of making them that rejects an adversary (:func:`smallest_killers`),
    then the rest round-robin over how they were made (of the inputs made for slow programs, one),
    within the count and time caps, and, past the cover, the reward's (:func:`reward_estimate_s`,
    ``max_reward_s``)."""
    pool = _pool(cand, config)
    open_ = {name: kills for name, kills in cand.kills.items() if name not in cand.killed_by_original and kills}

    def spent_on(chosen: list[int]) -> float:
        total = 0.0
        for j in chosen:  # summed in the order chosen, as the caps have always added them
            total += ref_cost_s(cand, j)
        return total

    def within_caps(i: int, chosen: list[int]) -> bool:
        return len(chosen) < config.max_tests and spent_on(chosen) + ref_cost_s(cand, i) <= config.max_reference_s

    chosen = cover(cand, open_, pool, within_caps)
    spent = spent_on(chosen)
    reward_s = reward_estimate_s(cand, chosen)

    def take_if_it_fits(i: int) -> None:
        nonlocal spent, reward_s
        if (len(chosen) < config.max_tests and spent + ref_cost_s(cand, i) <= config.max_reference_s
                and reward_s + _case_cost(cand, i) <= config.max_reward_s):
            chosen.append(i)
            spent += ref_cost_s(cand, i)
            reward_s += _case_cost(cand, i)

    for i in smallest_killers(cand, pool, chosen):
        take_if_it_fits(i)

    by_label: dict[str, list[int]] = {}
    for i in pool:
        if i not in chosen:
            by_label.setdefault(SLOW if family(cand.labels[i]) == SLOW else cand.labels[i], []).append(i)
    if SLOW in by_label:  # one input made for slow programs, past the cover: each is large, and one finds a slow program
        by_label[SLOW] = by_label[SLOW][:1]
    while by_label:
        for label in list(by_label):
            i = by_label[label].pop(0)
            if not by_label[label]:
                del by_label[label]
            take_if_it_fits(i)
        if len(chosen) >= config.max_tests:
            break
    return chosen


def smallest_killers(cand: Candidate, pool: list[int], chosen: list[int]) -> list[int]:
    """For each way inputs were made (a label's family: ``small``, ``boundary``, ``scale``,
    ``mutation``, ``grammar``, ...) that none of ``chosen`` rejects an adversary with, its smallest
    input that rejects one (ties to the earlier). Why (issue 48, after AutoCode): the cover keeps
    what the adversaries the source's tests let through need, and each generator reaches wrong
    programs in its own way (a small corner, an extreme, a large input); the smallest of each is
    the cheapest test of that way, and the one that names the flaw plainest."""
    killing = set().union(*cand.kills.values()) if cand.kills else set()
    covered = {family(cand.labels[i]) for i in chosen if i in killing}
    best: dict[str, int] = {}
    for i in smallest_first(cand, (i for i in pool if i in killing and i not in chosen)):
        if family(cand.labels[i]) not in covered:
            best.setdefault(family(cand.labels[i]), i)
    return [best[name] for name in sorted(best)]


REF_COST_STEP_S = 0.01


def ref_cost_s(cand: Candidate, i: int) -> float:
    """The reference's time on generated input ``i`` as selection's caps count it: its CPU time in
    whole steps of :data:`REF_COST_STEP_S`, rounded down. Why: a case's CPU time holds its
    process's own start (the kind's ``case_s`` counts that already), 2 to 4 ms for a small input,
    which moves by a millisecond from run to run; counted as measured, it was counted twice (the
    estimate twice the reward's real time: 30 ms where it said 50-odd), and it decided which tests
    fit under the reward's cap, so 4 of 104 problems of two runs of the same code (10 on a busy
    machine) released different tests. Counted in steps, only an input whose reference takes
    within a hair of 10, 20, ... ms can move, and the work of a slow input still counts."""
    return _in_steps(cand.ref_s.get(i, 0.0))


def _in_steps(seconds: float, rounding: Callable[[float], int] = math.floor) -> float:
    """``seconds`` in whole steps of :data:`REF_COST_STEP_S` (rounded down unless told otherwise)."""
    return rounding(seconds / REF_COST_STEP_S) * REF_COST_STEP_S


def _case_cost(cand: Candidate, i: int) -> float:
    """What generated input ``i`` adds to a reward: its kind's cost of a case
    (:attr:`~pipeline.verify.testgen.kind.TestKind.case_s`) and the reference's time on it (:func:`ref_cost_s`);
    for an input made for slow programs, that time in whole steps rounded up. Why: it is large by
    design, so its time is the work of reading and answering it, no process start to leave out;
    rounded down, LeetCode's 20,000-item ones read as free, and a correct program's reward took a
    median 21.8 ms with one where the estimate said 14 (at most 105 ms against a 50 ms cap)."""
    if family(cand.labels[i]) == SLOW:
        return cand.kind.case_s + _in_steps(cand.ref_s.get(i, 0.0), math.ceil)
    return cand.kind.case_s + ref_cost_s(cand, i)


def reward_estimate_s(cand: Candidate, chosen: list[int]) -> float:
    """What judging a correct program on the source's tests and the inputs ``chosen`` costs,
    estimated the same on every run (the source's cases: their count only; they are the same
    before and after)."""
    return cand.row["tests"].count * cand.kind.case_s + sum(_case_cost(cand, i) for i in chosen)


def _pool(cand: Candidate, config: TestGenConfig) -> list[int]:
    """The answered inputs a test may be made of (the witness rule), in order."""
    return sorted(i for i in cand.expected if config.single_witness == "keep" or cand.witnesses.get(i, 1) >= 2)


def reserve(cand: Candidate, config: TestGenConfig, chosen: list[int]) -> str:
    """Up to ``config.reserve`` answered inputs selection left out, the smallest first, as the JSON
    the differential round reads back (:func:`pipeline.verify.testgen.differential.read_reserve`)."""
    from pipeline.verify.testgen.differential import reserve_entry

    taken = set(chosen)
    entries = []
    for i in smallest_first(cand, (i for i in _pool(cand, config) if i not in taken)):
        if len(entries) >= config.reserve:
            break
        if cand.kind.expected_text(cand.expected[i]) is not None:
            entry = reserve_entry(cand.kind, cand.inputs[i], cand.expected[i], cand.labels[i])
            if entry is not None:
                entries.append(entry)
    for i, answer in cand.edge_answers.items():  # every answered edge: the round is their only way in
        if cand.kind.expected_text(answer) is not None:
            entry = reserve_entry(cand.kind, cand.inputs[i], answer, cand.labels[i])
            if entry is not None:
                entries.append(entry)
    return json.dumps(entries, ensure_ascii=False)


def finish(cand: Candidate, config: TestGenConfig) -> dict[str, Any]:
    """The row with its generated tests appended, and what generation measured."""
    tests: Tests = cand.row["tests"]
    before = tests.count
    chosen = select(cand, config) if cand.expected else []
    new_tests, added = cand.kind.render(cand, dataclasses.replace(tests, cases=list(tests.cases)), chosen)
    chosen_set = set(chosen)
    mutants = [p for p, _ in cand.adversaries if p.role == "mutant" and p in cand.kills]
    # with generated inputs, a mutant none of them tells apart may be equivalent; without, nothing
    # can say, and every mutant the source's tests let through counts as a survivor
    distinguishable = [n for n in mutants if cand.kills[n] or n in cand.killed_by_original or not cand.expected]
    killed_after = [n for n in distinguishable if n in cand.killed_by_original or cand.kills[n] & chosen_set]
    killed_before = [n for n in distinguishable if n in cand.killed_by_original]
    proof = cand.plan.validator.proof if cand.plan.validator is not None else RuleProof()
    report = GenerationColumns(
        tests_before_generation=before,
        generated_tests=added,
        generation_note=None if added else cand.note or (
            "no generated answer could be written as an exact literal (floats in a list)" if chosen else None),
        oracle_references=len(_trusted(cand.row)),
        single_reference_oracle=added > 0 and len(_trusted(cand.row)) == 1,
        oracle_disagreements=cand.disagreements,
        oracle_suspects=sum(cand.suspects.values()),
        inputs_invalid=json.dumps(dict(sorted(cand.invalid.items()))),
        validator_rules=len(proof.kept),
        validator_rules_dropped=json.dumps(proof.dropped),
        oracle_witnesses=_witness_sources(cand),
        single_witness_tests=sum(1 for i in chosen if cand.witnesses.get(i, 1) < 2
                                 and cand.kind.expected_text(cand.expected[i]) is not None),
        mutants_run=len(mutants),
        mutants_equivalent=len(mutants) - len(distinguishable),  # no input tells them from the reference
        mutation_score_before=round(len(killed_before) / len(distinguishable), 4) if distinguishable else None,
        mutation_score=round(len(killed_after) / len(distinguishable), 4) if distinguishable else None,
        reserve_inputs=reserve(cand, config, chosen) if (cand.expected or cand.edge_answers) and config.reserve > 0 else "[]",
    )
    return {"tests": new_tests, "num_tests": new_tests.count, **report.columns()}


def _witness_sources(cand: Candidate) -> int:
    """What can vouch for every generated answer here: each trusted reference, the postconditions
    (where the examples give a relation), a brute force that passes the problem's own tests. (The
    reordered-keys check vouches for the inputs with a dict argument only: counted per test.)"""
    return len(_trusted(cand.row)) + bool(cand.relations) + bool(cand.brute)


def invalid_count(row: dict[str, Any]) -> int:
    """Generated inputs the validators refused for a row (its ``inputs_invalid`` summed)."""
    try:
        return sum(json.loads(row.get("inputs_invalid") or "{}").values())
    except (TypeError, ValueError):
        return 0


def _trusted(row: dict[str, Any]) -> list[str]:
    """References that passed every original test (Verify's ``references_passed`` first ones)."""
    return list((row.get("solutions") or [])[: max(1, int(row.get("references_passed") or 0))])


# ----------------------------------------------------------------------------- caching
def cache_key(row: dict[str, Any], config: TestGenConfig) -> str:
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in ("cache", "sample_per_source",
                                                                                 "tests_only_in_statement")}
    from pipeline.process.public import statement_text
    from pipeline.verify.deciding_code import code_version

    text = json.dumps([code_version(), row["problem_id"], row["tests"].to_json(), _trusted(row),
                       statement_text(row), settings], sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(text.encode()).hexdigest()


def _cache_dir() -> Path:
    from pipeline.paths import local_cache_dir

    return local_cache_dir("testgen")


def _load(key: str) -> dict[str, Any] | None:
    path = _cache_dir() / f"{key}.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    data["tests"] = Tests.from_dict(data["tests"])
    return data


def _store(key: str, columns: dict[str, Any]) -> None:
    path = _cache_dir() / f"{key}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**columns, "tests": columns["tests"].to_dict()}, ensure_ascii=False))
    tmp.replace(path)


# ----------------------------------------------------------------------------- the step
def _skipped(row: dict[str, Any], note: str) -> dict[str, Any]:
    references = len(_trusted(row)) if row.get("solutions") else 0
    return GenerationColumns(tests_before_generation=row["tests"].count, generation_note=note, oracle_references=references,
                             oracle_witnesses=references).columns()


def add_model_inputs(cands: list[Candidate], sampler: Any, config: TestGenConfig, backend: EvaluatorBackend) -> None:
    """Inputs from a model-written generator, after the others; the model's validator judges the
    grammar's and mutation's inputs too, and ours the model's (each refusal counted)."""
    from pipeline.verify.testgen.model_inputs import model_checks

    found = model_checks([c.row for c in cands], sampler, n=config.model_inputs, seed=config.seed,
                         backend=backend, candidates=[list(c.inputs) for c in cands],
                         examples=[list(c.plan.examples) for c in cands], max_tokens=config.model_max_tokens)
    for cand, (made, verdicts) in zip(cands, found):
        if verdicts is not None:
            refused = [i for i, ok in enumerate(verdicts) if not ok]
            cand.invalid["model_validator"] += len(refused)
            cand.inputs = [x for i, x in enumerate(cand.inputs) if i not in set(refused)]
            cand.labels = [x for i, x in enumerate(cand.labels) if i not in set(refused)]
        if not cand.kind.runnable(cand.plan):
            continue  # nothing to call (asserts that did not lift)
        if cand.plan.validator is None:
            cand.plan.validator = AllowAll()  # no examples to read: the model's validator alone
        add_validated(cand, made, len(cand.inputs) + len(made))
        if cand.inputs and cand.note and not cand.note.startswith("input generation failed"):
            cand.note = None


def _skip_reason(row: dict[str, Any], config: TestGenConfig, taken: dict[str, int]) -> str | None:
    """Why a row gets no generated tests this run (None: it does; it is counted in its source's sample)."""
    if not config.enabled:
        return "generation disabled"
    if not row.get("verified") or not row.get("solutions"):
        return "no reference to answer generated inputs"
    source = row["source"]
    if config.sample_per_source is not None and taken.get(source, 0) >= config.sample_per_source:
        return f"outside the generation sample ({config.sample_per_source} per source)"
    taken[source] = taken.get(source, 0) + 1
    return None


def _triage(rows: list[dict[str, Any]], config: TestGenConfig) -> tuple[list[dict[str, Any]], list[tuple[int, str]], int]:
    """Rows skipped or answered from the cache (in ``out``), the rest to generate for (``todo``:
    their index and cache key), and the cache hits."""
    out: list[dict[str, Any]] = []
    todo: list[tuple[int, str]] = []
    taken: dict[str, int] = {}
    hits = 0
    for index, row in enumerate(rows):
        why = _skip_reason(row, config, taken)
        if why is not None:
            out.append({**row, **_skipped(row, why)})
            continue
        key = cache_key(row, config)
        cached = _load(key) if config.cache else None
        if cached is not None:
            hits += 1
            out.append({**row, **cached})
            continue
        out.append(row)
        todo.append((index, key))
    return out, todo, hits


def _add_model_help(cands: list[Candidate], sampler: Any, config: TestGenConfig, backend: EvaluatorBackend) -> None:
    """A model's generated inputs and brute forces, where the config asks for them."""
    if config.model_inputs and cands:
        add_model_inputs(cands, sampler, config, backend)
    if config.model_brute_force and cands:
        from pipeline.verify.testgen.witnesses import brute_forces

        for cand, code in zip(cands, brute_forces([c.row for c in cands], sampler, backend=backend,
                                                  seed=config.seed, max_tokens=config.model_max_tokens)):
            cand.brute = code


def set_edges_apart(cand: Candidate) -> None:
    """The answered edges out of the inputs selection and the adversaries see: the reserve's only."""
    edges = [i for i, label in enumerate(cand.labels) if is_edge(label)]
    cand.edge_answers = {i: cand.expected.pop(i) for i in edges if i in cand.expected}
    for i in edges:
        cand.ref_s.pop(i, None)
        cand.witnesses.pop(i, None)
    if not cand.expected and cand.note is None:
        cand.note = "no generated input on which every reference ended cleanly and agreed"


def _stage_stats(out: list[dict[str, Any]], attempted: int, hits: int, elapsed: float) -> dict[str, Any]:
    def total(column: str) -> int:
        return sum(int(r.get(column) or 0) for r in out)

    return {
        "generated_for": sum(1 for r in out if r.get("generated_tests")),
        "generation_attempted": attempted,
        "generation_cache_hits": hits,
        "generated_tests": total("generated_tests"),
        "oracle_disagreements": total("oracle_disagreements"),
        "oracle_suspects": total("oracle_suspects"),
        "inputs_invalid": sum(invalid_count(r) for r in out),
        "single_witness_tests": total("single_witness_tests"),
        "generation_seconds": round(elapsed, 2),
    }


def generate_tests(rows: list[dict[str, Any]], config: TestGenConfig, *, backend: EvaluatorBackend | None = None,
                   workers: int | None = None, memory_mb: int = DEFAULT_MEMORY_MB, sampler: Any = None,
                   progress: Callable[[str], None] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``rows`` (verified) with generated tests and the generation columns; and stage figures.
    ``sampler``: the model that writes input generators when ``config.model_inputs`` > 0; ``backend``:
    where every program runs (default: this machine's pool)."""
    if (config.model_inputs or config.model_brute_force) and sampler is None:
        raise ValueError("generation.model_inputs and generation.model_brute_force need a model: configure the "
                         "`sampler` resource (vLLM or an OpenAI-compatible server), or turn them off")
    backend = backend or LocalBackend()
    start = time.monotonic()
    with timing.phase("cache"):
        out, todo, hits = _triage(rows, config)
    workers = workers or os.cpu_count() or 1
    size = config.batch_problems or BATCH_PER_WORKER * workers
    if progress and todo:
        progress(f"generating tests for {len(todo)} problems ({hits} from the cache), {size} at a time")
    with planner(config, workers, len(todo)) as plan:
        for done in range(0, len(todo), size):
            batch = todo[done : done + size]
            said = _Said(progress, done, len(todo), start, f"batch {done // size + 1}/{-(-len(todo) // size)}")
            with timing.phase("planning"):
                cands = plan([out[index] for index, _ in batch])
            said("inputs made")
            _generate(cands, config, backend=backend, workers=workers, memory_mb=memory_mb, sampler=sampler, said=said)
            for (index, key), cand in zip(batch, cands):
                with timing.phase("selection"):
                    columns = finish(cand, config)
                if config.cache:
                    with timing.phase("cache"):
                        _store(key, columns)
                out[index] = {**out[index], **columns}
            said.done += len(batch)
            said("done")
    return out, _stage_stats(out, len(todo) + hits, hits, time.monotonic() - start)


def _generate(cands: list[Candidate], config: TestGenConfig, *, backend: EvaluatorBackend, workers: int,
              memory_mb: int, sampler: Any, said: Callable[[str], None]) -> None:
    """One batch of planned problems: the model's help, the oracle's answers, the adversaries."""
    with timing.phase("model"):
        _add_model_help(cands, sampler, config, backend)
    with timing.phase("oracle"):
        run_oracle(cands, _trusted, backend=backend, workers=workers, memory_mb=memory_mb, budget_s=config.oracle_budget_s)
    said("references answered")
    with timing.phase("adversaries:build"):
        for cand in cands:
            set_edges_apart(cand)
            build_adversaries(cand, config)
    run_adversaries(cands, backend=backend, workers=workers, memory_mb=memory_mb, budget_s=config.adversary_budget_s)


@dataclass
class _Said:
    """Where a run is, said at each step of a batch (done/total, an ETA from the batches done):
    a batch is about a minute on two cores, so its steps say something well within each minute."""

    progress: Callable[[str], None] | None
    done: int
    total: int
    start: float
    batch: str

    def __call__(self, step: str) -> None:
        if self.progress is None:
            return
        elapsed = time.monotonic() - self.start
        eta = f"ETA {elapsed / self.done * (self.total - self.done) / 60:.1f} min" if self.done else "ETA after the first batch"
        self.progress(f"test generation: {self.done}/{self.total} problems, {self.batch} {step}, "
                      f"{elapsed / 60:.1f} min so far, {eta}")
