"""LeetCodeDataset (newfacade/LeetCodeDataset): ``Solution().method`` problems.

Tests stay in the dataset's own form (``input_output`` with keyword inputs such as
``n = 7, queries = [[1,2]]``, the ``check`` function, the ``prompt`` with imports and helper
classes); Process turns them into positional call cases (format ``leetcode``).

Each record carries two programs: ``completion`` and the code in ``response`` (the dataset's
written-out answer, a different program in 2,053 of 2,090 records). Both are references: the
second is the witness a generated test needs (the ``completion`` of
minimum-right-shifts-to-sort-the-array answers 1 for ``[2, 10, 4]``; its ``response`` answers -1,
as a correct program does), and Verify keeps whichever pass the official tests.
"""

from __future__ import annotations

import ast
from typing import Any

from pipeline.schema import make_row
from pipeline.sources.common import BOOKKEEPING, require_text
from pipeline.sources.loading import FILE_KEY, leftovers, load_records
from pipeline.sources.registry import SourceAdapter, SourceSpec, register_adapter

LICENSE = "MIT"


def load(spec: SourceSpec):
    return load_records(spec)


def _split(record: dict[str, Any], spec: SourceSpec) -> str:
    name = str(record.get(FILE_KEY) or "")
    for split in ("train", "test", "validation"):
        if f"-{split}." in name or name.endswith(f":{split}"):
            return split
    return spec.split


def _references(record: dict[str, Any]) -> list[str]:
    """``completion``, then ``response``'s code where it is another program (not the same one
    with imports added)."""
    from evaluator.reward import extract_code

    out = [record["completion"]] if record.get("completion") else []
    written = extract_code(record.get("response") or "")
    if written and _body(written) != _body(out[0] if out else ""):
        out.append(written)
    return out


def _body(code: str) -> str:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code.strip()
    return ast.dump(ast.Module([s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))], []))


def to_row(record: dict[str, Any], spec: SourceSpec) -> dict[str, Any]:
    meta = record.get("meta") or {}
    statement = require_text(record.get("query") or meta.get("question_title"))
    starter = meta.get("lang_code") or ""
    tests = {
        "input_output": record.get("input_output") or [],
        "entry_point": record.get("entry_point"),
        "signature": record.get("completion") or starter,
        "starter_code": starter,
        "test": record.get("test"),
        "prelude": record.get("prompt") or "",
    }
    extra = leftovers(record, {"query", "input_output", "entry_point", "test", "prompt", "completion", "meta", "task_id"} | BOOKKEEPING)
    extra.update({k: v for k, v in meta.items() if k not in ("difficulty", "lang_code", "question_title")})
    extra["split"] = _split(record, spec)
    # LeetCode's full statement, whose examples and constraints the query leaves out: what makes
    # a test public, and the ranges test generation keeps to (pipeline.process.public)
    examples = "\n".join(f"Input: {e.get('input')}\nOutput: {e.get('output')}"
                         for e in record.get("input_output") or [] if isinstance(e, dict))
    extra["source_statement"] = "\n".join(t for t in (meta.get("question_title") or "", examples) if t)
    return make_row(
        source=spec.name, source_id=record.get("task_id"), statement=statement, starter_code=starter,
        tests=tests, tests_format="leetcode", solutions=_references(record),
        source_difficulty=meta.get("difficulty"), url=f"https://leetcode.com/problems/{record.get('task_id')}/",
        license=LICENSE, metadata=extra,
    )


register_adapter(SourceAdapter("leetcode", LICENSE, load, to_row, "LeetCodeDataset"))
