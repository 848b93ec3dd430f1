"""The real graph, materialized once per test session on a few local sources (shared by tests)."""

from __future__ import annotations

import dagster as dg
import pytest

SOURCES = ("humaneval", "mbpp", "leetcode", "livecodebench", "taco", "xcodeeval")  # xcodeeval: no references


@pytest.fixture(scope="session")
def built_instance() -> dg.DagsterInstance:
    """The instance the shared build materializes into (its event log: the assets' metadata)."""
    return dg.DagsterInstance.ephemeral()


@pytest.fixture(scope="session")
def built(tmp_path_factory, shared_data, built_instance):
    root = tmp_path_factory.mktemp("microcoder-data")
    mp = pytest.MonkeyPatch()
    mp.setenv("MICROCODER_DATA", str(root))
    from assets.definitions import defs
    from assets.ingest.partitions import register_sources
    from assets.resources import TranslationResource

    instance = built_instance
    resources = {"translation": TranslationResource(enabled=False)}
    register_sources(instance)
    for key in SOURCES:
        assert defs.resolve_job_def("ingest_job").execute_in_process(partition_key=key, instance=instance, resources=resources).success
    run_config = {
        "ops": {
            "scored_problems": {"config": {"sample_size": 3, "k": 2, "max_tokens": 48}},
            "verify_problems": {"config": {"generation": {"sample_per_source": 4}}},
            "microcoder_dataset": {"config": {"test_fraction": 0.2}},
        }
    }
    result = defs.resolve_job_def("dataset_job").execute_in_process(instance=instance, run_config=run_config, resources=resources)
    yield root, result
    mp.undo()


