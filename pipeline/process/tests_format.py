"""Tests to canonical form: one normalizer per raw tests format, dispatched on ``tests_format``.

Adapters store tests in their source's own layout and name it; :func:`normalize_tests` turns
any of them into :class:`pipeline.schema.Tests`. Formats (name: where it comes from):

- ``canonical``: already :class:`Tests` JSON.
- ``apps_io``: ``{inputs, outputs, fn_name?}`` (TACO, APPS, CodeContests, xCodeEval, DeepCoder
  taco). With ``fn_name`` each input is a list of arguments; outputs wrapped in a one-element
  list (APPS's habit) are unwrapped when every case is so wrapped.
- ``mapcoder_apps``: MapCoder's APPS selection; call arguments were joined one per line with
  ``str()``, so they are rebuilt from the starter code's signature (one line per parameter,
  Python literals, anything else a plain string).
- ``lcb``: LiveCodeBench ``{cases: [{input, output, testtype}], fn_name}``; functional inputs are
  newline-separated JSON arguments.
- ``typed_cases``: PrimeIntellect / rllm ``[{type: stdin_stdout | function_call, input, output}]``.
- ``leetcode``: LeetCodeDataset. The ``check`` function's asserts of the form
  ``candidate(n = 7, queries = [[1,2]]) == value`` become positional call cases, in the order of
  the method's signature (``ast`` on both; values are Python/LeetCode literals, ``null``/
  ``true``/``false`` included). Problems whose asserts need more than that (ListNode/TreeNode
  helpers, ``is_same_tree``, tolerances) keep the dataset's own check as kind ``assert`` with the
  dataset prompt (imports, helper classes) as ``prelude``: that is the form the references were
  verified against, so it passes reliably. Call problems get the prompt as prelude too (imports).
- ``humaneval``: ``test + check(entry_point)``; ``mbpp``: setup code + ``test_list``;
  ``assert_code``: plain assert code; ``pytest``: pytest code run by a pytest-free shim
  (:mod:`pipeline.process.pytest_shim`); ``sandbox_stdio``: ``[{input: {stdin}, output: {stdout}}]``.

Any raw dict may carry ``time_limit_s`` / ``memory_limit_mb``; they are kept.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Callable
from typing import Any

from pipeline.process.pytest_shim import assert_code_for_pytest
from pipeline.schema import CANONICAL_FORMAT, TestCase, Tests
from pipeline.sources.common import fn_name_from_code
from pipeline.stage import Rejected

Normalizer = Callable[[Any, dict[str, Any]], Tests]
TESTS_FORMATS: dict[str, Normalizer] = {}


def register_tests_format(name: str) -> Callable[[Normalizer], Normalizer]:
    """Decorator: ``fn(raw_tests, row) -> Tests`` normalizes the format called ``name``."""

    def deco(fn: Normalizer) -> Normalizer:
        if name in TESTS_FORMATS:
            raise ValueError(f"tests format {name!r} is already registered")
        TESTS_FORMATS[name] = fn
        return fn

    return deco


def normalize_tests(row: dict[str, Any]) -> Tests:
    """Canonical tests of ``row`` (its ``tests`` in format ``row["tests_format"]``)."""
    fmt = row.get("tests_format") or CANONICAL_FORMAT
    normalizer = TESTS_FORMATS.get(fmt)
    if normalizer is None:
        raise Rejected("unknown_tests_format", fmt)
    raw = row.get("tests")
    if isinstance(raw, Tests):  # canonical already (parsed where the row was read); steps may edit the copy
        return dataclasses.replace(raw)
    if raw is None or raw == "":
        raise Rejected("no_tests")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as err:
            raise Rejected("invalid_tests_json", str(err)) from None
    try:
        tests = normalizer(raw, row)
    except Rejected:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, SyntaxError, RecursionError) as err:
        raise Rejected("unparseable_tests", f"{fmt}: {type(err).__name__}: {err}") from None
    if isinstance(raw, dict):
        if tests.time_limit_s is None and raw.get("time_limit_s"):
            tests.time_limit_s = float(raw["time_limit_s"])
        if tests.memory_limit_mb is None and raw.get("memory_limit_mb"):
            tests.memory_limit_mb = int(raw["memory_limit_mb"])
    if tests.kind == "call" and not tests.fn_name:
        raise Rejected("missing_fn_name")
    return tests


# --- helpers -------------------------------------------------------------------------------



def signature_params(code: str, fn_name: str) -> list[str]:
    """Positional parameter names of ``def fn_name(...)`` in (possibly incomplete) code, no self."""
    match = re.search(rf"^[ \t]*def[ \t]+{re.escape(fn_name)}[ \t]*\(", code or "", re.M)
    if not match:
        raise Rejected("signature_not_found", fn_name)
    start = match.end()
    depth, i = 1, start
    while i < len(code) and depth:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(code[i], 0)
        i += 1
    if depth:
        raise Rejected("signature_not_found", f"unbalanced parameters of {fn_name}")
    tree = ast.parse(f"def _f({code[start:i - 1]}): pass")
    args = tree.body[0].args  # type: ignore[attr-defined]
    names = [a.arg for a in args.posonlyargs + args.args]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


_LITERAL_NAMES = {"null": None, "None": None, "true": True, "True": True, "false": False, "False": False,
                  "inf": float("inf"), "nan": float("nan")}


def literal(node: ast.AST) -> Any:
    """A Python/LeetCode literal from an AST node (``null``/``true``/``false`` accepted)."""
    if isinstance(node, ast.Name) and node.id in _LITERAL_NAMES:
        return _LITERAL_NAMES[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [literal(e) for e in node.elts]
    if isinstance(node, ast.Set):
        return [literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {literal(k): literal(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = literal(node.operand)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1:
        return float(literal(node.args[0]))
    raise Rejected("not_a_literal", ast.dump(node)[:120])


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError) as err:
        raise Rejected("not_json_serializable", str(err)) from None


def _text(value: Any) -> str:
    """stdin/stdout text: lists of lines (TACO) joined."""
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    if value is None:
        raise Rejected("missing_case_value")
    return str(value)


def _unwrap_outputs(outputs: list[Any]) -> list[Any]:
    """APPS wraps call outputs in a one-element list; unwrap only when every case is wrapped."""
    if outputs and all(isinstance(o, list) and len(o) == 1 for o in outputs):
        return [o[0] for o in outputs]
    return outputs


def _stdin(inputs: list[Any], outputs: list[Any]) -> Tests:
    if len(inputs) != len(outputs):
        raise Rejected("mismatched_cases", f"{len(inputs)} inputs, {len(outputs)} outputs")
    return Tests(kind="stdin", cases=[TestCase(_text(i), _text(o)) for i, o in zip(inputs, outputs)])


def _call(fn_name: str | None, args: list[list[Any]], outputs: list[Any], prelude: str | None = None) -> Tests:
    if len(args) != len(outputs):
        raise Rejected("mismatched_cases", f"{len(args)} inputs, {len(outputs)} outputs")
    cases = [TestCase(_json(a if isinstance(a, list) else [a]), _json(o)) for a, o in zip(args, outputs)]
    return Tests(kind="call", fn_name=fn_name, cases=cases, prelude=prelude)


# --- formats -------------------------------------------------------------------------------


@register_tests_format(CANONICAL_FORMAT)
def _canonical(raw: Any, row: dict[str, Any]) -> Tests:
    return Tests.from_dict(raw)


@register_tests_format("apps_io")
def _apps_io(raw: Any, row: dict[str, Any]) -> Tests:
    inputs, outputs = list(raw.get("inputs") or []), list(raw.get("outputs") or [])
    fn_name = raw.get("fn_name")
    if not inputs:
        raise Rejected("no_tests")
    if fn_name:
        return _call(fn_name, inputs, _unwrap_outputs(outputs))
    return _stdin(inputs, outputs)


@register_tests_format("mapcoder_apps")
def _mapcoder_apps(raw: Any, row: dict[str, Any]) -> Tests:
    cases = list(raw.get("cases") or [])
    if not cases:
        raise Rejected("no_tests")
    fn_name = raw.get("fn_name")
    outputs = [c["output"] for c in cases]
    if not fn_name:
        return _stdin([c["input"] for c in cases], [o[0] if isinstance(o, list) and len(o) == 1 else o for o in outputs])
    params = signature_params(raw.get("starter_code") or row.get("starter_code") or "", fn_name)
    args = []
    for case in cases:
        lines = str(case["input"]).split("\n")
        if len(lines) != len(params):
            raise Rejected("ambiguous_args", f"{len(lines)} lines for {len(params)} parameters")
        args.append([_python_or_text(line) for line in lines])
    return _call(fn_name, args, _unwrap_outputs(outputs))


def _python_or_text(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


@register_tests_format("lcb")
def _lcb(raw: Any, row: dict[str, Any]) -> Tests:
    cases = [c for c in raw.get("cases") or [] if c]
    if not cases:
        raise Rejected("no_tests")
    types = {c.get("testtype") for c in cases}
    if types == {"stdin"}:
        return _stdin([c["input"] for c in cases], [c["output"] for c in cases])
    if types != {"functional"}:
        raise Rejected("mixed_test_types", str(sorted(map(str, types))))
    fn_name = raw.get("fn_name") or fn_name_from_code(row.get("starter_code") or "")
    args = [[json.loads(line) for line in c["input"].split("\n") if line.strip()] for c in cases]
    return _call(fn_name, args, [json.loads(c["output"]) for c in cases])


@register_tests_format("typed_cases")
def _typed_cases(raw: Any, row: dict[str, Any]) -> Tests:
    cases = [c for c in raw if c]
    if not cases:
        raise Rejected("no_tests")
    types = {c.get("type") or "stdin_stdout" for c in cases}
    if types == {"stdin_stdout"}:
        return _stdin([c["input"] for c in cases], [c["output"] for c in cases])
    if types != {"function_call"}:
        raise Rejected("mixed_test_types", str(sorted(types)))
    fn_name = cases[0].get("fn_name") or fn_name_from_code(row.get("starter_code") or "")
    args = [json.loads(c["input"]) if isinstance(c["input"], str) else c["input"] for c in cases]
    outputs = [json.loads(c["output"]) if isinstance(c["output"], str) else c["output"] for c in cases]
    return _call(fn_name, args, _unwrap_outputs(outputs))


@register_tests_format("sandbox_stdio")
def _sandbox_stdio(raw: Any, row: dict[str, Any]) -> Tests:
    cases = [c for c in raw if c]
    if not cases:
        raise Rejected("no_tests")
    return _stdin([c["input"]["stdin"] for c in cases], [c["output"]["stdout"] for c in cases])


@register_tests_format("humaneval")
def _humaneval(raw: Any, row: dict[str, Any]) -> Tests:
    test, entry_point = raw.get("test") or "", raw.get("entry_point")
    if "assert" not in test or not entry_point:
        raise Rejected("no_tests")
    return Tests(kind="assert", fn_name=entry_point, assert_code=f"{test.rstrip()}\n\ncheck({entry_point})\n")


@register_tests_format("mbpp")
def _mbpp(raw: Any, row: dict[str, Any]) -> Tests:
    lines = [t for t in raw.get("test_list") or [] if t and t.strip()]
    if not lines:
        raise Rejected("no_tests")
    setup = (raw.get("test_setup_code") or "").strip()
    return Tests(kind="assert", assert_code=(setup + "\n" if setup else "") + "\n".join(lines) + "\n")


@register_tests_format("assert_code")
def _assert_code(raw: Any, row: dict[str, Any]) -> Tests:
    code = raw.get("assert_code") or ""
    if "assert" not in code:
        raise Rejected("no_tests")
    return Tests(kind="assert", assert_code=code, prelude=raw.get("prelude"))


@register_tests_format("pytest")
def _pytest(raw: Any, row: dict[str, Any]) -> Tests:
    code = raw.get("test_code") or ""
    tree = ast.parse(code)
    has_tests = any(
        (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"))
        or (isinstance(n, ast.ClassDef) and n.name.startswith("Test"))
        for n in tree.body
    )
    if not has_tests:
        raise Rejected("no_tests", "no test_* functions or Test* classes")
    return Tests(kind="assert", assert_code=assert_code_for_pytest(code))


@register_tests_format("leetcode")
def _leetcode(raw: Any, row: dict[str, Any]) -> Tests:
    entry_point = raw.get("entry_point") or ""
    fn_name = entry_point.rsplit(".", 1)[-1] if entry_point else None
    test, prelude = raw.get("test") or "", raw.get("prelude") or ""
    if not fn_name or "assert" not in test:
        raise Rejected("no_tests")
    try:
        params = signature_params(raw.get("signature") or raw.get("starter_code") or "", fn_name)
        cases = leetcode_call_cases(test, params)
    except (Rejected, SyntaxError, ValueError, TypeError):
        cases = None
    if cases:
        return Tests(kind="call", fn_name=fn_name, cases=cases, prelude=prelude)
    return Tests(kind="assert", fn_name=fn_name, prelude=prelude, assert_code=f"{test.rstrip()}\n\ncheck({entry_point})\n")


def _order(values: dict[str | None, Any], positional: list[Any], params: list[str]) -> list[Any]:
    if None in values:
        raise Rejected("starred_argument")
    missing = [p for p in params[len(positional):] if p not in values]
    extra = [k for k in values if k not in params]
    if missing or extra:
        raise Rejected("argument_mismatch", f"missing {missing}, unexpected {extra}")
    return positional + [values[p] for p in params[len(positional):]]


def leetcode_call_cases(test: str, params: list[str]) -> list[TestCase] | None:
    """Call cases from ``def check(candidate): assert candidate(k=v, ...) == literal`` asserts.

    None when any statement in ``check`` is something else (helpers, tolerances, loops), so the
    caller keeps the whole check as assert code rather than a partial set of cases.
    """
    tree = ast.parse(test)
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None or not check.args.args:
        return None
    candidate = check.args.args[0].arg
    cases: list[TestCase] = []
    for stmt in check.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring
        if not (isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare)):
            return None
        cmp = stmt.test
        if len(cmp.ops) != 1 or not isinstance(cmp.ops[0], ast.Eq):
            return None
        call, expected = cmp.left, cmp.comparators[0]
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == candidate):
            return None
        try:
            args = _order({kw.arg: literal(kw.value) for kw in call.keywords}, [literal(a) for a in call.args], params)
            value = literal(expected)
        except Rejected:
            return None
        cases.append(TestCase(_json(args), _json(value)))
    return cases or None
