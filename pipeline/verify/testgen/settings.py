"""Test generation's settings (``generation`` in Verify's config): a leaf module, so that what reads
them (Verify's config, the launchpad) need not import the driver that uses them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["TestGenConfig"]


@dataclass
class TestGenConfig:
    """Test generation in Verify (see :mod:`pipeline.verify.testgen.generate`)."""

    __test__ = False

    enabled: bool = True
    inputs: int = 100  # candidate inputs per problem, times its kind's ``inputs_share`` (stdin: 0.33)
    max_tests: int = 30  # generated tests kept per problem (the reward caps below bound what they cost)
    max_reference_s: float = 2.0  # summed reference CPU time of the kept generated tests
    # what one reward may cost a correct program on the released tests, estimated (each case: its
    # kind's ``case_s`` and the reference's time on it): tests past it join only to reject an adversary
    max_reward_s: float = 0.05
    mutants: int = 8  # AST mutants of the first reference
    oracle_budget_s: float = 5.0  # wall time a reference may spend answering one problem's inputs
    adversary_budget_s: float = 2.0  # ... and an adversary running them (a looping mutant stops at its first limit)
    seed: int = 0
    # a problem whose every test is an example its statement prints, after generation
    tests_only_in_statement: Literal["reject", "mark"] = "reject"
    sample_per_source: int | None = None  # generate for the first N problems of each source (None: all)
    # inputs proposed per problem by a model-written generator and validator (the `sampler`
    # resource: vLLM or an OpenAI-compatible server); 0: off, the CPU default
    model_inputs: int = 0
    model_max_tokens: int = 1024  # the length of the model's answer (both functions)
    # a second witness for the answers: a brute force the model writes for small inputs (needs the sampler)
    model_brute_force: bool = False
    # a generated test whose answer rests on one witness (a lone reference, nothing checking it):
    # kept and counted ("keep"), or not kept ("drop")
    single_witness: Literal["keep", "drop"] = "keep"
    # answered inputs not selected, the smallest first, kept for the difficulty stage's differential
    # round against the model's samples (``reserve_inputs``; :mod:`pipeline.verify.testgen.differential`)
    reserve: int = 16
    # inputs past the examples' envelope (empty, single, ties, long, a stated range's ends) that
    # break no stated rule: into the reserve only, for the round to admit (:mod:`...testgen.edges`)
    edges: int = 12
    # problems generated for at once: each batch is planned, run and reported (done/total, ETA)
    # before the next; None: 32 per worker (about a minute a batch; raise it on a large cluster)
    batch_problems: int | None = None
    cache: bool = True
