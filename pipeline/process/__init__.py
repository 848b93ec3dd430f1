"""Process stage: raw canonical rows -> processed rows (PROCESSED_SCHEMA) + rejects.

Datatrove style: a list of small ``step(row) -> row`` functions (``steps.DEFAULT_STEPS``)
runs over plain dicts (``pipeline.stage.run_steps``); a step raises ``Rejected`` to reject.
Translation of non-English statements runs afterwards as one batched pass over all rows that
need it, because a model sampler is efficient only on batches. One bad row never sinks the run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from pipeline.process.steps import DEFAULT_STEPS
from pipeline.process.translate import Translator
from pipeline.schema import PROCESSED_SCHEMA
from pipeline.stage import PROCESS, Row, StageResult, Step, error_summary, reject, run_steps

__all__ = ["DEFAULT_STEPS", "Translator", "process_rows"]


def _with_process_columns(row: Row) -> Row:
    out = {name: row.get(name) for name in PROCESSED_SCHEMA.names}
    out["original_statement"] = row.get("original_statement")
    out["needs_translation"] = bool(row.get("needs_translation"))
    out["has_images"] = bool(row.get("has_images"))
    return out


def process_rows(
    rows: Iterable[Row],
    *,
    translator: Translator | None = None,
    steps: Sequence[Step] | None = None,
    max_translations: int | None = None,
) -> StageResult:
    """Every row becomes a processed row or a reject with its reason; none is lost.

    Rows whose statement is not English are translated in one batched pass per source
    language when ``translator`` is given (``original_statement`` keeps the original);
    without one they are rejected with reason ``needs_translation`` (the full row kept).
    ``max_translations`` caps how many statements the translator gets (a small model on a CPU
    translates a sample; the rest are rejected with ``needs_translation`` as well): the shortest
    first, the most statements for the compute, and the ones a translation's token budget can hold.
    """
    steps = DEFAULT_STEPS if steps is None else steps
    stepped = run_steps(rows, (*steps, _with_process_columns), PROCESS)
    result = StageResult(rejects=stepped.rejects)
    foreign: dict[str, list[Row]] = defaultdict(list)
    for out in stepped.kept:
        if out["needs_translation"]:
            foreign[out["language"]].append(out)
        else:
            result.kept.append(out)
    budget = max_translations
    for language, pending in foreign.items():
        if translator is not None and budget is not None:
            pending = sorted(pending, key=lambda row: len(row["statement"]))
            pending, over = pending[:budget], pending[budget:]
            budget -= len(pending)
            for out in over:
                result.rejects.append(reject(PROCESS, out, "needs_translation", f"statement language {language!r}, beyond max_translations={max_translations}"))
        if translator is None:
            for out in pending:
                result.rejects.append(reject(PROCESS, out, "needs_translation", f"statement language {language!r}, no translator configured"))
            continue
        if pending:
            _translate_batch(pending, language, translator, result)
    return result.count(stepped.stats.input, translated=sum(1 for r in result.kept if r.get("original_statement")))


def _translate_batch(pending: list[Row], language: str, translator: Translator, result: StageResult) -> None:
    """One batched translator call for all ``pending`` rows of one source language."""
    from pipeline.process.translate import TranslationError

    try:
        translations: list[str | None] = list(translator.translate([r["statement"] for r in pending], language))
    except Exception as err:  # noqa: BLE001 - a failing backend rejects its rows, nothing more
        for out in pending:
            result.rejects.append(reject(PROCESS, out, "translation_failed", error_summary(err)))
        return
    if len(translations) != len(pending):
        for out in pending:
            result.rejects.append(reject(PROCESS, out, "translation_failed", f"{len(translations)} translations for {len(pending)} texts"))
        return
    for out, text in zip(pending, translations):
        if isinstance(text, TranslationError) or not text or not str(text).strip():
            result.rejects.append(reject(PROCESS, out, "translation_failed", str(text or "empty translation")))
            continue
        out["original_statement"] = out["statement"]
        out["statement"] = text
        out["language"] = "en"
        out["needs_translation"] = False
        result.kept.append(out)
