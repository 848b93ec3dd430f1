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

from pipeline.schema import Tests

_TOKEN = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\w+", re.IGNORECASE)


def tokens(text: str) -> list[str]:
    """Words and numbers, lower-cased; ``true``/``false``/``none``/``null`` as one spelling."""
    out = [t.lower() for t in _TOKEN.findall(text)]
    return ["true" if t == "true" else "false" if t == "false" else "null" if t in ("none", "null") else t for t in out]


def _value_tokens(json_text: str) -> list[str]:
    try:
        value = json.loads(json_text)
    except ValueError:
        return tokens(json_text)
    return tokens(json.dumps(value, ensure_ascii=False).replace('\\"', " ").replace("\\n", " "))


def _contains(haystack: list[str], needle: list[str]) -> bool:
    if not needle or len(needle) > len(haystack):
        return False
    first, size = needle[0], len(needle)
    return any(haystack[i] == first and haystack[i:i + size] == needle
               for i in range(len(haystack) - size + 1))


def shown(statement_tokens: list[str], inputs: list[list[str]], output_tokens: list[str]) -> bool:
    """The statement prints these inputs and this output (each a contiguous run of tokens)."""
    return any(inputs) and all(_contains(statement_tokens, part) for part in inputs if part) and (
        not output_tokens or _contains(statement_tokens, output_tokens))


def _arg_tokens(json_text: str) -> list[list[str]]:
    try:
        args = json.loads(json_text)
    except ValueError:
        return [tokens(json_text)]
    return [_value_tokens(json.dumps(a)) for a in (args if isinstance(args, list) else [args])]


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
        calls = [n for n in ast.walk(node.test) if isinstance(n, ast.Call) and n.args or isinstance(n, ast.Call) and n.keywords]
        if not calls:
            continue
        call = calls[0]
        args = [[t for t in tokens(ast.unparse(a)) if t not in _WRAPPERS] for a in [*call.args, *(k.value for k in call.keywords)]]
        rest = ast.unparse(node.test).replace(ast.unparse(call), " ", 1)
        out.append((args, [t for t in tokens(rest) if t not in _ASSERT_WORDS]))
    return out


# Names an assert wraps values in, which a statement does not print.
_WRAPPERS = {"list_node", "tree_node", "is_same_list", "is_same_tree"}
_ASSERT_WORDS = {"not", "and", "or", "is", "in", "abs", "math", "isclose", "candidate", "round", "sorted",
                 "set", "list", "tuple", "len", "rel_tol", "abs_tol"} | _WRAPPERS


def mark_public(statement: str | None, tests: Tests) -> Tests:
    """``tests`` with each case's ``public`` set (``public_asserts`` for an assert block)."""
    words = tokens(statement or "")
    if not words:
        return tests
    if tests.kind == "assert":
        tests.public_asserts = sum(shown(words, args, rest) for args, rest in assert_examples(tests.assert_code or ""))
        return tests
    for case in tests.cases:
        if tests.kind == "call":
            case.public = shown(words, _arg_tokens(case.input), _value_tokens(case.output))
        else:
            case.public = shown(words, [tokens(case.input)], tokens(case.output))
    return tests


def statement_text(row: dict[str, Any]) -> str:
    """Everything a policy may have read about the problem (see the module's docstring)."""
    parts = [row.get("statement") or "", row.get("original_statement") or ""]
    try:
        metadata = json.loads(row.get("metadata") or "{}")
    except (TypeError, ValueError):
        metadata = {}
    if isinstance(metadata, dict) and metadata.get("source_statement"):
        parts.append(str(metadata["source_statement"]))
    return "\n".join(parts)


def only_public(rows: list[dict[str, Any]]) -> int:
    """How many rows have no test beyond the examples their statement prints (Verify must add some)."""
    return sum(1 for row in rows if isinstance(row.get("tests"), Tests) and row["tests"].count
               and row["tests"].hidden_count == 0)
