"""A second witness for a generated test's expected output.

Why: with one reference, nothing checks its answer to a generated input. A reference that passes
every official test can still be wrong where those tests never looked (APPS 2192, "Chain
Reaction": a model-written reference answers 5 where a brute force over every choice answers 6,
and so do two other correct programs), and every test built on that answer fails every correct
program. So each kept test counts its witnesses, the sources that gave (or checked) its answer:

- each reference that answered it alike (two references that disagree drop the input, as before);
- the postconditions (:mod:`pipeline.verify.testgen.call.postconditions`): a relation every example's answer
  keeps, which this answer keeps too;
- a brute force written by the model on the ``sampler`` resource for small inputs
  (``generation.model_brute_force``), trusted once it passes every one of the problem's own
  tests; where it answers a small input differently, that input is dropped (what is small is
  the test kind's to say, :meth:`~pipeline.verify.testgen.kind.TestKind.small`).

A test kept on one witness only is counted (``single_witness_tests``); with
``generation.single_witness = "drop"`` it is not kept at all.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from evaluator.backend import EvaluatorBackend
from pipeline.verify.testgen.registry import kind_for

BRUTE_LABEL = "brute force"

PROMPT = """Write a brute-force solution to this programming problem in Python: the simplest correct
program, trying every possibility, with no regard for speed. It only has to answer small inputs.
{how}

Problem:
{statement}

Answer with one ```python block and nothing else."""


def prompt(row: dict[str, Any]) -> str:
    from pipeline.process.public import statement_text

    tests = row["tests"]
    return PROMPT.format(how=kind_for(tests).brute_force_how(tests), statement=statement_text(row)[:6000])


def brute_forces(rows: list[dict[str, Any]], sampler: Any, *, backend: EvaluatorBackend, seed: int = 0,
                 max_tokens: int = 1024) -> list[str | None]:
    """Per row: a model-written brute force that passes every one of the row's own tests (None:
    none written, or it fails one; an untrusted witness is no witness)."""
    from evaluator.reward import extract_code

    if not rows:
        return []
    completions = sampler.generate([prompt(r) for r in rows], n=1, temperature=0.2, max_tokens=max_tokens, seed=seed)
    codes = [extract_code(c[0].text) if c else None for c in completions]
    jobs = [(i, code, dataclasses.replace(rows[i]["tests"])) for i, code in enumerate(codes) if code]
    passed = {res.key for res in backend.evaluate_many(jobs) if res.passed} if jobs else set()
    return [code if i in passed else None for i, code in enumerate(codes)]
