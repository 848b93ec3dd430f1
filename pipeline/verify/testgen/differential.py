"""The differential round: the model's samples that pass every test, run on the answered inputs
test generation did not select.

Generation answers more validated inputs than it keeps; it keeps the smallest of the rest as the
row's reserve (``reserve_inputs``, :func:`pipeline.verify.testgen.generate.reserve`). The difficulty
stage samples k programs per problem; a sample that passes the current tests but disagrees with the
references on a reserve input is a wrong program a policy could learn to write, and that input
earns a place among the tests (EvolveCoder's and CodeContests-O's rounds against candidate
programs). The fewest inputs that reject every such sample are added, so the reward stays fast.
The reserve also holds the problem's edges (:mod:`pipeline.verify.testgen.call.edges`), inputs past
the examples' envelope that only this round may admit, and only where a second program vouches
for the references' answer (:func:`vouched`).

A sample is run as generation runs an adversary (the kind's ``adversary_jobs`` and
``kills``: one backend call for every problem), under the problem's own time limit, the
one the reward applies, so a sample the round rejects fails the final tests too.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from evaluator.backend import EvaluatorBackend
from evaluator.model import Limits, Options
from pipeline.schema import Tests
from pipeline.verify.testgen.kind import Candidate, Program, Runs, TestKind, cover, is_edge
from pipeline.verify.testgen.registry import kind_for

MAX_RESERVE_CHARS = 4000  # an input (or answer) written longer stays out of the reserve


def reserve_entry(kind: TestKind, value: Any, answer: Any, label: str) -> list[str] | None:
    """An answered input as ``[input, answer, label]``, each written in its kind's encoding
    (:meth:`~pipeline.verify.testgen.kind.TestKind.encode`), where both are short and read back as the
    same values (None: not, a NaN say)."""
    texts = [kind.encode(value), kind.encode(answer)]
    if any(t is None or len(t) > MAX_RESERVE_CHARS for t in texts):
        return None
    return [*texts, label]


def read_reserve(row: dict[str, Any]) -> list[tuple[Any, Any, str]]:
    """A row's ``reserve_inputs``, read by its tests' kind: (input, answer, how it was made); a bad
    column reads as none."""
    try:
        kind = kind_for(row["tests"])
        entries = json.loads(row.get("reserve_inputs") or "[]")
        return [(kind.decode(x), kind.decode(a), str(label)) for x, a, label in entries]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, KeyError):
        return []


@dataclass
class RoundResult:
    """One problem's round: its tests with the inputs added (None: none were), and the samples
    (their index among the problem's samples) the added inputs reject."""

    tests: Tests | None = None
    added: int = 0
    rejected: frozenset[int] = frozenset()


def _candidate(row: dict[str, Any], samples: list[tuple[int, str]]) -> Candidate | None:
    """The row's reserve as a generation candidate, with its passing samples as the adversaries."""
    if not samples or not isinstance(row.get("tests"), Tests):
        return None
    reserve = read_reserve(row)
    if not reserve:
        return None
    cand = Candidate(row, kind_for(row["tests"]))
    try:
        cand.plan = cand.kind.read(row)  # the entry point, params, linked shape
    except Exception:  # noqa: BLE001 - the kind cannot read the problem again: no round for it
        return None
    if cand.plan.note is not None or not cand.kind.runnable(cand.plan):
        return None
    cand.inputs = [x for x, _, _ in reserve]
    cand.labels = [label for _, _, label in reserve]
    cand.expected = dict(enumerate(a for _, a, _ in reserve))
    cand.adversaries = [(Program("sample", s), code) for s, code in samples]
    return cand


def _renders(cand: Candidate, i: int) -> bool:
    """Whether input ``i`` can be written as a test (an assert kind may find no exact literal)."""
    tests: Tests = cand.row["tests"]
    return cand.kind.render(cand, dataclasses.replace(tests, cases=list(tests.cases)), [i])[1] == 1


def vouched(cand: Candidate, i: int) -> bool:
    """Whether reserve input ``i`` may become a test. An edge (past the examples' envelope,
    :mod:`pipeline.verify.testgen.call.edges`) only where a second program vouches for the references'
    answer and none refuses the input: every sample that ran it answered it (no exception, no
    limit: a correct program may refuse an input its problem never meant to allow), at least one
    alike, and no more otherwise (on such an input correct programs answer as they please)."""
    if not is_edge(cand.labels[i]):
        return True
    ran = [program for program in cand.kills if i not in cand.unrun.get(program, ())]
    if any(i in cand.failed.get(program, ()) for program in ran):
        return False
    agree = sum(1 for program in ran if i not in cand.kills[program])
    return agree >= 1 and agree >= len(ran) - agree


def _fewest(cand: Candidate) -> list[int]:
    """The fewest reserve inputs (greedily, :func:`~pipeline.verify.testgen.kind.cover`) that reject
    every sample some input that can be written as a test, and is vouched for, rejects."""
    usable = {i for kills in cand.kills.values() for i in kills if vouched(cand, i) and _renders(cand, i)}
    return cover(cand, {program: kills & usable for program, kills in cand.kills.items() if kills & usable}, sorted(usable))


def differential_round(rows: list[dict[str, Any]], passing: list[list[str | None]], *, backend: EvaluatorBackend,
                       time_s: float | None = None, budget_s: float = 10.0,
                       workers: int | None = None) -> list[RoundResult]:
    """Per row: its passing samples (``passing[p][s]``, None where sample ``s`` failed) run on its
    reserve, all rows in one backend call; the inputs that reject them appended to its tests.
    ``time_s``: the difficulty stage's time limit override (None: each problem's own);
    ``budget_s``: wall seconds per sample, after which its remaining inputs reject nothing."""
    cands = [_candidate(row, [(s, code) for s, code in enumerate(programs) if code is not None])
             for row, programs in zip(rows, passing)]
    runs = Runs()  # the samples passed the original tests: those are not run again
    for ci, cand in enumerate(cands):
        if cand is None:
            continue
        kept = sorted(cand.expected)
        for program, code in cand.adversaries:
            runs.add((ci, program), cand.kind.adversary_jobs(cand, code, cand.row["tests"], kept))
    limits = Limits(time_s=time_s, wall_budget_s=budget_s)
    for (ci, program), result in runs.run(backend, limits, Options(workers=workers, stop_on_first_failure=False),
                                          Options(workers=workers, stop_after_timeout=True)):
        kills = cands[ci].kind.kills(cands[ci], result)
        if kills is not None:
            cands[ci].record(program, kills)
    out = []
    for cand in cands:
        chosen = _fewest(cand) if cand is not None else []
        if not chosen:
            out.append(RoundResult())
            continue
        tests: Tests = cand.row["tests"]
        grown, added = cand.kind.render(cand, dataclasses.replace(tests, cases=list(tests.cases)), chosen)
        rejected = frozenset(program.index for program, kills in cand.kills.items() if kills & set(chosen))
        out.append(RoundResult(grown, added, rejected))
    return out
