"""Lifting simple asserts out of test code: the calls a test makes of the program, as data
(:class:`Step`), and the checks on what they return (:class:`Check`), as one :class:`LiftedTest`.

Why: an ``assert`` test of a hundred ``assert f(args) == value`` lines costs a judge process and a
round trip per assert. Lifted, the candidate runs the calls in one go and the parent compares,
on decoded plain data, what the judge would have compared. Test generation reuses the same
lifting (the calls a test makes, with their expected values).

Exactness first: a test is lifted only when every statement is one whose meaning is known
(literal arguments and expected values, the program's own names, ``==``/``!=``/``<``/``is None``,
``not``, ``abs(a - b) < eps``, ``math.isclose``, a few pure builtins, ``check(candidate)``
bodies); anything else returns None and the test stays with the judge. The checks evaluate in
the order and with the operators Python would use, so on plain data they mean what the judge's
would; :func:`holds` raises :class:`Undecided` where it cannot say (a value that is not plain
data, an exception while comparing) and the caller asks the judge instead.
"""

from __future__ import annotations

import ast
import builtins
import math
import operator
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_PARSE_LOCK = threading.Lock()


def parse_code(code: str) -> ast.Module:
    """``ast.parse``, one thread at a time: CPython 3.11 keeps the AST builder's recursion counter
    per interpreter, not per thread, and parses in several threads (``evaluate_many`` judges in
    threads) failed here with a spurious ``SystemError: AST constructor recursion depth mismatch``
    (seen in a full test run on 3.11.7; see CPython gh-106905)."""
    with _PARSE_LOCK:
        return ast.parse(code)


MAX_LITERAL_ITEMS = 1 << 20  # `[0] * n` and `"a" * n` in arguments, as built here
MAX_INT_BITS = 1 << 16
IMPORTABLE = frozenset(("math", "cmath", "typing", "collections", "itertools", "functools", "heapq", "bisect",
                         "re", "string", "fractions", "decimal", "statistics", "operator"))
# Pure builtins a check may apply to a returned value (plain data in, plain data out).
HELPERS = {name: getattr(builtins, name) for name in (
    "abs", "round", "len", "sorted", "set", "frozenset", "list", "tuple", "sum", "min", "max", "all", "any",
    "int", "float", "str", "bool")}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_ARITH = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
          ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}


class Undecided(Exception):
    """The parent cannot say what the judge would: ask the judge."""


class NotLiftable(Exception):
    pass


@dataclass(frozen=True)
class Step:
    """One thing the candidate does, in order: look up a program name (``name``), or ask an
    earlier step's object for a ``call`` (literal ``args``/``kwargs``) or an attribute (``getattr``)."""

    op: str
    ref: int = -1
    name: str = ""
    args: tuple = ()
    kwargs: tuple = ()

    def to_json(self) -> dict:
        """The step as the candidate reads it (arguments in :mod:`evaluator.runtime.wire` form)."""
        from evaluator.runtime import wire

        if self.op == "name":
            return {"op": "name", "n": self.name}
        if self.op == "getattr":
            return {"op": "getattr", "o": self.ref, "n": self.name}
        return {"op": "call", "o": self.ref, "a": wire.dumps(list(self.args)), "k": wire.dumps(dict(self.kwargs))}


@dataclass(frozen=True)
class Check:
    """One assert: the steps it runs (in order) and its test over their results (a small tree:
    ``("lit", v)``, ``("step", i)``, ``("cmp", op, a, b)``, ``("not", a)``, ``("neg", a)``,
    ``("arith", op, a, b)``, ``("fn", f, args, kwargs)``)."""

    steps: tuple[int, ...]
    test: tuple
    line: int
    message_runs: bool = False  # a failure evaluates the message (it may call the program): judge it


@dataclass(frozen=True)
class LiftedTest:
    """A whole test as calls and checks. ``needs``: program names the checks read (``math``
    where the test does not import it); without them the judge would raise NameError."""

    steps: tuple[Step, ...]
    checks: tuple[Check, ...]
    needs: frozenset[str] = frozenset()

    @property
    def calls(self) -> int:
        return sum(s.op == "call" for s in self.steps)


# ----------------------------------------------------------------------------- parsing
def bound_names(tree: ast.AST) -> set[str]:
    """Every name the test code binds anywhere (assignments, defs, parameters, imports)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.MatchAs) and node.name:
            out.add(node.name)
    return out


@lru_cache(maxsize=256)
def prelude_names(prelude: str | None) -> frozenset[str] | None:
    """The names a problem's prelude binds (the judge's own, never the program's: see
    :mod:`evaluator.asserts.names`); None when they cannot be known here (a star import of a module
    that is not the standard library's, or a prelude that does not parse)."""
    if not prelude:
        return frozenset()
    try:
        tree = parse_code(prelude)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out = set(bound_names(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            module = node.module or ""
            if node.level or module.split(".")[0] not in sys.stdlib_module_names:
                return None
            try:
                import importlib

                mod = importlib.import_module(module)
            except Exception:  # noqa: BLE001 - the prelude fails there too
                return None
            public = getattr(mod, "__all__", None)
            out.update(public if isinstance(public, (list, tuple)) else (n for n in dir(mod) if not n.startswith("_")))
    out.discard("*")
    return frozenset(str(n) for n in out)


def _check_size(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise NotLiftable("integer too large")
    if isinstance(value, (str, bytes, list, tuple)) and len(value) > MAX_LITERAL_ITEMS:
        raise NotLiftable("literal too large")
    return value


class Lifter:
    def __init__(self, tree: ast.Module, fn_name: str | None, prelude: frozenset[str] = frozenset()) -> None:
        self.bound = bound_names(tree) | prelude
        self.fn_name = fn_name
        self.imported: dict[str, tuple[str, str | None]] = {}  # name -> (module, attribute)
        self.steps: list[Step] = []
        self.checks: list[Check] = []
        self.needs: set[str] = set()
        self.names: dict[str, int] = {}  # program name -> its "name" step (top-level asserts)

    # -- values known before running anything
    def literal(self, node: ast.AST) -> Any:
        """What Python builds for a literal expression (constants, displays, arithmetic on them,
        ``float('inf')``, empty ``set()``/``list()``...)."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
            return self._display(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
            value = self.literal(node.operand)
            if not isinstance(value, (int, float, complex)):
                raise NotLiftable("unary operator on a non-number")
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(node.op)](value)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            return self._arithmetic(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return self._builtin_call(node)
        raise NotLiftable(f"not a literal: {type(node).__name__}")

    def _display(self, node: ast.List | ast.Tuple | ast.Set | ast.Dict) -> Any:
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise NotLiftable("dict unpacking")
            return {self.literal(k): self.literal(v) for k, v in zip(node.keys, node.values)}
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise NotLiftable("starred")
        items = [self.literal(e) for e in node.elts]
        return _check_size(list(items) if isinstance(node, ast.List) else tuple(items) if isinstance(node, ast.Tuple)
                           else set(items) if items else _fail("empty set display"))

    def _arithmetic(self, node: ast.BinOp) -> Any:
        """Arithmetic on literals, as Python does it, refused where the result could be huge."""
        left, right = self.literal(node.left), self.literal(node.right)
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right))
        if isinstance(node.op, ast.Pow) and not (numbers and abs(right) <= 4096 and abs(left) < 1 << 64):
            raise NotLiftable("large power")
        if isinstance(node.op, ast.Mult) and not numbers:
            if not (isinstance(left, (str, list, tuple)) and type(right) is int or
                    isinstance(right, (str, list, tuple)) and type(left) is int):
                raise NotLiftable("multiplication")
            seq, n = (left, right) if type(right) is int else (right, left)
            if n * len(seq) > MAX_LITERAL_ITEMS:
                raise NotLiftable("literal too large")
        try:
            return _check_size(_ARITH[type(node.op)](left, right))
        except Exception as exc:  # noqa: BLE001 - it raises in the test too: leave it to the judge
            raise NotLiftable(f"arithmetic: {exc}") from None

    def _builtin_call(self, node: ast.Call) -> Any:
        """``set()``, ``list()``, ... and ``float('inf')``-like calls of builtins the test leaves as themselves."""
        name = node.func.id
        if self.helper(name) and name in ("set", "list", "tuple", "dict", "frozenset") and not node.args:
            return getattr(builtins, name)()
        if self.helper(name) and name == "float" and len(node.args) == 1:
            arg = self.literal(node.args[0])
            if isinstance(arg, str) and arg.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
                return float(arg)
        raise NotLiftable("not a literal: Call")

    def helper(self, name: str) -> bool:
        """A builtin the test code may use as itself: neither the test nor the program rebinds it
        (the judge binds a program's builtin-named function only for the entry point)."""
        return (name in HELPERS or name == "dict") and name not in self.bound and name != self.fn_name

    def program_name(self, name: str) -> bool:
        """A name the judge would bind to the program's own object (see :mod:`evaluator.asserts.names`)."""
        return (name.isidentifier() and not name.startswith("__") and not hasattr(builtins, name)
                and name not in sys.stdlib_module_names and name not in self.bound)

    # -- statements
    def module(self, tree: ast.Module) -> None:
        self.block(tree.body, {}, {}, 0)

    def block(self, body: list[ast.stmt], params: dict[str, tuple[int, ...]], defs: dict[str, ast.FunctionDef],
              depth: int) -> None:
        """Statements in order: asserts, harmless ones, test functions (``check(candidate)``,
        ``test_check()``) defined at top level and called with the program's function."""
        for stmt in body:
            if self.harmless(stmt):
                continue
            if isinstance(stmt, ast.FunctionDef) and depth == 0:
                self.function_def(stmt)
                defs[stmt.name] = stmt
            elif isinstance(stmt, ast.Assert):
                self.assert_(stmt, params)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                fn = defs.get(call.func.id) if isinstance(call.func, ast.Name) else None
                if fn is None or call.keywords or len(call.args) != len(fn.args.args) or depth > 3:
                    raise NotLiftable("a call of something but a test function")
                inner = {p.arg: self.entry(a, params) for p, a in zip(fn.args.args, call.args)}
                self.block(fn.body, inner, defs, depth + 1)
                taken = _all_steps(self.checks)
                if any(i not in taken for t in inner.values() for i in t):
                    raise NotLiftable("a test function that calls nothing")
            else:
                raise NotLiftable(f"statement {type(stmt).__name__}")

    def harmless(self, stmt: ast.stmt) -> bool:
        """Statements with no effect on the program: docstrings, ``pass``, ``assert True``,
        stdlib imports, a name bound to a literal (``METADATA = {...}``)."""
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            return True
        if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Constant) and stmt.test.value:
            return True  # its message is never evaluated
        if isinstance(stmt, ast.Import):
            if all(a.name in IMPORTABLE for a in stmt.names):
                for a in stmt.names:
                    self.imported[a.asname or a.name] = (a.name, None)
                return True
            raise NotLiftable("import")
        if isinstance(stmt, ast.ImportFrom):
            if stmt.level == 0 and stmt.module in IMPORTABLE and all(a.name != "*" for a in stmt.names):
                for a in stmt.names:
                    self.imported[a.asname or a.name] = (stmt.module, a.name)
                return True
            raise NotLiftable("import")
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            self.literal(stmt.value)
            return True
        return False

    def function_def(self, fn: ast.FunctionDef) -> None:
        a = fn.args
        if (fn.decorator_list or len(a.args) > 1 or a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg
                or a.defaults or fn.returns is not None or any(x.annotation is not None for x in a.args)):
            raise NotLiftable("a function other than check(candidate) or test_x()")

    def entry(self, node: ast.expr, params: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
        """Steps for ``check``'s argument: ``f`` (a program name) or ``Solution().method``."""
        if isinstance(node, ast.Name) and node.id in params:
            return params[node.id]
        if isinstance(node, ast.Name) and self.program_name(node.id):
            return (self.add(Step("name", name=node.id)),)
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call) and not node.value.args
                and not node.value.keywords and isinstance(node.value.func, ast.Name)
                and self.program_name(node.value.func.id) and not node.attr.startswith("_")):
            cls = self.add(Step("name", name=node.value.func.id))
            obj = self.add(Step("call", ref=cls))
            return (cls, obj, self.add(Step("getattr", ref=obj, name=node.attr)))
        raise NotLiftable("check's argument is not a program function")

    def add(self, step: Step) -> int:
        self.steps.append(step)
        return len(self.steps) - 1

    def assert_(self, stmt: ast.stmt, params: dict[str, tuple[int, ...]]) -> None:
        if not isinstance(stmt, ast.Assert):
            raise NotLiftable("not a plain assert")
        first = len(self.steps)
        test = self.expr(stmt.test, params)
        mine = tuple(range(self._pending(), len(self.steps)))
        if not any(self.steps[i].op == "call" and i >= first for i in mine):
            raise NotLiftable("an assert that calls nothing of the program")
        message_runs = stmt.msg is not None and (  # or a message the report would read as the output limit
            not isinstance(stmt.msg, ast.Constant) or "[Errno 27]" in str(stmt.msg.value))
        self.checks.append(Check(mine, test, stmt.lineno, message_runs))

    def _pending(self) -> int:
        """The first step no earlier check has taken (a check(...)'s lookups join its first assert)."""
        return max((c.steps[-1] + 1 for c in self.checks if c.steps), default=0)

    def expr(self, node: ast.expr, params: dict[str, tuple[int, ...]], depth: int = 0) -> tuple:
        if depth > 20:
            raise NotLiftable("expression too deep")
        down = depth + 1
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
                raise NotLiftable("chained comparison")
            op = type(node.ops[0])
            left, right = node.left, node.comparators[0]
            if op in (ast.Is, ast.IsNot) and not any(
                    isinstance(side, ast.Constant) and side.value in (None, True, False) and type(side.value) in
                    (type(None), bool) for side in (left, right)):
                raise NotLiftable("`is` with something but None/True/False")
            return ("cmp", op.__name__, self.expr(left, params, down), self.expr(right, params, down))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return ("not", self.expr(node.operand, params, down))
            if isinstance(node.op, ast.USub) and not _has_call(node.operand):
                return ("lit", self.literal(node))
            if isinstance(node.op, ast.USub):
                return ("neg", self.expr(node.operand, params, down))
            raise NotLiftable("unary operator")
        if isinstance(node, ast.BinOp) and _has_call(node):
            if not isinstance(node.op, (ast.Add, ast.Sub)):
                raise NotLiftable("arithmetic on a returned value other than + and -")
            return ("arith", type(node.op).__name__, self.expr(node.left, params, down), self.expr(node.right, params, down))
        if isinstance(node, ast.Call):
            try:
                return ("lit", self.literal(node))  # float('inf'), set()
            except NotLiftable:
                return self.call(node, params, down)
        return ("lit", self.literal(node))

    def call(self, node: ast.Call, params: dict[str, tuple[int, ...]], depth: int) -> tuple:
        func = node.func
        if isinstance(func, ast.Name) and (func.id in params or self.program_name(func.id)):
            if func.id in params:
                target = params[func.id][-1]
            else:
                if func.id not in self.names:
                    self.names[func.id] = self.add(Step("name", name=func.id))
                target = self.names[func.id]
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                raise NotLiftable("starred arguments")
            args = tuple(self.literal(a) for a in node.args)
            kwargs = tuple((k.arg, self.literal(k.value)) for k in node.keywords)
            try:
                from evaluator.runtime import wire

                wire.dumps(list(args)), wire.dumps(dict(kwargs))
            except (ValueError, RecursionError):
                raise NotLiftable("arguments that are not plain data") from None
            return ("step", self.add(Step("call", ref=target, args=args, kwargs=kwargs)))
        fn = self.function(func)
        args = [self.expr(a, params, depth) for a in node.args if not isinstance(a, ast.Starred) or _fail("starred")]
        kwargs = {k.arg or _fail("**"): self.literal(k.value) for k in node.keywords}
        return ("fn", fn, tuple(args), tuple(kwargs.items()))

    def function(self, func: ast.expr):
        """``math.isclose`` (the real module: the test imports it, or the program's ``math``,
        which the judge binds to the real one), an ``isclose`` the test imports, a pure builtin."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr == "isclose":
            mod = func.value.id
            if self.imported.get(mod) == ("math", None):
                return math.isclose
            if mod == "math" and mod not in self.bound and self.fn_name != mod:
                self.needs.add("math")
                return math.isclose
        if isinstance(func, ast.Name):
            if self.imported.get(func.id) == ("math", "isclose"):
                return math.isclose
            if func.id in HELPERS and self.helper(func.id):
                return HELPERS[func.id]
        raise NotLiftable("a function the parent cannot apply")


def _fail(why: str):
    raise NotLiftable(why)


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def _all_steps(checks: list[Check]) -> set[int]:
    return {i for c in checks for i in c.steps}


@lru_cache(maxsize=1024)
def lift(test_code: str, fn_name: str | None = None, prelude: str | None = None) -> LiftedTest | None:
    """The test code as a :class:`LiftedTest`, or None when any part of it must run in the judge.

    ``fn_name``: the entry point (the judge lets the program's function of that name shadow a
    builtin, so such a builtin is not applied here). ``prelude``: the problem's; the names it
    binds are the judge's, so a test that uses one is not lifted (the program would run it)."""
    try:
        tree = parse_code(test_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    judges = prelude_names(prelude)
    if judges is None:
        return None
    lifter = Lifter(tree, fn_name, judges)
    try:
        lifter.module(tree)
    except Exception:  # noqa: BLE001 - NotLiftable, or a literal Python itself rejects ({[1]: 2})
        return None
    if not lifter.checks or _all_steps(lifter.checks) != set(range(len(lifter.steps))):
        return None
    return LiftedTest(tuple(lifter.steps), tuple(lifter.checks), frozenset(lifter.needs))


# ----------------------------------------------------------------------------- checking
_OPS = {cls.__name__: fn for cls, fn in (*_COMPARE.items(), (ast.Add, operator.add), (ast.Sub, operator.sub))}


def _value(node: tuple, results: dict[int, Any]) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "step":
        return results[node[1]]
    if kind in ("cmp", "arith"):
        left = _value(node[2], results)
        return _OPS[node[1]](left, _value(node[3], results))
    if kind == "not":
        return not _value(node[1], results)
    if kind == "neg":
        return -_value(node[1], results)
    if kind == "fn":
        args = [_value(a, results) for a in node[2]]
        return node[1](*args, **dict(node[3]))
    raise Undecided(f"unknown node {kind!r}")


def holds(check: Check, results: dict[int, Any]) -> bool:
    """Whether the assert passes, given the decoded plain-data results of its calls. Raises
    :class:`Undecided` where Python would raise (the judge reports that), or on anything
    that is not a plain answer."""
    try:
        outcome = _value(check.test, results)
        if type(outcome) is not bool:
            outcome = _truth(outcome)
        return outcome
    except Undecided:
        raise
    except Exception as exc:  # noqa: BLE001 - TypeError, RecursionError, MemoryError...
        raise Undecided(f"{type(exc).__name__} while checking") from None


def _truth(value: Any) -> bool:
    from collections import deque
    from decimal import Decimal
    from fractions import Fraction

    plain = (type(None), int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset, deque,
             Fraction, Decimal)
    if type(value) not in plain:
        raise Undecided("truth of something that is not plain data")
    return bool(value)
