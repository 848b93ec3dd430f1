"""Model-written input generators and validators (``pipeline.verify.testgen.model_inputs``): sandboxed,
validated, answered by the references like any other input."""

from __future__ import annotations

import dataclasses
import json

import pytest

from evaluator.backend import LocalBackend
from pipeline.paths import shared_data_dir
from pipeline.process import process_rows
from pipeline.samplers import Completion, make_sampler
from pipeline.samplers.base import Sampler
from pipeline.sources import collect, default_specs
from pipeline.verify import VerifyConfig, verify_rows
from pipeline.verify.testgen import TestGenConfig
from pipeline.verify.testgen.model_inputs import MODEL_LABEL, model_inputs, prompt


class Scripted(Sampler):
    """A model that answers every prompt with the same text: the plumbing under test is ours."""

    def __init__(self, text: str) -> None:
        self.text, self.prompts = text, []

    @property
    def model_id(self) -> str:
        return "scripted"

    def generate(self, prompts, n=1, temperature=1.0, max_tokens=256, seed=0):
        self.prompts += list(prompts)
        return [[Completion(self.text, None, 1, "stop")] * n for _ in prompts]


LIST_GENERATOR = """```python
def generate_input(rng):
    n = rng.randint(1, 8)
    return [[rng.randint(1, 50) for _ in range(n)]]

def validate_input(x):
    return isinstance(x, list) and len(x) == 1 and all(1 <= v <= 50 for v in x[0]) and len(x[0]) % 2 == 0
```"""
HOSTILE = """```python
import os
def generate_input(rng):
    os.system("touch /tmp/mc_model_input_escape")
    while True:
        pass
def validate_input(x):
    return True
```"""


@pytest.fixture(scope="module")
def leetcode():
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    return process_rows(collect(default_specs()["leetcode"]).kept).kept


def _list_problem(rows):
    """A LeetCode problem called with one list of ints (what the scripted generator writes)."""
    for row in rows:
        args = json.loads(row["tests"].cases[0].input)
        if len(args) == 1 and isinstance(args[0], list) and args[0] and all(type(v) is int for v in args[0]):
            return row
    pytest.skip("no single-list LeetCode problem")


def test_validated_model_inputs_become_tests(leetcode):
    row = _list_problem(leetcode)
    inputs = model_inputs([row], Scripted(LIST_GENERATOR), n=20, backend=LocalBackend())[0]
    assert inputs and all(label == MODEL_LABEL for _, label in inputs)
    assert all(len(args[0]) % 2 == 0 for (args, _), _ in inputs)  # the validator dropped odd lengths
    # the model's validator judges the mutation inputs too, once it accepts the problem's own inputs
    own = [json.loads(c.input) for c in row["tests"].cases]
    even_or_own = LIST_GENERATOR.replace("def validate_input(x):\n    return ",
                                         f"def validate_input(x):\n    return x in {own!r} or ")
    config = VerifyConfig(generation=TestGenConfig(inputs=10, model_inputs=20, cache=False))
    result = verify_rows([row], config, sampler=Scripted(even_or_own))
    kept = result.kept[0]
    assert kept["generated_tests"] > 0 and json.loads(kept["inputs_invalid"]).get("model_validator", 0) > 0
    hidden = [json.loads(c.input) for c in kept["tests"].cases if not c.public]
    assert hidden and all(len(args[0]) % 2 == 0 for args in hidden)
    assert {c.origin for c in kept["tests"].cases if not c.public} <= {"model", "mutation"}
    assert "Example inputs" in prompt(row) and row["statement"][:40] in prompt(row) and "Constraints" in prompt(row)


def test_a_hostile_generator_is_contained_and_yields_nothing(leetcode, tmp_path):
    row = _list_problem(leetcode)
    assert model_inputs([row], Scripted(HOSTILE), n=5, backend=LocalBackend(), timeout_s=1.0) == [[]]
    import os

    assert not os.path.exists("/tmp/mc_model_input_escape")


def test_model_mode_without_a_model_is_a_clear_error(leetcode):
    config = VerifyConfig(generation=TestGenConfig(model_inputs=5, cache=False))
    with pytest.raises(ValueError, match="sampler"):
        verify_rows(leetcode[:1], config)


@pytest.mark.model
def test_the_cpu_model_writes_generators_end_to_end(leetcode, cpu_model_path):
    rows = [_list_problem(leetcode)]
    with make_sampler("transformers", model=cpu_model_path, device="cpu", num_threads=2) as model:
        config = VerifyConfig(weak_tests="mark", generation=dataclasses.replace(
            TestGenConfig(), inputs=0, model_inputs=8, model_max_tokens=160, cache=False,
            tests_only_in_statement="mark"))
        result = verify_rows(rows, config, sampler=model)
    # SmolLM2 (135M) rarely writes a working generator: the stage must finish and say what it got
    kept = result.kept[0]
    assert kept["generated_tests"] > 0 or kept["generation_note"]
