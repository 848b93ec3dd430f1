"""The Pipes reader the training asset uses: large messages arrive whole, however the reads fall."""

from __future__ import annotations

import sys
import threading
import time

import dagster as dg
import pytest

from assets.training.pipes import pipes_subprocess_client, whole_lines

EXTERNAL = """
from dagster_pipes import open_dagster_pipes
with open_dagster_pipes() as pipes:
    for i in range(200):  # each larger than a page, so a reader can land inside one
        pipes.report_custom_message({"i": i, "pad": "x" * (20000 + 3037 * (i % 50))})
    pipes.report_asset_materialization(metadata={"last": 199, "pad": "y" * 300000})
"""


def test_a_line_is_yielded_once_its_newline_is_written(tmp_path):
    path = tmp_path / "messages"
    path.write_bytes(b'{"a": 1}\n{"b": ')
    stop = threading.Event()

    def finish():
        time.sleep(0.3)  # the reader has seen the half line by now
        with open(path, "ab") as f:
            f.write(b'2}\n')
        stop.set()

    threading.Thread(target=finish).start()
    assert list(whole_lines(str(path), stop.is_set)) == [b'{"a": 1}', b'{"b": 2}']


def test_a_message_cut_off_at_the_end_is_an_error(tmp_path):
    path = tmp_path / "messages"
    path.write_bytes(b'{"a": 1}\n{"b": ')
    lines = whole_lines(str(path), lambda: True)
    assert next(lines) == b'{"a": 1}'
    with pytest.raises(ValueError, match="cut off"):
        next(lines)


def test_every_large_message_reaches_the_asset(tmp_path):
    """200 messages of 20-170 KB and a 300 KB materialization through a real Pipes session: all
    arrive, in order, and the closing message too (Dagster's file reader loses the rest of the
    session at the first half-read line)."""
    received: list[int] = []

    @dg.asset
    def chatty(context, pipes_subprocess_client: dg.PipesSubprocessClient):  # noqa: ANN001 - Dagster reads the name
        invocation = pipes_subprocess_client.run(command=[sys.executable, "-c", EXTERNAL], context=context)
        received.extend(m["i"] for m in invocation.get_custom_messages())
        return invocation.get_materialize_result()

    result = dg.materialize([chatty], resources={"pipes_subprocess_client": pipes_subprocess_client(str(tmp_path))},
                            instance=dg.DagsterInstance.ephemeral())
    assert result.success and received == list(range(200))
    [event] = result.asset_materializations_for_node("chatty")
    assert event.metadata["last"].value == 199 and len(event.metadata["pad"].value) == 300000
