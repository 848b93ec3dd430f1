"""Adversaries: wrong programs that a problem's tests must reject, to measure how strong they are.

Two families:

* sample hardcoders (``hardcoder_stdin``, ``hardcoder_call``, ``hardcoder_assert``): programs that
  memorise the examples a statement prints and answer the most common example output otherwise.
  A policy that learns this earns full reward on tests that are only the examples, so generated
  tests must reject it;
* AST mutants of a reference (``mutants``), after mutation testing tools (mutmut, cosmic-ray) and
  EvalPlus: one small fault each (off-by-one, swapped operator, shifted constant, dropped branch,
  early return). A mutant can loop forever (a binary search whose bounds no longer meet): run it
  under a time limit. A mutant equal to the reference on every input (an equivalent mutant) is
  the caller's to count apart; only obviously equivalent ones are avoided here.
"""

from __future__ import annotations

import ast
import json
import keyword
import random
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from evaluator.asserts.lift import bound_names

# --- sample hardcoders ---------------------------------------------------------------------------


def _most_common(keys: list[str]) -> int:
    """Index of the first occurrence of the most common key (ties: the earliest)."""
    best = Counter(keys).most_common(1)[0][0]  # most_common keeps first-seen order among ties
    return keys.index(best)


def _identifier(name: str) -> str:
    """``name`` as a Python identifier (``Solution().twoSum`` -> ``twoSum``), or ValueError."""
    name = name.rsplit(".", 1)[-1]
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"not a Python identifier: {name!r}")
    return name


def _stdin_table(examples: list[tuple[str, str]]) -> tuple[dict[tuple[str, ...], str], str]:
    """What :func:`hardcoder_stdin` memorises: each example input's tokens -> its output, and the
    most common example output for anything else."""
    table: dict[tuple[str, ...], str] = {}
    for given, expected in examples:
        table.setdefault(tuple(given.split()), expected)
    default = examples[_most_common([out for _, out in examples])][1] if examples else "0\n"
    return table, default


def hardcoder_stdin_answers(examples: list[tuple[str, str]]) -> Callable[[str], str | None]:
    """What :func:`hardcoder_stdin`'s program prints for an input, computed here rather than in a
    process of its own (None: an input or answer that is not plain ASCII, whose bytes the
    sandbox's decoding might read otherwise: run the program for it)."""
    table, default = _stdin_table(examples)
    plain = default.isascii() and all(out.isascii() for out in table.values())

    def answer(text: str) -> str | None:
        if not plain or not text.isascii():
            return None
        return table.get(tuple(text.split()), default)

    return answer


def hardcoder_stdin(examples: list[tuple[str, str]]) -> str:
    """A stdin program printing each example's output for its input (compared as whitespace-split
    tokens, as judges read input) and the most common example output for anything else."""
    table, default = _stdin_table(examples)
    return (
        "import sys\n\n"
        f"_TABLE = {table!r}\n"
        f"_DEFAULT = {default!r}\n\n"
        "sys.stdout.write(_TABLE.get(tuple(sys.stdin.read().split()), _DEFAULT))\n"
    )


def _json_key(text: str) -> str | None:
    """A call input as the canonical JSON of its argument list (a bare value is one argument)."""
    try:
        args = json.loads(text)
    except ValueError:
        return None
    return json.dumps(args if isinstance(args, list) else [args], sort_keys=True)


def hardcoder_call(fn_name: str, examples: list[tuple[str, str]]) -> str:
    """A ``call`` program defining ``fn_name`` both as a function and as a ``Solution`` method, each
    returning an example's output for its arguments and the most common output otherwise.

    Examples are (JSON array of positional arguments, JSON of the return value); ones that are not
    JSON are skipped.
    """
    name = _identifier(fn_name)
    table: dict[str, str] = {}
    outputs: list[str] = []
    for given, expected in examples:
        key = _json_key(given)
        try:
            json.loads(expected)
        except ValueError:
            continue
        if key is None:
            continue
        table.setdefault(key, expected)
        outputs.append(expected)
    default = outputs[_most_common([json.dumps(json.loads(o), sort_keys=True) for o in outputs])] if outputs else "0"
    return (
        "import json\n\n"
        f"_TABLE = {table!r}\n"
        f"_DEFAULT = {default!r}\n\n\n"
        "def _answer(args):\n"
        "    try:\n"
        "        key = json.dumps(list(args), sort_keys=True)\n"
        "    except (TypeError, ValueError):  # an argument JSON cannot spell (a linked list): no example\n"
        "        key = None\n"
        "    return json.loads(_TABLE.get(key, _DEFAULT))\n\n\n"
        f"def {name}(*args):\n"
        "    return _answer(args)\n\n\n"
        "class Solution:\n"
        f"    def {name}(self, *args):\n"
        "        return _answer(args)\n"
    )


# Calls a rebuilt value may contain: repr spells these two so (``set()``, ``frozenset({1})``).
_REBUILD_CALLS = {"set": set, "frozenset": frozenset}
_LITERAL_NODES = (ast.Expression, ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Load,
                  ast.UnaryOp, ast.USub, ast.UAdd, ast.BinOp, ast.Add, ast.Sub)


def _rebuilds(value: object) -> bool:
    """``repr(value)`` is a literal (sets and frozensets allowed) that evaluates back to an equal
    value of the same type, so a program can embed it."""
    try:
        tree = ast.parse(repr(value), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _REBUILD_CALLS and len(node.args) <= 1 and not node.keywords):
                return False
        elif isinstance(node, ast.Name):
            if node.id not in _REBUILD_CALLS:
                return False
        elif not isinstance(node, _LITERAL_NODES):
            return False
    try:
        rebuilt = eval(compile(tree, "<value>", "eval"), {"__builtins__": {}, **_REBUILD_CALLS})  # only literals and set()/frozenset() (checked above)
        return type(rebuilt) is type(value) and bool(rebuilt == value)
    except (TypeError, ValueError, RecursionError, MemoryError):
        return False


def hardcoder_assert(entry: tuple[str, ...], examples: list[tuple[tuple, dict, object]]) -> str:
    """An ``assert`` program whose entry (``("function", name)`` or ``("method", class, name)``)
    returns each example's expected value for its arguments and the most common one otherwise.

    Examples are (args, kwargs, expected) with plain values; one whose values do not rebuild
    from their repr is skipped. Lookups key on ``repr((args, sorted(kwargs.items())))``, computed
    inside the program (a set's order can change between processes), with an equality scan as a
    fallback for values whose repr still differs.
    """
    kept = [(tuple(args), dict(kwargs), expected) for args, kwargs, expected in examples
            if _rebuilds(tuple(args)) and _rebuilds(dict(kwargs)) and _rebuilds(expected)]
    default = kept[_most_common([repr(e) for _, _, e in kept])][2] if kept else 0
    body = (
        "import copy\n\n"
        f"_EXAMPLES = {kept!r}\n"
        f"_DEFAULT = {default!r}\n\n\n"
        "def _key(args, kwargs):\n"
        "    return repr((tuple(args), sorted(kwargs.items())))\n\n\n"
        "_TABLE = {}\n"
        "for _args, _kwargs, _expected in _EXAMPLES:\n"
        "    _TABLE.setdefault(_key(_args, _kwargs), _expected)\n\n\n"
        "def _answer(args, kwargs):\n"
        "    key = _key(args, kwargs)\n"
        "    if key in _TABLE:\n"
        "        return copy.deepcopy(_TABLE[key])\n"
        "    for known_args, known_kwargs, expected in _EXAMPLES:\n"
        "        try:\n"
        "            if known_args == tuple(args) and known_kwargs == kwargs:\n"
        "                return copy.deepcopy(expected)\n"
        "        except Exception:  # noqa: BLE001 - an argument's __eq__ may raise; it is then no match\n"
        "            continue\n"
        "    return copy.deepcopy(_DEFAULT)\n\n\n"
    )
    if entry and entry[0] == "function" and len(entry) == 2:
        return body + f"def {_identifier(entry[1])}(*args, **kwargs):\n    return _answer(args, kwargs)\n"
    if entry and entry[0] == "method" and len(entry) == 3:
        return body + (f"class {_identifier(entry[1])}:\n"
                       f"    def {_identifier(entry[2])}(self, *args, **kwargs):\n"
                       "        return _answer(args, kwargs)\n")
    raise ValueError(f"entry must be ('function', name) or ('method', class, name): {entry!r}")


# --- AST mutants ---------------------------------------------------------------------------------

# Operator kinds, in the round-robin order ``mutants`` picks from.
KINDS = ("off_by_one", "swap_compare", "swap_arith", "boundary_const", "drop_branch", "early_return")

# Comparisons swapped with their boundary twin or their negation; ``and``/``or`` count here too.
_COMPARE_SWAPS: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
_BOOL_SWAPS: dict[type, type] = {ast.And: ast.Or, ast.Or: ast.And}
# Arithmetic swaps: the sign flip, multiplication as addition, floor division as true division
# (the classic port bug: a float where an int was meant), modulo as floor division, and the bit
# operators ``&``/``|``, ``^`` as ``|``, ``<<``/``>>``. Division, powers and ``@`` stay.
_ARITH_SWAPS: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv,
                                  ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitOr, ast.LShift: ast.RShift, ast.RShift: ast.LShift}
# Calls whose integer arguments are plumbing, not logic, so shifting them changes no answer
# (``open(0)``, recursion limits, exit codes).
_PLUMBING_CALLS = {"open", "fdopen", "setrecursionlimit", "stack_size", "set_int_max_str_digits", "exit", "quit", "_exit"}

Site = tuple[str, int, int, int]  # (kind, node's position in _nodes order, variant, line)


def _nodes(tree: ast.AST) -> list[ast.AST]:
    """Every mutable node in source order, leaving out type annotations, imports, the arguments
    of plumbing calls and the ``__main__`` guard's test; the same code always gives the same list."""
    out: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return
        out.append(node)
        if isinstance(node, ast.Call) and _call_name(node) in _PLUMBING_CALLS:
            return
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns", "type_comment", "type_params") or field == "test" and _is_main_guard(node):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    visit(child)

    visit(tree)
    return out


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _shift(expr: ast.expr, delta: int) -> ast.expr:
    """``expr + delta``, folded into a constant offset expr already has (``i - 1`` + 1 is ``i``)."""
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return _int_constant(expr.value + delta)
    base, offset = expr, 0
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)) and isinstance(expr.right, ast.Constant) \
            and type(expr.right.value) is int:
        base, offset = expr.left, expr.right.value if isinstance(expr.op, ast.Add) else -expr.right.value
    offset += delta
    if offset == 0:
        return base
    return ast.BinOp(left=base, op=ast.Add() if offset > 0 else ast.Sub(), right=ast.Constant(abs(offset)))


def _int_constant(value: int) -> ast.expr:
    """An int literal; a negative one as unary minus so unparse parenthesises it (``(-1) ** 2``)."""
    return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value)) if value < 0 else ast.Constant(value)


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def _arith_site(node: ast.BinOp) -> bool:
    """A BinOp worth swapping: no string operand (``"%d" % x`` is formatting, ``s + "x"`` would just
    crash) and not ``x + 0`` / ``x - 0`` (swapping those changes nothing)."""
    if _is_str(node.left) or _is_str(node.right):
        return False
    return not (isinstance(node.op, (ast.Add, ast.Sub)) and (_is_zero(node.right) or _is_zero(node.left) and isinstance(node.op, ast.Add)))


def _is_main_guard(node: ast.AST) -> bool:
    """``if __name__ == "__main__":``: dropping or negating it only silences the program."""
    test = getattr(node, "test", None) if isinstance(node, ast.If) else None
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"


def _own_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """Nodes of a function's body, not descending into nested functions, classes or lambdas."""
    stack: list[ast.AST] = list(reversed(func.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _stored(nodes: Iterator[ast.AST] | list[ast.AST]) -> set[str]:
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _early_return_site(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    """Index in ``func.body`` of the first top-level loop before which the function's last
    return can run: every local it reads is bound before the loop (else the mutant just crashes)."""
    returns = [n for n in _own_nodes(func) if isinstance(n, ast.Return)]
    value = returns[-1].value if returns else None
    locals_ = _stored(_own_nodes(func))
    read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & locals_ if value else set()
    bound = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs, func.args.vararg, func.args.kwarg] if a}
    for index, stmt in enumerate(func.body):
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)) and read <= bound:
            return index
        bound |= _stored(list(ast.walk(stmt)))
    return None


def _range_variants(node: ast.Call) -> list[tuple[str, int]]:
    """``range(...)`` with plain positional arguments: its ends shifted."""
    if isinstance(node.func, ast.Name) and node.func.id == "range" and not node.keywords \
            and not any(isinstance(a, ast.Starred) for a in node.args):
        return [("off_by_one", v) for v in {1: [0], 2: [0, 1], 3: [0, 1]}.get(len(node.args), [])]
    return []


def _subscript_variants(node: ast.Subscript) -> list[tuple[str, int]]:
    if isinstance(node.slice, ast.Name) or isinstance(node.slice, ast.BinOp) and _arith_site(node.slice):
        return [("off_by_one", v) for v in (0, 1)]
    return []


def _binop_variants(node: ast.BinOp) -> list[tuple[str, int]]:
    return [("swap_arith", 0)] if type(node.op) in _ARITH_SWAPS and _arith_site(node) else []


def _augassign_variants(node: ast.AugAssign) -> list[tuple[str, int]]:
    return [("swap_arith", 0)] if type(node.op) in _ARITH_SWAPS and not _is_str(node.value) else []


def _constant_variants(node: ast.Constant) -> list[tuple[str, int]]:
    return [("boundary_const", v) for v in (1, -1)] if type(node.value) is int else []


def _function_variants(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, int]]:
    return [("early_return", 0)] if _early_return_site(node) is not None else []


# (node types, its (kind, variant) sites): the first type a node is an instance of decides
_SITE_RULES: list[tuple[type | tuple[type, ...], Callable[[Any], list[tuple[str, int]]]]] = [
    (ast.Call, _range_variants),
    (ast.Subscript, _subscript_variants),
    (ast.Compare, lambda node: [("swap_compare", i) for i, op in enumerate(node.ops) if type(op) in _COMPARE_SWAPS]),
    (ast.BoolOp, lambda node: [("swap_compare", 0)]),
    (ast.BinOp, _binop_variants),
    (ast.AugAssign, _augassign_variants),
    (ast.Constant, _constant_variants),
    (ast.If, lambda node: [] if _is_main_guard(node) else [("drop_branch", 0)]),
    (ast.IfExp, lambda node: [("drop_branch", 0)]),
    ((ast.FunctionDef, ast.AsyncFunctionDef), _function_variants),
]


def _sites(nodes: list[ast.AST]) -> list[Site]:
    """Every (kind, node, variant, line) mutation site, in source order."""
    sites: list[Site] = []
    for index, node in enumerate(nodes):
        line = getattr(node, "lineno", 0)
        rule = next((variants for types, variants in _SITE_RULES if isinstance(node, types)), None)
        if rule is not None:
            sites += [(kind, index, variant, line) for kind, variant in rule(node)]
    return sites


def _mutate(node: ast.AST, kind: str, variant: int) -> ast.AST | list[ast.stmt]:
    """The replacement for ``node`` (a fresh parse's node, free to change in place)."""
    if kind == "off_by_one" and isinstance(node, ast.Call):  # range(...)
        args = node.args
        if len(args) == 1:
            args[0] = _shift(args[0], -1)
        elif variant == 0:
            args[1] = _shift(args[1], -1)
        else:
            args[0] = _shift(args[0], 1)
        return node
    if kind == "off_by_one" and isinstance(node, ast.Subscript):
        node.slice = _shift(node.slice, -1 if variant == 0 else 1)
        return node
    if kind == "swap_compare" and isinstance(node, ast.Compare):
        node.ops[variant] = _COMPARE_SWAPS[type(node.ops[variant])]()
        return node
    if kind == "swap_compare" and isinstance(node, ast.BoolOp):
        node.op = _BOOL_SWAPS[type(node.op)]()
        return node
    if kind == "swap_arith" and isinstance(node, (ast.BinOp, ast.AugAssign)):
        node.op = _ARITH_SWAPS[type(node.op)]()
        return node
    if kind == "boundary_const" and isinstance(node, ast.Constant):
        return _int_constant(node.value + variant)
    if kind == "drop_branch" and isinstance(node, ast.IfExp):
        return node.orelse
    if kind == "drop_branch" and isinstance(node, ast.If):
        if node.orelse:
            return node.orelse  # the if loses its body: only the else runs
        node.test = ast.Constant(False)
        return node
    if kind == "early_return" and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        at = _early_return_site(node)
        returns = [n for n in _own_nodes(node) if isinstance(n, ast.Return)]
        early = ast.Return(value=returns[-1].value) if returns else ast.Return(value=None)
        node.body.insert(at, early)
        return node
    raise ValueError(f"no {kind} mutation for {type(node).__name__}")


class _Replace(ast.NodeTransformer):
    """Replaces one node (by identity) with its mutation, then stops descending."""

    def __init__(self, target: ast.AST, mutate: Callable[[ast.AST], ast.AST | list[ast.stmt]]) -> None:
        self.target, self.mutate, self.done = target, mutate, False

    def visit(self, node: ast.AST) -> ast.AST | list[ast.stmt]:
        if self.done:
            return node
        if node is self.target:
            self.done = True
            return self.mutate(node)
        return self.generic_visit(node)


def _apply(code: str, site: Site) -> str | None:
    """The mutant source for one site, on a fresh parse; None if it does not compile."""
    kind, index, variant, _ = site
    tree = ast.parse(code)
    target = _nodes(tree)[index]
    try:
        tree = _Replace(target, lambda n: _mutate(n, kind, variant)).visit(tree)  # unparsed: no locations needed
        source = ast.unparse(tree)
        with warnings.catch_warnings():  # the reference's own warnings (``x is 1``) are not the mutant's
            warnings.simplefilter("ignore")
            compile(source, "<mutant>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return source


def mutants(code: str, *, limit: int = 8, seed: int = 0) -> list[tuple[str, str]]:
    """Up to ``limit`` (mutant source, label) pairs of a reference, each with one fault.

    Labels are ``<kind>@L<line>``, a kind from ``KINDS`` and the line in ``code`` (the mutant is
    unparsed, so its own line numbers can differ). Picks go round-robin over the kinds
    (so a few mutants cover several kinds), ``random.Random(seed)`` ordering the sites within a
    kind. Every mutant compiles, differs from the unparsed reference, and is unique. A reference
    that does not parse gives [].
    """
    try:
        tree = ast.parse(code)
        base = ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    rng = random.Random(seed)
    queues: dict[str, list[Site]] = {kind: [] for kind in KINDS}
    for site in _sites(_nodes(tree)):
        queues[site[0]].append(site)
    for queue in queues.values():
        rng.shuffle(queue)
    seen, out = {base}, []
    while len(out) < limit and any(queues.values()):
        for kind in KINDS:
            while queues[kind] and len(out) < limit:
                site = queues[kind].pop(0)
                source = _apply(code, site)
                if source is not None and source not in seen:
                    seen.add(source)
                    out.append((source, f"{kind}@L{site[3]}"))
                    break
    return out


def _names_the_test_needs(test_code: str) -> list[str]:
    """Names the test calls but neither binds (the evaluator's lifting tells which) nor gets from
    builtins: the program's (``can_square`` in ``assert can_square([1]) == YES``, ``solve`` in a
    stdin check)."""
    import builtins

    try:
        tree = ast.parse(test_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    defined = bound_names(tree) | set(dir(builtins))
    called = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return sorted({name for name in called if name not in defined})


def hardcoder_constant(reference: str, test_code: str = "") -> str | None:
    """The reference's top-level functions and classes, each function and method answering 0: the
    hardcoder of a test whose calls do not lift (pytest functions), which has no example to
    memorise. A class takes any constructor arguments (KodCode's ``CircularQueue(3)``). With no
    reference, the names the test calls and does not define answer 0."""
    try:
        tree = ast.parse(reference)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not tree.body:
        return "".join(f"def {name}(*args, **kwargs):\n    return 0\n\n" for name in _names_the_test_needs(test_code)) or None
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    out = []
    for node in tree.body:
        if isinstance(node, functions):
            out.append(f"def {node.name}(*args, **kwargs):\n    return 0\n")
        elif isinstance(node, ast.ClassDef):
            methods = [m.name for m in node.body if isinstance(m, functions) and m.name != "__init__"]
            body = "".join(f"    def {name}(self, *args, **kwargs):\n        return 0\n" for name in methods)
            out.append(f"class {node.name}:\n    def __init__(self, *args, **kwargs):\n        pass\n{body}")
    return "\n".join(out) or None
