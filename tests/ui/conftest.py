"""A real Dagster webserver over the project's workspace, and Debian's Chromium driven by Playwright.

Nothing is downloaded: Playwright (the Python package) drives ``/usr/bin/chromium`` through
``executable_path``. The webserver runs on a free localhost port with its own DAGSTER_HOME and
MICROCODER_DATA in a tmp dir; the instance uses the default run coordinator so runs launched
from the UI start at once without a daemon (no sensor or schedule runs behind the test's back).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
DAGSTER_YAML = """\
run_coordinator:
  module: dagster._core.run_coordinator
  class: DefaultRunCoordinator
telemetry:
  enabled: false
"""
LOCATION_QUERY = "{ workspaceOrError { __typename ... on Workspace { locationEntries { name loadStatus locationOrLoadError { __typename ... on PythonError { message } } } } } }"


@dataclass
class Webserver:
    url: str
    location: str
    home: Path
    data: Path
    log: Path

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        return _graphql(self.url, query, variables)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _graphql(url: str, query: str, variables: dict | None = None) -> dict:
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(f"{url}/graphql", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _wait_for_location(url: str, process: subprocess.Popen, log: Path, deadline_s: float = 240) -> str:
    """Until the code location has loaded (or failed: then fail with its error); its name."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"dagster-webserver exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            entries = _graphql(url, LOCATION_QUERY)["data"]["workspaceOrError"]["locationEntries"]
        except (OSError, KeyError, TypeError, ValueError):
            time.sleep(1)
            continue
        if entries and all(e["loadStatus"] == "LOADED" for e in entries):
            errors = [e["locationOrLoadError"] for e in entries if e["locationOrLoadError"]["__typename"] == "PythonError"]
            if errors:
                pytest.fail(f"code location failed to load: {errors[0].get('message')}")
            return entries[0]["name"]
        time.sleep(1)
    pytest.fail(f"code location not loaded after {deadline_s}s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def webserver(tmp_path_factory) -> Iterator[Webserver]:
    """``dagster-webserver -w workspace.yaml`` with the project's sources registered as partitions."""
    executable = Path(sys.executable).with_name("dagster-webserver")
    if not executable.exists():
        pytest.skip("dagster-webserver is not installed in this environment")
    root = tmp_path_factory.mktemp("ui")
    home, data = root / "dagster_home", root / "data"
    home.mkdir()
    data.mkdir()
    (home / "dagster.yaml").write_text(DAGSTER_YAML)
    env = {**os.environ, "DAGSTER_HOME": str(home), "MICROCODER_DATA": str(data), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "DAGSTER_DISABLE_TELEMETRY": "1"}
    # The source partitions are dynamic: register them in the instance the webserver reads.
    subprocess.run(
        [sys.executable, "-c", "import dagster as dg; from assets.ingest.partitions import register_sources; "
         "print(register_sources(dg.DagsterInstance.get()))"],
        cwd=REPO, env=env, check=True, timeout=300,
    )
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = root / "webserver.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(executable), "-w", str(REPO / "workspace.yaml"), "-h", "127.0.0.1", "-p", str(port)],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        location = _wait_for_location(url, process, log)
        yield Webserver(url, location, home, data, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """A headless Chromium context (empty profile); skips when Chromium or Playwright is missing."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the Python package) is not installed")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1400},
        )
        try:
            yield context
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(chromium):
    page = chromium.new_page()
    page.set_default_timeout(60_000)
    # A fresh instance greets the first visitor with a "Join the community" dialog: skip it
    # whenever it shows up in front of something the test clicks.
    page.add_locator_handler(page.get_by_role("button", name="Skip"), lambda skip: skip.click())
    yield page
    page.close()
