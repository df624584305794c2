"""collect then replay: every check gives the same status and summary as on the machine it read.

The "machine" is each fixture (a SnapshotHost standing in for a live host, so every
check meets GPUs, errnos, containers, WSL...) and this test machine itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocmfix.host import LocalHost
from rocmfix.probes import CHECKS, run_checks
from rocmfix.snapshot import RecordingHost, SnapshotHost

HOSTS = Path(__file__).parent / "data" / "host"
FIXTURES = sorted(p.name for p in HOSTS.iterdir() if (p / "snapshot.json").exists())


def _statuses(results) -> dict[str, tuple[str, str]]:
    return {r.id: (r.status.value, r.summary) for r in results}


def _round_trip(inner, python: str, tmp_path: Path, want_torch: bool = True):
    rec = RecordingHost(inner)
    live = run_checks(rec, python=python, want_torch=want_torch)
    rec.write(tmp_path / "snap", python)
    replay = run_checks(SnapshotHost(tmp_path / "snap"), python=python)
    return live, replay


@pytest.mark.parametrize("name", FIXTURES)
def test_every_check_replays_as_it_ran(name: str, tmp_path: Path) -> None:
    source = SnapshotHost(HOSTS / name)
    live, replay = _round_trip(source, source.python, tmp_path)
    assert len(live) == len(CHECKS)
    assert _statuses(replay) == _statuses(live)


def test_this_machine_replays_as_it_ran(tmp_path: Path) -> None:
    import sys

    live, replay = _round_trip(LocalHost(), sys.executable, tmp_path)
    assert _statuses(replay) == _statuses(live)


def test_collect_no_torch_replays_as_skip_not_error(tmp_path: Path) -> None:
    import sys

    live, replay = _round_trip(LocalHost(), sys.executable, tmp_path, want_torch=False)
    assert _statuses(replay) == _statuses(live)
    assert dict((r.id, r.status.value) for r in replay)["torch-build"] == "skip"


def test_the_errno_of_a_failed_open_is_recorded(tmp_path: Path) -> None:
    rec = RecordingHost(LocalHost())
    res = rec.open_rw(str(tmp_path / "absent"))
    assert not res.ok and res.errno == "ENOENT"
    rec.write(tmp_path / "snap", "python3")
    data = json.loads((tmp_path / "snap" / "snapshot.json").read_text())
    assert data["rw"][str(tmp_path / "absent")] is False
    assert data["rw_errno"][str(tmp_path / "absent")] == "ENOENT"
    again = SnapshotHost(tmp_path / "snap").open_rw(str(tmp_path / "absent"))
    assert again == res


def test_old_snapshots_with_boolean_rw_still_read(tmp_path: Path) -> None:
    snap = tmp_path / "old"
    snap.mkdir()
    (snap / "snapshot.json").write_text(
        json.dumps(
            {"schema": "rocmfix.snapshot/1", "rw": {"/dev/kfd": False, "/dev/dri/renderD128": True}}
        )
    )
    host = SnapshotHost(snap)
    assert host.open_rw("/dev/dri/renderD128").ok
    old = host.open_rw("/dev/kfd")
    assert not old.ok and old.errno is None and old.known
    assert not host.open_rw("/dev/never-asked").known
