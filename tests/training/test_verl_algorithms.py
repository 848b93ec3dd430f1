"""verl's own algorithm code against the plain-torch references (tests/training/grpo_reference.py).

verl runs the group advantages (``compute_grpo_outcome_advantage``), the KL estimators
(``kl_penalty``) and, through ``loss_mode=microcoder``, our per-token loss aggregated by its
``agg_loss``. Each is called here, in ``.venv-train`` where verl lives, on the same inputs as its
reference, as verl keeps its own algorithm checks in its tests.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / ".venv-train" / "bin" / "python"

pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(not TRAIN_PY.exists(), reason=".venv-train is absent: run scripts/setup-train.sh"),
]


def test_verl_matches_the_references():
    code = """
        import json, types
        import numpy as np, torch
        import training.verl_ext.policy_loss  # noqa: F401  registers loss_mode=microcoder
        from verl.trainer.ppo import core_algos
        from tests.training import grpo_reference as ref

        gen = torch.Generator().manual_seed(0)
        out = {}
        # group advantages: 5 groups of 8 and a singleton, ragged response lengths
        rewards = (torch.rand(41, generator=gen) > 0.6).float()
        index = np.array([f"u{i % 5}" for i in range(40)] + ["lonely"], dtype=object)
        mask = (torch.arange(12)[None, :] < torch.randint(1, 13, (41, 1), generator=gen)).float()
        token_rewards = torch.zeros(41, 12)
        token_rewards[torch.arange(41), mask.sum(-1).long() - 1] = rewards
        for norm in (True, False):
            verl_adv, _ = core_algos.compute_grpo_outcome_advantage(token_rewards, mask, index,
                                                                    norm_adv_by_std_in_grpo=norm)
            ours = ref.to_token_level(ref.group_advantages(rewards, index, norm_by_std=norm), mask)
            out[f"advantages norm={norm}"] = float((verl_adv - ours).abs().max())
        # KL estimators
        lp, rlp = torch.randn(4, 12, generator=gen), torch.randn(4, 12, generator=gen)
        for kind in ("k1", "k2", "k3", "low_var_kl"):
            out[f"kl {kind}"] = float((core_algos.kl_penalty(lp, rlp, kind) - ref.kl_penalty(lp, rlp, kind)).abs().max())
        # the registered loss, aggregated by verl, against the reference objective
        old = torch.randn(6, 12, generator=gen, dtype=torch.float64)
        new = (old + 0.3 * torch.randn(6, 12, generator=gen, dtype=torch.float64)).requires_grad_(True)
        adv = torch.randn(6, generator=gen, dtype=torch.float64).unsqueeze(-1).expand(6, 12)
        rmask = (torch.arange(12)[None, :] < torch.tensor([[12], [5], [9], [1], [12], [7]])).double()
        fn = core_algos.get_policy_loss_fn("microcoder")
        for agg in ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum"):
            config = types.SimpleNamespace(clip_ratio=0.2, clip_ratio_low=0.2, clip_ratio_high=0.28,
                                           global_batch_info={})
            loss, metrics = fn(old, new, adv, rmask, loss_agg_mode=agg, config=config)
            expected, m = ref.policy_loss(new, old, adv, rmask, clip_low=0.2, clip_high=0.28, loss_agg=agg)
            out[f"loss {agg}"] = abs(float(loss) - float(expected))
            (g1,) = torch.autograd.grad(loss, new)
            (g2,) = torch.autograd.grad(expected, new)
            out[f"grad {agg}"] = float((g1 - g2).abs().max())
        out["clipfrac_high"] = abs(metrics["actor/pg_clipfrac_high"] - float(m["clipfrac_high"]))
        print("RESULT " + json.dumps(out))
    """
    proc = subprocess.run([str(TRAIN_PY), "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    gaps = json.loads(proc.stdout.split("RESULT ", 1)[1])
    assert len(gaps) == 13
    assert all(gap < 1e-6 for gap in gaps.values()), gaps
