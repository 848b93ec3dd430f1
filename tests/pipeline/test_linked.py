"""LeetCode's ListNode/TreeNode asserts grow hidden tests (pipeline.verify.testgen.asserts.linked), on real records."""

from __future__ import annotations

import pytest

from evaluator import evaluate
from pipeline.paths import shared_data_dir
from pipeline.process import process_rows
from pipeline.sources import collect, default_specs
from pipeline.verify import VerifyConfig, verify_rows
from pipeline.verify.testgen import TestGenConfig
from pipeline.verify.testgen.asserts import linked


@pytest.fixture(scope="module")
def node_problems() -> dict[str, dict]:
    if shared_data_dir() is None:
        pytest.skip("no ../shared/data on this machine")
    rows = process_rows(collect(default_specs()["leetcode"]).kept).kept
    return {r["source_id"]: r for r in rows if r["tests"].kind == "assert"}


def test_every_node_block_reads_as_plain_examples(node_problems):
    assert len(node_problems) >= 100
    shaped = {sid: linked.examples(r["tests"]) for sid, r in node_problems.items()}
    assert all(shaped.values())
    entry, shape, examples = shaped["add-two-numbers"]
    assert entry == ("method", "Solution", "addTwoNumbers")
    assert shape.built == (("l1", "list"), ("l2", "list")) and shape.answer == "list"
    assert examples[0] == ((), {"l1": [2, 4, 3], "l2": [5, 6, 4]}, [7, 0, 8])
    _, tree_shape, tree_examples = shaped["binary-tree-inorder-traversal"]
    assert tree_shape.built == (("root", "tree"),) and tree_shape.answer is None
    assert tree_examples[0][1] == {"root": [1, None, 2, 3]}


def test_the_linked_kind_claims_the_node_blocks_and_no_other(node_problems):
    """Generation's strategy for a row (kinds.kind_for): LeetCode's node asserts are the ``linked``
    kind's, an assert block that lifts into calls stays the ``assert`` kind's."""
    from pipeline.schema import Tests
    from pipeline.verify.testgen import kind_for, register_kind

    assert {kind_for(r["tests"]).name for r in node_problems.values()} == {"linked"}
    plain = Tests("assert", assert_code="assert add(1, 2) == 3\nassert add(2, 2) == 4\n", fn_name="add")
    assert kind_for(plain).name == "assert"
    with pytest.raises(ValueError, match="registered twice"):
        register_kind("linked")(type(kind_for(plain)))


def test_the_rendered_assert_is_the_datasets_own_form():
    shape = linked.Shape("addTwoNumbers", (("l1", "list"), ("l2", "list")), "list")
    line = linked.render(("method", "Solution", "addTwoNumbers"), shape, (), {"l1": [1], "l2": [2]}, [3], "mutation:x")
    assert line == ("assert is_same_list(Solution().addTwoNumbers(l1 = list_node([1]), l2 = list_node([2])), "
                    "list_node([3]))  # generated: mutation:x")
    assert linked.render(("method", "Solution", "f"), linked.Shape("f", (("root", "tree"),), None),
                         (), {"root": [1]}, [0.5], "x") is None  # a float inside a list: no exact literal


@pytest.mark.parametrize("problem", ["add-two-numbers", "rotate-list", "validate-binary-search-tree"])
def test_node_problems_get_hidden_tests_that_reject_more_mutants(node_problems, problem):
    row = node_problems[problem]
    config = VerifyConfig(generation=TestGenConfig(inputs=30, max_tests=20, mutants=8, cache=False,
                                                   tests_only_in_statement="reject"))
    result = verify_rows([row], config)
    assert not result.rejects  # before: only the statement's examples, rejected tests_only_in_statement
    verified = result.kept[0]
    assert verified["generated_tests"] >= 10 and verified["tests"].hidden_count >= 10
    assert verified["hardcoder_rejected"] is True
    assert verified["mutation_score"] >= verified["mutation_score_before"]
    assert evaluate(row["solutions"][0], verified["tests"].to_dict()).passed
    lines = [ln for ln in verified["tests"].assert_code.splitlines() if "# generated:" in ln]
    assert all(ln.startswith("assert is_same_list(Solution().") or ln.startswith("assert Solution().")
               for ln in lines)


def test_a_mutant_the_examples_let_through_is_caught(node_problems):
    """validate-binary-search-tree: the statement's three examples reject half the mutants."""
    row = node_problems["validate-binary-search-tree"]
    verified = verify_rows([row], VerifyConfig(generation=TestGenConfig(cache=False))).kept[0]
    assert verified["mutation_score_before"] < 1.0 <= verified["mutation_score"] + 1e-9
