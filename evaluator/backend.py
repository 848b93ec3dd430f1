"""Where programs run: one protocol, :class:`EvaluatorBackend`, for this machine's sandbox pool
(:class:`LocalBackend`) and a Ray cluster's actors (:class:`evaluator.ray_backend.RayEvaluator`).

Two kinds of work go through it, and nothing else runs candidate programs for the pipeline:
``evaluate_many`` judges ``(key, code, tests)`` jobs (:func:`evaluator.api.evaluate_many`), and
``values_many`` asks programs for the values of many calls (:func:`evaluator.values.call_values`:
test generation's oracle and adversaries). Both take :class:`~evaluator.model.Limits` and
:class:`~evaluator.model.Options` and give results in input order, so a caller never knows which
backend it has.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from evaluator import api, values
from evaluator.model import Limits, Options, Result
from evaluator.values import CallOutcome, ValuesJob


class EvaluatorBackend(Protocol):
    def evaluate_many(self, jobs: Iterable[api.Job], limits: Limits | None = None,
                      options: Options | None = None) -> list[Result]:
        """Judge ``(key, code, tests)`` jobs: a :class:`~evaluator.model.Result` each, in input
        order, carrying its job's key."""
        ...

    def values_many(self, jobs: Iterable[ValuesJob], limits: Limits | None = None,
                    options: Options | None = None) -> list[list[CallOutcome]]:
        """The outcome of each call of each ``(code, tests, calls, entry)`` job, in input order
        (:func:`evaluator.values.values_of`)."""
        ...


class LocalBackend:
    """This machine's shared fork-server pool, ``options.workers`` jobs at a time."""

    def evaluate_many(self, jobs: Iterable[api.Job], limits: Limits | None = None,
                      options: Options | None = None) -> list[Result]:
        return api.evaluate_many(jobs, limits, options)

    def values_many(self, jobs: Iterable[ValuesJob], limits: Limits | None = None,
                    options: Options | None = None) -> list[list[CallOutcome]]:
        limits, options = limits or Limits(), options or Options()
        return api.on_pool(list(jobs), options.workers, lambda job, pool: values.values_of(job, limits, options, pool))


def backend_at(address: str | None, **sizes: Any) -> EvaluatorBackend:
    """This machine's pool, or with a Ray ``address`` that cluster's evaluator actors (``sizes``:
    :class:`~evaluator.ray_backend.RayEvaluator`'s keywords). The one place that decides, for the
    Dagster resource, the reward and the command line."""
    if not address:
        return LocalBackend()
    from evaluator.ray_backend import RayEvaluator

    return RayEvaluator(address, **sizes)
