"""The canonical problem row and canonical tests: one definition for every stage.

Rows travel between stages as plain dicts (datatrove style) and are stored as Parquet with
``PROBLEM_SCHEMA``. Canonical tests are a :class:`Tests` object in a row, parsed once where rows
are read (:func:`rows_from_table`) and written as JSON text only where rows are stored
(:func:`rows_to_table`, :func:`to_storable`). Raw tests in a source's own format stay text until
Process normalizes them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import typing
from typing import Any

import pyarrow as pa

# The canonical tests are the evaluator's contract, defined once there (stdlib only).
from evaluator.model import TEST_KINDS, TEST_ORIGINS, TestCase, Tests  # noqa: F401  (re-exported)

# How a raw row's tests are encoded; Process turns every format into ``canonical``.
CANONICAL_FORMAT = "canonical"


def problem_id(source: str, source_id: str) -> str:
    """Stable id: the same source record always gets the same id, across runs and machines."""
    return hashlib.sha1(f"{source}\x00{source_id}".encode()).hexdigest()[:16]


# Columns every stage carries. Stage columns are appended downstream (see STAGE_FIELDS).
PROBLEM_FIELDS: list[pa.Field] = [
    pa.field("problem_id", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("source_id", pa.string(), nullable=False),
    pa.field("statement", pa.string()),
    pa.field("language", pa.string()),
    pa.field("starter_code", pa.string()),
    pa.field("tests", pa.string()),  # JSON text of Tests (raw: in ``tests_format``)
    pa.field("tests_format", pa.string()),
    pa.field("solutions", pa.list_(pa.string())),
    pa.field("incorrect_solutions", pa.list_(pa.string())),
    pa.field("source_difficulty", pa.string()),
    pa.field("tags", pa.list_(pa.string())),
    pa.field("url", pa.string()),
    pa.field("license", pa.string()),
    pa.field("contest_date", pa.string()),  # ISO 8601 date or datetime, as the source gives it
    pa.field("metadata", pa.string()),  # JSON text: whatever else the source carries
]
PROBLEM_SCHEMA = pa.schema(PROBLEM_FIELDS)

# Columns the Process stage adds.
PROCESS_FIELDS: list[pa.Field] = [
    pa.field("original_statement", pa.string()),  # before translation, when translated
    pa.field("needs_translation", pa.bool_()),
    pa.field("has_images", pa.bool_()),
    pa.field("num_tests", pa.int64()),
]
PROCESSED_SCHEMA = pa.schema(PROBLEM_FIELDS + PROCESS_FIELDS)

@dataclasses.dataclass
class GenerationColumns:
    """What test generation says about one problem: the row's generation columns, declared once
    (their defaults are a problem generation skipped), stored as :func:`generation_fields` derives
    them and read back by :func:`pipeline.verify.report.funnel_by_source`."""

    tests_before_generation: int = 0
    generated_tests: int = 0  # cases (or asserts) Verify added
    generation_note: str | None = None  # why none were added
    oracle_references: int = 0  # references whose answers made the expected outputs
    single_reference_oracle: bool = False
    oracle_disagreements: int = 0  # generated inputs on which references disagreed (dropped)
    oracle_suspects: int = 0  # ... whose answer broke what every example's answer keeps (dropped)
    inputs_invalid: str = "{}"  # JSON {reason: generated inputs the validators refused}
    # the validator's statement rules tested on just-illegal variants of an example (pipeline.verify.testgen.proof):
    # how many refused every variant, and (JSON ["part:name"]) those that let one through, dropped
    validator_rules: int = 0
    validator_rules_dropped: str = "[]"
    oracle_witnesses: int = 0  # sources that can vouch for a generated answer
    single_witness_tests: int = 0  # generated tests kept whose answer rests on one witness only
    mutants_run: int = 0
    mutants_equivalent: int = 0  # no generated input tells them from the reference
    mutation_score_before: float | None = None  # share of the other mutants the source's tests reject
    mutation_score: float | None = None  # ... that the final tests reject
    # JSON [[input, answer, how made]], each in its test kind's encoding (stdin: the text; a call: its
    # Python literal): answered inputs not selected, for the difficulty stage's differential round
    # (pipeline.verify.testgen.differential); not released
    reserve_inputs: str = "[]"

    def columns(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_ARROW = {int: pa.int64(), bool: pa.bool_(), str: pa.string(), float: pa.float64()}


def generation_fields() -> list[pa.Field]:
    """The Arrow fields of :class:`GenerationColumns`, in its order: each declared type's storage
    (``X | None`` is a nullable ``X``)."""
    hints = typing.get_type_hints(GenerationColumns)
    out = []
    for f in dataclasses.fields(GenerationColumns):
        base = [t for t in typing.get_args(hints[f.name]) if t is not type(None)] or [hints[f.name]]
        out.append(pa.field(f.name, _ARROW[base[0]]))
    return out


# Columns the Verify stage adds.
VERIFY_FIELDS: list[pa.Field] = [
    pa.field("verified", pa.bool_()),
    pa.field("references_run", pa.int64()),
    pa.field("references_passed", pa.int64()),
    pa.field("references_passed_after_drop", pa.int64()),
    pa.field("num_dropped_tests", pa.int64()),
    pa.field("dropped_tests", pa.string()),  # JSON list of the dropped cases
    pa.field("verify_time_s", pa.float64()),
    pa.field("multiple_answers", pa.bool_()),  # references disagree; kept only with a checker
    pa.field("reference_cpu_s", pa.float64()),  # slowest passing reference, slowest case: gives tests.time_limit_s
    pa.field("incorrect_run", pa.int64()),  # known-incorrect programs run on the verified tests
    pa.field("incorrect_rejected", pa.int64()),
    pa.field("test_strength", pa.float64()),  # rejected / run; null when the problem has no wrong programs
    pa.field("incorrect_survivors", pa.string()),  # JSON list of incorrect_solutions indices the tests accept
    pa.field("labelled_correct_run", pa.int64()),  # programs the source labels correct (KodCode's passing attempts)
    pa.field("labelled_correct_accepted", pa.int64()),  # ... that the final tests accept
    pa.field("weak_tests", pa.bool_()),  # some known-incorrect program passes (kept only with weak_tests="mark")
    pa.field("reward_ms_before", pa.float64()),  # judging a passing reference on the source's tests, ms
    pa.field("reward_ms", pa.float64()),  # ... on the released tests: what one reward costs
    *generation_fields(),  # test generation's (GenerationColumns, above)
    pa.field("hardcoder_rejected", pa.bool_()),  # a program memorising the public examples fails
    pa.field("tests_only_in_statement", pa.bool_()),  # kept only with tests_only_in_statement="mark"
]
VERIFIED_SCHEMA = pa.schema(PROBLEM_FIELDS + PROCESS_FIELDS + VERIFY_FIELDS)

# Columns of the released dataset beyond verification.
DATASET_FIELDS: list[pa.Field] = [
    pa.field("pass_rate", pa.float64()),
    pa.field("difficulty", pa.string()),
    pa.field("difficulty_model", pa.string()),
    pa.field("split", pa.string()),
    # per entry of ``solutions``: "source", or "model:<model>" for a model's sample that passed every
    # test of a problem none of whose source's references did (pipeline.model_references)
    pa.field("solution_origins", pa.list_(pa.string())),
    pa.field("differential_added", pa.int64()),  # tests the difficulty stage's differential round added
]
# Columns one stage leaves for a later one and the release leaves out (pipeline.shards drops them).
INTERNAL_COLUMNS: tuple[str, ...] = ("reserve_inputs",)
DATASET_SCHEMA = pa.schema([f for f in PROBLEM_FIELDS + PROCESS_FIELDS + VERIFY_FIELDS if f.name not in INTERNAL_COLUMNS]
                           + DATASET_FIELDS)

REJECT_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("source_id", pa.string()),
        pa.field("problem_id", pa.string()),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("detail", pa.string()),
        pa.field("record", pa.string()),  # the record as JSON text, so nothing is lost
    ]
)

# The difficulty stage's problems (``pipeline.difficulty.score_problems``): the verified columns (the tests
# as the differential round grew them), the model's pass rate, and its passing sample (not released).
SCORED_SCHEMA = pa.schema(PROBLEM_FIELDS + PROCESS_FIELDS + VERIFY_FIELDS
                          + [f for f in DATASET_FIELDS if f.name in ("pass_rate", "difficulty", "difficulty_model",
                                                                     "differential_added")]
                          + [pa.field("model_solution", pa.string())])  # a sample that passed every test
# The released files: one row per shard (canonical layout) or per split (verl's layout).
MANIFEST_SCHEMA = pa.schema([pa.field("split", pa.string()), pa.field("layout", pa.string()), pa.field("path", pa.string())])

LIST_COLUMNS = ("solutions", "incorrect_solutions", "tags")


def row_metadata(row: dict[str, Any]) -> dict[str, Any]:
    """The row's ``metadata`` column as a dict (JSON text in storage; {} when absent or not an object)."""
    value = row.get("metadata")
    if isinstance(value, str):
        try:
            value = json.loads(value or "{}")
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def num_tests(row: dict[str, Any]) -> int:
    """The row's test count: ``num_tests`` from Process, else counted from its canonical tests."""
    value = row.get("num_tests")
    if value is not None:
        return int(value)
    tests = row.get("tests")
    if isinstance(tests, str) and row.get("tests_format", CANONICAL_FORMAT) == CANONICAL_FORMAT:
        raise TypeError("canonical tests as JSON text: read rows with pipeline.schema.rows_from_table")
    return tests.count if isinstance(tests, Tests) else 0  # raw tests in a source format: none canonical yet


def make_row(source: str, source_id: Any, **fields: Any) -> dict[str, Any]:
    """A canonical row with every schema column present; unknown keys are an error."""
    unknown = set(fields) - set(PROBLEM_SCHEMA.names)
    if unknown:
        raise KeyError(f"not canonical columns: {sorted(unknown)}")
    sid = str(source_id)
    row: dict[str, Any] = {name: None for name in PROBLEM_SCHEMA.names}
    row.update(problem_id=problem_id(source, sid), source=source, source_id=sid)
    for name in LIST_COLUMNS:
        row[name] = []
    tests = fields.pop("tests", None)
    if isinstance(tests, (dict, list)):  # raw tests in a source's format: text until Process

        tests = json.dumps(tests, ensure_ascii=False)
    row["tests"] = tests
    metadata = fields.pop("metadata", None)
    if metadata is not None and not isinstance(metadata, str):
        metadata = json.dumps(metadata, ensure_ascii=False, default=str)
    row["metadata"] = metadata
    for name in LIST_COLUMNS:
        if name in fields:
            fields[name] = [str(v) for v in (fields[name] or []) if v is not None]
    row.update(fields)
    if row["tests_format"] is None:
        row["tests_format"] = CANONICAL_FORMAT
    return row


def rows_to_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows to an Arrow table; columns beyond ``schema`` are kept with inferred types."""
    if not rows:
        return schema.empty_table()
    extra = [k for k in rows[0] if k not in schema.names]
    names = list(schema.names) + extra
    columns = {n: [r.get(n) for r in rows] for n in names}
    if "tests" in columns:
        columns["tests"] = [t.to_json() if isinstance(t, Tests) else t for t in columns["tests"]]
    arrays = [pa.array(columns[f.name], type=f.type) for f in schema]
    fields = list(schema)
    for name in extra:
        arr = pa.array(columns[name])
        arrays.append(arr)
        fields.append(pa.field(name, arr.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def to_storable(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its tests as JSON text: what a writer stores (Parquet, JSON, a reject's record)."""
    tests = row.get("tests")
    return {**row, "tests": tests.to_json()} if isinstance(tests, Tests) else row


def rows_from_table(table: pa.Table) -> list[dict[str, Any]]:
    """Stored rows back to plain rows, canonical tests parsed into :class:`Tests` (once, here)."""
    rows = table.to_pylist()
    if "tests" in table.column_names:
        for row in rows:
            text = row.get("tests")
            if isinstance(text, str) and row.get("tests_format", CANONICAL_FORMAT) == CANONICAL_FORMAT:
                row["tests"] = Tests.from_json(text)
    return rows
