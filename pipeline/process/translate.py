"""Translation of non-English statements through a model sampler.

A statement is more than prose: code, numbers, formulas and sample I/O must survive the
translation byte for byte, and small models love to "fix" them. So ``protect`` swaps each of
them for a placeholder token (``[[P3]]``) before the text goes to the model and ``restore``
puts the originals back; a translation that lost a placeholder is rejected rather than kept
with silently damaged examples.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pipeline.samplers.base import Sampler

LANGUAGE_NAMES = {
    "zh": "Chinese", "ru": "Russian", "ja": "Japanese", "ko": "Korean", "uk": "Ukrainian",
    "es": "Spanish", "fr": "French", "de": "German", "pt": "Portuguese", "it": "Italian",
    "vi": "Vietnamese", "pl": "Polish", "tr": "Turkish", "bg": "Bulgarian",
}


# Tokens a translation may take beyond its source's character count (a heading, a closing line).
OUTPUT_MARGIN_TOKENS = 64


class TranslationError(Exception):
    """One text could not be translated faithfully (e.g. the model dropped a placeholder)."""


@runtime_checkable
class Translator(Protocol):
    """Translates a batch of texts of one source language into English.

    Returns one entry per input text, in order: the translation, or a ``TranslationError``
    for a text that failed (the Process stage rejects that row with its message).
    """

    def translate(self, texts: list[str], source_lang: str) -> list[str]: ...


# What must not be translated, most specific first: fenced code, inline code, math, URLs,
# lines without letters (sample input/output, tables of numbers), identifiers, numbers.
_PROTECT = re.compile(
    r"```.*?(?:```|\Z)"
    r"|`[^`\n]+`"
    r"|\$\$?[^$]+?\$\$?"
    r"|https?://\S+"
    r"|^[^\w\n]*[\d\W_]*\d[\d\W_]*$"  # a line of numbers/symbols only
    r"|\b[A-Za-z_]\w*(?:\([^()\n]*\)|\[[^\]\n]*\])+"  # calls and indexing: f(2, 8), a[i]
    r"|\b[A-Za-z]+_\w*|\b[a-z]+[A-Z]\w*"  # snake_case / camelCase identifiers
    r"|\b(?:True|False|None)\b"
    r"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?",
    re.S | re.M,
)
_PLACEHOLDER = re.compile(r"\[\[\s*P(\d+)\s*\]\]")


def protect(text: str) -> tuple[str, list[str]]:
    """``text`` with code/numbers/examples replaced by ``[[Pi]]``; the originals in order."""
    kept: list[str] = []

    def swap(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"[[P{len(kept) - 1}]]"

    return _PROTECT.sub(swap, text), kept


def restore(text: str, kept: list[str]) -> str:
    """Put the protected pieces back; every placeholder must come back exactly once."""
    seen: list[int] = [int(m.group(1)) for m in _PLACEHOLDER.finditer(text)]
    if sorted(seen) != list(range(len(kept))):
        missing = sorted(set(range(len(kept))) - set(seen))
        extra = sorted(set(seen) - set(range(len(kept))))
        raise TranslationError(f"placeholders lost {missing[:10]} or invented {extra[:10]}")
    return _PLACEHOLDER.sub(lambda m: kept[int(m.group(1))], text)


PROMPT = (
    "Translate this programming problem statement from {language} into English.\n"
    "Tokens like [[P0]] stand for code, numbers and examples: copy each of them unchanged, "
    "exactly once, where it belongs. Reply with the English translation only.\n\n"
    "{text}"
)

_PREAMBLE = re.compile(r"\A\s*(?:Here is the (?:English )?translation[^\n]*:|Translation:|English:)\s*", re.I)


def _first_completion(item: Any) -> str:
    """Samplers return either one string per prompt or a list of ``n`` strings per prompt."""
    if isinstance(item, str):
        return item
    if isinstance(item, Sequence) and item:
        return _first_completion(item[0])
    text = getattr(item, "text", None)
    if isinstance(text, str):
        return text
    raise TranslationError(f"unexpected completion type {type(item).__name__}")


@dataclass
class SamplerTranslator:
    """A :class:`Translator` over a model sampler: protected prompts, greedy, batched."""

    sampler: Sampler
    batch_size: int = 16
    max_tokens: int = 2048
    temperature: float = 0.0
    seed: int = 0
    prompt: str = PROMPT

    def build_prompt(self, protected_text: str, source_lang: str) -> str:
        return self.prompt.format(language=LANGUAGE_NAMES.get(source_lang, source_lang), text=protected_text)

    def output_budget(self, protected_texts: list[str]) -> int:
        """Tokens a batch may generate: ``max_tokens``, or fewer for short texts.

        A faithful English translation has fewer tokens than its source has characters (a CJK
        character is under one English word; a word of a Latin-script language is several
        characters), so past that bound a model is looping, and the placeholder check would reject
        what it wrote anyway. On a CPU the loop is most of the stage's time.
        """
        longest = max(len(text) for text in protected_texts)
        return min(self.max_tokens, longest + OUTPUT_MARGIN_TOKENS)

    def translate(self, texts: list[str], source_lang: str) -> list[str]:
        protected = [protect(t) for t in texts]
        out: list[Any] = []
        for start in range(0, len(protected), self.batch_size):
            batch = protected[start : start + self.batch_size]
            masked = [text for text, _ in batch]
            prompts = [self.build_prompt(text, source_lang) for text in masked]
            completions = self.sampler.generate(prompts, 1, self.temperature, self.output_budget(masked), self.seed)
            if len(completions) != len(prompts):
                raise TranslationError(f"sampler returned {len(completions)} completions for {len(prompts)} prompts")
            for (_, kept), item in zip(batch, completions):
                try:
                    text = _PREAMBLE.sub("", _first_completion(item)).strip()
                    out.append(restore(text, kept))
                except TranslationError as err:
                    out.append(err)
        return out
