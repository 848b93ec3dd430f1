"""What every example's answer keeps with its input: the check on a lone reference's answers.

Why: a generated input's expected answer comes from the references, and a problem with one
reference has no second opinion. References are wrong where their examples never looked (MBPP
71's comb sort stops a pass early on longer lists; HumanEval/95's answer depends only on the first
two keys) or answer inputs their statement rules out (HumanEval/59, "n is not a prime", asked
about 31). Each such answer fails every correct program. With no second reference the examples
are the other witness: as Daikon infers likely postconditions from observed runs, a relation
that every example's answer keeps with its input is asked of the reference's answer too:

- its order against each number argument ("always below n": a largest prime factor);
- sorted, where every answer is a sorted list with something to sort;
- a rearrangement of a list argument;
- the same answer with a dict argument's keys in another order, where answers are single values
  (a dict says nothing of order: an answer that changes with it is no answer to hold anyone to).

An answer that breaks one is not trusted: its input is dropped and counted (``oracle_suspects``).
A dropped input costs one test; a wrong answer kept costs every correct program.

A relation is a ``partial`` of a module function, not a closure: a planned problem crosses
processes (:func:`pipeline.verify.testgen.generate.plan_all`), and a closure does not pickle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from pipeline.verify.testgen.call.envelope import arguments
from pipeline.verify.testgen.call.shapes import number_type

MIN_EXAMPLES = 3  # relations need this many examples; fewer agree too easily by chance

Example = tuple[tuple, dict, Any]  # args, kwargs, the answer
Relation = Callable[[list[Any], Any], bool]  # (the arguments in order, the answer) -> kept?


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _order_holds(i: int, allowed: frozenset[int], values: list[Any], answer: Any) -> bool:
    return i < len(values) and _number(values[i]) and _number(answer) and _sign(answer - values[i]) in allowed


def _order(i: int, allowed: frozenset[int]) -> Relation:
    return partial(_order_holds, i, allowed)


def _sorted(items: Any, reverse: bool) -> bool:
    if not isinstance(items, (list, tuple)):
        return False
    try:
        return all((b <= a) if reverse else (a <= b) for a, b in zip(items, items[1:]))
    except TypeError:
        return False


def _sorted_holds(reverse: bool, values: list[Any], answer: Any) -> bool:
    return _sorted(answer, reverse)


def _sorted_relation(reverse: bool) -> Relation:
    return partial(_sorted_holds, reverse)


def _multiset(items: Any) -> Counter | None:
    return Counter(repr(x) for x in items) if isinstance(items, (list, tuple)) else None


def _rearranges_holds(i: int, values: list[Any], answer: Any) -> bool:
    mine = _multiset(answer)
    return i < len(values) and mine is not None and mine == _multiset(values[i])


def _rearranges(i: int) -> Relation:
    return partial(_rearranges_holds, i)


ONE_SIDED = (frozenset({-1}), frozenset({1}), frozenset({0}), frozenset({-1, 0}), frozenset({0, 1}))


def infer(examples: list[Example]) -> dict[str, Relation]:
    """The relations every example keeps, by name; none from fewer than MIN_EXAMPLES."""
    if len(examples) < MIN_EXAMPLES:
        return {}
    rows = [(arguments(a, k), answer) for a, k, answer in examples]
    width = len(rows[0][0])
    if any(len(values) != width for values, _ in rows):
        return {}
    found: dict[str, Relation] = {}
    if all(_number(answer) for _, answer in rows):
        for i in range(width):
            if all(_number(values[i]) for values, _ in rows):
                seen = frozenset(_sign(answer - values[i]) for values, answer in rows)
                if seen in ONE_SIDED:
                    found[f"order_vs_arg{i}"] = _order(i, seen)
    answers = [answer for _, answer in rows]
    if all(isinstance(a, (list, tuple)) for a in answers) and sum(len(set(map(repr, a))) >= 3 for a in answers) >= 2:
        for reverse in (False, True):
            if all(_sorted(a, reverse) for a in answers):
                found["sorted_descending" if reverse else "sorted"] = _sorted_relation(reverse)
                break
        for i in range(width):
            if all(_multiset(values[i]) is not None and _multiset(values[i]) == _multiset(answer)
                   for values, answer in rows):
                found[f"rearranges_arg{i}"] = _rearranges(i)
    return found


def _type(value: Any) -> str:
    """The answer's type (:func:`~.shapes.number_type`), where infinity and NaN are no number."""
    if isinstance(value, float) and value in (float("inf"), float("-inf")) or value != value:  # noqa: PLR0124 - NaN
        return "unbounded"
    return number_type(value)


def answer_type(examples: list[Example]) -> str | None:
    """The one type every example's answer has (a number, a string, a list, ...), where two or more
    examples agree; None otherwise. A reference answering ``None`` or infinity where every example
    answers a number met an input its problem rules out ("no champion", "fewer than 3 items")."""
    types = {_type(answer) for _, _, answer in examples}
    return types.pop() if len(examples) >= 2 and len(types) == 1 else None


def type_changed(expected: str | None, answer: Any) -> bool:
    return expected is not None and _type(answer) != expected


def broken(relations: dict[str, Relation], args: tuple, kwargs: dict, answer: Any) -> str | None:
    """The first relation the answer breaks (None: it keeps them all)."""
    values = arguments(args, kwargs)
    for name, holds in relations.items():
        try:
            if not holds(values, answer):
                return name
        except Exception:  # noqa: BLE001 - an answer the relation cannot even read breaks it
            return name
    return None


def single_values(examples: list[Example]) -> bool:
    """Whether every example answers with one value (a number, a string, a truth value, None)."""
    return bool(examples) and all(a is None or isinstance(a, (bool, int, float, str)) for _, _, a in examples)


def reordered(args: tuple, kwargs: dict) -> tuple[tuple, dict] | None:
    """The input with every dict argument's keys in reverse order; None when no argument is a
    dict whose order could matter (two keys or more)."""
    def flip(value: Any) -> Any:
        return {k: value[k] for k in reversed(list(value))} if isinstance(value, dict) and len(value) >= 2 else value

    new_args, new_kwargs = tuple(flip(v) for v in args), {k: flip(v) for k, v in kwargs.items()}
    changed = any(a is not b for a, b in zip(new_args, args)) or any(new_kwargs[k] is not kwargs[k] for k in kwargs)
    return (new_args, new_kwargs) if changed else None
