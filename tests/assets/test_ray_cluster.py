"""The ``ray_cluster`` resource: settings from the environment, checked at load, and what it
hands dagster-ray (the e2e run is tests/e2e/test_training_ray.py)."""

from __future__ import annotations

import pytest

from assets.settings import SettingError, from_env
from assets.training.resources import RayClusterResource


def test_address_from_the_environment_must_be_the_dashboard_url():
    res = from_env(RayClusterResource, "ray_cluster", {"MICROCODER_RAY_CLUSTER_ADDRESS": "http://head:8265",
                                                       "MICROCODER_RAY_CLUSTER_PIP": "s3fs, dagster-pipes"})
    assert res.address == "http://head:8265"
    with pytest.raises(SettingError, match="MICROCODER_RAY_CLUSTER_ADDRESS='head:6379'"):
        from_env(RayClusterResource, "ray_cluster", {"MICROCODER_RAY_CLUSTER_ADDRESS": "head:6379"})
    assert res.submit_params()["runtime_env"]["pip"] == ["s3fs", "dagster-pipes"]


def test_pipes_client_carries_the_token_and_forwarded_storage_settings(monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    res = RayClusterResource(address="http://head:8265", auth_token="t0k")
    client = res.pipes_client()
    assert client._address == "http://head:8265"  # (the HTTP client itself connects when first used)
    assert client._headers == {"Authorization": "Bearer t0k"}
    env = res.submit_params()["runtime_env"]["env_vars"]
    assert env["AWS_ENDPOINT_URL"] == "http://127.0.0.1:9000" and "AWS_SESSION_TOKEN" not in env
    assert RayClusterResource().headers() is None
