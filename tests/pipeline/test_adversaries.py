"""Adversaries on real records: sample hardcoders answer the examples and nothing else; AST
mutants compile, differ, are unique, cover several operators and really change behaviour."""

from __future__ import annotations

import ast
import gzip
import json
import math
import re
import subprocess
import sys
from itertools import islice

import pytest

from pipeline.verify.testgen.adversaries import KINDS, hardcoder_assert, hardcoder_call, hardcoder_constant, hardcoder_stdin, mutants

LABEL = re.compile(rf"^({'|'.join(KINDS)})@L\d+$")


# --- real records ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def taco(shared_data) -> list[dict]:
    """TACO stdin problems whose reference passes every parsed example and that print one answer."""
    with open(shared_data / "taco" / "taco_test_stdin_with_examples.jsonl") as handle:
        rows = [json.loads(line) for line in islice(handle, 80)]
    return [r for r in rows if r["examples"] and r["all_examples_pass"] and not r["special_judge"]]


@pytest.fixture(scope="module")
def mbpp(shared_data) -> list[dict]:
    with open(shared_data / "mbpp" / "mbpp.jsonl") as handle:
        return [json.loads(line) for line in islice(handle, 30)]


@pytest.fixture(scope="module")
def livecodebench_functional(shared_data) -> list[dict]:
    rows = json.loads((shared_data / "livecodebench" / "test_livecodebench.json").read_text())
    return [r for r in rows if r["tests"] and r["tests"][0]["testtype"] == "functional"][:5]


@pytest.fixture(scope="module")
def leetcode(shared_data) -> list[dict]:
    with gzip.open(shared_data / "leetcode" / "LeetCodeDataset-v0.2.0-test.jsonl.gz", "rt") as handle:
        return [json.loads(line) for line in islice(handle, 10)]


def lifted_asserts(test_code: str) -> list[tuple[str, tuple, dict, object]]:
    """``assert f(args) == expected`` as (f, args, kwargs, expected), for literal values only."""
    out = []
    for node in ast.walk(ast.parse(test_code)):
        if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
                and isinstance(node.test.ops[0], ast.Eq) and isinstance(node.test.left, ast.Call)):
            continue
        call = node.test.left
        try:
            args = tuple(ast.literal_eval(a) for a in call.args)
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            expected = ast.literal_eval(node.test.comparators[0])
        except ValueError:  # a call (tree_node(...)) or a name: not a plain value
            continue
        out.append((ast.unparse(call.func), args, kwargs, expected))
    return out


# --- sample hardcoders ----------------------------------------------------------------------------


def run_stdin(program: str, given: str) -> str:
    done = subprocess.run([sys.executable, "-c", program], input=given, capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_hardcoder_stdin_answers_taco_examples_and_the_common_output_otherwise(taco):
    rows = [r for r in taco if len(r["examples"]) >= 2][:2] + [r for r in taco if len(r["examples"]) == 1][:1]
    assert len(rows) == 3
    for row in rows:
        examples = [(e["input"], e["output"]) for e in row["examples"]]
        program = hardcoder_stdin(examples)
        for given, expected in examples:
            assert run_stdin(program, given) == expected
        # the same tokens with other whitespace still match the example
        given, expected = examples[0]
        assert run_stdin(program, "  " + "\n\n".join(given.split()) + "  \n") == expected
        outputs = [out for _, out in examples]
        assert run_stdin(program, "987654321 123456789\n") == max(outputs, key=outputs.count)


def test_hardcoder_stdin_ties_and_no_examples():
    program = hardcoder_stdin([("1\n", "a\n"), ("2\n", "b\n"), ("3\n", "b\n"), ("4\n", "a\n")])
    assert run_stdin(program, "5\n") == "a\n"  # a tie goes to the first output seen
    assert run_stdin(hardcoder_stdin([]), "anything\n").strip() == "0"


def test_hardcoder_call_answers_livecodebench_examples(livecodebench_functional):
    assert livecodebench_functional
    for row in livecodebench_functional:
        name = re.search(r"def (\w+)\(self", row["starter_code"]).group(1)
        # LiveCodeBench writes a functional input as one JSON value per argument, a line each
        examples = [("[" + ",".join(t["input"].splitlines()) + "]", t["output"]) for t in row["tests"]]
        namespace: dict = {}
        exec(hardcoder_call(name, examples), namespace)
        function, method = namespace[name], getattr(namespace["Solution"](), name)
        for given, expected in examples:
            args = json.loads(given)
            assert function(*args) == json.loads(expected) and method(*args) == json.loads(expected)
        outputs = [json.dumps(json.loads(out)) for _, out in examples]
        common = json.loads(max(outputs, key=outputs.count))
        assert function("not an example", -1) == common and method([[]]) == common


def test_hardcoder_call_normalises_json_and_defaults_to_zero():
    namespace: dict = {}
    exec(hardcoder_call("Solution().merge", [('[{"b": 1, "a": [1,2]}, 3]', '{"x": [1]}')]), namespace)
    assert namespace["merge"]({"a": [1, 2], "b": 1}, 3) == {"x": [1]}  # key order and spacing do not matter
    assert namespace["Solution"]().merge(object()) == {"x": [1]}  # not JSON: no example, the common answer
    exec(hardcoder_call("f", []), namespace)
    assert namespace["f"](1, 2) == 0 and namespace["Solution"]().f() == 0
    with pytest.raises(ValueError):
        hardcoder_call("not a name", [])


def test_hardcoder_assert_answers_mbpp_examples(mbpp):
    checked = 0
    for row in mbpp[:10]:
        lifted = lifted_asserts("\n".join(row["test_list"]))
        if not lifted or len({f for f, *_ in lifted}) != 1:
            continue
        name = lifted[0][0]
        examples = [(args, kwargs, expected) for _, args, kwargs, expected in lifted]
        namespace: dict = {}
        exec(hardcoder_assert(("function", name), examples), namespace)
        for args, kwargs, expected in examples:
            assert namespace[name](*args, **kwargs) == expected
        by_repr = [repr(e) for *_, e in examples]
        assert repr(namespace[name]("unseen", 10 ** 9)) == max(by_repr, key=by_repr.count)
        checked += 1
    assert checked >= 5


def test_hardcoder_assert_answers_leetcode_keyword_examples(leetcode):
    checked = 0
    for row in leetcode:
        lifted = lifted_asserts(row["test"])
        if not lifted:
            continue
        method = row["entry_point"].rsplit(".", 1)[-1]
        examples = [(args, kwargs, expected) for _, args, kwargs, expected in lifted]
        namespace: dict = {}
        exec(hardcoder_assert(("method", "Solution", method), examples), namespace)
        solution = namespace["Solution"]()
        for args, kwargs, expected in examples:
            assert kwargs and getattr(solution, method)(*args, **kwargs) == expected
        checked += 1
    assert checked >= 5


def test_hardcoder_constant_of_a_kodcode_class_problem_is_rejected_by_its_pytest_tests():
    """KodCode's reference is a class (``CircularQueue(3)``): its hardcoder is a class of the same
    name whose methods answer 0, and the source's pytest tests reject it."""
    from evaluator import evaluate
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs

    rows = process_rows(collect(default_specs()["kodcode"]).kept).kept
    row = next(r for r in rows if r["solutions"][0].startswith("class CircularQueue"))
    program = hardcoder_constant(row["solutions"][0])
    assert program is not None and "class CircularQueue:" in program and "def enQueue(self" in program
    assert not evaluate(program, row["tests"].to_dict()).passed
    assert evaluate(row["solutions"][0], row["tests"].to_dict()).passed


def test_hardcoder_constant_without_a_reference_answers_the_names_the_test_calls():
    """SandboxFusion's OJ problems have no reference: the test calls ``solve()``, so the
    hardcoder defines it, and the tests reject it."""
    from evaluator import evaluate
    from pipeline.process import process_rows
    from pipeline.sources import collect, default_specs
    from pipeline.verify.testgen import hardcoder

    rows = process_rows(collect(default_specs()["sandboxfusion"]).kept).kept
    row = next(r for r in rows if r["source_id"] == "code_eval_rl_train_oj_0328_1707/5")
    assert not row["solutions"]
    program = hardcoder(row)
    assert program is not None and program.startswith("def solve(*args, **kwargs):")
    assert not evaluate(program, row["tests"].to_dict()).passed
    assert hardcoder_constant("", "import io\nx = 1\ndef check(v):\n    return f(v) + len(io.StringIO(v).read())\n") \
        == "def f(*args, **kwargs):\n    return 0\n\n"


def test_hardcoder_assert_keeps_sets_and_skips_values_that_do_not_rebuild():
    examples = [
        (({3, 1, 2},), {"k": frozenset({"a"})}, {frozenset({1, 2}), frozenset()}),
        ((float("nan"),), {}, 1),  # nan != nan: never matchable, skipped
        ((1,), {}, float("inf")),  # repr 'inf' is no literal: skipped
        ((object(),), {}, 2),
        ((2,), {}, [1, None, True, "x", -0.5]),
        ((3,), {}, [1, None, True, "x", -0.5]),
    ]
    program = hardcoder_assert(("function", "f"), examples)
    assert "nan" not in program and "inf" not in program and "object" not in program
    namespace: dict = {}
    exec(program, namespace)
    f = namespace["f"]
    assert f({1, 2, 3}, k=frozenset({"a"})) == {frozenset({1, 2}), frozenset()}
    assert f(2) == [1, None, True, "x", -0.5] and f(99) == [1, None, True, "x", -0.5]
    result = f(99)
    assert result is not f(99)  # a fresh copy: a caller mutating it changes nothing
    assert math.isclose(-0.5, result[-1])
    exec(hardcoder_assert(("method", "Solution", "go"), []), namespace)
    assert namespace["Solution"]().go(1, x=2) == 0
    with pytest.raises(ValueError):
        hardcoder_assert(("lambda",), [])


# --- AST mutants ----------------------------------------------------------------------------------


def check_mutants(code: str, found: list[tuple[str, str]], limit: int) -> None:
    base = ast.unparse(ast.parse(code))
    sources = [source for source, _ in found]
    assert len(found) <= limit and len(set(sources)) == len(sources) and base not in sources
    for source, label in found:
        compile(source, "<mutant>", "exec")
        assert LABEL.match(label), label


def test_mutants_of_real_references_compile_differ_are_unique_and_cover_the_operators(mbpp, taco):
    references = [r["code"] for r in mbpp[:15]] + [r["solution"] for r in taco[:15]]
    kinds: set[str] = set()
    for code in references:
        found = mutants(code, limit=8)
        check_mutants(code, found, 8)
        kinds |= {label.split("@")[0] for _, label in found}
    assert kinds == set(KINDS)
    # one reference, several kinds: MBPP 1 (min cost path) has loops, indices, constants, a return
    one = {label.split("@")[0] for _, label in mutants(mbpp[0]["code"], limit=8)}
    assert len(one) >= 4, one


def test_mutants_are_deterministic_and_respect_the_limit(taco):
    code = taco[0]["solution"]
    assert mutants(code, seed=3) == mutants(code, seed=3)
    assert len(mutants(code, limit=2)) == 2 and mutants(code, limit=0) == []
    assert mutants("def broken(:\n  pass\n") == [] and mutants("") == []


def test_mutants_leave_annotations_strings_imports_and_the_main_guard_alone(leetcode):
    code = (
        "import sys\nfrom typing import List, Dict\n\n"
        "def count(nums: List[int], k: int = 3) -> Dict[int, int]:\n"
        '    """Counts above 2."""\n'
        "    out: Dict[int, int] = {}\n"
        "    for i in range(len(nums)):\n"
        "        if nums[i] > 2:\n"
        "            out[nums[i]] = out.get(nums[i], 0) + k\n"
        "    return out\n\n"
        'if __name__ == "__main__":\n'
        "    sys.setrecursionlimit(10000)\n"
        "    n = int(sys.stdin.readline())\n"
        "    print(count(list(range(n))), 'a' + 'b')\n"
    )
    references = [code] + [row["prompt"] + row["completion"] for row in leetcode[:5]]
    for reference in references:
        found = mutants(reference, limit=50)
        check_mutants(reference, found, 50)
        assert found
        for source, _ in found:
            assert signature(source) == signature(reference)
    found = mutants(code, limit=50)
    assert all("if __name__ == '__main__':" in s and "setrecursionlimit(10000)" in s for s, _ in found)
    assert any("list(range(n - 1))" in s for s, _ in found)  # logic inside the guard is mutated


def signature(code: str) -> tuple[list[str], list[str], list[str]]:
    """What mutants must not touch: annotations, string constants, imports."""
    tree = ast.parse(code)
    annotations = [ast.unparse(n) for node in ast.walk(tree) for n in (
        [a.annotation for a in node.args.args if a.annotation] + [node.returns] if isinstance(node, ast.FunctionDef) and node.returns
        else [node.annotation] if isinstance(node, ast.AnnAssign) else []) if n is not None]
    strings = sorted(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    imports = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    return annotations, strings, imports


TOTAL = "def total(n):\n    s = 0\n    for i in range(1, n + 1):\n        s += 2 ** i\n    return s\n"
FIRST_AT_LEAST = (
    "def first_at_least(xs, t):\n    for j in range(len(xs)):\n        if xs[j] >= t:\n            return j\n"
    "    return len(xs)\n"
)
SIGN = "def sign(x):\n    if x > 0:\n        r = 1\n    elif x == 0:\n        r = 0\n    else:\n        r = -1\n    return r\n"


@pytest.mark.parametrize("code,name,inputs", [
    (TOTAL, "total", [(n,) for n in range(6)]),
    (FIRST_AT_LEAST, "first_at_least", [([1, 5, 2], 4), ([1, 2, 3], 3), ([1, 2], 5), ([7], 1), ([], 0)]),
    (SIGN, "sign", [(x,) for x in range(-2, 3)]),
])
def test_every_mutant_of_a_small_function_behaves_differently(code, name, inputs):
    reference: dict = {}
    exec(code, reference)
    expected = [reference[name](*args) for args in inputs]
    found = mutants(code, limit=50)
    assert len({label.split("@")[0] for _, label in found}) >= 3
    for source, label in found:
        namespace: dict = {}
        exec(source, namespace)
        got = []
        for args in inputs:
            try:
                got.append(namespace[name](*args))
            except Exception as error:  # noqa: BLE001 - a crash (IndexError) is a behaviour too
                got.append(type(error).__name__)
        assert got != expected, f"{label}: equivalent mutant\n{source}"
