"""A validator's rules, tested before they are trusted (issue 48 point 1, after AutoCode).

Why: a rule read from the statement earns trust twice. It must accept every example (each kind's
validator drops a reading an example breaks), and it must refuse the just-illegal inputs it
exists for: an example with one value a step past its stated bound, a string one character past
its stated length or with a character outside its stated alphabet, a line one token short of its
count, a promised tree with an edge repeated. A rule that lets one of those through is not guarding what it claims to (its reading is
attached elsewhere, or its check never reaches those values), so inputs past the examples'
envelope cannot lean on it: the kind's validator drops it for the problem, holds what it covered
to the examples' envelope, and the row counts it (``validator_rules_dropped``).

Each kind writes its own variants (it knows its inputs); this module holds the one loop and the
one result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_VARIANT_SIZE", "RuleProof", "outside_char", "prove"]

MAX_VARIANT_SIZE = 1_000_000  # a size bound past this is not tested with an input one item longer
OUTSIDE = "A a 0 # _".split()  # characters a just-illegal string tries, in turn: the first outside its alphabet

Variant = tuple[str, Any]  # (the rule it breaks, ``part:name`` as the row counts it; the illegal input)


@dataclass
class RuleProof:
    """Which of a validator's rules refused every just-illegal variant made for them (``kept``),
    and which let one through (``dropped``): each ``part:name``, as the row counts them."""

    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def outside_char(chars: str) -> str | None:
    """A character just outside an alphabet (an uppercase letter for a lowercase one, a letter
    for digits); None where every candidate is inside."""
    return next((c for c in OUTSIDE if c not in chars), None)


def prove(variants: Iterable[Variant], refuses: Callable[[Any], bool]) -> RuleProof:
    """Each rule's variants against the validator (``refuses``: whether it refuses one input): a
    rule is kept when it refuses all of them, dropped at the first it lets through."""
    outcome: dict[str, bool] = {}
    for rule, value in variants:
        if outcome.get(rule, True):
            outcome[rule] = refuses(value)
    return RuleProof(kept=sorted(r for r, ok in outcome.items() if ok),
                     dropped=sorted(r for r, ok in outcome.items() if not ok))
