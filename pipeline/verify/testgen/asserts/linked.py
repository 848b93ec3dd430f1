"""LeetCode's linked-list and tree asserts as calls on plain lists, and back.

LeetCodeDataset keeps a problem whose inputs or answer are a ``ListNode`` or a ``TreeNode`` as its
own ``check(candidate)`` block: ``is_same_list(candidate(head = list_node([1,2,3]), n = 2),
list_node([1,3]))``. The evaluator's lifting takes literal arguments only, so these asserts give
generation no examples. Here they do: each argument built by ``list_node``/``tree_node`` is the
plain list it was built from (a linked list in order, a tree in LeetCode's level order with None
holes), and so is the answer ``is_same_list``/``is_same_tree`` compares with. Mutation then works
on plain lists (trees kept valid by :mod:`pipeline.verify.testgen.call.trees`), the references answer
through :meth:`Shape.shim`, a function appended to their code that builds the nodes with the
problem's own helpers and returns the answer as a plain list, and :func:`render` writes each new
input back as the dataset writes its asserts.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from pipeline.schema import Tests
from pipeline.verify.testgen.asserts import calls as asserts

SHIM_NAME = "_microcoder_linked_call"
_BUILDERS = {"list_node": "list", "tree_node": "tree"}
_SAME = {"is_same_list": "list", "is_same_tree": "tree"}


@dataclass(frozen=True)
class Shape:
    """Which arguments are built as nodes (position or keyword -> ``list``/``tree``), and how the
    answer is compared (``list``, ``tree``, or None: ``==`` on the plain value)."""

    method: str
    built: tuple[tuple[int | str, str], ...]
    answer: str | None

    def shim(self) -> str:
        """The function the references are called through (appended to their code)."""
        return f"""

def {SHIM_NAME}(*args, **kwargs):
    built = {dict(self.built)!r}
    args = [(list_node if built.get(i) == "list" else tree_node)(v) if i in built else v for i, v in enumerate(args)]
    kwargs = {{k: (list_node if built.get(k) == "list" else tree_node)(v) if k in built else v for k, v in kwargs.items()}}
    answer = Solution().{self.method}(*args, **kwargs)
{_AS_PLAIN[self.answer]}"""


# The answer as plain data: a linked list in order, a tree in level order (trailing Nones dropped).
_AS_PLAIN = {
    None: "    return answer\n",
    "list": """    out = []
    while answer is not None and len(out) < 10 ** 6:
        out.append(answer.val)
        answer = answer.next
    return out
""",
    "tree": """    out, queue, i = [], [answer], 0
    while i < len(queue) and len(out) < 10 ** 6:
        node, i = queue[i], i + 1
        out.append(None if node is None else node.val)
        if node is not None:
            queue += [node.left, node.right]
    while out and out[-1] is None:
        out.pop()
    return out
""",
}


def _literal(node: ast.expr) -> tuple[str | None, Any]:
    """(``list``/``tree``/None, the plain value) of an argument or expected value."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BUILDERS \
            and len(node.args) == 1 and not node.keywords:
        return _BUILDERS[node.func.id], ast.literal_eval(node.args[0])
    return None, ast.literal_eval(node)


def _candidate_call(node: ast.expr) -> ast.Call | None:
    ok = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate"
    return node if ok else None


def _method(tree: ast.Module) -> str | None:
    """The method name of the last ``check(Solution().name)`` statement."""
    method = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and len(stmt.value.args) == 1:
            target = stmt.value.args[0]
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Call) \
                    and isinstance(target.value.func, ast.Name) and target.value.func.id == "Solution":
                method = target.attr
    return method


def _compared(test: ast.expr) -> tuple[ast.Call | None, ast.expr, str | None] | None:
    """(the candidate call, the expected node, the answer's kind) of ``is_same_*(call, x)`` or
    ``call == x``; None for any other assert."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in _SAME \
            and len(test.args) == 2:
        return _candidate_call(test.args[0]), test.args[1], _SAME[test.func.id]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        return _candidate_call(test.left), test.comparators[0], None
    return None


def _arguments(call: ast.Call) -> tuple[list[tuple[int | str, str]], list[Any], dict[str, Any]]:
    """(which arguments are built as nodes, the plain positional values, the plain keyword values)."""
    built: list[tuple[int | str, str]] = []
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for i, node in enumerate(call.args):
        how, value = _literal(node)
        args.append(value)
        if how:
            built.append((i, how))
    for kw in call.keywords:
        how, value = _literal(kw.value)
        kwargs[kw.arg] = value
        if how:
            built.append((kw.arg, how))
    return built, args, kwargs


def _example(stmt: ast.stmt) -> tuple[tuple, tuple[tuple, dict, Any]] | None:
    """(the shape, the plain example) of one assert of ``check``; None where it is no such assert.
    Raises what ``ast.literal_eval`` raises on a value that is no literal."""
    if not isinstance(stmt, ast.Assert):
        return None
    compared = _compared(stmt.test)
    if compared is None or compared[0] is None:
        return None
    call, expected_node, answer_kind = compared
    kind, expected = _literal(expected_node)
    if kind != answer_kind:
        return None
    built, args, kwargs = _arguments(call)
    return (tuple(sorted(built, key=str)), answer_kind), (tuple(args), kwargs, expected)


def examples(tests: Tests) -> tuple[tuple[str, ...], Shape, list[tuple[tuple, dict, Any]]] | None:
    """The entry (``("method", "Solution", name)``), the shape and the plain examples of a
    ``check(candidate)`` block over ``list_node``/``tree_node`` values; None when the block is
    anything else, or its asserts disagree on the shape."""
    try:
        tree = ast.parse(tests.assert_code or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    method = _method(tree)
    check = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "check"), None)
    if method is None or check is None:
        return None
    shapes, found = set(), []
    try:
        for stmt in check.body:
            one = _example(stmt)
            if one is None:
                return None
            shapes.add(one[0])
            found.append(one[1])
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    if len(shapes) != 1 or not found:
        return None
    built, answer = shapes.pop()
    if not built and answer is None:
        return None  # plain literals: the evaluator's own lifting already reads those
    return ("method", "Solution", method), Shape(method, built, answer), found


def render(entry: tuple[str, ...], shape: Shape, args: tuple, kwargs: dict, expected: Any, how: str) -> str | None:
    """One assert in the dataset's own form, on the entry itself (the block's ``check`` ran before);
    None where a value has no exact literal (the rules of :func:`asserts.render`)."""
    built = dict(shape.built)

    def value(key: int | str, v: Any) -> str | None:
        text = asserts.exact_literal(v)
        return None if text is None or asserts.has_float(v) else f"{built[key]}_node({text})" if key in built else text

    parts = [value(i, v) for i, v in enumerate(args)] + [
        None if not k.isidentifier() else (lambda v: v and f"{k} = {v}")(value(k, v)) for k, v in kwargs.items()]
    answer = asserts.exact_literal(expected)
    if answer is None or any(p is None for p in parts):
        return None
    call = f"{entry[1]}().{entry[2]}({', '.join(parts)})"
    if shape.answer:
        if asserts.has_float(expected):
            return None
        return f"assert is_same_{shape.answer}({call}, {shape.answer}_node({answer}))  # generated: {how}"
    if isinstance(expected, float) or asserts.has_float(expected):
        return None  # a node problem's float answer: left to the source's own tests
    return f"assert {call} == {answer}  # generated: {how}"
