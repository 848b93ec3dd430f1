"""Problems whose tests no program has passed, and the model samples that can vouch for them.

Verify keeps a problem with no reference (``verified`` false) when ``require_reference`` is off, so
nothing has shown its tests can be passed. The difficulty stage samples it anyway (any sampler
backend), and a sample that passes every test (``model_solution``, from
:func:`pipeline.difficulty.scored`) becomes its reference at release. Every released row says
where each of its ``solutions`` comes from (``solution_origins``: ``source`` or ``model:<model>``),
so a user of the dataset can tell a model-written reference from a source's. A problem still without
one goes to the dataset's ``unverified`` config, not to ``train`` (see ``ShardConfig.train_on_unverified``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

SOURCE_ORIGIN = "source"
MODEL_ORIGIN = "model:"  # + the model's id, as the difficulty stage names it


def with_origins(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with ``solution_origins``, the model's passing sample adopted as its reference where no
    program had passed its tests (then ``verified`` is true: a program passes every test)."""
    row = dict(row)
    code = row.pop("model_solution", None)
    solutions = list(row.get("solutions") or [])
    origins = row.get("solution_origins") or [SOURCE_ORIGIN] * len(solutions)
    if code and not row.get("verified"):
        solutions, origins = solutions + [code], [*origins, MODEL_ORIGIN + str(row.get("difficulty_model"))]
        row["verified"] = True
    return {**row, "solutions": solutions, "solution_origins": list(origins)}


def model_written(row: dict[str, Any]) -> bool:
    """One of the row's references is a model's sample (adopted: no reference from its source passed)."""
    return any(origin.startswith(MODEL_ORIGIN) for origin in row.get("solution_origins") or [])


def split_unverified(rows: list[dict[str, Any]], train_on_unverified: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(train, unverified)``: rows no program has passed go apart unless the run says to train on them."""
    if train_on_unverified:
        return rows, []
    return [r for r in rows if r.get("verified")], [r for r in rows if not r.get("verified")]


def unverified_by_source(released: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per source with any: released problems no reference from the source passed, those a model's
    sample now vouches for, and those still unverified."""
    out: dict[str, Counter] = {}
    for row in released:
        adopted, unverified = model_written(row), not row.get("verified")
        if adopted or unverified:
            counts = out.setdefault(row["source"], Counter(without_reference=0, model_reference=0, unverified=0))
            counts.update(without_reference=1, model_reference=int(adopted), unverified=int(unverified))
    return {source: dict(counts) for source, counts in sorted(out.items())}
