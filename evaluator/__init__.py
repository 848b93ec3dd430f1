"""MicroCoder-Evaluator: sandboxed, parallel execution of candidate programs, robust output
comparison, and verl's reward function. Standard library only.

Public API: :func:`evaluate`, :func:`evaluate_many`, :func:`compute_score`,
:func:`compute_score_batch`, :func:`isolation_level`, and the typed contract of
:mod:`evaluator.model` (:class:`Tests`, :class:`Limits`, :class:`Verdict`, :class:`Result`, ...).
"""

import importlib
from typing import TYPE_CHECKING

# Names resolve on first use (PEP 562): the fork server imports only what a child needs, and its
# size is what every forked case pays for (fork and exit cost grow with the pages it maps).
_WHERE = {
    "evaluate": "evaluator.api", "evaluate_many": "evaluator.api", "isolation_level": "evaluator.api",
    "__version__": "evaluator.doctor",
    "VERDICTS": "evaluator.model", "CaseResult": "evaluator.model", "Cause": "evaluator.model",
    "Checker": "evaluator.model", "Limits": "evaluator.model", "Options": "evaluator.model",
    "Result": "evaluator.model", "SpecialJudge": "evaluator.model", "TestCase": "evaluator.model",
    "Tests": "evaluator.model", "Verdict": "evaluator.model",
    "compute_score": "evaluator.reward", "compute_score_batch": "evaluator.reward", "extract_code": "evaluator.reward",
}

if TYPE_CHECKING:
    from evaluator.api import evaluate, evaluate_many, isolation_level
    from evaluator.doctor import VERSION as __version__
    from evaluator.model import (
        VERDICTS,
        CaseResult,
        Cause,
        Checker,
        Limits,
        Options,
        Result,
        SpecialJudge,
        TestCase,
        Tests,
        Verdict,
    )
    from evaluator.reward import compute_score, compute_score_batch, extract_code


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'evaluator' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), "VERSION" if name == "__version__" else name)
    globals()[name] = value
    return value


__all__ = ["VERDICTS", "CaseResult", "Cause", "Checker", "Limits", "Options", "Result", "SpecialJudge", "TestCase",
           "Tests", "Verdict", "evaluate", "evaluate_many", "isolation_level", "compute_score", "compute_score_batch", "extract_code",
           "__version__"]
