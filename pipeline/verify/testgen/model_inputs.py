"""Inputs written by a model: an input generator and a validator per problem, after HardTests
and CodeContests+. Optional; the CPU default grows inputs by mutation and grammar instead.

The model reads the statement and the examples and writes two functions: ``generate_input(rng)``
returns one test input (``stdin`` text, or the call's argument list), ``validate_input(x)``
says whether an input meets the statement's constraints. Both are untrusted programs: each runs
in the evaluator's sandbox, in its own process, under the time limit (the generator prints its
inputs as JSON lines; the validator reads them and prints one verdict per line). An input is
proposed only when the validator accepts it; the references then answer it like any other
(:func:`pipeline.verify.testgen.generate.run_oracle`), so a wrong generator costs inputs, never a
wrong test. The validator also judges the grammar's and mutation's inputs
(:func:`model_checks`), once it accepts every input of the problem's own tests.
"""

from __future__ import annotations

import json
from typing import Any

from evaluator.backend import EvaluatorBackend
from evaluator.model import Options, Result
from pipeline.schema import TestCase, Tests
from pipeline.verify.testgen.kind import TestKind
from pipeline.verify.testgen.registry import kind_for

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
    from pipeline.process.public import statement_text

    tests: Tests = row["tests"]
    examples = [c.input for c in tests.cases[:max_examples]]
    return PROMPT.format(shape=kind_for(tests).model_shape, statement=statement_text(row)[:6000],
                         examples="\n---\n".join(examples) or "(none)")


def _lines_of(result: Result) -> list[str]:
    output = result.cases[0].output if result.cases else None
    return (output or "").splitlines()


def write_functions(rows: list[dict[str, Any]], sampler: Any, *, seed: int = 0, max_tokens: int = 1024) -> list[str | None]:
    """Per row: the model's code defining ``generate_input`` and ``validate_input`` (None: no code)."""
    from evaluator.reward import extract_code

    if not rows:
        return []
    completions = sampler.generate([prompt(r) for r in rows], n=1, temperature=0.2, max_tokens=max_tokens, seed=seed)
    return [extract_code(c[0].text) if c else None for c in completions]


def _stdin_tests(text: str, timeout_s: float) -> Tests:
    return Tests("stdin", [TestCase(text, "")], time_limit_s=timeout_s)


def _as_value(kind: TestKind, line: str) -> Any:
    """A generator's JSON line as an input (``stdin`` text, or ``(args, {})``); None if it is neither."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return kind.from_json(value)


def _as_line(kind: TestKind, value: Any) -> str:
    """An input as the JSON line a validator reads (a call's positional arguments as a list)."""
    return json.dumps(kind.to_json(value), ensure_ascii=False, default=repr)


def model_checks(rows: list[dict[str, Any]], sampler: Any, *, n: int, seed: int = 0, backend: EvaluatorBackend,
                 candidates: list[list[Any]], examples: list[list[Any]], timeout_s: float = 5.0,
                 max_tokens: int = 1024) -> list[tuple[list[tuple[Any, str]], list[bool] | None]]:
    """Per row: the inputs the model's generator made and its validator accepts, and the
    validator's verdict on each of ``candidates`` (the grammar's inputs). A validator that refuses
    one of the problem's ``examples`` (its own test inputs, in the same form) misreads the
    statement, and so does one with no example to show it reads them: its verdicts are None, unused."""
    codes = write_functions(rows, sampler, seed=seed, max_tokens=max_tokens)
    gen_jobs = [(i, code + _GENERATOR_DRIVER.format(n=n), _stdin_tests(str(seed), timeout_s))
                for i, code in enumerate(codes) if code and n > 0]
    proposed: dict[int, list[str]] = {i: [] for i in range(len(rows))}
    options = Options(stop_on_first_failure=False, keep_output=True)
    for res in backend.evaluate_many(gen_jobs, None, options) if gen_jobs else []:
        proposed[res.key] = [line for line in _lines_of(res) if line.strip()][:n]
    kinds = [kind_for(row["tests"]) for row in rows]
    checked: dict[int, list[str]] = {}
    for i, kind in enumerate(kinds):
        checked[i] = [_as_line(kind, x) for x in examples[i] + candidates[i]] + proposed[i]
    val_jobs = [(i, codes[i] + _VALIDATOR_DRIVER, _stdin_tests("\n".join(lines) + "\n", timeout_s))
                for i, lines in checked.items() if codes[i] and lines]
    out: list[tuple[list[tuple[Any, str]], list[bool] | None]] = [([], None) for _ in rows]
    for res in backend.evaluate_many(val_jobs, None, options) if val_jobs else []:
        i = res.key
        verdicts = [v.strip() == "1" for v in _lines_of(res)]
        verdicts += [False] * (len(checked[i]) - len(verdicts))
        mine = len(examples[i])
        trusted = mine > 0 and all(verdicts[:mine])
        made = [(value, MODEL_LABEL) for line, ok in zip(proposed[i], verdicts[mine + len(candidates[i]):])
                if ok and (value := _as_value(kinds[i], line)) is not None]
        out[i] = (made, verdicts[mine:mine + len(candidates[i])] if trusted else None)
    return out


def model_inputs(rows: list[dict[str, Any]], sampler: Any, *, n: int, seed: int = 0, backend: EvaluatorBackend,
                 timeout_s: float = 5.0, max_tokens: int = 1024) -> list[list[tuple[Any, str]]]:
    """Per row: validated inputs the model's generator made (``stdin`` text, or ``(args, {})``)."""
    if not rows:
        return []
    found = model_checks(rows, sampler, n=n, seed=seed, backend=backend, candidates=[[] for _ in rows],
                         examples=[[] for _ in rows], timeout_s=timeout_s, max_tokens=max_tokens)
    return [made for made, _ in found]
