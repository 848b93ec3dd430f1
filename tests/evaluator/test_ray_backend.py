"""The evaluator on a real two-node Ray cluster on this machine: ``ray start --head`` and a second
node on another loopback address, each with one CPU (one evaluator actor each)."""

from __future__ import annotations

import gzip
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from benchmarks.local_ray import SECOND_IP, two_node_cluster  # noqa: E402
from evaluator import Limits, evaluate_many, isolation_level  # noqa: E402
from evaluator.ray_backend import REPLY_GRACE_S, JobLost, RayEvaluator  # noqa: E402
from tests.procs import pids_using  # noqa: E402

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def cluster():
    with two_node_cluster(cpus_per_node=1) as (address, temp):
        yield {"address": address, "temp": temp}


def _labelled_sample(shared_data: Path, n: int) -> list[tuple[str, str, dict]]:
    """Every 140th labelled program (both labels, every set) with its base tests, ``n`` at most."""
    jobs = []
    with gzip.open(shared_data / "labelled" / "programs.jsonl.gz", "rt", encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i % 140 == 0:
                rec = json.loads(line)
                jobs.append((rec["id"], rec["code"], rec["tests_base"]))
    return jobs[:n]


def test_work_lands_on_both_nodes_with_the_local_verdicts(cluster, shared_data):
    from benchmarks.eval_sets import jobs as set_jobs
    from benchmarks.eval_sets import load

    jobs = _labelled_sample(shared_data, 40) + set_jobs(load(["mbpp"])[:15]) + set_jobs(load(["taco"])[:15])
    limits = Limits(time_s=6)
    backend = RayEvaluator(cluster["address"], batch_size=2)
    remote = backend.evaluate_many(jobs, limits)
    local = evaluate_many(jobs, limits, workers=2)
    assert [r.key for r in remote] == [key for key, _, _ in jobs]
    assert [(r.key, r.verdict) for r in remote] == [(r.key, r.verdict) for r in local]
    assert len({r.verdict for r in remote}) >= 2  # passes and failures both
    nodes = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    assert len(backend.jobs_by_node) == 2 and set(backend.jobs_by_node) == set(nodes)
    assert sum(backend.jobs_by_node.values()) == len(jobs) and min(backend.jobs_by_node.values()) >= 5


def test_isolation_inside_each_actor_is_reported(cluster):
    backend = RayEvaluator(cluster["address"])
    reports = backend.doctor()
    assert len(reports) == 2 and SECOND_IP in {r["ip"] for r in reports}
    for report in reports:  # the walls an actor's children get are this machine's
        assert report["isolation"] == isolation_level() and not report["degraded"], report
    [res] = backend.evaluate_many([("k", "print(input())", {"kind": "stdin", "cases": [{"input": "1", "output": "1"}]})])
    assert res.passed and res.isolation == isolation_level()


def test_a_bad_record_fails_alone(cluster):
    backend = RayEvaluator(cluster["address"])
    res = backend.evaluate_many([("bad", "print(1)", {"kind": "nonsense"}),
                                 ("good", "print(1)", {"kind": "stdin", "cases": [{"input": "", "output": "1"}]})])
    assert [(r.key, r.verdict.value) for r in res] == [("bad", "internal_error"), ("good", "accepted")]


def test_the_verify_asset_judges_on_the_cluster(cluster, shared_data, tmp_path, monkeypatch):
    """The real ``verify_problems`` asset with ``MICROCODER_EVALUATOR_RAY_ADDRESS``'s resource:
    references, generated tests and known-wrong programs judged on the actors, the same rows and
    strengths as this machine's pool gives."""
    import dagster as dg

    from assets.dataset.assets import verify_problems
    from assets.resources import EvaluatorResource, SamplerResource
    from assets.settings import from_env
    from pipeline.process import process_rows
    from pipeline.schema import PROCESSED_SCHEMA, rows_from_table, rows_to_table
    from pipeline.sources import collect, default_specs
    from pipeline.verify import VerifyConfig, verify_rows

    rows = [r for r in process_rows(collect(default_specs()["kodcode"]).kept).kept if r["incorrect_solutions"]][:3]
    monkeypatch.setenv("MICROCODER_DATA", str(tmp_path))  # no shard verified by an earlier run here

    @dg.asset(name="filtered_problems")
    def filtered():
        return rows_from_table(rows_to_table(rows, PROCESSED_SCHEMA))

    resource = from_env(EvaluatorResource, "evaluator", {"MICROCODER_EVALUATOR_RAY_ADDRESS": cluster["address"]})
    result = dg.materialize_to_memory([filtered, verify_problems], selection=["filtered_problems", "verified_problems",
                                      "verify_rejects"], resources={"sampler": SamplerResource(), "evaluator": resource})
    assert result.success
    (event,) = [m for m in result.asset_materializations_for_node("verify_problems")
                if m.asset_key.path[-1] == "verified_problems"]
    assert event.metadata["evaluator"].value == f"ray ({cluster['address']})"
    assert event.metadata["shards_reused"].value == "0/" + str(event.metadata["stage_stats"].value["shards"])
    on_cluster = result.output_for_node("verify_problems", "verified_problems")
    local = verify_rows(rows, VerifyConfig()).kept

    def summary(kept):
        # generation's case count may differ (its wall-time budgets); what it is judged by may not
        return sorted((r["problem_id"], r["incorrect_run"], r["test_strength"]) for r in kept)

    assert summary(rows_from_table(on_cluster)) == summary(local)


def test_generations_oracle_and_adversaries_run_on_both_nodes(cluster, shared_data):
    """Verify with test generation on two real LeetCode call problems, through the Ray backend:
    the references' answers (the oracle) and the hardcoder's and mutants' (the adversaries) come
    from ``values_many`` batches run on both nodes, each batch naming the node that ran it, and
    the released tests are those this machine's pool makes."""
    from itertools import islice

    from evaluator.backend import LocalBackend
    from pipeline.process import process_rows
    from pipeline.sources import default_specs
    from pipeline.sources.registry import get_adapter
    from pipeline.verify import VerifyConfig, verify_rows
    from pipeline.verify.testgen import TestGenConfig

    spec = default_specs()["leetcode"]
    adapter = get_adapter(spec.adapter)
    rows = process_rows([adapter.to_row(r, spec) for r in islice(adapter.load(spec), 2)]).kept
    assert [r["tests"].kind for r in rows] == ["call", "call"]
    generous = 60.0  # no budget cuts a run short: both runs answer every input
    config = VerifyConfig(cache=False, generation=TestGenConfig(inputs=12, max_tests=6, mutants=3, cache=False,
                                                                oracle_budget_s=generous, adversary_budget_s=generous))
    backend = RayEvaluator(cluster["address"], batch_size=1)
    on_cluster = verify_rows(rows, config, backend=backend)
    nodes = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    print("values_many jobs by node:", {nodes[n]: k for n, k in backend.values_by_node.items()},
          "evaluate_many jobs by node:", {nodes[n]: k for n, k in backend.jobs_by_node.items()})
    assert set(backend.values_by_node) == set(nodes) and len(nodes) == 2 and min(backend.values_by_node.values()) >= 2

    class Counted(LocalBackend):
        values_jobs = 0

        def values_many(self, jobs, limits=None, options=None):
            jobs = list(jobs)
            self.values_jobs += len(jobs)
            return super().values_many(jobs, limits, options)

    counted = Counted()
    local = verify_rows(rows, config, backend=counted)
    # the same values jobs (a reference's answers, an adversary's) as this machine's pool runs (only
    # the adversaries the original tests let through run on generated inputs: a few jobs a problem)
    assert sum(backend.values_by_node.values()) == counted.values_jobs >= 2 * len(rows)

    def released(result):
        return [(r["problem_id"], r["generated_tests"], r["mutants_run"], r["mutation_score"],
                 [(c.input, c.output) for c in r["tests"].cases]) for r in result.kept]

    assert released(on_cluster) == released(local)
    assert all(r["generated_tests"] > 0 for r in on_cluster.kept) and len(on_cluster.kept) == 2


def test_the_reward_judges_on_the_cluster_when_configured(cluster, monkeypatch):
    """verl's reward (``compute_score`` and the batched one) with ``MICROCODER_EVALUATOR_RAY_ADDRESS``:
    the same scores, judged by the actors."""
    from evaluator import reward

    good, bad = "```python\nprint(int(input()) + 1)\n```", "```python\nprint(0)\n```"
    truth = json.dumps({"kind": "stdin", "cases": [{"input": "1", "output": "2"}, {"input": "5", "output": "6"}]})
    local = [reward.compute_score("x", s, truth) for s in (good, bad)]
    monkeypatch.setenv("MICROCODER_EVALUATOR_RAY_ADDRESS", cluster["address"])
    reward._backend.cache_clear()
    try:
        single = [reward.compute_score("x", s, truth) for s in (good, bad)]
        batch = reward.compute_score_batch(["x"] * 3, [good, bad, "no code"], [truth] * 3)
        judged = sum(reward._backend().jobs_by_node.values())
    finally:
        reward._backend.cache_clear()
    keys = ("score", "acc", "test_pass_fraction", "verdict")
    assert [[r[k] for k in keys] for r in single] == [[r[k] for k in keys] for r in local] == \
        [[r[k] for k in keys] for r in batch[:2]]
    assert batch[2]["verdict"] == "no_code" and judged == 4


def test_the_wall_budget_counts_from_the_call(cluster):
    """Eight looping programs on two slots with a 2 s wall budget: those queued behind the first
    round spend their wait from it, so the call returns in about the budget, every job timed out."""
    backend = RayEvaluator(cluster["address"], batch_size=1)
    backend.actors()
    loop = ("loop", "while True:\n    pass\n", {"kind": "stdin", "cases": [{"input": "", "output": ""}]})
    start = time.monotonic()
    results = backend.evaluate_many([loop] * 8, Limits(time_s=10, wall_budget_s=2))
    took = time.monotonic() - start
    assert [r.verdict.value for r in results] == ["time_limit"] * 8
    assert took < 3.5, took  # not two rounds of 2 s (the budget counted from when a job was sent)


def test_as_many_jobs_as_nodes_run_one_on_each(cluster):
    """Two slow jobs on two one-slot nodes run side by side (they once both went to the first
    actor, which ran them one after the other)."""
    backend = RayEvaluator(cluster["address"], batch_size=8)
    backend.actors()
    slow = ("slow", "import time\ntime.sleep(1.5)\nprint(1)", {"kind": "stdin", "cases": [{"input": "", "output": "1"}]})
    start = time.monotonic()
    results = backend.evaluate_many([slow] * 2, Limits(time_s=5))
    assert [r.verdict.value for r in results] == ["accepted"] * 2
    assert len(backend.jobs_by_node) == 2 and time.monotonic() - start < 2.8


def test_a_budgeted_call_does_not_wait_behind_another_callers_work(cluster):
    """Another dispatcher's slow programs hold every slot (a Verify step sharing the actors with a
    reward): a call with a 1 s budget comes back at its budget and grace, its jobs time limits."""
    backend = RayEvaluator(cluster["address"], batch_size=1)
    slots = sum(a.slots for a in backend.actors())
    sleeper = ("slow", "import time\ntime.sleep(4)\n", {"kind": "stdin", "cases": [{"input": "", "output": ""}]})
    other = threading.Thread(target=RayEvaluator(cluster["address"], batch_size=1).evaluate_many,
                             args=([sleeper] * slots, Limits(time_s=6)))
    other.start()
    time.sleep(1.0)
    echo = ("echo", "print(input())", {"kind": "stdin", "cases": [{"input": "1", "output": "1"}]})
    start = time.monotonic()
    results = backend.evaluate_many([echo] * 2, Limits(wall_budget_s=1))
    took = time.monotonic() - start
    other.join()
    assert [r.verdict.value for r in results] == ["time_limit"] * 2
    assert took < 1 + REPLY_GRACE_S + 0.8, took  # not the 3 s the sleepers have left


def test_the_command_line_judges_and_reports_on_the_cluster(cluster, tmp_path, capsys):
    """``microcoder-eval run --ray-address`` writes what the local run writes; ``doctor --ray-address``
    reports every node's actor."""
    from evaluator.cli import main

    lines = [{"id": f"p{i}", "code": "print(int(input()) * 2)" if i % 2 else "print(0)",
              "tests": {"kind": "stdin", "cases": [{"input": str(i), "output": str(2 * i)}]}} for i in range(6)]
    (tmp_path / "in.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    outputs = {}
    for name, extra in (("local", []), ("cluster", ["--ray-address", cluster["address"]])):
        assert main(["run", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / f"{name}.jsonl"), *extra]) == 0
        outputs[name] = [{k: r[k] for k in ("id", "passed", "verdict")}
                         for r in map(json.loads, (tmp_path / f"{name}.jsonl").read_text().splitlines())]
    assert outputs["cluster"] == outputs["local"] and len(outputs["local"]) == 7
    capsys.readouterr()
    assert main(["doctor", "--ray-address", cluster["address"]]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert len(reports) == 2 and {r["isolation"] for r in reports} == {isolation_level()}


def test_a_job_lost_past_its_retries_is_named(cluster):
    """max_retries=0: the first actor death is final, and the error names a job of the lost batch."""
    backend = RayEvaluator(cluster["address"], batch_size=1, max_retries=0)
    actors = backend.actors()
    slow = "import time\ntime.sleep(5)\n"
    jobs = [(f"slow{i}", slow, {"kind": "stdin", "cases": [{"input": "", "output": ""}]}) for i in range(4)]
    threading.Timer(1.5, lambda: [ray.kill(a.handle) for a in actors]).start()
    with pytest.raises(JobLost, match=r"job 'slow\d' was lost with its actor 1 times"):
        backend.evaluate_many(jobs, Limits(time_s=6))


def test_killing_the_second_nodes_raylet_mid_batch_loses_no_job(cluster):
    """Sleeping programs keep both actors busy; the second node's raylet is killed once results
    start to come back. Every job still gets its verdict (its batch ran again on the head node)."""
    sleeper = "import time\ntime.sleep(0.4)\nprint(int(input()) * 2)\n"
    jobs = [(f"job{i}", sleeper if i % 5 else "print(0)",
             {"kind": "stdin", "cases": [{"input": str(i), "output": str(2 * i)}]}) for i in range(24)]
    backend = RayEvaluator(cluster["address"], batch_size=1)
    backend.actors()
    second = [n["NodeID"] for n in ray.nodes() if n["Alive"] and n["NodeManagerAddress"] == SECOND_IP]

    def kill_second_node() -> None:
        deadline = time.monotonic() + 60
        while backend.jobs_by_node[second[0]] < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in pids_using(f"--node_ip_address={SECOND_IP}"):
            if "raylet" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[0]:
                os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_second_node, daemon=True)
    killer.start()
    results = backend.evaluate_many(jobs, Limits(time_s=6))
    killer.join(timeout=60)
    assert [r.key for r in results] == [k for k, _, _ in jobs]
    assert [r.passed for r in results] == [i % 5 != 0 or i == 0 for i in range(24)]
    assert backend.requeued >= 1  # the batch in flight on the dead node ran again
    assert len(backend.actors()) == 1  # the dead node gets no new actor


def test_the_training_job_reads_the_resource_settings(monkeypatch):
    """The reward, inside a Ray job, builds the backend from the same variables the Dagster resource
    reads (and the ray_cluster resource forwards them)."""
    from assets.training.resources import RayClusterResource
    from evaluator.ray_backend import ENV_NAMES, from_env

    monkeypatch.delenv("MICROCODER_EVALUATOR_RAY_ADDRESS", raising=False)
    assert from_env() is None
    monkeypatch.setenv("MICROCODER_EVALUATOR_RAY_ADDRESS", "auto")
    monkeypatch.setenv("MICROCODER_EVALUATOR_BATCH_SIZE", "3")
    monkeypatch.setenv("MICROCODER_EVALUATOR_MAX_RETRIES", "5")
    backend = from_env()
    assert (backend.address, backend.batch_size, backend.max_retries, backend.cores_per_actor) == ("auto", 3, 5, None)
    from assets.settings import env_name
    from evaluator.ray_backend import ADDRESS_ENV, ENV_SIZES

    # the names the Dagster resource reads (MICROCODER_<RESOURCE>_<FIELD>) are the ones the job reads
    assert ADDRESS_ENV == env_name("evaluator", "ray_address")
    assert all(name == env_name("evaluator", field) for field, name in ENV_SIZES.items())
    forwarded = RayClusterResource().forward_env.split(",")
    assert {"MICROCODER_EVALUATOR_RAY_ADDRESS", "MICROCODER_EVALUATOR_BATCH_SIZE"} <= set(ENV_NAMES) <= set(forwarded)
