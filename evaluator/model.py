"""The evaluator's contract, typed: tests, limits, verdicts and results. Standard library only.

One definition each: :class:`Tests` and :class:`TestCase` (which ``pipeline.schema`` re-exports),
a checker as :class:`Checker` (a named standard one) or :class:`SpecialJudge` (a program),
:class:`Limits` (the only home of the default limits), the :class:`Verdict` of a test and the
:class:`CaseResult` and :class:`Result` of a program. JSON is parsed at the edges only (the CLI,
the reward, the IO manager) with :meth:`Tests.from_json`, and written with the ``to_dict`` methods.

What a judged program may rely on (docs/evaluator.md says the same):

- **What runs where.** The program runs in a jailed process of its own, the candidate. Verdicts
  are made outside it: for ``stdin`` and ``call`` tests by the caller, from what the candidate
  left (its stdout, each call's value as JSON); for ``assert`` tests by a second jailed process,
  the judge, which runs the problem's prelude and the test code (or by the caller, for asserts
  it lifts, :mod:`evaluator.asserts.lift`). The fork server times the candidate from outside it.
- **What crosses by value.** Plain data: ``None``, ``bool``, ``int`` of any size, ``float``,
  ``complex``, ``str``, ``bytes``, tuples, frozensets, ``Fraction``, ``Decimal``, ``date``,
  ``time``, ``datetime``, ``timedelta`` and fixed or zoneinfo time zones, named tuples (as a
  named tuple class of the same name and fields), and the mutable ``list``, ``dict``, ``set``,
  ``bytearray``, ``deque``, ``Counter``, ``OrderedDict`` and ``defaultdict``. A mutable value
  keeps its identity for the case: one object sent twice is one object on the other side, and
  an object sent back to its owner is the owner's own, updated in place (an argument changed in
  place, ``r is a``, ``f() is f()``). A copy catches up when its object crosses again: a call's
  arguments after the call, a module global when the test reads it after the program ran.
- **What crosses by reference.** Everything else: the program's functions, classes, instances,
  iterators and generators (lazily, one item a request) reach the test as stand-ins whose every
  use asks the program and which compare by identity only; the test's own functions and objects
  reach the program as stand-ins that ask the judge. Exceptions cross as their class (the
  program's hierarchy, rebuilt in the judge), ``args``, attributes and message; what a call
  prints on stdout and stderr reaches the test's ``sys.stdout``/``sys.stderr`` (``capsys``).
- **Whose names.** The judge's own, whatever the program defines: the prelude's
  (``is_same_list``), builtins (but the function under test) and standard-library modules. The
  program's: every other name its module binds, read through (``counter`` after two calls,
  ``from solution import counter`` in a test function).
- **What one case is.** A ``stdin`` case: one process, one input. An ``assert`` test: one case,
  one program process (its top level once, then each call the test makes, in order, state
  carried over). A ``call`` test: its cases in order in one process, module state carried from
  case to case and a fresh ``Solution()`` for each, as LeetCode's and LiveCodeBench's judges run
  them; a case that ends the process (a limit, a crash) fails alone, the next in a fresh one.
- **Limits.** The CPU limit L holds for each ``stdin`` case, for the program's top level and for
  each call of an ``assert`` test, and for each ``call`` case with its share of the top level
  (as if alone): the program stops within L + 0.1 s of CPU (:mod:`evaluator.sandbox.limits`). Wall time:
  1.5 L + 0.5 s, counted from when the process or the call starts, a predicted call included.
- **Interpreter state.** Each process's own: the test's ``random`` generator and seed, recursion
  limit and ``sys`` settings are the judge's and never reach the program (a test that seeds
  ``random`` seeds only its own draws); the program's process starts with a fresh seed, a
  recursion limit of 10^6, a 1 GiB main stack and no limit on int digits, as judges give.
- **One call at a time.** No call reaches the program's process before it is sent; a predicted
  call is sent only once the one before is answered, and looks like any other, so a run with
  predicted calls and a run one call at a time give the same verdict.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from evaluator import checkers

TEST_KINDS: tuple[str, ...] = ("stdin", "call", "assert")
_GRADED_KINDS: set[str] = set()  # kinds beyond these that a grader registered (evaluator.graders)


def add_test_kind(kind: str) -> None:
    """Let :class:`Tests` be of ``kind``: a grader for it is registered (:func:`evaluator.graders.register_grader`)."""
    _GRADED_KINDS.add(kind)

# Where a test came from: the source's own, or Verify's generation (by input mutation, by a
# grammar inferred from the examples, or written by a model); see ``pipeline.verify.testgen``.
TEST_ORIGINS: tuple[str, ...] = ("source", "mutation", "grammar", "model")


@dataclass(frozen=True)
class Checker:
    """A named standard checker (:mod:`evaluator.checkers`), e.g. ``doubles`` with ``args=("1e-9",)``.
    Stored as its text, ``"doubles:1e-9"``."""

    name: str
    args: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.name not in checkers.CHECKERS:
            raise ValueError(f"unknown checker {self.name!r}; expected one of {sorted(checkers.CHECKERS)}")
        checkers.check(self.name, self.args, "", "")  # a bad argument (doubles:abc) fails here, once

    def __str__(self) -> str:
        return ":".join((self.name, *self.args))

    def check(self, expected: str, actual: str) -> tuple[bool, str]:
        """(accepted, reason) for ``actual`` against ``expected``."""
        return checkers.check(self.name, self.args, expected, actual)


@dataclass(frozen=True)
class SpecialJudge:
    """A Python special-judge program, run in the sandbox: ``argv = [input.txt, expected.txt,
    output.txt]``, the candidate's output also on stdin; exit status 0 accepts."""

    code: str

    def __str__(self) -> str:
        return self.code


def parse_checker(value: Checker | SpecialJudge | str | None) -> Checker | SpecialJudge | None:
    """A stored checker (text) as what it is: one line naming a standard checker, else a program."""
    if value is None or isinstance(value, (Checker, SpecialJudge)):
        return value
    if not isinstance(value, str):
        raise TypeError(f"a checker is a name or a program, got {type(value).__name__}")
    text = value.strip()
    if not text:
        return None
    name, _, arg = text.partition(":")
    if "\n" not in text and name.strip() in checkers.CHECKERS:
        return Checker(name.strip(), (arg.strip(),) if arg.strip() else ())
    return SpecialJudge(value)


@dataclass
class TestCase:
    """One input/output pair. ``call`` cases hold JSON text: an array of args, the return value.

    ``public``: the statement prints this example (Process marks it), so a program could
    memorise it; ``origin``: one of :data:`TEST_ORIGINS`, with ``how`` saying which mutation or
    grammar rule made a generated case. The reward uses every case, public or not.
    """

    __test__ = False  # not a pytest test class

    input: str
    output: str
    public: bool = False
    origin: str = "source"
    how: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Input and output, plus the marks that differ from a plain source case (compact JSON)."""
        out: dict[str, Any] = {"input": self.input, "output": self.output}
        if self.public:
            out["public"] = True
        if self.origin != "source":
            out["origin"] = self.origin
        if self.how:
            out["how"] = self.how
        return out


@dataclass
class Tests:
    """Canonical tests of a problem: ``stdin`` cases, ``call`` cases (JSON args and return value), or an ``assert`` block."""

    __test__ = False  # not a pytest test class

    kind: str
    cases: list[TestCase] = field(default_factory=list)
    fn_name: str | None = None
    assert_code: str | None = None
    checker: Checker | SpecialJudge | None = None
    prelude: str | None = None  # code run before the solution: imports, helper classes (ListNode)
    time_limit_s: float | None = None
    memory_limit_mb: int | None = None
    public_asserts: int = 0  # ``assert`` tests: how many of the block's asserts the statement shows

    def __post_init__(self) -> None:
        if self.kind not in TEST_KINDS and self.kind not in _GRADED_KINDS:
            raise ValueError(f"unknown test kind {self.kind!r}; expected one of {TEST_KINDS + tuple(sorted(_GRADED_KINDS))}")
        self.cases = [c if isinstance(c, TestCase) else TestCase(**c) for c in self.cases or []]

    def __setattr__(self, name: str, value: Any) -> None:
        """A checker given as text (the stored form, a Process rule's) is parsed as it is set, in __init__ too."""
        object.__setattr__(self, name, parse_checker(value) if name == "checker" else value)

    @property
    def count(self) -> int:
        """Number of test cases; an assert block counts its ``assert`` statements (at least 1)."""
        if self.kind == "assert":
            return max(1, (self.assert_code or "").count("assert ")) if self.assert_code else 0
        return len(self.cases)

    @property
    def hidden_count(self) -> int:
        """Tests the statement does not print: what a program that memorised the examples can fail."""
        if self.kind == "assert":
            return max(0, self.count - self.public_asserts)
        return sum(1 for c in self.cases if not c.public)

    def assert_block(self) -> str:
        """An ``assert`` test's code as it runs: a ``check(candidate)`` block that never calls
        ``check`` (LeetCodeDataset's style) gets the call with ``fn_name``."""
        test = self.assert_code or ""
        if self.fn_name and re.search(r"^def check\(", test, re.M) and not re.search(r"^check\(", test, re.M):
            test += f"\n\ncheck({self.fn_name})\n"
        return test

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["cases"] = [c.to_dict() for c in self.cases]
        out["checker"] = None if self.checker is None else str(self.checker)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Tests":
        if not isinstance(data, dict):
            raise ValueError(f"canonical tests are a JSON object, got {type(data).__name__}")
        known = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        if "kind" not in known:
            raise ValueError("canonical tests need a kind (stdin, call or assert)")
        return cls(**known)

    @classmethod
    def from_json(cls, text: str | bytes) -> "Tests":
        return cls.from_dict(json.loads(text))


def as_tests(tests: "Tests | dict[str, Any]") -> Tests:
    """:class:`Tests` from a Tests or its dict form (``to_dict``). JSON text is parsed by the
    caller, at its edge (:meth:`Tests.from_json`)."""
    if isinstance(tests, Tests):
        return tests
    if isinstance(tests, dict):
        return Tests.from_dict(tests)
    raise TypeError(f"tests must be Tests or its dict form, got {type(tests).__name__} (parse JSON with Tests.from_json)")


DEFAULT_TIME_S = 6.0  # a test's CPU time limit when neither the caller nor the tests give one
DEFAULT_MEMORY_MB = 2048
DEFAULT_OUTPUT_MB = 64


@dataclass(frozen=True)
class Limits:
    """What one evaluation may use. ``time_s``: CPU seconds per test, per call in an ``assert``
    block (None: the tests' ``time_limit_s``, else :data:`DEFAULT_TIME_S`); ``memory_mb``: the
    floor of the address-space limit (the tests' ``memory_limit_mb`` may raise it, never lower
    it); ``output_mb``: stdout per test; ``wall_budget_s``: the whole evaluation, waiting for a
    worker included (None: unbounded)."""

    time_s: float | None = None
    memory_mb: int = DEFAULT_MEMORY_MB
    output_mb: int = DEFAULT_OUTPUT_MB
    wall_budget_s: float | None = None

    def __post_init__(self) -> None:
        if self.time_s is not None and self.time_s <= 0:
            raise ValueError(f"time_s must be positive, got {self.time_s}")
        if self.memory_mb <= 0 or self.output_mb <= 0:
            raise ValueError("memory_mb and output_mb must be positive")

    def time_for(self, tests: Tests) -> float:
        return float(self.time_s or tests.time_limit_s or DEFAULT_TIME_S)

    def memory_for(self, tests: Tests) -> int:
        return max(int(self.memory_mb), int(tests.memory_limit_mb or 0))


@dataclass(frozen=True)
class Options:
    """How programs are judged: one object for :func:`evaluator.api.evaluate`, ``evaluate_many``
    and a backend's ``values_many`` (:mod:`evaluator.backend`); the functions also take its fields
    as keywords, which override it.

    ``stop_on_first_failure``: a program's remaining tests are skipped after its first failure;
    ``mode``, ``rel_tol``, ``abs_tol``: how outputs compare (:mod:`evaluator.compare`);
    ``keep_output``: each case keeps what the program printed or returned; ``lift_asserts``,
    ``batch_calls``, ``prefetch_calls``, ``batch_stdin``: the faster ways to run ``assert``, ``call``
    and ``stdin`` tests, with the same verdicts (see :func:`evaluator.api.evaluate`);
    ``smallest_first``: a ``stdin`` test that stops at its first failure runs its smallest case
    first, then the others as given (the same pass or fail; the failure reported is the first found);
    ``share_cases``: in ``evaluate_many``, an idle worker takes over the cases a ``stdin`` test has
    not started on another (:mod:`evaluator.tail`; the same verdicts and cases); ``workers``: this machine's pool size
    for many jobs (None: one per core; a Ray cluster's size is its actors'); ``stop_after_timeout``:
    ``values_many`` makes no more calls of a program after its first time limit."""

    stop_on_first_failure: bool = True
    mode: str = "robust"
    rel_tol: float = 1e-6
    abs_tol: float = 1e-6
    keep_output: bool = False
    lift_asserts: bool = True
    batch_calls: bool = True
    prefetch_calls: bool = True
    batch_stdin: bool = True
    smallest_first: bool = True
    share_cases: bool = True
    workers: int | None = None
    stop_after_timeout: bool = False

    @classmethod
    def of(cls, options: "Options | None" = None, **overrides: Any) -> "Options":
        """``options`` (default: the defaults) with ``overrides`` (its fields as keywords; an unknown one is a TypeError)."""
        options = options or cls()
        return dataclasses.replace(options, **overrides) if overrides else options


class Verdict(str, Enum):
    """How a test (or a program, by its first failing test) ended. A ``str``: compares and
    serialises as its value."""

    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    INTERNAL_ERROR = "internal_error"

    def __str__(self) -> str:
        return self.value


class Cause(str, Enum):
    """Why a test or a call has no answer of its own: it ran past its own limit (time, memory,
    output), or the evaluation's wall-time budget ran out before it ended. Callers that weigh
    answers (test generation's adversaries) count the first and set the second aside."""

    OWN_LIMIT = "own_limit"
    WALL_BUDGET = "wall_budget"

    def __str__(self) -> str:
        return self.value


@dataclass
class CaseResult:
    """One test's outcome. ``cpu_s``: the program's CPU time; ``output``: what it printed or
    returned (``keep_output``); ``calls``/``time_per_call_s``: an ``assert`` block's calls;
    ``lifted``/``batched``: judged through lifted asserts or a shared process of calls;
    ``prefetched``: the block's calls whose replies came unasked (:mod:`evaluator.asserts.prefetch`);
    ``cause``: a limit's verdict, the program's own limit or the evaluation's wall-time budget
    (:class:`Cause`; a budget's ``time_limit`` says nothing of the program)."""

    verdict: Verdict
    message: str = ""
    time_s: float = 0.0
    cpu_s: float | None = None
    output: str | None = None
    calls: int | None = None
    time_per_call_s: float | None = None
    lifted: bool = False
    batched: bool = False
    prefetched: int | None = None
    cause: Cause | None = None

    def __post_init__(self) -> None:
        self.verdict = Verdict(self.verdict)

    def to_dict(self) -> dict[str, Any]:
        """The fields that say something (the CLI's JSON)."""
        out: dict[str, Any] = {"verdict": self.verdict.value, "time_s": self.time_s}
        for name in ("message", "cpu_s", "output", "calls", "time_per_call_s", "lifted", "batched", "prefetched"):
            value = getattr(self, name)
            if value not in (None, "", False):
                out[name] = value
        return out


@dataclass
class Result:
    """A program's outcome over its tests: the first failing case's verdict, or accepted.
    ``key`` is the caller's, returned as given (:func:`evaluator.api.evaluate_many`)."""

    verdict: Verdict
    cases: list[CaseResult]
    num_tests: int
    time_s: float = 0.0
    isolation: str = "unknown"
    key: Any = None

    def __post_init__(self) -> None:
        self.verdict = Verdict(self.verdict)

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.ACCEPTED

    @property
    def num_passed(self) -> int:
        return sum(c.verdict is Verdict.ACCEPTED for c in self.cases)

    @classmethod
    def failed(cls, verdict: Verdict, message: str, *, key: Any = None, isolation: str = "unknown",
               cause: Cause | None = None) -> "Result":
        """A result with no test run (an input the evaluator could not take, or no time left)."""
        return cls(verdict, [CaseResult(verdict, message, cause=cause)], num_tests=0, isolation=isolation, key=key)

    def to_dict(self) -> dict[str, Any]:
        """The command line's output line (docs/evaluator.md), ``key`` as ``id``."""
        return {"id": self.key, "passed": self.passed, "verdict": self.verdict.value,
                "cases": [c.to_dict() for c in self.cases], "num_tests": self.num_tests,
                "num_passed": self.num_passed, "time_s": self.time_s, "isolation": self.isolation}


VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict)


# -- the fork server's report of one test, parsed once where it arrives (evaluator.api._run) ------


@dataclass(frozen=True)
class ProcessEnd:
    """How one sandboxed process ended: exit status or signal, whether the wall clock killed it,
    its resource use, and what it left (stdout, the tail of stderr, its message channel)."""

    exit: int | None
    signal: int | None
    timed_out: bool
    cpu_s: float
    maxrss_mb: float
    stdout: str = ""
    stdout_bytes: int = 0
    stderr_tail: str = ""
    message: str = ""
    cpu_limit: bool = False  # the fork server stopped it: a call (or the process) past its CPU limit
    fed_at: tuple[int, ...] = ()  # fed steps: how many reply bytes had left when each step was revealed
    stream_full: bool = False  # fed steps: the replies outgrew their cap

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> "ProcessEnd":
        return cls(exit=data.get("exit"), signal=data.get("signal"), timed_out=bool(data.get("timed_out")),
                   cpu_s=float(data.get("cpu_s") or 0.0), maxrss_mb=float(data.get("maxrss_mb") or 0.0),
                   stdout=data.get("stdout") or "", stdout_bytes=int(data.get("stdout_bytes") or 0),
                   stderr_tail=data.get("stderr_tail") or "", message=data.get("message") or "",
                   cpu_limit=bool(data.get("cpu_limit")), fed_at=tuple(int(n) for n in data.get("fed_at") or ()),
                   stream_full=bool(data.get("stream_full")))


@dataclass(frozen=True)
class Run:
    """One request's outcome: the candidate's and (``assert`` tests) the judge's process ends, the
    limits they ran under, or why nothing ran (``deadline``, ``worker_died``, ``internal_error``)."""

    candidate: ProcessEnd | None = None
    judge: ProcessEnd | None = None
    wall_s: float = 0.0
    output_cap: int = 0
    memory_mb: int = DEFAULT_MEMORY_MB
    cpu_cap_s: float = float("inf")  # an assert block: the block's CPU cap; else the test's limit
    deadline: bool = False
    worker_died: str | None = None
    internal_error: str | None = None

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> "Run":
        ends = {name: ProcessEnd.from_wire(raw[name]) for name in ("candidate", "judge") if raw.get(name)}
        return cls(**ends, wall_s=float(raw.get("wall_s") or 0.0), output_cap=int(raw.get("output_cap") or 0),
                   memory_mb=int(raw.get("memory_mb") or DEFAULT_MEMORY_MB),
                   cpu_cap_s=float(raw.get("cpu_cap_s", raw.get("timeout_s", float("inf")))),
                   deadline=bool(raw.get("deadline")), worker_died=raw.get("worker_died"),
                   internal_error=raw.get("internal_error"))
