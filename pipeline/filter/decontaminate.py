"""Decontamination: word n-gram overlap with evaluation benchmarks.

The benchmarks are the rows of the sources whose role is ``benchmark`` or ``heldout``
(``pipeline.filter.roles``). A row is contaminated when it shares word n-grams (normalized like dedup: markup, examples and
punctuation removed) with one benchmark problem. Competitive-programming statements share
boilerplate ("the first line contains a single integer t ... the number of test cases"), so
on the shared data a single 13-gram hit flags ~10% of honest TACO problems. Three guards: only
informative n-grams (half real words, not numbers or ``a 1 a 2``) are indexed; n-grams found
in more than ``max_benchmark_df`` benchmark problems are template text and dropped; and a row
must share ``min_matches`` n-grams with one benchmark problem, or ``min_fraction`` of that
problem's n-grams (a benchmark text shorter than ``n`` words is one n-gram, caught by one hit).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.filter.text import words


@dataclass(frozen=True)
class BenchmarkSet:
    """An evaluation benchmark: problem statements and their ids (same order)."""

    name: str
    statements: Sequence[str]
    ids: Sequence[str] = field(default=())

    def problem_id(self, index: int) -> str:
        return str(self.ids[index]) if index < len(self.ids) else f"#{index}"


@dataclass(frozen=True)
class Match:
    benchmark: str
    benchmark_problem: str
    ngram: str
    matched_ngrams: int = 1

    def detail(self) -> str:
        return json.dumps({"benchmark": self.benchmark, "benchmark_problem": self.benchmark_problem,
                           "matched_ngram": self.ngram, "matched_ngrams": self.matched_ngrams})


def _informative(gram: Sequence[str]) -> bool:
    """At least half the tokens are real words (not numbers or one-letter variable names)."""
    return sum(len(t) > 1 and t.isalpha() for t in gram) * 2 >= len(gram)


class NgramIndex:
    """Word n-grams of every benchmark problem, mapped to the benchmark problems holding them.

    ``find`` reports the benchmark problem sharing the most n-grams with a text, when it shares at
    least ``min_matches`` of them or at least ``min_fraction`` of its own n-grams (so a short
    benchmark prompt, a single n-gram, is caught by one hit).
    """

    def __init__(self, benchmarks: Iterable[BenchmarkSet], n: int = 13, *, max_benchmark_df: int = 2,
                 min_matches: int = 8, min_fraction: float = 0.5, min_short_words: int = 6) -> None:
        if not 8 <= n <= 13:
            raise ValueError(f"n-gram size {n} outside the supported 8..13 words")
        self.n, self.min_matches, self.min_fraction = n, min_matches, min_fraction
        owners: dict[tuple[str, ...], set[tuple[str, str]]] = defaultdict(set)
        for bench in benchmarks:
            for i, text in enumerate(bench.statements):
                tokens = words(text)
                owner = (bench.name, bench.problem_id(i))
                if len(tokens) < n:
                    grams = [tuple(tokens)] if len(tokens) >= min_short_words else []
                else:
                    grams = [tuple(tokens[k : k + n]) for k in range(len(tokens) - n + 1)]
                for gram in grams:
                    if _informative(gram):
                        owners[gram].add(owner)
        # n-grams shared by several benchmark problems are template text, not a problem
        self.grams = {g: frozenset(h) for g, h in owners.items() if len(h) <= max_benchmark_df}
        self.sizes: dict[tuple[str, str], int] = defaultdict(int)
        for holders in self.grams.values():
            for owner in holders:
                self.sizes[owner] += 1
        self.lengths = sorted({len(g) for g in self.grams}, reverse=True)

    def __len__(self) -> int:
        return len(self.grams)

    def matches(self, text: str | None) -> dict[tuple[str, str], list[tuple[str, ...]]]:
        """Every benchmark problem sharing n-grams with ``text``, with the shared n-grams."""
        tokens = words(text)
        grams = self.grams
        found: dict[tuple[str, str], list[tuple[str, ...]]] = defaultdict(list)
        for size in self.lengths:
            seen = set()
            for k in range(len(tokens) - size + 1):
                gram = tuple(tokens[k : k + size])
                holders = grams.get(gram)
                if holders is not None and gram not in seen:
                    seen.add(gram)
                    for owner in holders:
                        found[owner].append(gram)
        return found

    def find(self, text: str | None) -> Match | None:
        """The benchmark problem ``text`` is contaminated by, or None."""
        best = None
        for owner, hits in self.matches(text).items():
            if len(hits) >= self.min_matches or len(hits) >= self.min_fraction * self.sizes[owner]:
                if best is None or (len(hits), owner) > (len(best[1]), best[0]):
                    best = (owner, hits)
        if best is None:
            return None
        (bench, problem), hits = best
        return Match(bench, problem, " ".join(hits[0]), len(hits))


def contaminated(rows: Sequence[dict[str, Any]], index: NgramIndex) -> list[tuple[int, Match]]:
    """``(row index, match)`` for every row holding a benchmark n-gram."""
    out = []
    for i, row in enumerate(rows):
        match = index.find(row.get("statement"))
        if match is not None:
            out.append((i, match))
    return out
