"""Difficulty by model pass rate: k samples per problem, judged by the evaluator.

The stage returns problems, not scores: each verified problem with its pass rate and difficulty
(None outside the sample), the tests the differential round grew and the model's passing sample,
one table the release reads as it is. Scores are cached by (problem, its tests, model, k,
temperature, prompt version, max_tokens): a refresh samples only problems it has not scored with
the same settings on the same tests, and a cached round always grew from the tests it is applied to.

A sample that passes every test is kept (``passing_solution``, the first one): for a problem with no
reference it is the only program known to pass its tests, and the release adopts it as the reference
(:mod:`pipeline.model_references`).

After judging, the differential round (:mod:`pipeline.verify.testgen.differential`) runs the passing
samples on the inputs test generation answered but did not select: an input a passing sample gets
wrong joins the tests, and that sample no longer counts as passing.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq

from evaluator.backend import EvaluatorBackend, LocalBackend
from pipeline.samplers.base import GenerationProgress, Sampler, reporting
from pipeline.samplers.prompts import PROMPT_VERSION, build_messages
from pipeline.schema import Tests
from training.progress import Pulse, eta, format_duration

# Upper bounds of pass-rate buckets, checked in order; 0 and 1 are buckets of their own.
DEFAULT_BUCKETS: tuple[tuple[str, float], ...] = (
    ("unsolved", 0.0),
    ("hard", 0.25),
    ("medium", 0.75),
    ("easy", 0.999999),
    ("solved", 1.0),
)

SCORE_COLUMNS = (
    "cache_key", "problem_id", "model", "k", "temperature", "seed", "max_tokens", "prompt_version",
    "passes", "pass_rate", "difficulty", "generated_tokens", "truncated", "sample_seconds", "judge_seconds",
    "passing_solution", "round_added", "round_tests", "tests_hash",
)
# What a score was sampled under, but for the tests it was judged on (see ScoreCache.put).
_SETTINGS = ("problem_id", "model", "k", "temperature", "seed", "max_tokens", "prompt_version")


@dataclass
class DifficultyConfig:
    k: int = 8  # samples per problem (the paper's default)
    temperature: float = 1.0
    max_tokens: int = 1024
    seed: int = 0
    sample_size: int | None = None  # score only the first N problems (by id); None: all
    batch_problems: int = 16  # problems per sampler call
    buckets: tuple[tuple[str, float], ...] = DEFAULT_BUCKETS
    eval_workers: int | None = None
    timeout_s: float | None = None
    # the differential round: passing samples run on the inputs generation answered but did not
    # select (pipeline.verify.testgen.differential); a sample one rejects stops counting as passing
    differential: bool = True
    round_budget_s: float = 10.0  # wall seconds per sample on a problem's reserve


def cache_key(row: dict[str, Any], model: str, config: DifficultyConfig) -> str:
    """What a score depends on: the problem and the tests its samples were judged on (Verify may
    change them), the model and how it sampled; the round's rejections change the pass rate, so
    whether it ran is part of it."""
    raw = json.dumps([row["problem_id"], tests_hash(row["tests"]), model, config.k, config.temperature, PROMPT_VERSION,
                      config.max_tokens, config.seed, config.differential])
    return hashlib.sha1(raw.encode()).hexdigest()


def bucket_of(pass_rate: float, buckets: tuple[tuple[str, float], ...] = DEFAULT_BUCKETS) -> str:
    for name, upper in buckets:
        if pass_rate <= upper:
            return name
    return buckets[-1][0]


def in_window(pass_rate: float | None, low: float, high: float) -> bool:
    """Whether a problem stays in the training set; unscored problems stay."""
    return pass_rate is None or low <= pass_rate <= high


class ScoreCache:
    """Scores keyed by :func:`cache_key`, kept as one Parquet file (local or fsspec URL).

    A score judged on tests its problem no longer has can never be hit again, so it goes when the
    problem is scored on its new tests under the same settings; so do scores written before the
    tests were part of the key (no ``tests_hash``). The file holds what can still be used."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.rows: dict[str, dict[str, Any]] = {}
        self.pruned = 0  # entries dropped as unreachable since this cache was read
        fs, path = fsspec.core.url_to_fs(url)
        if fs.exists(path):
            with fs.open(path, "rb") as handle:
                for row in pq.read_table(handle).to_pylist():
                    if row.get("tests_hash"):
                        self.rows[row["cache_key"]] = row
                    else:
                        self.pruned += 1

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached score, unless it is one from before passing samples were kept (a pass without its program)."""
        hit = self.rows.get(key)
        return None if hit is not None and hit.get("passes") and not hit.get("passing_solution") else hit

    def put(self, rows: list[dict[str, Any]]) -> None:
        """Keep ``rows``, and drop the scores they supersede: the same problem and settings, other tests."""
        fresh = {tuple(r.get(c) for c in _SETTINGS): r.get("tests_hash") for r in rows}
        stale = [key for key, old in self.rows.items()
                 if fresh.get(tuple(old.get(c) for c in _SETTINGS), old.get("tests_hash")) != old.get("tests_hash")]
        for key in stale:
            del self.rows[key]
        self.pruned += len(stale)
        for row in rows:
            self.rows[row["cache_key"]] = row

    def save(self) -> None:
        fs, path = fsspec.core.url_to_fs(self.url)
        fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        table = pa.Table.from_pylist([{c: r.get(c) for c in SCORE_COLUMNS} for r in self.rows.values()])
        with fs.open(path + ".tmp", "wb") as handle:
            pq.write_table(table, handle)
        fs.mv(path + ".tmp", path)


def prompt_for(row: dict[str, Any]) -> list[dict[str, str]]:
    tests: Tests = row["tests"]
    return build_messages(row["statement"], row.get("starter_code"), tests.kind, tests.fn_name)


def _judge(rows: list[dict[str, Any]], completions: list[list[Any]], config: DifficultyConfig,
           backend: EvaluatorBackend) -> list[list[str | None]]:
    """Per problem, per sample: its program where it passed every test, else None; all problems'
    samples judged in one parallel batch."""
    from evaluator.model import Limits, Options
    from evaluator.reward import extract_code

    jobs = []
    passing: list[list[str | None]] = [[None] * len(samples) for samples in completions]
    for p, (row, samples) in enumerate(zip(rows, completions)):
        for s, sample in enumerate(samples):
            code = extract_code(sample.text)
            if code is not None:
                jobs.append(((p, s), code, row["tests"]))
    programs = {key: code for key, code, _ in jobs}
    options = Options(workers=config.eval_workers)
    for result in backend.evaluate_many(jobs, Limits(time_s=config.timeout_s), options) if jobs else []:
        if result.passed:
            p, s = result.key
            passing[p][s] = programs[result.key]
    return passing


def _round(rows: list[dict[str, Any]], passing: list[list[str | None]], config: DifficultyConfig,
           backend: EvaluatorBackend) -> list[Any]:
    """The differential round on a batch's passing samples (one backend call), or none."""
    from pipeline.verify.testgen import RoundResult, differential_round

    if not config.differential or not any(code for programs in passing for code in programs):
        return [RoundResult() for _ in rows]
    return differential_round(rows, passing, backend=backend, time_s=config.timeout_s,
                              budget_s=config.round_budget_s, workers=config.eval_workers)


def tests_hash(tests: Tests) -> str:
    """The tests a score was judged on (part of its cache key)."""
    return hashlib.sha1(tests.to_json().encode()).hexdigest()


def score_problems(
    rows: list[dict[str, Any]],
    sampler: Sampler,
    config: DifficultyConfig,
    cache: ScoreCache | None = None,
    progress: Callable[[str], None] | None = None,
    backend: EvaluatorBackend | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every row of ``rows`` as a scored problem (:func:`scored`; the chosen ones scored, cached
    scores reused), and run statistics. ``backend``: where the samples are judged (default: this
    machine's pool; see :mod:`evaluator.backend`)."""
    backend = backend or LocalBackend()
    chosen = sorted(rows, key=lambda r: r["problem_id"])
    if config.sample_size is not None:
        chosen = chosen[: config.sample_size]
    model = sampler.model_id
    scores: list[dict[str, Any]] = []
    todo = []
    for row in chosen:
        hit = cache.get(cache_key(row, model, config)) if cache else None
        (scores.append(hit) if hit else todo.append(row))
    stats: dict[str, Any] = {"problems": len(chosen), "cached": len(scores), "sampled": len(todo), "generated_tokens": 0,
                             "seconds": 0.0, "sample_seconds": 0.0, "judge_seconds": 0.0, "round_seconds": 0.0,
                             "round_added": 0, "round_problems": 0, "round_rejected": 0}
    start = time.monotonic()
    sampling = SamplingProgress(len(todo) * config.k, config.k, start)
    for offset in range(0, len(todo), config.batch_problems):
        batch = todo[offset : offset + config.batch_problems]
        t0 = time.monotonic()
        with reporting(sampler, sampling.hear), Pulse(progress, line=sampling.line):
            completions = sampler.generate(
                [prompt_for(r) for r in batch], n=config.k, temperature=config.temperature,
                max_tokens=config.max_tokens, seed=config.seed,
            )
        t1 = time.monotonic()
        with Pulse(progress, f"difficulty: judging {len(batch) * config.k} samples of {len(batch)} problems"):
            passed = _judge(batch, completions, config, backend)
            t2 = time.monotonic()
            rounds = _round(batch, passed, config, backend)
        stats["round_seconds"] += time.monotonic() - t2
        fresh = []
        for row, samples, programs, grown in zip(batch, completions, passed, rounds):
            programs = [None if s in grown.rejected else code for s, code in enumerate(programs)]
            passes = [code for code in programs if code is not None]
            rate = len(passes) / len(programs)
            fresh.append({
                "cache_key": cache_key(row, model, config), "problem_id": row["problem_id"],
                "model": model, "k": config.k, "temperature": config.temperature, "seed": config.seed,
                "max_tokens": config.max_tokens, "prompt_version": PROMPT_VERSION, "passes": len(passes),
                "pass_rate": rate, "difficulty": bucket_of(rate, config.buckets),
                "generated_tokens": sum(s.num_tokens for s in samples),
                "truncated": sum(1 for s in samples if s.finish_reason == "length"),
                "sample_seconds": round((t1 - t0) / len(batch), 3), "judge_seconds": round((t2 - t1) / len(batch), 3),
                "passing_solution": passes[0] if passes else None,
                "round_added": grown.added, "round_tests": grown.tests.to_json() if grown.tests else None,
                "tests_hash": tests_hash(row["tests"]),
            })
        scores.extend(fresh)
        stats["sample_seconds"] += t1 - t0
        stats["judge_seconds"] += t2 - t1
        if cache:
            cache.put(fresh)
            cache.save()  # a crash mid-run keeps what was paid for
        stats["generated_tokens"] += sum(f["generated_tokens"] for f in fresh)
        stats["round_added"] += sum(f["round_added"] for f in fresh)
        stats["round_problems"] += sum(1 for f in fresh if f["round_added"])
        stats["round_rejected"] += sum(len(r.rejected) for r in rounds)
        sampling.batch_done(len(batch) * config.k, sum(f["generated_tokens"] for f in fresh))
        if progress:
            progress(sampling.line())
    stats["seconds"] = round(time.monotonic() - start, 2)
    stats.update(throughput(stats["sampled"], stats["generated_tokens"], stats["sample_seconds"]))
    stats["sample_seconds"] = round(stats["sample_seconds"], 2)
    stats["judge_seconds"] = round(stats["judge_seconds"], 2)
    stats["round_seconds"] = round(stats["round_seconds"], 2)
    stats["cache_pruned"] = cache.pruned if cache else 0  # scores no problem's tests can reach any more
    by_id = {s["problem_id"]: s for s in scores}
    return [scored(row, by_id.get(row["problem_id"])) for row in rows], stats


@dataclass
class SamplingProgress:
    """Where the stage's sampling is, for its progress lines: the finished batches' samples and
    tokens, and what the sampler says of the batch under way (:class:`GenerationProgress`)."""

    samples: int
    k: int
    start: float
    done: int = 0
    tokens: int = 0
    current: GenerationProgress | None = None

    def hear(self, news: GenerationProgress) -> None:
        self.current = news

    def batch_done(self, samples: int, tokens: int) -> None:
        self.done, self.tokens, self.current = self.done + samples, self.tokens + tokens, None

    def line(self, _pulse_s: float = 0.0) -> str:
        """``difficulty: 16/25 problems, 64/100 samples, batch at 48%, 310 tokens/s, 1m10s, ETA 2m40s``
        (times from the stage's start; the batch's share from the sampler, where it can tell)."""
        now = self.current
        done = self.done + (now.samples_done if now else 0)
        tokens = self.tokens + (now.tokens or 0 if now else 0)
        wall = time.monotonic() - self.start
        batch = f", batch at {now.done:.0%}" if now and now.samples_done < now.samples else ""
        rate = f", {tokens / wall:.0f} tokens/s" if tokens and wall > 0 else ""
        progressed = self.done + (now.done * now.samples if now else 0)
        return (f"difficulty: {done // self.k}/{self.samples // self.k} problems, {done}/{self.samples} samples{batch}"
                f"{rate}, {format_duration(wall)}{eta(progressed, self.samples, wall)}")


def throughput(problems: int, tokens: int, seconds: float) -> dict[str, float]:
    """Sampling throughput (the model's share of the stage; judging and start-up excluded)."""
    return {
        "problems_per_s": round(problems / seconds, 3) if seconds > 0 else 0.0,
        "tokens_per_s": round(tokens / seconds, 1) if seconds > 0 else 0.0,
    }


def scored(row: dict[str, Any], score: dict[str, Any] | None) -> dict[str, Any]:
    """A verified row as the stage returns it: pass_rate/difficulty columns (None where not scored),
    the tests the differential round grew (``differential_added`` of them new), and the model's
    passing sample (``model_solution``, not a released column: the release decides what to keep)."""
    if score is None:
        return {**row, "pass_rate": None, "difficulty": None, "difficulty_model": None, "differential_added": None,
                "model_solution": None}
    out = {**row, "pass_rate": score["pass_rate"], "difficulty": score["difficulty"], "difficulty_model": score["model"],
           "differential_added": 0, "model_solution": score.get("passing_solution")}
    grown = score.get("round_tests")
    if grown:  # the score's key holds the row's tests: the round grew from these
        grown = Tests.from_json(grown) if isinstance(grown, str) else grown
        out.update(tests=grown, num_tests=grown.count, differential_added=int(score.get("round_added") or 0))
    return out


def differential_by_source(merged: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per source, of the stage's problems (:func:`scored`): problems scored, how many the differential round
    added inputs to, and the inputs it added (for the card and the asset's metadata)."""
    out: dict[str, dict[str, int]] = {}
    for row in merged:
        if row.get("differential_added") is None:
            continue  # not scored
        entry = out.setdefault(row["source"], {"scored": 0, "problems_grown": 0, "inputs_added": 0})
        entry["scored"] += 1
        entry["problems_grown"] += bool(row["differential_added"])
        entry["inputs_added"] += int(row["differential_added"])
    return dict(sorted(out.items()))
