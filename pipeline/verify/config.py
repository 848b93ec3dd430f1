"""Verify's settings, and the shapes its jobs and evaluator take."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from evaluator.model import DEFAULT_MEMORY_MB
from pipeline.schema import Tests
from pipeline.verify.testgen import TestGenConfig


@dataclass
class VerifyConfig:
    require_reference: bool = False  # False: problems without references stay, verified = false
    max_references: int = 10  # references tried per problem (the first ones)
    min_tests: int = 1  # a problem left with fewer tests after dropping bad ones is rejected
    timeout_s: float | None = None  # per test for the references when the test has no time limit
    memory_mb: int = DEFAULT_MEMORY_MB
    workers: int | None = None
    # several valid answers: references passing at least this fraction of cases are compared
    min_pass_fraction: float = 0.5
    # time limits derived from the references' CPU time
    derive_time_limits: bool = True
    time_limit_factor: float = 3.0
    min_time_limit_s: float = 1.0
    # test strength: known-incorrect programs run on the verified tests
    max_incorrect: int = 10  # 0: none run
    hardcoder: bool = True  # also run the program that memorises the statement's examples
    weak_tests: Literal["reject", "mark"] = "reject"
    # a refresh re-verifies only the shards whose problems changed (pipeline.verify.shards)
    shards: int = 16
    cache: bool = True
    # hidden tests: generated inputs answered by the references (pipeline.verify.testgen)
    generation: TestGenConfig = dataclasses.field(default_factory=TestGenConfig)


Job = tuple[tuple[str, Any], str, Tests]  # ((problem id, program index), code, tests)
