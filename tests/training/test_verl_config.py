"""TrainingConfig -> verl Hydra overrides, presets, staged temperature, Ray job request."""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path

import pytest

from training.verl_ext.config import PROFILES, TrainingConfig, algorithm_for

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / ".venv-train" / "bin" / "python"


def _ov(cfg: TrainingConfig) -> dict[str, str]:
    return dict(o.split("=", 1) for o in cfg.to_hydra_overrides(model_path="/m"))


def test_microcoder_preset_renders_paper_settings():
    ov = _ov(TrainingConfig(profile="paper", train_files=["/d/train.parquet"], val_files=["/d/test.parquet"],
                            algorithm=algorithm_for(profile="paper", max_response_length=4096)))
    assert ov["algorithm.adv_estimator"] == "grpo"
    assert ov["actor_rollout_ref.actor.use_kl_loss"] == "false"
    assert ov["actor_rollout_ref.actor.clip_ratio_low"] == "0.2"
    assert ov["actor_rollout_ref.actor.clip_ratio_high"] == "0.28"
    assert ov["actor_rollout_ref.actor.policy_loss.loss_mode"] == "microcoder"
    assert ov["actor_rollout_ref.actor.optim.lr"] == "1e-06"
    assert ov["actor_rollout_ref.rollout.n"] == "8"
    assert ov["actor_rollout_ref.rollout.temperature"] == "1.2"
    assert "mask_rho:0.3," in ov["+microcoder"] and "mask_repeat_window:128," in ov["+microcoder"]
    assert "mask_if:'incorrect'" in ov["+microcoder"]
    assert ov["data.train_files"] == "[/d/train.parquet]" and ov["data.val_files"] == "[/d/test.parquet]"
    assert ov["reward.custom_reward_function.path"].endswith("evaluator/reward.py")
    assert ov["reward.custom_reward_function.name"] == "compute_score"
    assert ov["trainer.v1.trainer_mode"] == "microcoder_sync"
    assert ov["actor_rollout_ref.model.path"] == "/m"


def test_grpo_preset_keeps_kl_and_symmetric_clip():
    ov = _ov(TrainingConfig(preset="grpo"))
    assert ov["actor_rollout_ref.actor.use_kl_loss"] == "true"
    assert float(ov["actor_rollout_ref.actor.kl_loss_coef"]) > 0
    assert ov["actor_rollout_ref.actor.clip_ratio_high"] == ov["actor_rollout_ref.actor.clip_ratio_low"] == "0.2"
    assert "mask_rho:0.0," in ov["+microcoder"]
    # explicit changes win over the preset
    changed = TrainingConfig.from_dict({"preset": "grpo", "algorithm": {"clip_high": 0.3}})
    assert _ov(changed)["actor_rollout_ref.actor.clip_ratio_high"] == "0.3"
    assert changed.algorithm == algorithm_for("grpo", "cpu-demo", clip_high=0.3)


def test_cpu_and_gpu_backends_differ_only_where_they_must():
    cpu, gpu = _ov(TrainingConfig(device="cpu")), _ov(TrainingConfig(device="cuda", n_gpus=8, rollout_tp=2))
    assert cpu["actor_rollout_ref.rollout.name"] == "hf" and gpu["actor_rollout_ref.rollout.name"] == "vllm"
    assert cpu["actor_rollout_ref.actor.strategy"] == "fsdp2"
    assert cpu["+actor_rollout_ref.model.override_config.attn_implementation"] == "sdpa"
    assert cpu["actor_rollout_ref.actor.fsdp_config.dtype"] == "float32"
    assert cpu["actor_rollout_ref.actor.use_torch_compile"] == "false"
    assert cpu["actor_rollout_ref.rollout.tensor_model_parallel_size"] == "1"
    assert gpu["actor_rollout_ref.rollout.tensor_model_parallel_size"] == "2"
    assert gpu["trainer.n_gpus_per_node"] == "8"
    assert "actor_rollout_ref.actor.strategy" not in gpu  # verl's default engine on GPU


def test_staged_schedule():
    cfg = TrainingConfig(algorithm=algorithm_for(temperature=1.2, temperature_schedule=[(30, 1.0), (50, 0.8)]))
    assert list(cfg.algorithm.schedule().stages) == [(1, 1.2), (30, 1.0), (50, 0.8)]
    assert [cfg.algorithm.schedule().at(s) for s in (1, 29, 30, 49, 50, 99)] == [1.2, 1.2, 1.0, 1.0, 0.8, 0.8]
    assert "temperature_schedule:{30:1.0,50:0.8}," in _ov(cfg)["+microcoder"]
    assert _ov(cfg)["actor_rollout_ref.rollout.temperature"] == "1.2"
    with pytest.raises(ValueError, match="ramp"):  # the one schedule implementation validates it
        algorithm_for(temperature_schedule=[(30, 1.0), (31, 0.8), (60, 1.2)])
    with pytest.raises(ValueError, match="ramp"):
        algorithm_for(profile="paper", temperature_schedule=[(30, 1.0), (35, 0.8), (60, 1.2)])


def test_dict_round_trip_and_unknown_fields():
    cfg = TrainingConfig(steps=7, preset="grpo", algorithm=algorithm_for("grpo", temperature_schedule=[(2, 1.0)]))
    assert TrainingConfig.from_dict(json.loads(cfg.to_json())) == cfg
    with pytest.raises(ValueError, match="unknown algorithm settings"):
        TrainingConfig.from_dict({"algorithm": {"rollout_n": 3}})
    with pytest.raises(ValueError, match="unknown"):
        TrainingConfig.from_dict({"stepz": 3})


def test_ray_job_request_carries_the_code_not_the_config():
    """What dagster-ray's PipesRayJobClient submits: the launcher under Pipes, this checkout as
    working_dir (venvs, data and tests excluded), storage credentials forwarded by name only."""
    from training.ray_job import PROJECT_ROOT, forwarded_env, submit_job_params

    req = submit_job_params(pip=["s3fs"], env_vars=forwarded_env(["AWS_ENDPOINT_URL", "UNSET_VAR"],
                                                                 {"AWS_ENDPOINT_URL": "http://s3:9000"}))
    assert shlex.split(req["entrypoint"]) == ["python", "-m", "training.launcher"]
    env = req["runtime_env"]
    assert env["working_dir"] == str(PROJECT_ROOT) and env["pip"] == ["s3fs"]
    assert {"/.venv*", "/data", "/.git"} <= set(env["excludes"])
    assert env["env_vars"]["AWS_ENDPOINT_URL"] == "http://s3:9000" and "UNSET_VAR" not in env["env_vars"]


def test_presets_differ_only_as_the_paper_says():
    """Render the three baselines and diff them: GRPO = GRPO+ plus KL loss and a symmetric clip,
    MicroCoder-GRPO = GRPO+ plus the truncation mask and T(D) (the baselines sample at the paper's
    fixed 1.2); one policy-loss family (no dual clip) for all."""
    configs = [TrainingConfig(preset=p) for p in ("grpo", "dapo", "microcoder")]
    grpo, plus, mc = (_ov(c) for c in configs)
    assert set(grpo) == set(plus) == set(mc)

    def diff(a, b):
        return {k: (a[k], b[k]) for k in a if a[k] != b[k] and k != "+microcoder"}

    def fields_diff(a, b):
        return {k: (v, getattr(b, k)) for k, v in dataclasses.asdict(a).items() if v != getattr(b, k)}

    a = "actor_rollout_ref.actor."
    assert diff(grpo, plus) == {f"{a}use_kl_loss": ("true", "false"), f"{a}kl_loss_coef": ("0.001", "0.0"),
                                f"{a}clip_ratio_high": ("0.2", "0.28")}
    assert fields_diff(configs[0].algorithm, configs[1].algorithm) == {
        "use_kl_loss": (True, False), "kl_coef": (0.001, 0.0), "clip_high": (0.2, 0.28)}
    assert diff(plus, mc) == {} and plus["+microcoder"] != mc["+microcoder"]
    assert fields_diff(configs[1].algorithm, configs[2].algorithm) == {"mask_rho": (0.0, 0.3),
                                                                       "temperature_rule": ("fixed", "diversity")}
    assert {grpo[f"{a}policy_loss.loss_mode"], plus[f"{a}policy_loss.loss_mode"]} == {"microcoder"}


def test_extra_overrides_replace_rendered_keys_but_never_the_algorithms():
    ov = TrainingConfig(extra_overrides=["reward.custom_reward_function.name=other"]).to_hydra_overrides(model_path="/m")
    assert [o for o in ov if o.startswith("reward.custom_reward_function.name=")] == [
        "reward.custom_reward_function.name=other"]
    with pytest.raises(ValueError, match="algorithm.clip_high"):  # one road to each setting
        TrainingConfig(extra_overrides=["actor_rollout_ref.actor.clip_ratio_high=0.4"]).to_hydra_overrides("/m")
    with pytest.raises(ValueError, match="microcoder block"):
        TrainingConfig(extra_overrides=["+microcoder.algorithm.mask_rho=1.0"]).to_hydra_overrides("/m")


def test_trace_masking_sets_the_trace_directory_for_every_verl_process(tmp_path):
    from training.launcher import verl_env
    from training.verl_ext.trace import ENV

    assert ENV not in verl_env(TrainingConfig(output_dir=str(tmp_path)), tmp_path / "m.jsonl")
    env = verl_env(TrainingConfig(output_dir=str(tmp_path), trace_masking=True), tmp_path / "m.jsonl")
    assert env[ENV] == str(tmp_path.resolve() / "trace")


def test_profiles_give_one_set_of_defaults():
    from training.grpo import PRESETS

    paper, demo, algo = TrainingConfig(profile="paper"), TrainingConfig(), PRESETS["microcoder"]
    assert paper.algorithm == algo  # the paper profile is the preset as the paper gives it
    assert (demo.profile, demo.algorithm.samples_per_query, demo.algorithm.max_response_length, demo.steps,
            demo.val_max_samples) == ("cpu-demo", 4, 96, 2, 1)
    assert demo.algorithm.updates_per_step == paper.algorithm.updates_per_step == 4
    assert (paper.eval_response_lengths, demo.eval_response_lengths) == ([4096, 8192], [96])
    assert paper.max_model_len == 4096 + 8192 and demo.max_model_len == 4096 + 96
    assert demo.algorithm.clip_high == algo.clip_high
    assert algorithm_for("grpo", samples_per_query=6) == PRESETS["grpo"].replace(
        **{**PROFILES["cpu-demo"]["algorithm"], "samples_per_query": 6})
    for bad in ({"samples_per_query": 1}, {"mask_rho": 1.5}, {"train_batch_size": 3, "ppo_mini_batch_size": 2}, {"use_kl_loss": True}):
        with pytest.raises(ValueError):
            algorithm_for("dapo", **bad)
    with pytest.raises(ValueError):
        TrainingConfig(profile="gpu")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        TrainingConfig(algorithm={"lr": 1e-5})  # type: ignore[arg-type]  # changes go through algorithm_for


def test_launchpad_exposes_the_algorithm_as_changes_to_the_preset():
    """The launchpad's ``algorithm`` section is GRPOConfig's own fields, empty unless set; the
    preset and profile fill the rest, and the help text says what each preset gives."""
    import dataclasses

    from assets.training.assets import AlgorithmChanges, TrainingRunConfig, training_config
    from training.grpo import GRPOConfig

    manifest = [{"layout": "verl", "split": "train", "path": "/d/train.parquet"},
                {"layout": "verl", "split": "test", "path": "/d/test.parquet"}]
    launch = TrainingRunConfig()
    assert launch.profile == "cpu-demo" and launch.steps is None  # the profile decides
    assert set(AlgorithmChanges.model_fields) == {f.name for f in dataclasses.fields(GRPOConfig)}
    assert all(getattr(launch.algorithm, name) is None for name in AlgorithmChanges.model_fields)
    assert "0.2 (grpo/paper, grpo/cpu-demo)" in AlgorithmChanges.model_fields["clip_high"].description
    cfg = training_config(launch, manifest, "run1")
    assert cfg == TrainingConfig(train_files=["/d/train.parquet"], val_files=["/d/test.parquet"],
                                 output_dir=cfg.output_dir)
    changes = AlgorithmChanges(temperature_schedule={"1": 0.8, "40": 1.2}, lr=2e-6)
    cfg = training_config(TrainingRunConfig(profile="paper", preset="grpo", algorithm=changes), manifest, "r")
    assert cfg.algorithm == algorithm_for("grpo", "paper", temperature_schedule=[(1, 0.8), (40, 1.2)], lr=2e-6)
    assert (cfg.algorithm.samples_per_query, list(cfg.algorithm.schedule().stages), cfg.algorithm.temperature_rule) == (
        8, [(1, 0.8), (40, 1.2)], "fixed")


# Per GRPOConfig field, a launchpad change that moves it off the microcoder/cpu-demo value (with the
# field a rule ties it to, where one is). A new field without an entry fails the test below.
NON_DEFAULT: dict[str, dict] = {
    "samples_per_query": {"samples_per_query": 6},
    "temperature": {"temperature": 0.9},
    "temperature_schedule": {"temperature_schedule": {"1": 0.7, "40": 1.1}},
    "temperature_rule": {"temperature_rule": "fixed"},
    "temperature_candidates": {"temperature_candidates": [0.5, 1.5]},
    "diversity_tokens": {"diversity_tokens": 48},
    "target_diversity": {"target_diversity": 0.6},
    "max_probe_spread": {"max_probe_spread": 0.2},
    "fluctuation_z": {"fluctuation_z": 2.5},
    "probe_prompts": {"probe_prompts": 3},
    "diversity_window": {"diversity_window": 4, "min_stage_steps": 4},
    "min_stage_steps": {"min_stage_steps": 12},
    "max_response_length": {"max_response_length": 128},
    "max_prompt_length": {"max_prompt_length": 384},
    "lr": {"lr": 2e-6},
    "train_batch_size": {"train_batch_size": 8},
    "ppo_mini_batch_size": {"ppo_mini_batch_size": 2},
    "loss_agg": {"loss_agg": "seq-mean-token-mean"},
    "clip_low": {"clip_low": 0.15},
    "clip_high": {"clip_high": 0.3},
    "use_kl_loss": {"use_kl_loss": True, "kl_coef": 0.01},
    "kl_coef": {"use_kl_loss": True, "kl_coef": 0.02},
    "kl_loss_type": {"kl_loss_type": "k1"},
    "norm_adv_by_std": {"norm_adv_by_std": False},
    "mask_rho": {"mask_rho": 0.5},
    "mask_repeat_window": {"mask_repeat_window": 8},
    "mask_if": {"mask_if": "correct"},
}


@pytest.mark.train
@pytest.mark.skipif(not TRAIN_PY.exists(), reason=".venv-train is absent: run scripts/setup-train.sh")
def test_every_launchpad_setting_reaches_the_trainer(tmp_path):
    """Each algorithm field set through the launchpad's run config arrives in the trainer's rebuilt
    config (verl's ``omega_conf_to_dataclass`` over the composed verl config) and, where verl runs
    it, in verl's own key."""
    import subprocess
    import textwrap

    from assets.training.assets import AlgorithmChanges, TrainingRunConfig, training_config
    from training.grpo import GRPOConfig
    from training.verl_ext.config import ALGORITHM_KEYS

    assert set(NON_DEFAULT) == {f.name for f in dataclasses.fields(GRPOConfig)}
    manifest = [{"layout": "verl", "split": "train", "path": "/d/train.parquet"},
                {"layout": "verl", "split": "test", "path": "/d/test.parquet"}]
    default, cases, expected = algorithm_for(), {}, {}
    for name, change in NON_DEFAULT.items():
        cfg = training_config(TrainingRunConfig(algorithm=AlgorithmChanges(**change)), manifest, "run")
        assert getattr(cfg.algorithm, name) != getattr(default, name), name
        expected[name] = cfg.algorithm
        verl_keys = {key: getattr(cfg.algorithm, field) for field, keys in ALGORITHM_KEYS.items() for key in keys}
        cases[name] = {"overrides": cfg.to_hydra_overrides("/m"), "verl_keys": verl_keys}
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    proc = subprocess.run([str(TRAIN_PY), "-c", textwrap.dedent(f"""
        import dataclasses, json, types
        from omegaconf import OmegaConf
        from training.launcher import compose_verl_config
        from training.verl_ext.trainer import MicroCoderTrainer
        out = {{}}
        for name, case in json.load(open({str(tmp_path / 'cases.json')!r})).items():
            config = compose_verl_config(case["overrides"])
            trainer = types.SimpleNamespace(config=config)  # what the trainer's settings property reads
            settings = MicroCoderTrainer.settings.fget(trainer)
            out[name] = {{"algorithm": dataclasses.asdict(settings.algorithm),
                         "verl_keys": {{k: OmegaConf.select(config, k) for k in case["verl_keys"]}}}}
        print("RESULT " + json.dumps(out))
    """)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    rebuilt = json.loads(proc.stdout.split("RESULT ", 1)[1])
    for name, result in rebuilt.items():
        assert GRPOConfig(**result["algorithm"]) == expected[name], name
        assert result["verl_keys"] == pytest.approx(cases[name]["verl_keys"]), name
