"""One profile of a problem's example calls, inferred once and read alike by what makes new
inputs and by what filters them.

Why: generation makes inputs (:mod:`.inputs`), the validator refuses those the problem rules
out (:class:`~pipeline.verify.testgen.call.validate.CallValidator`), and the oracle's answer checks
drop answers a lone reference should not be trusted on (:mod:`postconditions`). Each used to read
the statement and the examples on its own; now each reads this profile:

- the statement's bounds (:func:`constraints.parse_constraints`), parsed once: the generators keep
  to them, the validator refuses what breaks them;
- the envelope every example keeps (:class:`envelope.Envelope`), where the statement states no
  bound: the validator's rule (the generators keep to the examples' shapes, :mod:`.shapes`);
- the relations every example's answer keeps (:func:`postconditions.infer`), whether answers
  are single values (then the same with a dict argument's keys reordered), and the one kind every
  answer has.

Values are typed by one table, :func:`type_of`, which the shapes, the envelope and the answer
checks share. A ``stdin`` problem's profile is its inferred grammar (:mod:`pipeline.verify.testgen.stdin.inputs`), read the
same way by the grammar's generator and by :class:`~pipeline.verify.testgen.stdin.validate.StdinValidator`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pipeline.verify.testgen.call import postconditions
from pipeline.verify.testgen.call.envelope import Envelope
from pipeline.verify.testgen.call.shapes import Shape, type_of
from pipeline.verify.testgen.call.shapes import infer as infer_shape
from pipeline.verify.testgen.constraints.bounds import Bound, parse_constraints

__all__ = ["CallProfile", "calls", "type_of"]


def calls(examples: Any) -> list[tuple[tuple, dict]]:
    """The example calls that read as ``(positional args, keyword args)``; the rest are skipped."""
    out = []
    for ex in examples if isinstance(examples, (list, tuple)) else []:
        try:
            args, kwargs = ex
            args = tuple(args) if isinstance(args, (list, tuple)) else (args,)
            kwargs = dict(kwargs or {})
        except (TypeError, ValueError):
            continue
        out.append((args, kwargs))
    return out


@dataclass(frozen=True)
class CallProfile:
    """What a problem's example calls (and the statement) say a new call and its answer must keep."""

    examples: list[tuple[tuple, dict]]  # the examples' arguments
    params: list[str]  # the entry point's parameter names, in order
    statement: str
    bounds: list[Bound]  # every bound the statement states
    envelope: Envelope | None  # what every example shares, where the statement states no bound
    answer_relations: dict[str, postconditions.Relation]
    order_free: bool  # single-value answers: the same with a dict argument's keys reordered
    answer_type: str | None  # every example's answer is of this type (a number, a string, ...)
    templates: list[tuple[tuple, dict]] = dataclasses.field(default_factory=list)  # the examples of the usual call form
    keys: list[int | str] = dataclasses.field(default_factory=list)  # its arguments: positions, then keywords
    shapes: list[Shape] | None = None  # per key: type, ranges, lengths, order (None: they did not read)

    @classmethod
    def infer(cls, answered: list[tuple[tuple, dict, Any]], statement: str = "",
              params: list[str] | None = None) -> CallProfile:
        """The profile of the examples ``(args, kwargs, answer)`` (an answer that does not read: None)."""
        profile = cls.of_inputs([(a, k) for a, k, _ in answered], statement, params)
        return dataclasses.replace(profile, answer_relations=postconditions.infer(answered),
                                   order_free=postconditions.single_values(answered),
                                   answer_type=postconditions.answer_type(answered))

    @classmethod
    def of_inputs(cls, examples: list[tuple[tuple, dict]], statement: str = "",
                  params: list[str] | None = None) -> CallProfile:
        """The profile of example inputs whose answers are not known: nothing is said of answers."""
        examples = calls(examples)
        statement = statement if isinstance(statement, str) else ""
        bounds = parse_constraints(statement) if statement else []
        templates, keys = _call_form(examples)
        return cls(examples=examples, params=list(params or []), statement=statement, bounds=bounds,
                   envelope=None if bounds else Envelope(examples), answer_relations={}, order_free=False,
                   answer_type=None, templates=templates, keys=keys, shapes=_shapes(templates, keys, statement))


def argument(example: tuple[tuple, dict], key: int | str) -> Any:
    """A call's argument by position (int) or keyword (str)."""
    return example[0][key] if isinstance(key, int) else example[1][key]


def _call_form(examples: list[tuple[tuple, dict]]) -> tuple[list[tuple[tuple, dict]], list[int | str]]:
    """The examples of the most common call form (positional count, keyword names; ties to fewer
    positions), and its argument keys; none without examples."""
    form = Counter((len(a), tuple(sorted(k))) for a, k in examples)
    if not form:
        return [], []
    (n_pos, kw_keys), _ = max(form.items(), key=lambda item: (item[1], -item[0][0]))
    templates = [(a, k) for a, k in examples if len(a) == n_pos and tuple(sorted(k)) == kw_keys]
    return templates, [*range(n_pos), *templates[0][1]]


def _shapes(templates: list[tuple[tuple, dict]], keys: list[int | str], statement: str) -> list[Shape] | None:
    """Each argument's shape from the values the examples give it (the statement's words back order
    properties of short lists); None where odd values do not read."""
    try:
        return [infer_shape([argument(t, key) for t in templates], hints=statement.lower()) for key in keys]
    except Exception:  # noqa: BLE001 - contract: odd example values cost the generated inputs, never the run
        return None
