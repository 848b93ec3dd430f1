"""The Dagster UI in a real browser: every asset is listed, a user materializes one source, and
a failed run is re-executed from failure from its run page.

The materialization goes the way a person does it: select ``raw_problems`` and
``processed_problems`` in the catalog, open the launchpad, pick the ``humaneval`` partition,
switch translation off in the run config (the CPU model would only slow the test), launch, and
watch the run page until it says Success. The screenshot goes to the tmp dir (path printed); a
test never writes into the tracked tree, so docs/ui-materialized.png is refreshed by hand from it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

REPO = Path(__file__).resolve().parents[2]
PARTITION = "humaneval"
RUN_CONFIG = "resources:\n  translation:\n    config:\n      enabled: false\n"
RUN_DEADLINE_S = 420


@pytest.fixture(scope="module")
def asset_groups() -> dict[str, list[str]]:
    """Group name -> asset names, from the project's ``defs``."""
    from assets.definitions import defs

    graph = defs.resolve_asset_graph()
    groups: dict[str, list[str]] = {}
    for key in graph.get_all_asset_keys():
        groups.setdefault(graph.get(key).group_name, []).append(key.to_user_string())
    return {group: sorted(names) for group, names in groups.items()}


def _label_names(label: str, name: str) -> bool:
    """A graph node's label shows ``name``: whole, or cut in the middle when zoomed out."""
    label = label.strip()
    if "…" not in label:
        return label == name
    head, tail = label.split("…", 1)
    return name.startswith(head) and name.endswith(tail) and len(name) > len(head) + len(tail)


def _dismiss_welcome(page) -> None:
    skip = page.get_by_role("button", name="Skip")
    try:
        skip.wait_for(timeout=3_000)
        skip.click()
    except Exception:  # noqa: BLE001 - no dialog this time
        pass


def test_catalog_and_graph_show_every_asset(chromium, webserver, page, asset_groups, tmp_path):
    names = sorted(name for group in asset_groups.values() for name in group)
    page.goto(f"{webserver.url}/assets")
    for name in names:
        page.get_by_test_id(f"checkbox-{name}").wait_for(state="attached")
    listed = page.locator("[data-testid^='checkbox-']").evaluate_all("els => els.map(e => e.dataset.testid.slice(9))")
    assert set(names) <= set(listed), f"missing from the catalog: {sorted(set(names) - set(listed))}"
    for group, members in asset_groups.items():
        page.goto(f"{webserver.url}/locations/{webserver.location}/asset-groups/{group}")
        nodes = page.locator("[class*='AssetNode_assetName']")
        nodes.first.wait_for()
        page.wait_for_function(f"document.querySelectorAll(\"[class*='AssetNode_assetName']\").length >= {len(members)}")
        shown = nodes.all_inner_texts()
        missing = [name for name in members if not any(_label_names(label, name) for label in shown)]
        assert not missing, f"group {group}: not in the graph {missing}; graph shows {shown}"
        _dismiss_welcome(page)
        shot = tmp_path / f"ui-graph-{group}.png"
        page.screenshot(path=str(shot))
        print(f"asset graph of {group}: {shot}")


def test_materialize_one_source_from_the_launchpad(chromium, webserver, page, tmp_path):
    page.goto(f"{webserver.url}/assets")
    for name in ("raw_problems", "processed_problems"):
        page.get_by_test_id(f"checkbox-{name}").wait_for(state="attached")
        page.locator(f"label:has([data-testid='checkbox-{name}'])").click()
    materialize = page.get_by_role("button", name="Materialize selected")
    materialize.locator("xpath=following::button[1]").click()  # the caret beside it: more actions
    page.get_by_role("menuitem", name="Open launchpad").click()
    # raw_problems and processed_problems come from multi-assets: their siblings come along.
    confirm = page.get_by_role("button", name="Confirm")
    confirm.wait_for(timeout=10_000)
    confirm.click()

    partition = page.get_by_placeholder("Partition")
    partition.click()
    partition.fill(PARTITION)
    page.get_by_role("menuitem", name=PARTITION, exact=True).click()
    page.get_by_text(f"partition: {PARTITION}").first.wait_for()

    page.locator(".CodeMirror:not(.CodeMirror-empty) .CodeMirror-lines").first.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(RUN_CONFIG)
    page.get_by_text("No errors").wait_for()
    page.get_by_role("button", name="Materialize").last.click()

    page.wait_for_url("**/runs/*")
    run_id = page.url.rstrip("/").rsplit("/", 1)[1].split("?")[0]
    print(f"run {run_id} launched from the UI")
    status = _wait_for_run(webserver.home, run_id)
    assert status == "SUCCESS", f"run {run_id} ended {status}; webserver log: {webserver.log}"
    page.reload()
    page.get_by_text("Success", exact=True).first.wait_for()

    written = webserver.data / "assets" / "processed_problems" / f"{PARTITION}.parquet"
    assert written.exists(), f"no Parquet written at {written}"
    assert pq.read_metadata(written).num_rows > 100  # HumanEval has 164 problems

    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{webserver.url}/assets/processed_problems?view=partitions")
    page.get_by_text(PARTITION, exact=True).first.click()
    page.get_by_text("dagster/row_count").first.wait_for()  # the partition's metadata is shown
    _dismiss_welcome(page)
    page.wait_for_timeout(1000)
    shot = tmp_path / "ui-materialized.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000  # a real page, not a blank one


def _wait_for_run(home: Path, run_id: str) -> str:
    """The run's final status, read from the same instance the webserver writes."""
    import dagster as dg

    instance = dg.DagsterInstance.from_config(str(home))
    deadline = time.monotonic() + RUN_DEADLINE_S
    try:
        while time.monotonic() < deadline:
            run = instance.get_run_by_id(run_id)
            if run is not None and run.is_finished:
                return run.status.value
            time.sleep(2)
    finally:
        instance.dispose()
    return "TIMED_OUT"


LAUNCH_RUN = """
mutation($params: ExecutionParams!) {
  launchRun(executionParams: $params) {
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
    ... on RunConfigValidationInvalid { errors { message } }
  }
}"""


def test_failed_run_reexecuted_from_failure_in_the_ui(chromium, webserver, page, leetcode_lines):
    """A source whose dropped file is corrupt fails; once the file is replaced, *Re-execute → From
    failure* on the run page launches a child run that succeeds."""
    import gzip

    import dagster as dg

    partition = "drop_leetcode_ui_broken"
    drop = webserver.data / "drop" / "leetcode"
    drop.mkdir(parents=True, exist_ok=True)
    broken = drop / "ui_broken.jsonl.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00 not a gzip stream" * 20)
    instance = dg.DagsterInstance.from_config(str(webserver.home))
    try:
        instance.add_dynamic_partitions("sources", [partition])
    finally:
        instance.dispose()
    params = {
        "selector": {"repositoryLocationName": webserver.location, "repositoryName": "__repository__", "jobName": "ingest_job"},
        "runConfigData": {"resources": {"translation": {"config": {"enabled": False}}}},
        "executionMetadata": {"tags": [{"key": "dagster/partition", "value": partition}]},
    }
    launched = webserver.graphql(LAUNCH_RUN, {"params": params})["data"]["launchRun"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    failed_id = launched["run"]["runId"]
    assert _wait_for_run(webserver.home, failed_id) == "FAILURE"

    with gzip.open(broken, "wt") as handle:
        handle.writelines(leetcode_lines("test", 20))
    page.goto(f"{webserver.url}/runs/{failed_id}")
    page.get_by_text("Failure", exact=True).first.wait_for()
    page.get_by_text(f"cannot read {broken}").first.wait_for()  # the event log names the file
    _dismiss_welcome(page)
    page.get_by_role("button", name="Re-execute all").wait_for()
    page.locator("[class*='LaunchButton_dropdownArrow']").click()  # the split button's menu
    page.get_by_role("menuitem", name="From failure").click()
    page.wait_for_url(lambda url: "/runs/" in url and failed_id not in url)
    child_id = page.url.rstrip("/").rsplit("/", 1)[1].split("?")[0]
    assert _wait_for_run(webserver.home, child_id) == "SUCCESS", f"webserver log: {webserver.log}"

    instance = dg.DagsterInstance.from_config(str(webserver.home))
    try:
        child = instance.get_run_by_id(child_id)
        assert child.parent_run_id == failed_id and child.tags["dagster/partition"] == partition
    finally:
        instance.dispose()
    written = webserver.data / "assets" / "processed_problems" / f"{partition}.parquet"
    assert pq.read_metadata(written).num_rows == 20
