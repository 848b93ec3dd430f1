"""Near-dedup benchmark: 200,000 synthesized statements with injected near-duplicates.

Distinct problems are built by recombining sentences of different shared statements plus a
unique id phrase; near-duplicates copy one of them and apply random word edits until the true
word-5-gram Jaccard with the source is in [0.8, 0.97]. Reports wall time and peak RSS of
``pipeline.filter.dedup.near_duplicates`` (numpy MinHash on all cores + datasketch MinHashLSH),
precision and recall on the injected pairs, and a baseline: datasketch ``MinHash.bulk`` in one
process on a subset, extrapolated to the full size (hashing only, no index).

    .venv/bin/python benchmarks/bench_dedup.py [--n 200000] [--dups 10000]
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasketch import MinHash  # noqa: E402

from pipeline.filter.dedup import keeper_key, near_duplicates  # noqa: E402
from pipeline.filter.text import shingles, words  # noqa: E402
from pipeline.paths import shared_data_dir  # noqa: E402
from pipeline.sources import collect_all  # noqa: E402


def sentence_pool() -> list[str]:
    """Sentences of every collected statement (raw, as Collect left them), sorted for a seeded run."""
    pool = set()
    for text in (row["statement"] for row in collect_all()):
        for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
            if 6 <= len(sentence.split()) <= 60:
                pool.add(sentence.strip())
    return sorted(pool)


def jaccard(a: str, b: str) -> float:
    sa, sb = set(shingles(words(a), 5)), set(shingles(words(b), 5))
    return len(sa & sb) / len(sa | sb) if sa or sb else 1.0


def near_copy(text: str, rng: random.Random, vocab: list[str]) -> tuple[str, float]:
    """Word edits (substitute, delete, insert) until Jaccard drops into [0.8, 0.97]."""
    target = rng.uniform(0.8, 0.97)
    tokens = text.split()
    edited = list(tokens)
    best = (text, 1.0)
    for _ in range(200):
        op = rng.random()
        k = rng.randrange(len(edited))
        if op < 0.5:
            edited[k] = rng.choice(vocab)
        elif op < 0.75 and len(edited) > 20:
            del edited[k]
        else:
            edited.insert(k, rng.choice(vocab))
        candidate = " ".join(edited)
        j = jaccard(text, candidate)
        if j < 0.8:
            break
        best = (candidate, j)
        if j <= target:
            break
    return best


def synthesize(n: int, dups: int, seed: int = 7) -> tuple[list[str], list[tuple[int, int, float]]]:
    if shared_data_dir() is None:
        sys.exit("needs ../shared/data")
    rng = random.Random(seed)
    pool = sentence_pool()
    vocab = sorted({w for s in pool[:5000] for w in s.split() if w.isalpha()})
    distinct = n - dups
    texts = [
        " ".join(rng.sample(pool, rng.randint(4, 8))) + f" Problem reference {i} {rng.getrandbits(40):x}."
        for i in range(distinct)
    ]
    pairs = []
    for k in range(dups):
        src = rng.randrange(distinct)
        copy, j = near_copy(texts[src], rng, vocab)
        pairs.append((src, len(texts), j))
        texts.append(copy)
    return texts, pairs


def baseline_rate(texts: list[str]) -> float:
    """Statements/s of datasketch ``MinHash.bulk`` in one process (shingling included)."""
    start = time.perf_counter()
    MinHash.bulk([[s.encode("utf-8") for s in shingles(words(t), 5)] for t in texts], num_perm=112)
    return len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--dups", type=int, default=10_000)
    parser.add_argument("--baseline", type=int, default=5_000)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    t0 = time.perf_counter()
    texts, pairs = synthesize(args.n, args.dups)
    synth_s = time.perf_counter() - t0
    rows = [{"problem_id": f"p{i:07d}", "source": "synthetic", "statement": t, "num_tests": 1} for i, t in enumerate(texts)]

    start = time.perf_counter()
    found = near_duplicates(rows, keeper_key(()), workers=args.workers)
    elapsed = time.perf_counter() - start
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    group = list(range(len(texts)))  # injected copies belong to their source's group
    for src, copy, _ in pairs:
        group[copy] = src
    true_pos = sum(group[d.index] == group[d.keeper] for d in found)
    precision = true_pos / len(found) if found else 1.0
    removed = {d.index: d.keeper for d in found}
    hit = sum(1 for src, copy, _ in pairs if copy in removed and group[removed[copy]] == src
              or src in removed and group[removed[src]] == src)
    recall = hit / len(pairs)
    by_band = {}
    for lo, hi in ((0.8, 0.85), (0.85, 0.9), (0.9, 0.97)):
        sel = [(s, c) for s, c, j in pairs if lo <= j < hi or (hi == 0.97 and j >= hi)]
        ok = sum(1 for s, c in sel if c in removed and group[removed[c]] == s or s in removed and group[removed[s]] == s)
        by_band[f"{lo:.2f}-{hi:.2f}"] = (ok, len(sel))

    rate = baseline_rate(texts[: args.baseline])
    print(f"synthesized {len(texts):,} statements ({args.dups:,} injected near-duplicates) in {synth_s:.1f}s")
    print(f"{'method':58} {'time_s':>8} {'peak_rss_MiB':>13} {'precision':>9} {'recall':>7}")
    print(f"{'near_duplicates (numpy MinHash x' + str(args.workers or 'all') + ' procs + MinHashLSH)':58} "
          f"{elapsed:8.1f} {max(rss_self, rss_child):13.0f} {precision:9.4f} {recall:7.4f}")
    print(f"{'baseline: MinHash.bulk, 1 process, hashing only (extrap.)':58} {len(texts) / rate:8.1f} "
          f"{'-':>13} {'-':>9} {'-':>7}")
    print(f"  (baseline measured on {args.baseline:,} statements: {rate:,.0f}/s; peak RSS: self {rss_self:.0f} MiB, "
          f"largest child {rss_child:.0f} MiB)")
    print(f"  removed {len(found):,}; recall by injected Jaccard band: "
          + ", ".join(f"{k}: {a}/{b}" for k, (a, b) in by_band.items()))


if __name__ == "__main__":
    main()
