"""One prefill per distinct prompt, shared by all of its samples.

``generate`` with n samples of a prompt (``num_return_sequences``, or GRPO's G requests for one
prompt) runs the whole prompt through the model once per sample: on CPU, with long prompts and
short answers, much of the time (``benchmarks/bench_sampler.py``). :func:`shared_prefill` runs each
distinct prompt once, all but its last token, and repeats its cache for the rows that share it;
``generate`` goes on from there and yields the same tokens and log-probs. Used by the
``transformers`` sampler and by verl's CPU rollout server (``training/verl_ext/cpu/hf_rollout.py``).
"""

from __future__ import annotations

import inspect
from typing import Any


def shared_prefill(model: Any, input_ids: Any, attention_mask: Any) -> dict[str, Any]:
    """``generate``'s keyword for a cache of all but the last column of the left-padded
    ``input_ids``, one prefill per distinct row; empty when no row repeats (``generate`` prefills)."""
    import torch
    from transformers import DynamicCache

    rows, width = input_ids.shape
    if width < 2:
        return {}
    distinct, slot = torch.unique(torch.cat([input_ids, attention_mask], dim=1), dim=0, return_inverse=True)
    if distinct.shape[0] == rows:
        return {}
    # transformers 5.24 renamed the keyword (``past_key_values`` is deprecated there); 5.10, verl's, has the old one
    name = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    head, head_mask = distinct[:, : width - 1], distinct[:, width : 2 * width - 1]
    positions = (head_mask.cumsum(-1) - 1).masked_fill(head_mask == 0, 0)  # as generate counts them
    cache = DynamicCache(config=model.config)
    with torch.inference_mode():
        model(input_ids=head, attention_mask=head_mask, position_ids=positions, use_cache=True, logits_to_keep=1,
              **{name: cache})
    cache.reorder_cache(slot.to(head.device))  # back to one row per sample, in the batch's order
    return {name: cache}
