"""The training card: one Markdown page per run (``<output_dir>/card.md``, and the asset's
``training_card`` metadata) saying what ran, how the temperature was chosen, whether the clip
bound, and what the held-out evaluation found, laid out as the paper's Table 1."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from training.grpo.presets import LABELS
from training.grpo.temperature_control import plateau
from training.verl_ext.config import TrainingConfig

DIFFICULTIES = ("easy", "medium", "hard")
PLATFORM_NAMES = {"atcoder": "AtCoder", "leetcode": "LeetCode", "codeforces": "Codeforces", "all": "LiveCodeBench"}


def _f(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _n(value: Any) -> str:
    """A count as an integer (metrics arrive as floats), '-' when absent."""
    return "-" if value is None else str(int(value))


def _run_section(cfg: TrainingConfig, summary: Mapping) -> list[str]:
    a = cfg.algorithm
    where = (f"{cfg.world_size} GPU(s), {cfg.nnodes} node(s)" if cfg.device == "cuda" else "CPU")
    return [
        f"- model: `{summary.get('model_path') or cfg.model_path}`; preset `{cfg.preset}` ({LABELS[cfg.preset]}), "
        f"profile `{cfg.profile}`; seed {cfg.seed}; {where}",
        f"- steps run: {summary.get('steps', 0)} of {cfg.steps}"
        + (f" (resumed from step {summary['resumed_from_step']})" if summary.get("resumed_from_step") else "")
        + f"; wall time {summary.get('wall_s', 0)} s; {summary.get('learning_signal', '')}",
        f"- G {a.samples_per_query}, lr {a.lr:g}, train batch {a.train_batch_size} prompts, mini-batch "
        f"{a.ppo_mini_batch_size}: **{a.updates_per_step} updates per step** against the old log-probs",
        f"- clip eps {a.clip_low} / eps_high {a.clip_high}; KL loss {'k=' + a.kl_loss_type + f', beta {a.kl_coef}' if a.use_kl_loss else 'off'}; "
        f"truncation mask rho {a.mask_rho}, m {a.mask_repeat_window}; prompt / response {a.max_prompt_length} / "
        f"{a.max_response_length} tokens",
    ]


def _clip_section(steps: Sequence[Mapping]) -> list[str]:
    rows = ["| step | reward | clip fraction | ratio min | ratio max | grad norm |", "|---|---|---|---|---|---|"]
    for msg in steps:
        m = msg["metrics"]
        rows.append(f"| {msg['step']} | {_f(m.get('critic/score/mean'))} | {_f(m.get('actor/pg_clipfrac'), 4)} | "
                    f"{_f(m.get('actor/ratio_min'))} | {_f(m.get('actor/ratio_max'))} | {_f(m.get('actor/grad_norm'))} |")
    bound = [msg["step"] for msg in steps if msg["metrics"].get("actor/pg_clipfrac", 0.0) > 0]
    verdict = (f"The clip bound in step(s) {', '.join(map(str, bound))}." if bound
               else "The clip never bound (clip fraction 0 in every step).")
    return [verdict, "", *rows]


def _temperature_section(cfg: TrainingConfig, record: Mapping, steps: Sequence[Mapping]) -> list[str]:
    a = cfg.algorithm
    diversities = [msg["metrics"].get("microcoder/diversity") for msg in steps]
    level = plateau(diversities)
    lines = []
    if not record:
        schedule = ", ".join(f"from step {s}: T {t:g}" for s, t in a.schedule().stages)
        lines.append(f"Rule: fixed ({schedule}).")
    else:
        cost = record.get("probe_cost") or {}
        lines += [f"Rule (T(D), section 2.4): {record['rule']}.", "",
                  f"Chosen: {record['reason']}.", "",
                  f"Probe before step 1: {cost.get('prompts')} prompts x {cost.get('samples_per_prompt')} samples x "
                  f"{cost.get('candidates')} temperatures, {cost.get('tokens_per_sample')} tokens each. "
                  f"D = distinct-4 over the first {a.diversity_tokens} tokens of each response, pooled per prompt.",
                  "", "| T | diversity D | spread across prompts |", "|---|---|---|"]
        lines += [f"| {p['temperature']:g} | {_f(p['diversity'])} | {_f(p['spread'])} |" for p in record["probe"]]
        switches = record.get("switches") or []
        lines += ["", "Switches: " + ("; ".join(f"step {s['step']}: T {s['from_t']:g} -> {s['to_t']:g} ({s['reason']})"
                                                for s in switches) if switches else "none") + "."]
    if level is not None:
        lines += ["", f"Diversity D at the end of this run (mean of its last {min(10, len(diversities))} steps): "
                      f"{level:.3f}. Once a run has plateaued, this is the `target_diversity` for the next run "
                      f"of this model with the same `diversity_tokens` ({a.diversity_tokens})."]
    return lines


def _table_one(groups: Mapping[str, Mapping]) -> list[str]:
    """Table 1's layout (platform rows x Easy/Medium/Hard/All) where the groups name platform and
    difficulty; otherwise one row per group."""
    platforms = sorted({g.split("/")[1] for g in groups if g.count("/") == 2})
    if not platforms:
        return ["| group | pass@1 | problems |", "|---|---|---|"] + [
            f"| {g} | {_f(v['pass@1'])} | {int(v['problems'])} |" for g, v in sorted(groups.items())]
    source = next(iter(groups)).split("/")[0]
    rows = ["| | Easy | Medium | Hard | All |", "|---|---|---|---|---|"]
    for platform in [p for p in platforms if p != "all"] + ["all"]:
        cells = []
        for level in DIFFICULTIES:
            v = groups.get(f"{source}/{platform}/{level}")
            cells.append(f"{100 * v['pass@1']:.1f} ({int(v['problems'])})" if v else "-")
        total = groups.get(f"{source}/{platform}") if platform != "all" else None
        cells.append(f"{100 * total['pass@1']:.1f} ({int(total['problems'])})" if total else "")
        rows.append(f"| {PLATFORM_NAMES.get(platform, platform)} | " + " | ".join(cells) + " |")
    return rows


def _evaluation_section(cfg: TrainingConfig, evaluation: Mapping) -> list[str]:
    lengths = evaluation.get("lengths") or {}
    if not lengths:
        return ["No held-out evaluation ran."]
    lines = [f"pass@1 averaged over {evaluation['attempts']} samples per problem, sampled at T "
             f"{_f(evaluation.get('temperature'), 2)} ({'configured' if cfg.eval_temperature is not None else 'the temperature training ended with'}); "
             f"prompt limit {_n(evaluation.get('prompt_limit'))} tokens (no held-out problem dropped for length); "
             f"held-out split {_n(evaluation.get('split_problems'))} problems, {_n(evaluation.get('window_problems'))} "
             f"kept for the `{cfg.eval_benchmark}` window ({_n(evaluation.get('unplaced_problems'))} of them without "
             f"platform or date, which cannot be placed), {_n(evaluation.get('problems'))} evaluated. Trained at "
             f"{cfg.algorithm.max_response_length} tokens."]
    for length, result in lengths.items():
        lines += ["", f"**Test at {length} tokens**: pass@1 {100 * result['pass@1']:.1f} % over "
                      f"{int(result['problems'])} problems (percent, problems in brackets).", ""]
        lines += _table_one(result.get("groups") or {})
    return lines


def training_card(cfg: TrainingConfig, summary: Mapping, steps: Sequence[Mapping], temperature: Mapping) -> str:
    """The card's Markdown."""
    sections = [
        (f"# Training card: {cfg.experiment_name}", []),
        ("## Run", _run_section(cfg, summary)),
        ("## Updates and clipping", _clip_section(steps)),
        ("## Temperature", _temperature_section(cfg, temperature, steps)),
        ("## Held-out evaluation", _evaluation_section(cfg, summary.get("eval") or {})),
        ("## Files", [f"- resolved verl config: `{summary.get('resolved_config')}` (next to the checkpoints)",
                      f"- checkpoint: `{summary.get('checkpoint')}`", f"- verl's and Ray's log: `{summary.get('train_log')}`"]),
    ]
    return "\n".join(line for title, body in sections for line in [title, "", *body, ""])
