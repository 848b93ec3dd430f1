"""A test kind's strategy: the one interface test generation asks of ``stdin``, ``call``,
``assert`` and LeetCode's linked-list and tree asserts, and the registry that finds it.

The driver (:mod:`pipeline.verify.testgen.generate`) plans, runs the oracle and the adversaries,
selects and reports the same way for every problem; whatever depends on how the tests are written
(which inputs the examples give, how a program is run on a new one, when two answers are the
same, how a chosen test is written back) is a :class:`TestKind`'s. After EvalPlus's small
``BaseGen`` interface with one implementation per kind of problem, and verl's registries: a kind is
registered by name (:func:`register_kind`), and :func:`pipeline.verify.testgen.registry.kind_for`
finds a row's. The built-in kinds live each in its package (:mod:`~pipeline.verify.testgen.stdin.kind`,
:mod:`~pipeline.verify.testgen.call.kind`, :mod:`~pipeline.verify.testgen.asserts.kind`), which import
this module and never the other way; a new kind is one module that registers itself
(``tests/pipeline/test_kind_seam.py`` adds one).
"""

from __future__ import annotations

import ast
import dataclasses
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from evaluator.backend import EvaluatorBackend
from evaluator.model import Checker, Limits, Options, Result, SpecialJudge
from evaluator.values import CallOutcome
from pipeline.schema import TEST_ORIGINS, TestCase, Tests
from pipeline.verify.testgen.proof import RuleProof

if TYPE_CHECKING:
    from pipeline.verify.testgen.call import postconditions  # a call kind's relations (the seam's relations())

Made = list[tuple[Any, str]]  # new inputs, each with how it was made
REFERENCE_SHARE = 0.1  # of the time limit, the most a reference may take on a generated input
Answer = tuple[bool, Any, float]  # a program's answer to one input: ended cleanly, the answer, its CPU seconds
P = TypeVar("P")


class NoInputs(Exception):
    """A kind could make no input for a problem; the message says why (its ``generation_note``)."""


@dataclass(frozen=True)
class Program:
    """Which program a run is: a ``reference`` (``index``: its place among the trusted ones), the
    ``brute`` force, the ``hardcoder``, a ``mutant`` (``index``: its place, ``label``: how it was
    made) or a model's ``sample`` (``index``: its place among the problem's samples)."""

    role: Literal["reference", "brute", "hardcoder", "mutant", "sample"]
    index: int = 0
    label: str = ""

    @property
    def first_reference(self) -> bool:
        return self.role == "reference" and self.index == 0


@dataclass
class Job:
    """One program's run: on a test set (``calls`` None: ``evaluate_many``), or on calls into its
    entry point (``values_many``)."""

    code: str
    tests: Tests
    calls: list[Any] | None = None
    entry: tuple[str, ...] = ()


@dataclass
class Answers:
    """A program's answer to each input it ran (in the order given), and, where a kind checks an
    answer against a variant of its input that must be answered alike (a call's dict keys
    reordered), the answer to that variant by input index."""

    answers: list[Answer]
    variants: dict[int, tuple[bool, Any]] = dataclasses.field(default_factory=dict)


@dataclass
class Kills:
    """What an adversary's run on generated inputs says: the inputs that reject it, those it never
    ran (a limit came first) and those it crashed on or ran out of a limit (no answer at all)."""

    rejected: set[int]
    unrun: set[int] = dataclasses.field(default_factory=set)
    failed: set[int] = dataclasses.field(default_factory=set)


class Validator(Protocol):
    """Why the statement rules an input out (``reason``: None where it is allowed); a ``stdin``
    input is its text, a call's its ``(args, kwargs)``. ``proof``: which of its rules refused the
    just-illegal inputs made for them (:mod:`pipeline.verify.testgen.proof`)."""

    proof: RuleProof

    def reason(self, *value: Any) -> str | None: ...


class AllowAll:
    """The validator where nothing can be read from the examples (a model's validator judges alone)."""

    proof = RuleProof()  # no rules to test

    def reason(self, *value: Any) -> str | None:
        return None


@dataclass
class Plan(Generic[P]):
    """What a kind reads from a problem before any program runs (:meth:`TestKind.plan`): the
    problem's own inputs (as ``Candidate.inputs`` holds them), the kind's own ``profile`` (the
    ``stdin`` grammar; a call's entry point, parameters and what the examples say), the validator
    of new inputs, and why no input grows from the examples (``note``)."""

    examples: list[Any] = dataclasses.field(default_factory=list)
    profile: P | None = None
    validator: Validator | None = None
    note: str | None = None

    def refuses(self, value: Any) -> str | None:
        """Why the validator refuses a new input (None: it is allowed, or there is no validator)."""
        if self.validator is None:
            return None
        return self.validator.reason(*value) if isinstance(value, tuple) else self.validator.reason(value)


@dataclass
class Candidate:
    """A problem's generation state: inputs, the references' answers, the adversaries' results.
    Kind-free: what a kind read of the problem is its ``plan``, and the kind writes nothing here
    (the driver and the planner fill it from what the kind's methods return)."""

    row: dict[str, Any]
    kind: TestKind
    plan: Plan = dataclasses.field(default_factory=Plan)
    inputs: list[Any] = dataclasses.field(default_factory=list)  # stdin text, or (args, kwargs)
    labels: list[str] = dataclasses.field(default_factory=list)
    expected: dict[int, Any] = dataclasses.field(default_factory=dict)  # input index -> answer
    ref_s: dict[int, float] = dataclasses.field(default_factory=dict)
    disagreements: int = 0
    variant_answers: dict[int, tuple[bool, Any]] = dataclasses.field(default_factory=dict)  # the first reference's (Answers.variants)
    suspects: Counter = dataclasses.field(default_factory=Counter)  # broken relation -> answers dropped
    invalid: Counter = dataclasses.field(default_factory=Counter)  # reason -> generated inputs refused
    brute: str | None = None  # a model-written brute force that passes the problem's own tests (a witness)
    witnesses: dict[int, int] = dataclasses.field(default_factory=dict)  # input index -> sources that agree on its answer
    note: str | None = None
    adversaries: list[tuple[Program, str]] = dataclasses.field(default_factory=list)  # (which, code)
    kills: dict[Program, set[int]] = dataclasses.field(default_factory=dict)  # adversary -> generated inputs
    unrun: dict[Program, set[int]] = dataclasses.field(default_factory=dict)  # adversary -> inputs it never ran (a limit came first)
    failed: dict[Program, set[int]] = dataclasses.field(default_factory=dict)  # ... -> inputs it raised on or ran out of time
    edge_answers: dict[int, Any] = dataclasses.field(default_factory=dict)  # edges (labelled so): the references' answers
    killed_by_original: set[Program] = dataclasses.field(default_factory=set)
    spent: dict[str, float] = dataclasses.field(default_factory=dict)  # planning's phases, while a benchmark records

    @property
    def relations(self) -> dict[str, postconditions.Relation]:
        """The relations every example's answer keeps, which the references' answers must keep too."""
        return self.kind.relations(self.plan)

    def record(self, program: Program, kills: Kills) -> None:
        """An adversary's run, as its kind read it."""
        self.kills[program], self.unrun[program], self.failed[program] = kills.rejected, kills.unrun, kills.failed


def answer_limit_s(cand: Candidate) -> float:
    """The most a reference may take on a generated input (a tenth of the problem's limit): a
    correct program several times slower than the reference still passes the test. An answer
    that took longer is no test's (:func:`pipeline.verify.testgen.generate.run_oracle`)."""
    from evaluator.model import DEFAULT_TIME_S

    return REFERENCE_SHARE * (cand.row["tests"].time_limit_s or DEFAULT_TIME_S)


class Runs:
    """Programs to run for every problem at once, in the two forms the backend takes: whole test
    sets (``evaluate_many``) and calls (``values_many``). One backend call each, whatever the
    kinds, so the pool (or the cluster) stays full."""

    def __init__(self) -> None:
        self.tests: list[tuple[Any, str, Tests]] = []
        self.calls: list[tuple[str, Tests, list[Any], tuple[str, ...]]] = []
        self.call_keys: list[Any] = []

    def add(self, key: Any, jobs: Iterable[Job]) -> None:
        """A kind's jobs under ``key`` (each key's result comes back once: a kind returns one job a program)."""
        for job in jobs:
            if job.calls is None:
                self.tests.append((key, job.code, job.tests))
            else:
                self.calls.append((job.code, job.tests, job.calls, job.entry))
                self.call_keys.append(key)

    def run(self, backend: EvaluatorBackend, limits: Limits, tests_options: Options,
            calls_options: Options | None = None) -> Iterator[tuple[Any, Result | list[CallOutcome]]]:
        """(key, its result): a :class:`Result` for a test set, the outcome of each call for calls."""
        if self.tests:
            for res in backend.evaluate_many(self.tests, limits, tests_options):
                yield res.key, res
        if self.calls:
            yield from zip(self.call_keys, backend.values_many(self.calls, limits, calls_options))


def input_size(value: Any) -> int:
    """An input's size, the proxy for its cost that is the same on every run (selection's tie-break)."""
    return len(value) if isinstance(value, str) else len(repr(value))


def cover(cand: Candidate, open_: dict[str, set[int]], pool: Iterable[int],
          fits: Callable[[int, list[int]], bool] = lambda i, chosen: True) -> list[int]:
    """Inputs of ``pool`` chosen greedily until every adversary in ``open_`` (its name -> the inputs
    that reject it) is rejected by one, or none that ``fits`` (given those chosen so far) rejects
    another. Ties go to the smaller input, then the earlier: the same tests on every run (a clock
    would not). Test selection and the differential round choose this way."""
    pool, chosen = list(pool), []
    while open_:
        best = max((i for i in pool if i not in chosen and fits(i, chosen)),
                   key=lambda i: (sum(i in kills for kills in open_.values()), -input_size(cand.inputs[i]), -i), default=None)
        if best is None or not any(best in kills for kills in open_.values()):
            break
        chosen.append(best)
        open_ = {n: k for n, k in open_.items() if best not in k}
    return chosen


def smallest_first(cand: Candidate, indices: Iterable[int]) -> list[int]:
    """Generated inputs ``indices`` by size, ties to the earlier: the order in which the smallest is
    wanted (selection's smallest killers, the differential round's reserve)."""
    return sorted(indices, key=lambda i: (input_size(cand.inputs[i]), i))


EDGE = "edge"  # how an input past the examples' envelope is labelled ("edge:<what>"): the reserve's only
SLOW = "slow"  # how an input made for slow programs is labelled ("slow:equal", "slow:grammar"): the largest stated size


def family(label: str) -> str:
    """How an input was made, without the detail: ``small:list`` is ``small``."""
    return label.split(":", 1)[0]


def is_edge(label: str) -> bool:
    """Whether an input is an edge (:mod:`pipeline.verify.testgen.call.edges`): the round's to admit."""
    return family(label) == EDGE


def origin(label: str) -> str:
    """A generated test's origin (``TEST_ORIGINS``) from how its input was made."""
    head = family(label)
    return head if head in TEST_ORIGINS else "mutation"


class TestKind:
    """How generation reads, grows, runs, compares and writes one kind of tests."""

    __test__ = False
    name = ""  # set by :func:`register_kind`
    serves = ""  # the ``Tests.kind`` whose rows it can take
    model_shape = ""  # how a model-written generator returns an input (in its prompt)
    # what one more case adds to a reward beyond the program's own time: a call into the running
    # program (``benchmarks/bench_evaluator.py``); selection's reward cap reads it
    case_s = 0.0005
    # candidate inputs this kind makes per problem, as a share of ``generation.inputs``: every one
    # is run by each reference and adversary, so a kind whose case is a process of its own makes fewer
    inputs_share = 1.0

    def claims(self, tests: Tests) -> bool:
        """Whether these tests are this kind's, among the kinds serving ``tests.kind``."""
        return True

    # --- the examples and new inputs
    def read(self, row: dict[str, Any]) -> Plan:
        """What the problem's own tests give: its inputs and how it is called (a ``note`` where
        nothing can be read). Cheap: the differential round reads a released row again."""
        raise NotImplementedError

    def plan(self, row: dict[str, Any], statement: str) -> Plan:
        """:meth:`read`, with what the examples and the statement say (the profile generators and
        the validator read)."""
        return self.read(row)

    def propose(self, plan: Plan, n: int, seed: int) -> Generator[Made, int, None]:
        """Batches of new inputs, about ``n`` each. The driver asks for a second batch only to make
        up for inputs the validator refused, and sends how many it still needs (``send``). Raises
        :class:`NoInputs` (why) where none can be made."""
        raise NotImplementedError

    def relations(self, plan: Plan) -> dict[str, postconditions.Relation]:
        """The relations every example's answer keeps with its input (a witness for the answers)."""
        return {}

    def edges(self, plan: Plan, n: int) -> Made:
        """Up to ``n`` inputs past the examples' envelope that break no rule the statement states
        (:mod:`pipeline.verify.testgen.call.edges`): for the reserve only, after :meth:`propose`."""
        return []

    def runnable(self, plan: Plan) -> bool:
        """Whether inputs can be run at all (a model's, say): there is something to call."""
        return True

    def small(self, value: Any) -> bool:
        """Whether an input is small enough for a brute force to answer."""
        raise NotImplementedError

    def encode(self, value: Any) -> str | None:
        """An input or an answer as text that :meth:`decode` reads back as the same value (the
        reserve's encoding; None: it does not read back). A call's: its Python literal."""
        try:
            text = repr(value)  # an int past Python's digit limit has no repr
            return text if repr(ast.literal_eval(text)) == text else None  # a NaN does not read back
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    def decode(self, text: str) -> Any:
        """What :meth:`encode` wrote, read back."""
        return ast.literal_eval(text)

    def from_json(self, value: Any) -> Any:
        """An input from the JSON a model-written generator printed (None: not one)."""
        raise NotImplementedError

    def to_json(self, value: Any) -> Any:
        """An input as the JSON a model-written validator reads."""
        raise NotImplementedError

    def brute_force_how(self, tests: Tests) -> str:
        """How a model-written brute force takes its input (in its prompt)."""
        raise NotImplementedError

    # --- the oracle
    def oracle_jobs(self, cand: Candidate, program: Program, code: str, indices: list[int]) -> list[Job]:
        """A reference's (or the brute force's) run on the inputs ``indices``."""
        raise NotImplementedError

    def answers(self, cand: Candidate, program: Program, indices: list[int], result: Any) -> Answers:
        """That run's answer to each of its inputs, from what :meth:`Runs.run` gave back."""
        raise NotImplementedError

    def oversized(self, answer: Any) -> bool:
        """Whether an answer is too long to compare in every reward: its input is dropped."""
        return False

    def suspect(self, cand: Candidate, i: int, answer: Any) -> str | None:
        """Why the references' agreed answer to input ``i`` is not to be trusted (None: it is)."""
        return None

    def same_answer(self, checker: Checker | SpecialJudge | None, a: Any, b: Any) -> bool:
        """Whether two programs' answers are the same, as the written test will judge them."""
        raise NotImplementedError

    # --- the adversaries
    def hardcoder(self, row: dict[str, Any], plan: Plan | None) -> str | None:
        """The program that memorises the examples the row's statement prints (None: none to write)."""
        raise NotImplementedError

    def adversary_jobs(self, cand: Candidate, code: str, tests: Tests, kept: list[int]) -> list[Job]:
        """An adversary's run on the generated inputs ``kept`` (``tests``: the problem's own, for
        their limits and checker; the driver runs them apart, :func:`~pipeline.verify.testgen.generate.run_adversaries`)."""
        raise NotImplementedError

    def kills(self, cand: Candidate, result: Any) -> Kills | None:
        """Which generated inputs (of ``sorted(cand.expected)``, as run) rejected the adversary
        (None: the run says nothing, an internal error)."""
        raise NotImplementedError

    def known_kills(self, cand: Candidate, program: Program, code: str, kept: list[int]) -> set[int] | None:
        """The generated inputs of ``kept`` that reject an adversary whose answers are known without
        running it, exactly as its run would judge them (None: run it)."""
        return None

    # --- the chosen tests
    def expected_text(self, answer: Any) -> str | None:
        """An answer as a test case's expected output (None: it has no exact text)."""
        raise NotImplementedError

    def render(self, cand: Candidate, tests: Tests, chosen: list[int]) -> tuple[Tests, int]:
        """``tests`` with the chosen generated inputs appended as tests, and how many were."""
        raise NotImplementedError


def append_cases(kind: TestKind, cand: Candidate, tests: Tests, chosen: list[int],
                 text: Callable[[Any], str]) -> tuple[Tests, int]:
    """The chosen inputs as test cases (``text`` writes an input), each with its origin."""
    added = 0
    for i in chosen:
        output = kind.expected_text(cand.expected[i])
        if output is None:
            continue
        tests.cases.append(TestCase(text(cand.inputs[i]), output, origin=origin(cand.labels[i]), how=cand.labels[i]))
        added += 1
    return tests, added


_KINDS: dict[str, TestKind] = {}
K = TypeVar("K", bound=type[TestKind])


def register_kind(name: str) -> Callable[[K], K]:
    """Class decorator: one instance of the kind, found by :func:`kind_for` from then on."""

    def add(cls: K) -> K:
        if name in _KINDS:
            raise ValueError(f"test kind {name!r} is registered twice")
        kind = cls()
        kind.name = name
        _KINDS[name] = kind
        return cls

    return add
