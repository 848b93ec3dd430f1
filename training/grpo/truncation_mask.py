"""Conditional truncation mask: the indicator factor of the paper's equation 2.

    A_i <- A_i * (1 - I[|o_i| = L_max  and  incorrect(o_i)  and  not repeat(o_i, m)  and  U(0,1) < rho])

Applied *after* group normalization and with no renormalization (section 2.3). The equation
says ``incorrect``; one sentence of the prose says ``correct``: ``mask_if`` selects it.

``repeat(o, m)``: the final m tokens of o equal the m tokens before them. A response shorter
than 2m has no two full windows, so it is never a repeat (``not repeat`` is true); configs
with tiny ``L_max`` should pass a smaller ``m``.

The draw U is not taken from a global RNG: it is a hash of (seed, step, sample key), so every
rank, however the batch is sharded or ordered, gets the same U for the same sample. In training
the key is :func:`problem_sample_key` (problem id, sample index within its group): a rerun with
the same seed masks the same samples, whatever random uids the trainer gives the prompts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

import torch

__all__ = [
    "is_repeat",
    "uniform_draws",
    "problem_sample_key",
    "truncation_mask_eligible",
    "conditional_truncation_mask",
    "apply_truncation_mask",
]

Tokens = Sequence[int] | torch.Tensor


def is_repeat(tokens: Tokens, m: int = 128) -> bool:
    """repeat(o, m): the last ``m`` tokens equal the ``m`` tokens before them.

    False for responses shorter than ``2m`` (no two full windows to compare).
    """
    if m <= 0:
        raise ValueError("m must be positive")
    seq = tokens.tolist() if isinstance(tokens, torch.Tensor) else list(tokens)
    n = len(seq)
    if n < 2 * m:
        return False
    return seq[n - m :] == seq[n - 2 * m : n - m]


def _u01(seed: int, step: int, key: object) -> float:
    digest = hashlib.blake2b(f"{seed}|{step}|{key}".encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "little") >> 11) / float(1 << 53)


def uniform_draws(seed: int, step: int, keys: Sequence[object]) -> torch.Tensor:
    """U(0,1) per sample, a pure function of (seed, step, key): identical on every rank."""
    return torch.tensor([_u01(seed, step, k) for k in keys], dtype=torch.float64)


def problem_sample_key(problem_id: object, sample_index: int) -> str:
    """``"<problem id>#<k>"``: the draw key of the k-th sample (0-based, within its group) of a problem."""
    return f"{problem_id}#{int(sample_index)}"


def _as_sequences(response_ids: torch.Tensor | Sequence[Tokens], lengths) -> tuple[list[list[int]], list[int]]:
    if isinstance(response_ids, torch.Tensor):
        if lengths is None:
            raise ValueError("lengths (e.g. response_mask.sum(-1)) are required with a padded id tensor")
        lens = [int(x) for x in (lengths.tolist() if isinstance(lengths, torch.Tensor) else lengths)]
        rows = response_ids.tolist()
        return [row[:n] for row, n in zip(rows, lens)], lens
    seqs = [t.tolist() if isinstance(t, torch.Tensor) else list(t) for t in response_ids]
    lens = [len(s) for s in seqs] if lengths is None else [int(x) for x in lengths]
    return [s[:n] for s, n in zip(seqs, lens)], lens


def _correct(rewards_or_correct: torch.Tensor | Sequence, threshold: float) -> torch.Tensor:
    t = torch.as_tensor(rewards_or_correct)
    return t.bool() if t.dtype == torch.bool else t.to(torch.float64) >= threshold


def truncation_mask_eligible(
    response_ids: torch.Tensor | Sequence[Tokens],
    lengths: torch.Tensor | Sequence[int] | None,
    rewards_or_correct: torch.Tensor | Sequence,
    max_len: int,
    *,
    m: int = 128,
    mask_if: Literal["incorrect", "correct"] = "incorrect",
    correct_threshold: float = 1.0,
) -> torch.Tensor:
    """``[B]`` bool: |o_i| = L_max and incorrect(o_i) (or correct) and not repeat(o_i, m).

    Args:
        response_ids: padded ``[B, L]`` ids (verl's ``responses``) or a list of id lists.
        lengths: ``[B]`` response lengths (``response_mask.sum(-1)``); optional for lists.
        rewards_or_correct: bool ``[B]`` correctness, or rewards with correct = r >= threshold.
        max_len: L_max, the rollout's maximum response length.
    """
    if mask_if not in ("incorrect", "correct"):
        raise ValueError(f"mask_if must be 'incorrect' or 'correct', got {mask_if!r}")
    seqs, lens = _as_sequences(response_ids, lengths)
    correct = _correct(rewards_or_correct, correct_threshold)
    if correct.shape[0] != len(seqs):
        raise ValueError(f"{correct.shape[0]} rewards for {len(seqs)} responses")
    wanted = ~correct if mask_if == "incorrect" else correct
    out = [n == max_len and bool(w) and not is_repeat(s, m) for s, n, w in zip(seqs, lens, wanted.tolist())]
    return torch.tensor(out, dtype=torch.bool)


def conditional_truncation_mask(
    response_ids: torch.Tensor | Sequence[Tokens],
    lengths: torch.Tensor | Sequence[int] | None,
    rewards_or_correct: torch.Tensor | Sequence,
    max_len: int,
    *,
    rho: float,
    sample_keys: Sequence[object],
    seed: int = 0,
    step: int = 0,
    m: int = 128,
    mask_if: Literal["incorrect", "correct"] = "incorrect",
    correct_threshold: float = 1.0,
) -> torch.Tensor:
    """``[B]`` bool, the indicator I[...] of equation 2: which samples get A_i = 0.

    Eligible (see :func:`truncation_mask_eligible`) and U(0,1) < rho, with U from
    :func:`uniform_draws` over ``(seed, step, sample_keys)``. rho=0 masks nothing (plain
    GRPO); rho=1 masks every eligible sample (complete conditional masking).
    """
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"rho must be in [0, 1], got {rho}")
    eligible = truncation_mask_eligible(
        response_ids, lengths, rewards_or_correct, max_len,
        m=m, mask_if=mask_if, correct_threshold=correct_threshold,
    )
    if len(sample_keys) != eligible.shape[0]:
        raise ValueError(f"{len(sample_keys)} sample keys for {eligible.shape[0]} responses")
    return eligible & (uniform_draws(seed, step, sample_keys) < rho)


def apply_truncation_mask(advantages: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """A_i * (1 - I_i): zero masked samples' advantages, leave the rest untouched (no renorm).

    ``advantages`` is ``[B]`` or token-level ``[B, L]``; ``mask`` is ``[B]`` bool.
    """
    mask = mask.to(advantages.device)
    keep = (~mask).to(advantages.dtype)
    return advantages * (keep.unsqueeze(-1) if advantages.dim() == 2 else keep)
