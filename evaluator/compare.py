"""Output comparison for MicroCoder-Evaluator: robust, never lenient.

Two modes. ``robust`` (default) tries ordered strategies, first match wins:

1. ``exact``       -- identical text.
2. ``whitespace``  -- CRLF/CR -> LF, trailing spaces of each line and trailing blank lines ignored.
3. ``tokens``      -- lines with content split into whitespace tokens; same lines, same tokens.
4. ``float``       -- as ``tokens``, but a differing token pair may match numerically when both are
                      numbers and at least one has a decimal point or exponent. A non-integer
                      expected matches within the abs or rel tolerance. An integer expected never
                      gets a tolerance: an integer answer must be the same text (or both a signed
                      zero), a decimal one exactly its value ("1.0" for "1"), so 10**18 and
                      10**18+1 differ, "1e+18" is not "1000000000000000001", "007" is not "7".
5. ``structured``  -- Python/JSON literals (``[1, 2]`` vs ``(1,2)``, ``{'a': 1}`` vs ``{"a":1}``),
                      compared as values (see :func:`values_equal`), whole text or line by line.
6. ``token_stream`` -- the same token sequence (float rule included) with different line breaks,
                      e.g. answers space- instead of newline-separated: what testlib's default
                      checkers (wcmp, ncmp, rcmp) accept. No token may be missing, extra or moved.

No strategy accepts a different answer: tokens compare case-sensitively ("Yes" is not "YES": the
judge's statement is not visible here, so an answer "in any case" needs a checker), ``nan``/``inf``
are words that must match exactly, ``True`` is never ``1``, a missing, extra or reordered token
or line fails. Blank lines carry no tokens and are ignored from ``tokens`` on.

``strict`` reproduces LiveCodeBench's ``testing_util`` rules: stdout is stripped, split on LF, each
line stripped, same line count, each line equal as text or as a list of ``Decimal`` tokens; call
results compare with Python ``==`` after tuple -> list. One adaptation: expected call values that
are Python literals rather than JSON (LeetCodeDataset writes ``True``) are parsed as literals too.

Call results cross the process boundary as JSON text made by :func:`encode_value` in the child;
the parent decodes plain data, so no returned object can fake equality. This module is standard
library only and safe to import in the sandboxed child.
"""
from __future__ import annotations

import ast
import json
import math
import re
from collections import deque
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext
from fractions import Fraction
from typing import Any

__all__ = ["compare_stdout", "compare_values", "agree", "either_accepts", "match_strategy", "encode_value",
           "decode_value", "parse_expected", "values_equal"]

_NUM = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOATISH = frozenset(".eE")
_ZERO = re.compile(r"[+-]?0\Z")
_OPENERS = ("[", "(", "{", "'", '"')
_TAGS = ("__set__", "__dict__", "__bytes__", "__complex__", "__int__")
_LITERAL_MAX_CHARS = 1 << 20
_BIG_INT_BITS = 12000  # about 3600 digits: below CPython's 4300-digit int<->str limit


# ----------------------------------------------------------------------------- serialization
def _to_plain(obj: Any, active: set[int]) -> Any:
    """Convert a returned value to JSON-compatible plain data, tagging what JSON cannot hold."""
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, int):
        value = int.__int__(obj)
        return {"__int__": hex(value)} if value.bit_length() > _BIG_INT_BITS else value
    if isinstance(obj, float):
        return float.__float__(obj)  # nan/inf become NaN/Infinity in JSON text
    if isinstance(obj, str):
        return str.__str__(obj)
    if isinstance(obj, (bytes, bytearray)):
        return {"__bytes__": bytes(obj).hex()}
    if isinstance(obj, complex):
        return {"__complex__": [obj.real, obj.imag]}
    if type(obj).__module__ == "numpy" and hasattr(obj, "tolist"):
        return _to_plain(obj.tolist(), active)  # numpy scalars/arrays, without importing numpy
    if not isinstance(obj, (list, tuple, deque, set, frozenset, dict)):
        raise TypeError(f"return value of type {type(obj).__name__} is not plain data")
    if id(obj) in active:
        raise TypeError("return value contains a reference cycle")
    active.add(id(obj))
    try:
        if isinstance(obj, dict):
            pairs = [(_to_plain(k, active), _to_plain(v, active)) for k, v in obj.items()]
            if all(isinstance(k, str) for k, _ in pairs) and not (
                    len(pairs) == 1 and pairs[0][0] in _TAGS):
                return dict(pairs)
            return {"__dict__": [[k, v] for k, v in pairs]}
        items = [_to_plain(x, active) for x in obj]
        if isinstance(obj, (set, frozenset)):
            try:
                return sorted(items)
            except TypeError:
                return {"__set__": sorted(items, key=lambda x: json.dumps(x, sort_keys=True))}
        return items
    finally:
        active.discard(id(obj))


def encode_value(obj: Any) -> str:
    """Serialize a call result in the child: JSON text; tuples/deques -> lists; sets -> sorted
    lists (tagged when unsortable); non-string dict keys, bytes, complex, huge ints -> tagged.
    Raises TypeError for anything that is not plain data (objects, functions, cycles)."""
    return json.dumps(_to_plain(obj, set()), separators=(",", ":"))


def _freeze(x: Any) -> Any:
    """Hashable form of decoded data: lists -> tuples, dicts -> sorted item tuples."""
    if isinstance(x, list):
        return tuple(_freeze(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted(((_freeze(k), _freeze(v)) for k, v in x.items()), key=repr))
    return x


def _from_plain(x: Any) -> Any:
    if isinstance(x, list):
        return [_from_plain(v) for v in x]
    if not isinstance(x, dict):
        return x
    if len(x) == 1:
        (tag, body), = x.items()
        if tag == "__int__":
            return int(body, 16)
        if tag == "__bytes__":
            return bytes.fromhex(body)
        if tag == "__complex__":
            return complex(body[0], body[1])
        if tag == "__set__":
            return frozenset(_freeze(_from_plain(v)) for v in body)
        if tag == "__dict__":
            return {_freeze(_from_plain(k)): _from_plain(v) for k, v in body}
    return {k: _from_plain(v) for k, v in x.items()}


def decode_value(text: str) -> Any:
    """Inverse of :func:`encode_value` (sets come back as sorted lists or frozensets)."""
    return _from_plain(json.loads(text))


def _parse_int(token: str) -> int:
    """JSON integers of any length (past CPython's 4300-digit str->int limit, as judges allow)."""
    return int(token) if len(token) < 4000 else int(Decimal(token))


def parse_expected(text: str) -> Any:
    """Parse an expected value: JSON first, else a Python literal (``True``, ``(1, 2)``, ``None``).
    Raises ValueError when it is neither."""
    try:
        return json.loads(text, parse_int=_parse_int)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(text.strip())
    except Exception as exc:  # noqa: BLE001 - SyntaxError, ValueError, MemoryError, RecursionError
        raise ValueError(f"expected value is neither JSON nor a Python literal: {exc}") from None


# ----------------------------------------------------------------------------- numbers
def _close(e: int | float, a: int | float, rel_tol: float, abs_tol: float) -> bool:
    """Tolerant numeric equality; exact (Fraction) when a value does not fit a finite float."""
    try:
        fe, fa = float(e), float(a)
        if math.isfinite(fe) and math.isfinite(fa):
            return math.isclose(fe, fa, rel_tol=rel_tol, abs_tol=abs_tol)
    except OverflowError:
        pass
    if isinstance(e, float) and not math.isfinite(e) or isinstance(a, float) and not math.isfinite(a):
        return e == a or (e != e and a != a)  # inf only equals inf of the same sign; nan == nan
    de, da = Fraction(e), Fraction(a)
    diff = abs(de - da)
    return diff <= Fraction(abs_tol) or diff <= Fraction(rel_tol) * max(abs(de), abs(da))


def _exact_decimal(token: str) -> Decimal | None:
    try:
        value = Decimal(token)
    except ArithmeticError:
        return None
    return value if value.is_finite() else None


def _token_close(e: str, a: str, rel_tol: float, abs_tol: float) -> bool:
    """Differing tokens match only as numbers. An integer expected gets no tolerance: the answer
    must spell exactly that integer (``1.0`` or ``1e2`` may; ``1e+18`` for ``10**18 + 1`` may
    not), so computing in floats never wins an exact answer. Other numbers match tolerantly."""
    if not (_NUM.match(e) and _NUM.match(a)):
        return False
    if not _FLOATISH.intersection(e):  # an integer expected
        if not _FLOATISH.intersection(a):
            return bool(_ZERO.match(e) and _ZERO.match(a))
        de, da = _exact_decimal(e), _exact_decimal(a)
        return de is not None and da is not None and de == da  # Decimal comparison is exact
    try:
        fe, fa = float(e), float(a)
        if math.isfinite(fe) and math.isfinite(fa):
            return math.isclose(fe, fa, rel_tol=rel_tol, abs_tol=abs_tol)
        with localcontext() as ctx:  # beyond float range ('1e400'): compare exactly in Decimal
            ctx.prec, ctx.Emax, ctx.Emin = 60, MAX_EMAX, MIN_EMIN
            de, da = Decimal(e), Decimal(a)
            diff = abs(de - da)
            return diff <= Decimal(abs_tol) or diff <= Decimal(rel_tol) * max(abs(de), abs(da))
    except ArithmeticError:
        return False


def _numbers_equal(expected: Any, actual: Any, rel_tol: float, abs_tol: float) -> bool:
    """A number against a number or the numeric text it spells (either side may be text).

    Exact for an integer expected (an int, or text spelling one): an int answer equal to it, or
    a float or decimal text of exactly its value; never within a tolerance. Tolerance is for
    expected values that are not integers (or for an explicit ``doubles`` checker)."""
    e_text, a_text = isinstance(expected, str), isinstance(actual, str)
    if e_text or a_text:
        token = (expected if e_text else actual).strip()
        if not _NUM.match(token):
            return False
        number = actual if e_text else expected
        if isinstance(number, int) and _INT.match(token):  # as text, like stdout tokens
            if number.bit_length() > _BIG_INT_BITS:
                return False
            return token == str(number) or (number == 0 and bool(_ZERO.match(token)))
        if (not e_text and isinstance(number, int)) or (e_text and _INT.match(token)):  # integer expected
            value = _exact_decimal(token)
            if value is None or (isinstance(number, float) and not math.isfinite(number)):
                return False
            return value == (Decimal(number) if isinstance(number, float) else number)
        parsed = float(token) if math.isfinite(float(token)) else Fraction(Decimal(token))
        expected, actual = (parsed, number) if e_text else (number, parsed)
    if not isinstance(actual, (int, float, Fraction)):
        return False
    if isinstance(expected, int):
        return expected == actual  # int == float is exact in Python: 10**18 + 1 != 1e18
    return _close(expected, actual, rel_tol, abs_tol)


# ----------------------------------------------------------------------------- values
def values_equal(expected: Any, actual: Any, rel_tol: float = 1e-6, abs_tol: float = 1e-6) -> bool:
    """Robust value equality: list == tuple, nested; non-integer numbers within tolerance; an
    integer expected exactly (no tolerance: ``1e18`` is not ``10**18 + 1``); a numeric string
    equals the number it spells; bools only equal bools; order is ignored only
    when ``expected`` is a set; dict keys exact (or JSON-stringified int keys)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) or (isinstance(expected, str) and isinstance(actual, (int, float))):
        return _numbers_equal(expected, actual, rel_tol, abs_tol)
    if isinstance(expected, complex):
        return (isinstance(actual, (int, float, complex))
                and _close(expected.real, complex(actual).real, rel_tol, abs_tol)
                and _close(expected.imag, complex(actual).imag, rel_tol, abs_tol))
    if isinstance(expected, (set, frozenset)):
        return _sets_equal(expected, actual, rel_tol, abs_tol)
    if isinstance(expected, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(expected)
                and all(values_equal(e, a, rel_tol, abs_tol) for e, a in zip(expected, actual)))
    if isinstance(expected, dict):
        return _dicts_equal(expected, actual, rel_tol, abs_tol)
    if expected is None or isinstance(expected, (str, bytes)):
        return type(expected) is type(actual) and expected == actual
    return False


def _sets_equal(expected: set | frozenset, actual: Any, rel_tol: float, abs_tol: float) -> bool:
    """An expected set: any order of the same items (a list or tuple will do), floats within tolerance."""
    if not isinstance(actual, (set, frozenset, list, tuple)) or len(actual) != len(expected):
        return False
    try:
        if {_set_key(x) for x in expected} == {_set_key(x) for x in actual}:
            return True
    except TypeError:
        pass
    remaining = list(actual)  # tolerant matching (floats inside sets), bounded cost
    if len(remaining) > 2000:
        return False
    for item in expected:
        hit = next((i for i, x in enumerate(remaining)
                    if values_equal(item, x, rel_tol, abs_tol)), None)
        if hit is None:
            return False
        remaining.pop(hit)
    return True


def _dicts_equal(expected: dict, actual: Any, rel_tol: float, abs_tol: float) -> bool:
    """The same keys (int keys may come back as JSON's strings) and equal values."""
    if not isinstance(actual, dict) or len(actual) != len(expected):
        return False
    if set(actual) != set(expected) and all(isinstance(k, str) for k in expected):
        actual = {str(k) if type(k) is int else k: v for k, v in actual.items()}
    same_keys = {_set_key(k) for k in actual} == {_set_key(k) for k in expected}
    return same_keys and all(values_equal(v, actual[k], rel_tol, abs_tol) for k, v in expected.items())


def _set_key(x: Any) -> Any:
    """Exact hashable key for the set fast path; keeps True apart from 1 (bools are tagged)."""
    if isinstance(x, bool):
        return ("<bool>", x)
    if isinstance(x, (list, tuple)):
        return ("<seq>", tuple(_set_key(v) for v in x))
    if isinstance(x, dict):
        return ("<dict>", frozenset((_set_key(k), _set_key(v)) for k, v in x.items()))
    return x


def compare_values(expected_json: str, actual_json: str, *, mode: str = "robust",
                   rel_tol: float = 1e-6, abs_tol: float = 1e-6) -> bool:
    """Compare a call result (``encode_value`` text) with the expected value (JSON or literal)."""
    try:
        expected = parse_expected(expected_json)
        actual = decode_value(actual_json)
    except (ValueError, TypeError, RecursionError):
        return False
    if mode == "strict":
        try:
            return bool(actual == expected)
        except Exception:  # noqa: BLE001 - a value whose == raises is not equal
            return False
    if mode != "robust":
        raise ValueError(f"unknown comparison mode {mode!r}")
    try:
        return values_equal(expected, actual, rel_tol, abs_tol)
    except RecursionError:
        return False


# ----------------------------------------------------------------------------- stdout
def _norm_lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _literal(text: str) -> tuple[bool, Any]:
    """Parse printed text as a literal; Python-literal parsing is capped (its AST is memory-hungry)."""
    if not text.startswith(_OPENERS):
        return False, None
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        pass
    if len(text) > _LITERAL_MAX_CHARS:
        return False, None
    try:
        return True, ast.literal_eval(text)
    except Exception:  # noqa: BLE001 - SyntaxError, ValueError, MemoryError, RecursionError
        return False, None


def _line_close(el: list[str], al: list[str], rel: float, abs_: float) -> bool:
    if el == al:
        return True
    if len(el) != len(al):
        return False
    for e, a in zip(el, al):
        if e != a and not _token_close(e, a, rel, abs_):
            return False
    return True


def _first_mismatch(e_tok: list[list[str]], a_tok: list[list[str]], rel: float,
                    abs_: float) -> int:
    """Index of the first line pair that differs beyond the float rule; -1 when none does."""
    for i, (el, al) in enumerate(zip(e_tok, a_tok)):
        if not _line_close(el, al, rel, abs_):
            return i
    return -1


def _structured(expected: str, actual: str, e_lines: list[str], a_lines: list[str],
                e_tok: list[list[str]], a_tok: list[list[str]], start: int,
                rel: float, abs_: float) -> bool:
    """Whole text as one literal, else line by line from ``start`` (earlier lines matched by
    tokens): each line matches by tokens or as equal literals, at least one as a literal."""
    ok_e, ve = _literal(expected.strip())
    ok_a, va = _literal(actual.strip())
    if ok_e and ok_a and values_equal(ve, va, rel, abs_):
        return True
    if len(e_tok) != len(a_tok) or len(e_tok) < 2 or start < 0:
        return False
    e_text = [line.strip() for line in e_lines if line.strip()]
    a_text = [line.strip() for line in a_lines if line.strip()]
    for i in range(start, len(e_tok)):
        if i > start and _line_close(e_tok[i], a_tok[i], rel, abs_):
            continue
        (ok_e, ve), (ok_a, va) = _literal(e_text[i]), _literal(a_text[i])
        if not (ok_e and ok_a and values_equal(ve, va, rel, abs_)):
            return False
    return True


def match_strategy(expected: str, actual: str, *, rel_tol: float = 1e-6,
                   abs_tol: float = 1e-6) -> str | None:
    """Name of the first robust strategy under which ``actual`` matches ``expected``, or None."""
    if expected == actual:
        return "exact"
    e_lines, a_lines = _norm_lines(expected), _norm_lines(actual)
    if e_lines == a_lines:
        return "whitespace"
    e_tok = [t for t in (line.split() for line in e_lines) if t]
    a_tok = [t for t in (line.split() for line in a_lines) if t]
    if e_tok == a_tok:
        return "tokens"
    start = _first_mismatch(e_tok, a_tok, rel_tol, abs_tol)
    if start < 0 and len(e_tok) == len(a_tok):
        return "float"
    try:
        if _structured(expected, actual, e_lines, a_lines, e_tok, a_tok, start, rel_tol, abs_tol):
            return "structured"
    except RecursionError:
        pass
    e_flat = [t for line in e_tok for t in line]
    a_flat = [t for line in a_tok for t in line]
    if _line_close(e_flat, a_flat, rel_tol, abs_tol):
        return "token_stream"
    return None


def _lcb_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _lcb_stdout(expected: str, actual: str) -> bool:
    """LiveCodeBench grade_stdio: per stripped line, text equality or equal Decimal token lists."""
    e_lines, a_lines = _lcb_lines(expected), _lcb_lines(actual)
    if len(e_lines) != len(a_lines):
        return False
    for el, al in zip(e_lines, a_lines):
        if el == al:
            continue
        try:
            if [Decimal(t) for t in al.split()] != [Decimal(t) for t in el.split()]:
                return False
        except ArithmeticError:  # not a number, or a signalling NaN in the comparison
            return False
    return True


def compare_stdout(expected: str, actual: str, *, mode: str = "robust",
                   rel_tol: float = 1e-6, abs_tol: float = 1e-6) -> bool:
    """True when program output ``actual`` is an accepted answer for ``expected``."""
    if mode == "strict":
        return _lcb_stdout(expected, actual)
    if mode != "robust":
        raise ValueError(f"unknown comparison mode {mode!r}")
    return match_strategy(expected, actual, rel_tol=rel_tol, abs_tol=abs_tol) is not None


def agree(kind: str, a: str, b: str) -> bool:
    """Two programs' outputs are the same answer: each is accepted where the other is expected,
    under the robust comparison (``kind``: ``stdin`` text or ``call`` values as JSON). The rule the
    oracle's references agree by: whichever of them is written as the expected answer, the other
    passes the test. No shortcut for equal text: an answer the comparison refuses even against
    itself (NaN where a number is expected) must not become a test no program passes."""
    compare = compare_stdout if kind == "stdin" else compare_values
    return compare(a, b) and compare(b, a)


def either_accepts(kind: str, a: str, b: str) -> bool:
    """The lenient rule: one output accepted where the other is expected, either way round. Only
    for the multiple-answers check (``pipeline.verify.references.answer_disagreement``): two
    references whose answers fail even this print different answers to the same input."""
    compare = compare_stdout if kind == "stdin" else compare_values
    return a == b or compare(a, b) or compare(b, a)
