"""Issue 13 items 2, 3, 4, 6, 11: the journal survives corruption, a full disk and tampering."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from hostile_util import Machine, cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmfix.actions import ActionError, apply_plan, history, journal, plan_action, undo
from rocmfix.actions.journal import read_history_checked

ORIGINAL = b"# my bashrc\nexport HF_TOKEN=hf_secretvalue0123456789\n"


def _fix(machine: Machine, value: str = "0") -> str:
    return apply_plan(plan_action("set-env", {"HSA_ENABLE_SDMA": value}, machine.ctx())).id


def _prepare(machine: Machine) -> str:
    machine.bashrc.write_bytes(ORIGINAL)
    machine.bashrc.chmod(0o600)
    return _fix(machine)


CORRUPTIONS = {
    "truncated": b'{"event": "begin", "id": "20260101T000000-aaaa", "act',
    "garbage": b"\x00\xff\xfe garbage \x01",
    "not-utf8": b'{"event": "applied", "id": "\xff\xfe"}',
    "array": b"[1, 2, 3]",
    "number": b"42",
    "no-id": b'{"event": "applied"}',
    "traversal-id": b'{"event": "begin", "id": "../../../../tmp/x", "action": "set-env", "steps": []}',
    "unknown-event": b'{"event": "explode", "id": "20260101T000000-aaaa"}',
    "begin-no-action": b'{"event": "begin", "id": "20260101T000000-bbbb", "steps": []}',
    "steps-not-list": b'{"event": "begin", "id": "20260101T000000-cccc", "action": "set-env", "steps": 7}',
    "bad-step": b'{"event": "begin", "id": "20260101T000000-dddd", "action": "set-env", "steps": [{"kind": "teleport"}]}',
    "orphan-event": b'{"event": "undone", "id": "20260101T000000-eeee"}',
}


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_a_bad_line_costs_only_itself(machine: Machine, kind: str) -> None:
    rid = _prepare(machine)
    with machine.journal.open("ab") as fh:
        fh.write(CORRUPTIONS[kind] + (b"" if kind == "truncated" else b"\n"))
    records, problems = read_history_checked(machine.state)
    assert [r.id for r in records if r.undoable] == [rid]
    assert problems  # reported, not silently eaten
    got = cli(["history"])
    got.no_traceback()
    assert rid in got.out and "warning" in got.err
    # Item 3: a new fix after the bad line is applied, reported as applied, and undoable.
    new = _fix(machine, "1")
    assert next(r for r in history() if r.id == new).status == "applied"
    undo(new)
    undo(rid)
    assert machine.bashrc.read_bytes() == ORIGINAL


def test_a_deleted_backup_folder_blocks_only_its_own_record(machine: Machine) -> None:
    first = _prepare(machine)
    second = _fix(machine, "1")
    shutil.rmtree(machine.state / "backups" / first)
    rows = {r.id: r for r in history()}
    assert rows[first].status == "damaged" and "missing" in (rows[first].damage or "")
    assert rows[second].undoable
    got = cli(["undo", first, "--yes"])
    got.clean_refusal()
    assert "cannot be undone" in got.err
    undo(second)
    assert cli(["history"]).code == 0
    assert _fix(machine, "2")  # new fixes still work


def test_an_altered_backup_is_not_trusted(machine: Machine) -> None:
    rid = _prepare(machine)
    (machine.state / "backups" / rid / "0.before").write_bytes(b"rm -rf ~\n")
    with pytest.raises(ActionError, match="altered"):
        undo(rid)
    assert b"rm -rf" not in machine.bashrc.read_bytes()


def test_undo_never_runs_an_argv_found_in_the_journal(machine: Machine, tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    rid = "20260101T000000-abcd"
    entry = {
        "event": "begin",
        "id": rid,
        "action": "reinstall-torch",
        "params": {},
        "steps": [
            {
                "kind": "command",
                "argv": ["/usr/bin/python3", "-m", "pip", "uninstall", "-y", "torch"],
                "undo_argv": ["sh", "-c", f"touch {marker}"],
                "root": False,
            }
        ],
    }
    machine.state.mkdir(parents=True)
    machine.journal.write_text(
        json.dumps(entry) + "\n" + json.dumps({"event": "applied", "id": rid}) + "\n"
    )
    got = cli(["undo", rid, "--yes"])
    got.clean_refusal()
    assert not marker.exists()
    got = cli(["undo", "--yes"])
    assert got.code == 2 and not marker.exists()


@pytest.mark.parametrize("bad", ["../../etc", "20260101T000000-abcd/../../x", "x" * 500, ""])
def test_record_ids_are_validated(machine: Machine, bad: str) -> None:
    _prepare(machine)
    got = cli(["undo", bad, "--yes"]) if bad else cli(["undo", "--yes", "--last"])
    if bad:
        got.clean_refusal()
        assert "not a journal id" in got.err
    else:
        assert got.code == 0


def test_backups_are_private(machine: Machine) -> None:
    rid = _prepare(machine)
    folder = machine.state / "backups" / rid
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
    for f in folder.iterdir():
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    assert stat.S_IMODE(machine.journal.stat().st_mode) == 0o600
    machine.bashrc.write_bytes(ORIGINAL + b"# edited\n")
    undo(rid, force=True)
    assert stat.S_IMODE((folder / "0.newer").stat().st_mode) == 0o600


# ----------------------------------------------------------- disk full


def _enospc_after(monkeypatch: pytest.MonkeyPatch, calls_ok: int, short: bool = True) -> None:
    """os.write in the journal: short writes, then ENOSPC after ``calls_ok`` calls."""
    real = os.write
    count = {"n": 0}

    def fake(fd: int, data: bytes) -> int:  # type: ignore[override]
        count["n"] += 1
        if count["n"] > calls_ok:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, bytes(data[: max(1, len(data) // 3)] if short else data))

    monkeypatch.setattr(journal.os, "write", fake)


def test_short_writes_are_completed(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    machine.bashrc.write_bytes(ORIGINAL)
    _enospc_after(monkeypatch, 10**9)
    rid = _fix(machine)
    records, problems = read_history_checked(machine.state)
    assert problems == () and records[-1].id == rid and records[-1].status == "applied"
    undo(rid)
    assert machine.bashrc.read_bytes() == ORIGINAL


def test_disk_full_before_the_change_changes_nothing(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine.bashrc.write_bytes(ORIGINAL)
    _enospc_after(monkeypatch, 2)
    got = cli(["fix", "set-env", "HSA_ENABLE_SDMA=0", "--apply", "--yes"])
    got.clean_refusal()
    assert "nothing was changed" in got.err and "[" not in got.err.split("hint")[0]
    assert machine.bashrc.read_bytes() == ORIGINAL
    monkeypatch.undo()
    _, problems = read_history_checked(machine.state)
    assert problems == ()  # no torn line left behind


def test_disk_full_after_the_change_keeps_it_undoable(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine.bashrc.write_bytes(ORIGINAL)
    plan = plan_action("set-env", {"HSA_ENABLE_SDMA": "0"}, machine.ctx())
    real_event = journal.write_event

    def full(*a: object, **k: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("rocmfix.actions.transaction.write_event", full)
    record = apply_plan(plan)
    assert record.status == "incomplete"
    monkeypatch.setattr("rocmfix.actions.transaction.write_event", real_event)
    undo(record.id)
    assert machine.bashrc.read_bytes() == ORIGINAL


def test_a_state_directory_that_is_a_file_is_one_line(machine: Machine) -> None:
    machine.bashrc.write_bytes(ORIGINAL)
    machine.state.parent.mkdir(parents=True)
    machine.state.write_text("not a dir")
    got = cli(["fix", "set-env", "HSA_ENABLE_SDMA=0", "--apply", "--yes"])
    got.clean_refusal()
    assert machine.bashrc.read_bytes() == ORIGINAL


# ------------------------------------------------------------ property

_lines = st.one_of(
    st.binary(max_size=60),
    st.sampled_from(list(CORRUPTIONS.values())),
    st.builds(
        lambda ev, rid: json.dumps({"event": ev, "id": rid}).encode(),
        st.sampled_from(["begin", "applied", "undone", "rolled-back", "x"]),
        st.one_of(st.just("20260101T000000-ffff"), st.text(max_size=20)),
    ),
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10)),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
        ),
        max_leaves=8,
    ).map(lambda v: json.dumps(v).encode()),
)


@given(before=st.lists(_lines, max_size=5), after=st.lists(_lines, max_size=5))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_corruption_around_a_good_record_keeps_it(
    machine: Machine, before: list[bytes], after: list[bytes]
) -> None:
    if not hasattr(machine, "good"):
        machine.bashrc.write_bytes(ORIGINAL)
        _fix(machine)
        machine.good = machine.journal.read_bytes().splitlines()  # type: ignore[attr-defined]
    good = machine.good  # type: ignore[attr-defined]
    rid = json.loads(good[0])["id"]
    machine.journal.write_bytes(b"\n".join([*before, *good, *after]) + b"\n")
    records, _ = read_history_checked(machine.state)
    assert any(r.id == rid and r.steps for r in records)
