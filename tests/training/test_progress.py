"""The training run's step lines and its learning-signal verdict (training.progress)."""

from __future__ import annotations

from training.progress import learning_signal, signal_summary, step_line


def _metrics(rewards: list[float], signal: int, **extra) -> dict:
    return {"critic/score/mean": sum(rewards) / len(rewards), "critic/score/min": min(rewards),
            "critic/score/max": max(rewards), "microcoder/samples": len(rewards), "microcoder/signal_samples": signal,
            "microcoder/accuracy": sum(r >= 1 for r in rewards) / len(rewards), "microcoder/temperature": 1.1,
            "microcoder/diversity": 0.66, "response_length/mean": 71.5, **extra}


def test_a_step_where_every_sample_got_the_same_reward_says_it_cannot_learn():
    assert learning_signal(_metrics([0.0] * 8, 0)) == "no learning signal: reward 0 on all 8 samples"
    assert learning_signal(_metrics([1.0] * 4, 0)) == "no learning signal: reward 1 on all 4 samples"
    # groups that agree inside (one solved, one not) carry no advantage either
    assert "every group" in learning_signal(_metrics([1, 1, 1, 1, 0, 0, 0, 0], 0))
    assert learning_signal(_metrics([1, 0, 0, 0, 0, 0, 0, 0], 4)) is None
    assert learning_signal({"critic/score/mean": 0.0}) is None  # a run without the counts says nothing


def test_step_line_has_the_figures_time_and_eta():
    line = step_line(1, 3, _metrics([1, 0, 0, 0], 4, **{"actor/grad_norm": 1.25}), elapsed_s=40.0, step_s=40.0)
    assert line == ("step 1/3: reward 0.250 · pass@1 0.250 · T 1.1 · diversity 0.66 · length 72 · grad_norm 1.25"
                    " · 40.0s, ETA 1m20s")
    clipped = step_line(2, 3, _metrics([1, 0, 0, 0], 4, **{"actor/pg_clipfrac": 0.0088, "actor/ratio_min": 0.664,
                                                          "actor/ratio_max": 1.444}), elapsed_s=80.0, step_s=40.0)
    assert " · clip 0.0088 · ratio 0.664-1.44 · 40.0s" in clipped
    last = step_line(3, 3, _metrics([0.0] * 4, 0), elapsed_s=120.0, step_s=35.0)
    assert "ETA" not in last and last.endswith("35.0s · no learning signal: reward 0 on all 4 samples")


def test_signal_summary():
    silent, live = _metrics([0.0] * 8, 0), _metrics([1, 0, 0, 0], 4, **{"actor/grad_norm": 2.0})
    assert signal_summary([silent, silent]) == "no learning signal: reward 0 on all 8 samples (every step: the update changed nothing)"
    assert signal_summary([live, live]) == "learning signal in 2 of 2 steps (mean grad_norm 2)"
    assert signal_summary([live, silent]).startswith("learning signal in 1 of 2 steps (1 without: no learning signal")
    assert signal_summary([]) == "no step ran"


def test_a_pulse_speaks_only_when_the_work_is_silent():
    """The last line again with how long it has held, while nothing new is said; a fresh line
    resets the clock; a computed line replaces the repeat; nothing after the block."""
    import time

    from training.progress import Pulse

    said: list[str] = []
    with Pulse(said.append, "starting the engine", every_s=0.2) as pulse:
        time.sleep(0.5)
        assert said and said[0].startswith("starting the engine (") and said[0].endswith(" so far)")
        pulse("step 1/2: generating")
        heard = len(said)
        time.sleep(0.1)
        assert len(said) == heard and said[-1] == "step 1/2: generating"  # just said: no repeat yet
        time.sleep(0.4)
        assert said[-1].startswith("step 1/2: generating (")
    ended = len(said)
    time.sleep(0.3)
    assert len(said) == ended
    computed: list[str] = []
    with Pulse(computed.append, line=lambda elapsed: f"batch at {elapsed:.1f}s", every_s=0.2):
        time.sleep(0.5)
    assert computed and all(line.startswith("batch at ") for line in computed)
