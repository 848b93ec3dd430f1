"""New stdin inputs from a grammar inferred from a problem's example inputs: the entry point.

The grammar (:mod:`pipeline.verify.testgen.stdin.grammar`) is inferred from the examples and the statement
(:mod:`pipeline.verify.testgen.stdin.infer`, with :mod:`~pipeline.verify.testgen.stdin.search` and
:mod:`~pipeline.verify.testgen.stdin.statement`), and new inputs are written from it
(:mod:`pipeline.verify.testgen.stdin.generate`). The stdin kind reads both through the two functions
here, under one contract: they never raise, and say why when there are no inputs (:class:`NoStructure`'s reason when no
structure explains the examples).
"""

from __future__ import annotations

from collections.abc import Callable

from pipeline.verify.testgen.stdin.generate import generate
from pipeline.verify.testgen.stdin.grammar import Grammar
from pipeline.verify.testgen.stdin.infer import NoStructure, infer

__all__ = ["infer_grammar", "inputs_from"]
Keep = Callable[[str], bool]  # whether a made text has the grammar's structure (default: Grammar.parses)


def infer_grammar(examples: list[str], statement: str = "") -> tuple[Grammar | None, str | None]:
    """``(grammar, None)``, or ``(None, reason)`` when no structure could be inferred; never raises."""
    try:
        return infer(examples, statement), None
    except NoStructure as exc:
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001 - contract: never raises; an inference bug costs this problem its inputs
        return None, f"inference failed: {type(exc).__name__}: {exc}"[:300]


def inputs_from(g: Grammar, *, n: int, seed: int, keep: Keep | None = None) -> tuple[list[tuple[str, str]], str | None]:
    """``(inputs, None)`` from an inferred grammar, or ``([], reason)``; never raises. ``keep``:
    the check that each made text has the grammar's structure (a validator that parses it anyway
    keeps the parse: :meth:`pipeline.verify.testgen.stdin.validate.StdinValidator.parses`)."""
    try:
        made = [m for m in generate(g, n=n, seed=seed) if (keep or g.parses)(m[0])]  # never one that breaks its own grammar
    except Exception as exc:  # noqa: BLE001 - same contract for generation
        return [], f"generation failed: {type(exc).__name__}: {exc}"[:300]
    if not made:
        return [], f"no new distinct input could be generated from the grammar {g.describe()[:200]}"
    return made, None
