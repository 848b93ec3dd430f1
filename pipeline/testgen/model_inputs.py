"""Inputs written by a model: an input generator and a validator per problem, after HardTests
and CodeContests+. Optional; the CPU default grows inputs by mutation and grammar instead.

The model reads the statement and the examples and writes two functions: ``generate_input(rng)``
returns one test input (``stdin`` text, or the call's argument list), ``validate_input(x)``
says whether an input meets the statement's constraints. Both are untrusted programs: each runs
in the evaluator's sandbox, in its own process, under the time limit (the generator prints its
inputs as JSON lines; the validator reads them and prints one verdict per line). An input is
proposed only when the validator accepts it; the references then answer it like any other
(:func:`pipeline.testgen.generate.run_oracle`), so a wrong generator costs inputs, never a
wrong test.
"""

from __future__ import annotations

import json
from typing import Any

from evaluator.model import Result
from pipeline.schema import TestCase, Tests

MODEL_LABEL = "model:generator"
PROMPT = """You write test inputs for a programming problem. Write two Python functions.

generate_input(rng) returns ONE new random test input{shape}. Use only rng (a random.Random) for
randomness. Keep inputs valid under the constraints in the statement, and vary their size.

validate_input(x) returns True when x is a valid input under the statement's constraints, else False.

Problem:
{statement}

Example inputs:
{examples}

Answer with one ```python block that defines both functions and nothing else."""

_GENERATOR_DRIVER = """
import json as _json, random as _random, sys as _sys
_rng = _random.Random(int(_sys.stdin.read() or 0))
for _ in range({n}):
    try:
        _x = generate_input(_rng)
    except Exception:
        continue
    print(_json.dumps(_x))
"""
_VALIDATOR_DRIVER = """
import json as _json, sys as _sys
for _line in _sys.stdin:
    try:
        _ok = validate_input(_json.loads(_line)) is True
    except Exception:
        _ok = False
    print("1" if _ok else "0")
"""


def prompt(row: dict[str, Any], max_examples: int = 3) -> str:
    from pipeline.testgen.public import statement_text

    tests: Tests = row["tests"]
    shape = (" as the exact text the program reads from stdin" if tests.kind == "stdin"
             else " as a Python list of the function's positional arguments")
    examples = [c.input for c in tests.cases[:max_examples]]
    return PROMPT.format(shape=shape, statement=statement_text(row)[:6000],
                         examples="\n---\n".join(examples) or "(none)")


def _lines_of(result: Result) -> list[str]:
    output = result.cases[0].output if result.cases else None
    return (output or "").splitlines()


def model_inputs(rows: list[dict[str, Any]], sampler: Any, *, n: int, seed: int = 0, evaluate_many: Any,
                 timeout_s: float = 5.0, max_tokens: int = 1024) -> list[list[tuple[Any, str]]]:
    """Per row: validated inputs the model's generator made (``stdin`` text, or ``(args, {})``)."""
    from evaluator.reward import extract_code

    if not rows:
        return []
    completions = sampler.generate([prompt(r) for r in rows], n=1, temperature=0.2, max_tokens=max_tokens, seed=seed)
    codes = [extract_code(c[0].text) if c else None for c in completions]
    def stdin_tests(text: str) -> Tests:
        return Tests("stdin", [TestCase(text, "")], time_limit_s=timeout_s)

    gen_jobs = [(i, code + _GENERATOR_DRIVER.format(n=n), stdin_tests(str(seed))) for i, code in enumerate(codes) if code]
    proposed: dict[int, list[str]] = {}
    for res in evaluate_many(gen_jobs, stop_on_first_failure=False, keep_output=True) if gen_jobs else []:
        proposed[res.key] = [line for line in _lines_of(res) if line.strip()][:n]
    val_jobs = [(i, codes[i] + _VALIDATOR_DRIVER, stdin_tests("\n".join(lines) + "\n"))
                for i, lines in proposed.items() if lines]
    out: list[list[tuple[Any, str]]] = [[] for _ in rows]
    for res in evaluate_many(val_jobs, stop_on_first_failure=False, keep_output=True) if val_jobs else []:
        i = res.key
        verdicts = _lines_of(res)
        for line, verdict in zip(proposed[i], verdicts):
            if verdict.strip() != "1":
                continue
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if rows[i]["tests"].kind == "stdin":
                if isinstance(value, str) and value.strip():
                    out[i].append((value if value.endswith("\n") else value + "\n", MODEL_LABEL))
            elif isinstance(value, list):
                out[i].append(((tuple(value), {}), MODEL_LABEL))
    return out
