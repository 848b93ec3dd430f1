"""Verify: the references decide which tests stand, test generation grows hidden ones, and the
known-wrong programs measure them.

- :mod:`~pipeline.verify.references`: the reference runs (:func:`reference_jobs`), decide from their results;
- :mod:`~pipeline.verify.testgen`: hidden tests (inputs, validators, the oracle, adversaries);
- :mod:`~pipeline.verify.strength`: known-incorrect, labelled-correct and hardcoder runs;
- :mod:`~pipeline.verify.report`: the funnel and strength per source, for the card and metadata;
- :mod:`~pipeline.verify.shards`: a refresh re-verifies only the shards whose problems changed;
- :mod:`~pipeline.verify.run`: the stage itself, :func:`verify_rows` and :func:`verify_heldout`.
"""

from pipeline.verify.config import Job, VerifyConfig
from pipeline.verify.references import answer_disagreement, decide, derived_time_limit, reference_jobs, run_references
from pipeline.verify.report import outcome_counts, strength_by_source, strength_markdown
from pipeline.verify.run import verify_heldout, verify_rows
from pipeline.verify.strength import labelled_correct

__all__ = ["Job", "VerifyConfig", "answer_disagreement", "decide", "derived_time_limit", "labelled_correct",
           "outcome_counts", "reference_jobs", "run_references", "strength_by_source", "strength_markdown", "verify_heldout",
           "verify_rows"]
