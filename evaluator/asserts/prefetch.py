"""The calls a judged ``assert`` test will make first, predicted from its code, so the candidate
runs them in one go instead of one round trip each.

Why: a test the parent cannot lift (:mod:`evaluator.asserts.lift`) runs in the judge, and every call of
the program is then a request and a reply between two processes. Pytest-style blocks (KodCode)
are mostly straight-line ``assert f(literals) == ...`` lines with a few things only the judge can
do (``pytest.raises``, ``approx``, helpers). Their calls are predictable: the literal calls of a
program name, in the order the code runs them, up to the first one that is not.

Prediction is only a guess and never decides anything. The candidate streams the predicted
calls' replies; the judge takes each one only when the test makes exactly that call next (same
function, same arguments), and says the run ``departed`` when it makes anything else first, or
passes without taking them all. The parent then judges the test again with no prefetch, so a
verdict never depends on the guess (see :func:`evaluator.runs.classify`).
"""

from __future__ import annotations

import ast
import json
from functools import lru_cache
from typing import Any

from evaluator.asserts.lift import HELPERS, IMPORTABLE, Lifter, NotLiftable, parse_code, prelude_names
from evaluator.runtime import wire

# What the test may call before a predicted call: nothing the program could see. The judge and the
# candidate share the case's files, so a test that writes a file and then calls ``f("a.txt")`` must
# not have the call run ahead of the write; anything else ends the prediction there.
PURE_BUILTINS = frozenset(HELPERS) | frozenset((  # the lifter's pure helpers, and more a test only calls
    "ascii", "bin", "bytes", "chr", "complex", "dict", "divmod", "enumerate", "filter", "format", "hash", "hex",
    "isinstance", "issubclass", "iter", "map", "next", "oct", "ord", "pow", "print", "range", "repr", "reversed",
    "set", "slice", "zip"))
PURE_MODULES = IMPORTABLE | {"copy", "json", "pytest"}  # the modules a lifted test may import, and these
MAX_CALLS = 512
MAX_ARGS_CHARS = 1 << 20  # all predicted calls' arguments together, as JSON
SHIM_FILE = "test_solution.py"  # the pytest shim compiles the test code under this name (pipeline.process.pytest_shim)


class _Stop(Exception):
    """The code does something here whose calls cannot be predicted: the prefix ends."""


Call = tuple[str, Any, Any]  # (program name, positional arguments, keyword arguments), both in wire form


def canonical(args: Any, kwargs: Any) -> str:
    """One text for a call's wire-form arguments: equal only for the same values of the same types
    (wire forms have one key per object: no order to settle)."""
    return json.dumps([args, kwargs], allow_nan=True)


class _Predictor:
    def __init__(self, tree: ast.Module, fn_name: str | None, shim: bool, prelude: frozenset[str] = frozenset()) -> None:
        self.literals = Lifter(tree, fn_name, prelude)
        self.fn_name = fn_name
        self.calls: list[Call] = []
        self.size = 0
        self.defs: dict[str, ast.FunctionDef | ast.ClassDef] = {}  # the test's own, in definition order
        self.local: set[str] = set()  # names the test binds (to values, modules, its own objects)
        self.returned: set[str] = set()  # ... to what a call of the program returned (maybe one of its objects)
        self.pure_names: set[str] = set()  # ... to a function of a module that changes nothing (isclose)
        self.provided = {"pytest"} if shim else set()  # what the shim's namespace gives the test
        self.modules: dict[str, str] = {name: name for name in self.provided}  # bound name -> module
        self.opaque: set[str] = set()  # names bound to what a module other than a pure one made

    # -- names
    def program_name(self, name: str, env: dict[str, str]) -> str | None:
        """The program's name that ``name`` stands for here, if any."""
        if name in env:
            return env[name]
        if name in self.local or name in self.defs or name in self.provided:
            return None
        if name == self.fn_name or self.literals.program_name(name):
            return name
        return None

    def target(self, func: ast.expr, env: dict[str, str]) -> str | None:
        if isinstance(func, ast.Name):
            return self.program_name(func.id, env)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and env.get(func.value.id) == "solution":
            return func.attr  # ``import solution``; ``solution.f(...)``
        return None

    # -- expressions, in the order Python evaluates them
    def expr(self, node: ast.AST | None, env: dict[str, str]) -> None:
        if node is None:
            return
        if isinstance(node, ast.Call):
            self.call(node, env)
        elif isinstance(node, ast.Name):
            if self.program_name(node.id, env) is not None:
                raise _Stop("a program name used as a value (it may be called from the test's side)")
            if self.impure_value(node.id):
                raise _Stop("a module, or a function of the test's, passed as a value (``map(os.mkdir, ...)``)")
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in self.returned:
                raise _Stop("an attribute of what the program returned")
            self.expr(node.value, env)
        elif isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                               ast.IfExp, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            if self.touches(node, env) or not self.all_pure(node):
                raise _Stop("a call that may or may not run, or runs many times")
        elif isinstance(node, ast.BoolOp):
            self.expr(node.values[0], env)  # the others may not run
            if any(self.touches(v, env) or not self.all_pure(v) for v in node.values[1:]):
                raise _Stop("a call that may or may not run")
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                self.expr(key, env)
                self.expr(value, env)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, env)

    def touches(self, node: ast.AST, env: dict[str, str], own: bool = True) -> bool:
        """Whether ``node`` may reach the program (``own``: also through the test's own functions)."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and (self.program_name(sub.id, env) is not None or sub.id in self.returned
                                              or (own and self.own_callable(sub.id, env))):
                return True
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and env.get(sub.value.id) == "solution":
                return True
        return False

    def impure_value(self, name: str) -> bool:
        """A name whose value may change what the program sees when something calls it: a module
        other than a pure one (or one of its functions), a value made from one, a test function."""
        module = self.modules.get(name)
        if module is not None:
            return module.split(".")[0] not in PURE_MODULES
        return name in self.opaque or name in self.defs

    def module_alias(self, node: ast.expr) -> str | None:
        """What module (or module function) ``node`` names: ``os``, ``os.path``, ``fs`` after ``fs = os``."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.modules:
            return ".".join([self.modules[node.id], *reversed(parts)])
        return None

    def own_callable(self, name: str, env: dict[str, str]) -> bool:
        """A function or class of the test's own that may call the program."""
        node = self.defs.get(name)
        return node is not None and self.touches(node, env, own=False)

    def pure(self, func: ast.expr) -> bool:
        """Whether calling ``func`` can change nothing the program sees (see :data:`PURE_BUILTINS`)."""
        if isinstance(func, ast.Name):
            if func.id in self.modules or func.id in self.opaque:
                return False
            if func.id in self.pure_names:
                return True
            return func.id in PURE_BUILTINS and func.id not in self.literals.bound
        if isinstance(func, ast.Attribute):
            base = func.value
            while isinstance(base, ast.Attribute) and not isinstance(base.value, ast.Call):
                base = base.value  # ``os.path.join``, ``shutil.os.remove``: the module it starts from
            if isinstance(base, ast.Name):
                if base.id in self.modules:
                    return self.modules[base.id].split(".")[0] in PURE_MODULES
                return (base.id in self.local and base.id not in self.returned and base.id not in self.defs
                        and base.id not in self.opaque)
            return isinstance(base, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr,
                                     ast.Call, ast.Subscript, ast.Attribute, ast.BinOp))  # checked as it is walked
        return False

    def all_pure(self, node: ast.AST) -> bool:
        return all(self.pure(sub.func) for sub in ast.walk(node) if isinstance(sub, ast.Call))

    def call(self, node: ast.Call, env: dict[str, str]) -> None:
        name = self.target(node.func, env)
        if name is None:
            if isinstance(node.func, ast.Attribute) and self.touches(node.func.value, env):
                raise _Stop("a method of what the program returned")
            if not self.pure(node.func):
                raise _Stop("a call that may reach the program, or change what it sees (a file)")
            self.expr(node.func, env)
            for arg in node.args:
                self.expr(arg, env)
            for kw in node.keywords:
                self.expr(kw.value, env)
            return
        try:
            if any(isinstance(a, ast.Starred) for a in node.args) or any(kw.arg is None for kw in node.keywords):
                raise NotLiftable("unpacking")
            args = wire.dumps([self.literals.literal(a) for a in node.args])
            kwargs = wire.dumps({kw.arg: self.literals.literal(kw.value) for kw in node.keywords})
        except (NotLiftable, wire.WireError, RecursionError, TypeError) as exc:
            raise _Stop(f"a call of the program with arguments computed at run time: {exc}") from None
        self.size += len(canonical(args, kwargs))
        if len(self.calls) >= MAX_CALLS or self.size > MAX_ARGS_CHARS:
            raise _Stop("enough calls")
        self.calls.append((name, args, kwargs))

    # -- statements
    def body(self, stmts: list[ast.stmt], env: dict[str, str]) -> None:
        for stmt in stmts:
            self.statement(stmt, env)

    def statement(self, stmt: ast.stmt, env: dict[str, str]) -> None:
        if isinstance(stmt, ast.Assert):
            self.expr(stmt.test, env)  # the message runs only when the assert fails: the test fails anyway
        elif isinstance(stmt, ast.Expr) and self.plain_test_call(stmt.value):
            self.body(self.defs[stmt.value.func.id].body, dict(env))  # `test_x()` at the end of the file
        elif isinstance(stmt, ast.Expr):
            self.expr(stmt.value, env)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.assignment(stmt, env)
        elif isinstance(stmt, ast.ImportFrom):
            self.import_from(stmt, env)
        elif isinstance(stmt, ast.Import):
            self.import_(stmt, env)
        elif isinstance(stmt, ast.With) and all(self.raises(item.context_expr, env) for item in stmt.items):
            self.with_raises(stmt, env)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.definition(stmt, env)
        elif not self.touches(stmt, env) and self.all_pure(stmt):
            pass  # a loop or branch of the test's own that neither reaches the program nor changes a file
        else:
            raise _Stop(f"a {type(stmt).__name__} statement that reaches the program or may change what it sees")

    def assignment(self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign, env: dict[str, str]) -> None:
        """Its value is walked (unless it binds a module); its names are the test's own from here,
        values the program returned where the value came from the program."""
        alias = self.module_alias(stmt.value) if stmt.value is not None else None
        if alias is None:  # ``fs = os`` binds a module: not a value passed to anything
            self.expr(stmt.value, env)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        from_program = self.touches(stmt.value, env) if stmt.value is not None else False
        for target in targets:
            if not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
                self.expr(target, env)
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    self.forget(sub.id, env)
                    self.local.add(sub.id)
                    if alias is not None and isinstance(target, ast.Name):
                        self.modules[sub.id] = alias
                    elif alias is not None:
                        self.opaque.add(sub.id)
                    if from_program:
                        self.returned.add(sub.id)

    def import_from(self, stmt: ast.ImportFrom, env: dict[str, str]) -> None:
        """``from solution import f`` binds the program's ``f``; a pure module's names are pure."""
        for alias in stmt.names:
            bound = alias.asname or alias.name
            self.forget(bound, env)
            if stmt.module == "solution" and alias.name != "*":
                env[bound] = alias.name
            elif alias.name == "*":
                raise _Stop("a star import")
            elif (stmt.module or "").split(".")[0] in PURE_MODULES and not stmt.level:
                self.pure_names.add(bound)
            else:
                self.local.add(bound)
                self.modules[bound] = f"{stmt.module}.{alias.name}"  # what it is, we cannot say: not pure

    def import_(self, stmt: ast.Import, env: dict[str, str]) -> None:
        for alias in stmt.names:
            bound = alias.asname or alias.name.split(".")[0]
            self.forget(bound, env)
            if alias.name == "solution":
                env[bound] = "solution"
            else:
                self.modules[bound] = alias.name

    def with_raises(self, stmt: ast.With, env: dict[str, str]) -> None:
        """``with pytest.raises(...)``: its block runs up to the first call that raises."""
        for item in stmt.items:
            self.expr(item.context_expr, env)
            for sub in ast.walk(item.optional_vars) if item.optional_vars else ():
                if isinstance(sub, ast.Name):
                    self.forget(sub.id, env)
                    self.local.add(sub.id)
        self.body(stmt.body, env)  # the first call that raises ends the block: a departure, judged again

    def definition(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, env: dict[str, str]) -> None:
        """A function or class of the test's own: kept for when it is called; what runs when it is
        defined (decorators, defaults, annotations, a class body) must reach nothing."""
        if not all(self.decorator(d) for d in stmt.decorator_list):
            raise _Stop("a decorator of the test's own, run when the function is defined")
        if not isinstance(stmt, ast.ClassDef):  # defaults and annotations run when it is defined
            a = stmt.args
            for node in (*a.defaults, *(d for d in a.kw_defaults if d is not None), stmt.returns,
                         *(x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                           if x is not None)):
                if node is not None and (self.touches(node, env) or not self.all_pure(node)
                                         or any(isinstance(n, ast.Name) and self.impure_value(n.id)
                                                for n in ast.walk(node))):
                    raise _Stop("a default or annotation that may reach the program or change what it sees")
        if isinstance(stmt, ast.ClassDef) and not self.all_pure(stmt):
            raise _Stop("a class whose body may call something")
        self.forget(stmt.name, env)
        self.defs[stmt.name] = stmt  # a name defined again keeps its first place, as in a namespace

    def forget(self, name: str, env: dict[str, str]) -> None:
        """``name`` is bound anew: whatever it stood for before is gone."""
        env.pop(name, None)
        for names in (self.local, self.returned, self.pure_names, self.opaque):
            names.discard(name)
        self.modules.pop(name, None)

    @staticmethod
    def decorator(node: ast.expr) -> bool:
        """``@pytest.…`` (the shim's own, which run nothing of the test's)."""
        while isinstance(node, (ast.Call, ast.Attribute)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id == "pytest"

    def plain_test_call(self, node: ast.expr) -> bool:
        """A call, with no arguments, of the test's own undecorated function that takes none."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args and not node.keywords):
            return False
        fn = self.defs.get(node.func.id)
        return (isinstance(fn, ast.FunctionDef) and not fn.decorator_list and not fn.args.args
                and not fn.args.kwonlyargs and not fn.args.vararg and not fn.args.kwarg and not fn.args.posonlyargs)

    @staticmethod
    def raises(node: ast.expr, env: dict[str, str]) -> bool:
        """``pytest.raises(...)`` (whose block a raising call leaves early)."""
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "raises"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "pytest")

    def run_tests(self, env: dict[str, str]) -> None:
        """The pytest shim's runner: every ``test*`` function in definition order, called with no
        arguments (one that takes fixtures or parameters, or is decorated, ends the prediction)."""
        for name, fn in self.defs.items():
            if isinstance(fn, ast.ClassDef):
                if name.startswith("Test"):
                    raise _Stop("a test class (its methods run with setup and teardown)")
                continue
            if not name.startswith("test"):
                continue
            if not self.plain_test_call(ast.Call(func=ast.Name(id=name), args=[], keywords=[])):
                raise _Stop("a test function with fixtures, parameters or marks")
            self.body(fn.body, dict(env))

    def check_call(self, stmt: ast.stmt, env: dict[str, str]) -> bool:
        """``check(f)`` of a ``def check(candidate)`` the test defines (HumanEval's style)."""
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return False
        call = stmt.value
        if not (isinstance(call.func, ast.Name) and isinstance(self.defs.get(call.func.id), ast.FunctionDef)
                and len(call.args) == 1
                and not call.keywords and isinstance(call.args[0], ast.Name)):
            return False
        fn, program = self.defs[call.func.id], self.program_name(call.args[0].id, env)
        params = fn.args.args
        if program is None or fn.decorator_list or len(params) != 1 or fn.args.vararg or fn.args.kwonlyargs:
            return False
        self.body(fn.body, {**env, params[0].arg: program})
        return True


def _shim_test_code(tree: ast.Module) -> str | None:
    """The pytest-style test code inside the shim's ``exec(compile(<code>, 'test_solution.py', ...))``."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                and stmt.value.func.id == "exec" and stmt.value.args:
            inner = stmt.value.args[0]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "compile" \
                    and len(inner.args) >= 2 and all(isinstance(a, ast.Constant) for a in inner.args[:2]) \
                    and inner.args[1].value == SHIM_FILE and isinstance(inner.args[0].value, str):
                return inner.args[0].value
    return None


@lru_cache(maxsize=1024)
def predict(test_code: str, fn_name: str | None = None, prelude: str | None = None) -> tuple[Call, ...]:
    """The literal calls of program names the test makes first, in order (empty: none predicted).
    ``prelude``: the problem's; its names are the judge's (calling one ends the prediction)."""
    judges = prelude_names(prelude)
    if judges is None:
        return ()
    try:
        tree = parse_code(test_code)
        inner = _shim_test_code(tree)
        if inner is not None:
            tree = parse_code(inner)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    predictor = _Predictor(tree, fn_name, shim=inner is not None, prelude=judges)
    env: dict[str, str] = {}
    try:
        for stmt in tree.body:
            if inner is None and predictor.check_call(stmt, env):
                continue
            predictor.statement(stmt, env)
        if inner is not None:
            predictor.run_tests(env)
    except _Stop:
        pass
    except (RecursionError, MemoryError, ValueError):  # ValueError: e.g. a literal past the int limit
        return ()
    return tuple(predictor.calls)


def payload(calls: tuple[Call, ...]) -> str:
    """The predicted calls as the candidate and the judge read them (one JSON text)."""
    return json.dumps([list(c) for c in calls])


def parse(text: str) -> list[Call]:
    """:func:`payload`'s calls back (the fork server's copy: trusted, but checked for shape)."""
    if not text:
        return []
    calls = json.loads(text)
    if not isinstance(calls, list) or not all(isinstance(c, list) and len(c) == 3 and isinstance(c[0], str)
                                              for c in calls):
        raise ValueError("malformed prefetch")
    return [(c[0], c[1], c[2]) for c in calls]

