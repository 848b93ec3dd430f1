"""Verify: the references decide which tests stand, test generation grows hidden ones, and the
known-wrong programs measure them.

- :mod:`~pipeline.verify.references`: the reference runs (:func:`reference_jobs`), decide from their results;
- :mod:`~pipeline.verify.testgen`: hidden tests (inputs, validators, the oracle, adversaries);
- :mod:`~pipeline.verify.strength`: known-incorrect, labelled-correct and hardcoder runs;
- :mod:`~pipeline.verify.report`: the funnel and strength per source, for the card and metadata;
- :mod:`~pipeline.verify.shards`: a refresh re-verifies only the shards whose problems changed;
- :mod:`~pipeline.verify.run`: the stage itself, :func:`verify_rows` and :func:`verify_heldout`.

Names load on first use (:pep:`562`), as in the test generation face: importing a leaf such as
``pipeline.verify.testgen.settings`` does not import the stage.
"""

from __future__ import annotations

from pipeline.faces import lazy_face

_FACE = {  # name -> the module it lives in
    "Job": "config", "VerifyConfig": "config",
    "answer_disagreement": "references", "decide": "references", "derived_time_limit": "references",
    "reference_jobs": "references", "run_references": "references",
    "outcome_counts": "report", "strength_by_source": "report", "strength_markdown": "report",
    "verify_heldout": "run", "verify_rows": "run",
    "labelled_correct": "strength",
}

__all__ = sorted(_FACE)


__getattr__ = lazy_face(__name__, _FACE)
