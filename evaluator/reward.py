"""verl custom reward: ``compute_score(data_source, solution_str, ground_truth, extra_info)``.

Binary reward (the paper's): 1 if the last fenced Python block passes every test, else 0.
``acc`` is that same binary pass, because verl averages ``acc`` as its core validation metric
(pass@1); the fraction of tests passed is reported as ``test_pass_fraction``. Every call is
bounded in wall time (``wall_budget_s``, default :data:`WALL_BUDGET_S`) whatever the program
does, so one degenerate sample never stalls a training step.
``compute_score_batch`` judges a whole batch in parallel for batched reward managers.
"""

from __future__ import annotations

import re
from typing import Any

from evaluator.api import evaluate, evaluate_many

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


def _score(result: dict) -> dict:
    total = max(1, int(result.get("num_tests") or 0))
    passed = 1.0 if result["passed"] else 0.0
    return {
        "score": passed,
        "acc": passed,
        "test_pass_fraction": result.get("num_passed", 0) / total,
        "verdict": result["verdict"],
        "time_s": result.get("time_s", 0.0),
        "isolation": result.get("isolation", "unknown"),
    }


def _no_code() -> dict:
    return {"score": 0.0, "acc": 0.0, "test_pass_fraction": 0.0, "verdict": "no_code", "time_s": 0.0,
            "isolation": "none"}


def _options(extra_info: Any, kwargs: dict) -> dict:
    opts = {k: kwargs[k] for k in ("timeout_s", "memory_mb", "mode") if k in kwargs}
    opts.setdefault("stop_on_first_failure", bool(kwargs.get("stop_on_first_failure", False)))
    opts["wall_budget_s"] = float(kwargs.get("wall_budget_s") or WALL_BUDGET_S)
    return opts


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                  **kwargs: Any) -> dict:
    """Score one response. ``ground_truth``: canonical tests (dict or JSON text).

    ``test_pass_fraction`` needs every test run, so by default this does not stop at the first
    failure; pass ``stop_on_first_failure=True`` when only the binary score matters.
    """
    code = extract_code(solution_str)
    if code is None:
        return _no_code()
    return _score(evaluate(code, ground_truth, **_options(extra_info, kwargs)))


def compute_score_batch(data_sources: list[str], solution_strs: list[str], ground_truths: list[Any],
                        extra_infos: list[Any] | None = None, *, workers: int | None = None,
                        **kwargs: Any) -> list[dict]:
    """Score a batch in parallel across cores (verl's batched reward-function shape)."""
    codes = [extract_code(s) for s in solution_strs]
    items = [{"id": i, "code": c, "tests": g} for i, (c, g) in enumerate(zip(codes, ground_truths)) if c is not None]
    results = {r["id"]: r for r in evaluate_many(items, workers=workers, **_options(None, kwargs))}
    return [_score(results[i]) if i in results else _no_code() for i in range(len(codes))]
