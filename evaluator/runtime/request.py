"""The fork server's request: what a case runs and under which limits, as one typed record from
the stage (:mod:`evaluator.api`, :mod:`evaluator.values`) through the pool's socket to the child.

Why a record, not a dict: the request crosses a process boundary, and a misspelt key read with
``.get`` is silently a default. Here every field has one name and a type, the wire form is read
back into the same class, and an unknown field is refused (the worker answers ``bad request``).

One name for a time limit from the stage to the child: ``time_s`` is each case's (each call's)
CPU limit, as ``Limits.time_s`` is the stage's; ``block_s`` is the cap on a block's processes
where calls share them (an assert block, fed steps: :mod:`evaluator.sandbox.limits`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Literal

Child = Literal["stdin", "checker", "assert", "calls"]
CHILDREN: tuple[str, ...] = ("stdin", "checker", "assert", "calls")


@dataclass
class Request:
    """One fork-server request. ``child``: which child layout runs it (a program on stdin, a
    checker on its files, an assert block's judge and candidate, the candidate fed its steps)."""

    child: Child
    time_s: float  # each case's (each call's) CPU limit
    memory_mb: int
    output_mb: int
    prelude: str | None = None  # run before the program (the test's imports)
    fn_name: str | None = None  # the entry point an assert block calls
    block_s: float | None = None  # ``assert``/``calls``: the block's processes' cap
    nproc: int | None = None
    charge_top: bool = False  # ``calls``: each step carries the program's top level
    cases: bool = False  # ``calls``: a call test's cases (names are not the test's business)
    independent: bool = False  # ``calls``: a raise fails its step alone
    argv: list[str] = dataclasses.field(default_factory=list)  # ``checker``: its arguments
    sizes: list[int] | None = None  # ``stdin`` as a batch: each case's input length

    @property
    def wall_s(self) -> float:
        """The limit the wait for this request's processes is sized by (the block's, else a case's)."""
        return float(self.block_s or self.time_s)

    def wire(self, fds: list[str]) -> bytes:
        """The message: this request and the names of the descriptors sent with it."""
        return json.dumps({**dataclasses.asdict(self), "fds": fds}).encode()

    @classmethod
    def read(cls, data: bytes) -> tuple[Request, list[str]]:
        """A message back into a request and its descriptors' names; ValueError where it is not one."""
        raw = json.loads(data)
        if not isinstance(raw, dict):
            raise ValueError("a request is a JSON object")
        names = raw.pop("fds", [])
        unknown = set(raw) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(f"unknown request fields: {sorted(unknown)}")
        try:
            req = cls(**raw)
        except TypeError as exc:
            raise ValueError(str(exc)) from None
        if req.child not in CHILDREN:
            raise ValueError(f"no child layout {req.child!r}")
        return req, list(names)
