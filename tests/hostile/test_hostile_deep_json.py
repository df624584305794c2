"""JSON nested deeper than Python's recursion limit, wherever rocmfix reads JSON it did
not write just now: a journal line, a snapshot, a fleet file, a probe or verify child.

``json.loads`` raises RecursionError (not ValueError) for ``[[[[...``; each reader must
treat it as the bad input it is: one clear line or a skipped line, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_util import Machine, cli

DEEP = "[" * 100_000


def test_a_deep_journal_line_costs_only_itself(machine: Machine) -> None:
    machine.state.mkdir(parents=True)
    machine.journal.write_text(DEEP + "\n")
    got = cli(["history"])
    got.no_traceback()
    assert "line skipped" in got.err
    cli(["undo", "--yes"]).clean_refusal()  # nothing to undo, said in one line


def test_a_deep_snapshot_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "snapshot.json").write_text(DEEP)
    got = cli(["doctor", "--snapshot", str(tmp_path)])
    got.clean_refusal()
    assert "snapshot" in got.err


@pytest.mark.parametrize(
    "text", [DEEP, "{}\n" + DEEP, f"gpu001: {DEEP}\n"], ids=["one", "many", "pdsh"]
)
def test_a_deep_fleet_file_is_a_bad_node_not_a_traceback(tmp_path: Path, text: str) -> None:
    node = tmp_path / "node.json"
    node.write_text(text)
    cli(["fleet", "summarize", str(node)]).no_traceback()
