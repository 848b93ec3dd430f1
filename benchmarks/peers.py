"""The harnesses users would pick instead of ours, run on the same programs and tests.

- ``lcb``: LiveCodeBench's ``lcb_runner.evaluation.compute_code_generation_metrics.check_correctness``
  (``testing_util.run_test`` in a forked process per program, a ``Manager`` for the result);
- ``rllm``: rLLM/DeepCoder's code reward, ``rllm.rewards.code_reward.rllm_reward_fn_code``, with
  the data source that routes each kind where rLLM routes it: stdin to its TACO path, call tests
  to its LiveCodeBench path, ``assert`` blocks to its HumanEval+ runner (a fresh ``python3`` on the
  code and the test, given the per-test limit for each assert; its wrapper reads that count from
  EvalPlus's ``inputs = [...]`` and fails on any other test code, and its LeetCode path needs
  firejail, which is not installed here);
- ``prime_code``: verl's ``verl.utils.reward_score.prime_code.compute_score`` (APPS'
  ``testing_util``), from the verl release in ``.venv-train``, called as verl's
  ``default_compute_score`` calls it (``continuous=True``; a score of 1.0 is a pass).

None of their code is kept in this repository: LiveCodeBench and rLLM come from a checkout the user
names (``--lcb``, ``--rllm``; docs/evaluator.md gives the commits measured), verl from its PyPI release.
Each peer gets our canonical tests in its own format (:func:`io_tests`): LiveCodeBench and verl run
stdin and call tests only, so an ``assert`` block reaches them only where every assert is
``entry(literals) == literal`` (read through :mod:`evaluator.asserts.lift`, as test generation reads them);
any other block is counted as unsupported for that peer, never guessed.

Run as a script under the interpreter that has the peer's imports:
``python benchmarks/peers.py PEER CHECKOUT WORKERS TIMEOUT < items.jsonl > results.jsonl``, or
``python benchmarks/peers.py --cost CHECKOUT N``: LiveCodeBench's cost per ``stdin`` test, in parts.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
import types
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
Judge = Callable[[dict, float], bool]


def _entry_calls(tests: dict) -> tuple[str, list[tuple[list, Any]]] | None:
    """An ``assert`` block as (function name, [(args, expected)]): only when every check is
    ``entry(literal args) == literal`` on one entry (a function, or a method of ``Solution()``)."""
    from evaluator.asserts import lift
    from evaluator.model import as_tests

    plan = lift.lift(as_tests(tests).assert_block(), tests.get("fn_name"))
    if plan is None or not plan.checks:
        return None
    name, cases = None, []
    for check in plan.checks:
        test = check.test
        if test[0] != "cmp" or test[1] != "Eq" or test[2][0] != "step" or test[3][0] != "lit":
            return None
        step = plan.steps[test[2][1]]
        if step.op != "call" or step.kwargs:
            return None
        target = plan.steps[step.ref]
        if target.op == "name":
            fn = target.name
        elif target.op == "getattr" and plan.steps[target.ref].op == "call" \
                and plan.steps[plan.steps[target.ref].ref].name == "Solution":
            fn = target.name
        else:
            return None
        if name not in (None, fn):
            return None
        name = fn
        cases.append((list(step.args), test[3][1]))
    return name, cases


def io_tests(tests: dict) -> dict | None:
    """Our canonical tests as APPS/LiveCodeBench ``input_output`` (``inputs``, ``outputs``, and
    ``fn_name`` for call tests: each input one JSON argument a line, each output JSON), or None
    where the format cannot say what the tests say."""
    kind = tests["kind"]
    if kind == "stdin":
        return {"inputs": [c["input"] for c in tests["cases"]], "outputs": [c["output"] for c in tests["cases"]]}
    if kind == "call":
        cases = [(json.loads(c["input"]), json.loads(c["output"])) for c in tests["cases"]]
        name = tests["fn_name"]
    else:
        found = _entry_calls(tests)
        if found is None:
            return None
        name, cases = found
    try:
        return {"fn_name": name, "inputs": ["\n".join(json.dumps(a) for a in args) for args, _ in cases],
                "outputs": [json.dumps(out) for _, out in cases]}
    except (TypeError, ValueError):  # a set, a tuple key, an object: JSON cannot carry it
        return None


def program(item: dict) -> str:
    """The program as a peer runs it: the tests' prelude (LeetCode's helper classes) first."""
    prelude = item["tests"].get("prelude") or ""
    return f"{prelude}\n{item['code']}" if prelude else item["code"]


def _package(name: str, path: Path) -> None:
    """Register ``name`` as a package at ``path`` without running its ``__init__`` (which pulls in
    what a reward function does not use: agents, trainers, API clients)."""
    module = types.ModuleType(name)
    module.__path__ = [str(path)]
    sys.modules[name] = module


def lcb(checkout: Path) -> Judge:
    sys.path.insert(0, str(checkout))
    from lcb_runner.evaluation.compute_code_generation_metrics import check_correctness

    def judge(item: dict, timeout: float) -> bool:
        io = io_tests(item["tests"])
        sample = {"input_output": json.dumps(io)}
        result, _ = check_correctness(sample, program(item), timeout=int(timeout), debug=False)
        return all(r is True or r == 1 for r in result) and len(result) == len(io["inputs"])

    return judge


def rllm(checkout: Path) -> Judge:
    _package("rllm", checkout / "rllm")
    _package("rllm.rewards", checkout / "rllm" / "rewards")
    for stub, cls in (("rllm.tools.code_tools.code_tool", "CodeTool"), ("rllm.tools.code_tools.together_tool", "TogetherCodeTool")):
        module = types.ModuleType(stub)  # only its Together.ai path uses these; never taken here
        setattr(module, cls, type(cls, (), {}))
        sys.modules[stub] = module
    from rllm.rewards.code_reward import clean_code_main_block, rllm_reward_fn_code
    from rllm.rewards.code_utils import humanevalplus

    def judge(item: dict, timeout: float) -> bool:
        tests, code = item["tests"], program(item)
        if tests["kind"] == "stdin":
            source, truth = "taco", io_tests(tests)
        elif tests["kind"] == "call":
            io = io_tests(tests)
            source = "livecodebench"
            truth = [{"input": i, "output": o, "testtype": "functional", "metadata": {"func_name": io["fn_name"]}}
                     for i, o in zip(io["inputs"], io["outputs"])]
        else:  # its HumanEval+ runner, the whole block given the per-test limit for each assert
            ok, _ = humanevalplus.run_test(clean_code_main_block(code), tests["assert_code"],
                                           timeout * max(1, tests["assert_code"].count("assert ")))
            return bool(ok)
        return bool(rllm_reward_fn_code(source, f"```python\n{code}\n```", truth).is_correct)

    return judge


def prime_code(site_packages: Path) -> Judge:
    path = site_packages / "verl" / "utils" / "reward_score" / "prime_code"
    spec = importlib.util.spec_from_file_location("prime_code", path / "__init__.py", submodule_search_locations=[str(path)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["prime_code"] = module
    spec.loader.exec_module(module)

    def judge(item: dict, timeout: float) -> bool:
        score, _ = module.compute_score(f"```python\n{program(item)}\n```", io_tests(item["tests"]), continuous=True)
        return score is True or score == 1.0

    return judge


PEERS: dict[str, tuple[Callable[[Path], Judge], frozenset[str]]] = {
    "lcb": (lcb, frozenset({"stdin", "call", "assert-as-calls"})),
    "rllm": (rllm, frozenset({"stdin", "call", "assert"})),
    "prime_code": (prime_code, frozenset({"stdin", "call", "assert-as-calls"})),
}


def supports(peer: str, tests: dict) -> bool:
    kinds = PEERS[peer][1]
    if tests["kind"] in kinds:
        return tests["kind"] != "call" or io_tests(tests) is not None
    return tests["kind"] == "assert" and "assert-as-calls" in kinds and io_tests(tests) is not None


ECHO = "print(input())\n"


def _cpu_ms(run: Callable[[], object], n: int) -> float:
    """CPU ms of this process and its reaped children, a run of ``run``, over ``n`` runs."""
    import resource

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    start = cpu()
    for _ in range(n):
        run()
    return (cpu() - start) / n * 1000


def lcb_stdin_cost(checkout: Path, n: int) -> dict[str, float]:
    """LiveCodeBench's cost per ``stdin`` test, in parts, on an echo program (CPU ms): its test
    loop (``grade_stdio``: every test in one process), the mocks that feed a test's input, the
    capture of its output, the comparison, and the program's process start, once a program
    (``check_correctness``'s ``Manager`` and forked process). Why here: it imports their code."""
    import multiprocessing

    sys.path.insert(0, str(checkout))
    from lcb_runner.evaluation import testing_util as tu

    given, want = "7\n", "7\n"
    method = tu.get_function(tu.compile_code(tu.make_function(tu.clean_if_name(ECHO)), 6), "wrapped_function")

    def captured() -> None:
        with tu.Capturing() as out:
            print(want, end="")
        tu.get_stripped_lines(out[0])

    def compared() -> None:
        for a, b in zip(tu.get_stripped_lines(want), tu.get_stripped_lines(want)):
            if a != b:
                tu.convert_line_to_decimals(a)

    def started() -> None:  # what check_correctness starts for each program, and the guard it runs there
        manager = multiprocessing.Manager()
        result = manager.list()
        proc = multiprocessing.Process(target=result.append, args=(True,))
        proc.start()
        proc.join()
        manager.shutdown()

    whole = _cpu_ms(lambda: tu.grade_stdio(ECHO, [given] * n, [want] * n, 6), 3) / n
    parts = {"feeding input (mocked stdin, patched)": _cpu_ms(lambda: tu.call_method(lambda: None, given), n),
             "reading output (captured stdout)": _cpu_ms(captured, n),
             "comparison": _cpu_ms(compared, n)}
    program = _cpu_ms(lambda: tu.call_method(method, given), n) - parts["feeding input (mocked stdin, patched)"]
    return {**parts, "the harness per test": whole - program, "whole test": whole,
            "process start, a program": _cpu_ms(started, 10)}


_judge: Judge | None = None


def _start(peer: str, where: str) -> None:
    global _judge
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    _judge = PEERS[peer][0](Path(where))


def _one(item: dict, timeout: float) -> dict:
    start = time.perf_counter()
    try:
        passed = _judge(item, timeout)
    except Exception as exc:  # noqa: BLE001 - a peer's own crash counts as a fail, reported
        return {"id": item["id"], "passed": False, "error": repr(exc)[:200], "seconds": time.perf_counter() - start}
    return {"id": item["id"], "passed": passed, "seconds": time.perf_counter() - start}


def main() -> None:
    if sys.argv[1] == "--cost":  # python peers.py --cost CHECKOUT N: LiveCodeBench's stdin parts, as JSON
        out = sys.stdout
        sys.stdout = open(os.devnull, "w")
        cost = lcb_stdin_cost(Path(sys.argv[2]), int(sys.argv[3]))
        out.write(json.dumps(cost) + "\n")
        return
    peer, where, workers, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    items = [json.loads(line) for line in sys.stdin]
    out = sys.stdout
    sys.stdout = open(os.devnull, "w")  # the peers print their debugging; only results go out
    with ProcessPoolExecutor(workers, initializer=_start, initargs=(peer, where)) as pool:
        list(pool.map(time.sleep, [0.2] * workers))  # its workers start (and import the peer) before the clock, as ours do
        start = time.perf_counter()
        results = list(pool.map(_one, items, [timeout] * len(items), chunksize=1))
        wall = time.perf_counter() - start
    for r in results:
        out.write(json.dumps(r) + "\n")
    out.write(json.dumps({"wall_s": wall}) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
