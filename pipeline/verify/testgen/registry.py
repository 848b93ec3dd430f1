"""Which kind a row's tests are: the registry of test kinds (:func:`~pipeline.verify.testgen.kind.register_kind`)
with the built-in ones loaded. It sits above the kinds (each imports the seam, :mod:`.kind`, and
registers itself when its module loads), so that nothing below imports back up.
"""

from __future__ import annotations

from typing import Any

from pipeline.schema import Tests
from pipeline.verify.testgen.asserts import kind as _asserts  # noqa: F401 - registers assert and linked
from pipeline.verify.testgen.call import kind as _call  # noqa: F401 - registers call
from pipeline.verify.testgen.kind import _KINDS, Plan, TestKind
from pipeline.verify.testgen.stdin import kind as _stdin  # noqa: F401 - registers stdin

__all__ = ["hardcoder", "kind_for"]


def kind_for(tests: Tests) -> TestKind:
    """The kind of a row's tests: a narrower kind that claims them (``linked`` for an ``assert``
    block of LeetCode's node asserts), else the kind named as ``tests.kind``."""
    for name, kind in _KINDS.items():
        if name != tests.kind and kind.serves == tests.kind and kind.claims(tests):
            return kind
    if tests.kind not in _KINDS:
        raise ValueError(f"no test kind is registered for {tests.kind!r}; registered: {sorted(_KINDS)}")
    return _KINDS[tests.kind]


def hardcoder(row: dict[str, Any], plan: Plan | None = None, kind: TestKind | None = None) -> str | None:
    """The program that memorises the examples the row's statement prints (None: none to write),
    which a problem's tests must reject: generation's adversary, and Verify's strength check.
    ``plan``, ``kind``: what generation already read from the tests."""
    try:
        return (kind or kind_for(row["tests"])).hardcoder(row, plan)
    except Exception:  # noqa: BLE001 - no hardcoder for this problem: measured without it
        return None
