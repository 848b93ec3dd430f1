"""verl custom reward: ``compute_score(data_source, solution_str, ground_truth, extra_info)``.

Binary reward (the paper's): 1 if the last fenced Python block passes every test, else 0.
``acc`` is that same binary pass, because verl averages ``acc`` as its core validation metric
(pass@1); the fraction of tests passed is reported as ``test_pass_fraction``. Every call is
bounded in wall time (``wall_budget_s``, default :data:`WALL_BUDGET_S`) whatever the program
does, so one degenerate sample never stalls a training step.
``compute_score_batch`` judges a whole batch in parallel for batched reward managers.

Where programs run: this machine's sandbox pool, or, when ``MICROCODER_EVALUATOR_RAY_ADDRESS`` is
set (``auto`` inside a Ray job), the evaluator's actors on every node of the cluster
(:mod:`evaluator.ray_backend`); verl's reward workers then only dispatch.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from evaluator.backend import EvaluatorBackend, LocalBackend
from evaluator.model import Limits, Options, Result, Tests, Verdict

_FENCE = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)```", re.S | re.I)
_PY_FENCE = re.compile(r"```[ \t]*(?:python3?|py)[ \t]*\n(.*?)```", re.S | re.I)


def extract_code(response: str) -> str | None:
    """The last fenced Python block (``python``/``py``-tagged first, else an untagged one)."""
    if not response:
        return None
    blocks = _PY_FENCE.findall(response) or _FENCE.findall(response)
    blocks = [b for b in blocks if b.strip()]
    return blocks[-1] if blocks else None


WALL_BUDGET_S = 60.0


@functools.cache
def _backend() -> EvaluatorBackend:
    """Where rewards are judged (once per process, :mod:`evaluator.backend`): the cluster the
    environment names, or this machine's pool. A cluster's actors start here, at the first reward,
    whether or not that response holds code: the evaluator is warm before the first program, and up
    from the first step whatever the policy writes."""
    from evaluator.ray_backend import from_env

    cluster = from_env()
    if cluster is None:
        return LocalBackend()
    cluster.actors()
    return cluster


def _score(result: Result) -> dict:
    passed = 1.0 if result.passed else 0.0
    return {
        "score": passed,
        "acc": passed,
        "test_pass_fraction": result.num_passed / max(1, result.num_tests),
        "verdict": result.verdict.value,
        "time_s": result.time_s,
        "isolation": result.isolation,
    }


def _no_code() -> dict:
    return {"score": 0.0, "acc": 0.0, "test_pass_fraction": 0.0, "verdict": "no_code", "time_s": 0.0,
            "isolation": "none"}


def _tests(ground_truth: Any) -> Tests | Result:
    """verl's ground truth as canonical tests: JSON text (the dataset's column) parsed here, at the
    edge; one that does not parse is an ``internal_error`` result (a score of 0), never a crash."""
    try:
        if isinstance(ground_truth, (str, bytes)):
            return Tests.from_json(ground_truth)
        return Tests.from_dict(dict(ground_truth))
    except (ValueError, TypeError) as exc:
        return Result.failed(Verdict.INTERNAL_ERROR, f"ground truth is not canonical tests: {exc}"[:300])


def _limits(kwargs: dict) -> Limits:
    """The reward's limits: verl's ``reward_kwargs`` may set them; the wall budget always holds."""
    known = {k: kwargs[k] for k in ("memory_mb", "output_mb") if k in kwargs}
    return Limits(time_s=kwargs.get("timeout_s"), wall_budget_s=float(kwargs.get("wall_budget_s") or WALL_BUDGET_S),
                  **known)


def _options(kwargs: dict, workers: int | None = None) -> Options:
    return Options.of(stop_on_first_failure=bool(kwargs.get("stop_on_first_failure", False)), workers=workers,
                      **{k: kwargs[k] for k in ("mode",) if k in kwargs})


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                  **kwargs: Any) -> dict:
    """Score one response. ``ground_truth``: canonical tests (dict or JSON text).

    ``test_pass_fraction`` needs every test run, so by default this does not stop at the first
    failure; pass ``stop_on_first_failure=True`` when only the binary score matters.
    """
    backend = _backend()
    code = extract_code(solution_str)
    if code is None:
        return _no_code()
    tests = _tests(ground_truth)
    if isinstance(tests, Result):
        return _score(tests)
    [result] = backend.evaluate_many([(0, code, tests)], _limits(kwargs), _options(kwargs))
    return _score(result)


def compute_score_batch(data_sources: list[str], solution_strs: list[str], ground_truths: list[Any],
                        extra_infos: list[Any] | None = None, *, workers: int | None = None,
                        **kwargs: Any) -> list[dict]:
    """Score a batch in parallel across cores (verl's batched reward-function shape)."""
    codes = [extract_code(s) for s in solution_strs]
    tests = [_tests(g) for g in ground_truths]
    jobs = [(i, c, t) for i, (c, t) in enumerate(zip(codes, tests)) if c is not None and isinstance(t, Tests)]
    results: dict[int, Result] = {r.key: r for r in _backend().evaluate_many(jobs, _limits(kwargs), _options(kwargs, workers))}
    results.update({i: t for i, (c, t) in enumerate(zip(codes, tests)) if c is not None and isinstance(t, Result)})
    return [_score(results[i]) if i in results else _no_code() for i in range(len(codes))]
