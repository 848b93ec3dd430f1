"""MicroCoder-Evaluator: sandboxed, parallel execution of candidate programs, robust output
comparison, and verl's reward function. Standard library only.

Public API: :func:`evaluate`, :func:`evaluate_many`, :func:`compute_score`,
:func:`compute_score_batch`, :func:`isolation_level`, and the typed contract of
:mod:`evaluator.model` (:class:`Tests`, :class:`Limits`, :class:`Verdict`, :class:`Result`, ...).
"""

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

__all__ = ["VERDICTS", "CaseResult", "Cause", "Checker", "Limits", "Options", "Result", "SpecialJudge", "TestCase",
           "Tests", "Verdict", "evaluate", "evaluate_many", "isolation_level", "compute_score", "compute_score_batch", "extract_code",
           "__version__"]
