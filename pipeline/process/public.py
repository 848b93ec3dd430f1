"""Which tests a statement prints: the examples a program could memorise.

A case is public when its input's tokens and its output's tokens appear, in order and
contiguous, among the statement's tokens: a ``stdin`` input as one run (a sample block matches
whatever its line breaks), a call's arguments each as its own run (a statement writes
``nums = [8,7,3], k = 2`` for the call input ``[[8, 7, 3], 2]``). Tokens are the words and
numbers of the text. A test with no tokens (an empty input) is never public: nothing says the
statement shows it.

"The statement" is the text a policy may have seen: the cleaned statement, the original before
translation, and the source's full statement where the row's leaves parts out (LeetCodeDataset's
query drops the examples and constraints LeetCode prints; the adapter keeps the full text in the
row's metadata as ``source_statement``).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from pipeline.schema import Tests, row_metadata

_TOKEN = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\w+", re.IGNORECASE)
_SYMBOLS = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\w+|\"\"|''|[^\w\s'\"]", re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", re.IGNORECASE)


def _spelling(token: str) -> str:
    """One spelling per value: ``2.00000`` and ``2.0`` as ``2``; ``None`` and ``null`` alike."""
    if _NUMBER.fullmatch(token) and ("." in token or "e" in token.lower()):
        try:
            value = float(token)
        except (ValueError, OverflowError):
            return token
        return str(int(value)) if value.is_integer() and abs(value) < 1e18 else repr(value)
    return "null" if token in ("none", "null") else token


def tokens(text: str, symbols: bool = False) -> list[str]:
    """Words and numbers, lower-cased, one spelling per value; with ``symbols``, punctuation
    too (not quotes), for a value that is nothing but punctuation (``"()[]"``)."""
    return [_spelling(t.lower()) for t in (_SYMBOLS if symbols else _TOKEN).findall(text)]


def _contains(haystack: list[str], needle: list[str]) -> bool:
    if not needle or len(needle) > len(haystack):
        return False
    first, size = needle[0], len(needle)
    return any(haystack[i] == first and haystack[i:i + size] == needle
               for i in range(len(haystack) - size + 1))


def shown(statement_tokens: list[str], inputs: list[list[str]], output_tokens: list[str],
          statement_symbols: list[str] | None = None) -> bool:
    """The statement prints these inputs and this output (each a contiguous run of tokens). A
    part given as ``("symbols", tokens)`` is matched against the statement's ``statement_symbols``."""
    def found(part) -> bool:
        if isinstance(part, tuple):
            return statement_symbols is not None and _contains(statement_symbols, part[1])
        return _contains(statement_tokens, part)

    return any(inputs) and all(found(part) for part in inputs if part) and (
        not output_tokens or found(output_tokens))


def _part(text: str) -> list[str] | tuple[str, list[str]]:
    """A value's tokens, or its punctuation when it has no word or number (``("symbols", ...)``)."""
    words = tokens(text)
    return words if words else ("symbols", tokens(text, symbols=True))


def _arg_tokens(json_text: str) -> list:
    try:
        args = json.loads(json_text)
    except ValueError:
        return [tokens(json_text)]
    return [_part(json.dumps(a, ensure_ascii=False)) for a in (args if isinstance(args, list) else [args])]


def assert_examples(assert_code: str) -> list[tuple[list[list[str]], list[str]]]:
    """Each top-level or ``check``-body assert as (tokens of its call's arguments, tokens of the
    rest of the assert): what a statement's example of that assert would print."""
    try:
        tree = ast.parse(assert_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        calls = [n for n in ast.walk(node.test) if isinstance(n, ast.Call) and (n.args or n.keywords)
                 and _called(n) not in _WRAPPERS]  # the program's call, not is_same_list(...) around it
        if not calls:
            continue
        call = calls[0]
        args = [[t for t in tokens(ast.unparse(a)) if t not in _WRAPPERS] for a in [*call.args, *(k.value for k in call.keywords)]]
        rest = ast.unparse(node.test).replace(ast.unparse(call), " ", 1)
        out.append((args, [t for t in tokens(rest) if t not in _ASSERT_WORDS]))
    return out


def _called(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


# Names an assert wraps values in, which a statement does not print.
_WRAPPERS = {"list_node", "tree_node", "is_same_list", "is_same_tree"}
_ASSERT_WORDS = {"not", "and", "or", "is", "in", "abs", "math", "isclose", "candidate", "round", "sorted",
                 "set", "list", "tuple", "len", "rel_tol", "abs_tol"} | _WRAPPERS


def mark_public(statement: str | None, tests: Tests) -> Tests:
    """``tests`` with each case's ``public`` set (``public_asserts`` for an assert block)."""
    words = tokens(statement or "")
    if not words:
        return tests
    symbols = tokens(statement or "", symbols=True)
    if tests.kind == "assert":
        tests.public_asserts = sum(shown(words, args, rest) for args, rest in assert_examples(tests.assert_code or ""))
        return tests
    for case in tests.cases:
        if tests.kind == "call":
            case.public = shown(words, _arg_tokens(case.input), _part(case.output), symbols)
        else:
            case.public = shown(words, [tokens(case.input)], tokens(case.output))
    return tests


def statement_text(row: dict[str, Any]) -> str:
    """Everything a policy may have read about the problem (see the module's docstring)."""
    parts = [row.get("statement") or "", row.get("original_statement") or ""]
    source_statement = row_metadata(row).get("source_statement")
    if source_statement:
        parts.append(str(source_statement))
    return "\n".join(parts)


def only_public(rows: list[dict[str, Any]]) -> int:
    """How many rows have no test beyond the examples their statement prints (Verify must add some)."""
    return sum(1 for row in rows if isinstance(row.get("tests"), Tests) and row["tests"].count
               and row["tests"].hidden_count == 0)
