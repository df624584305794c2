"""`rocmfix fix --apply` and `rocmfix undo` run as commands: a full disk, as the kernel
reports it, and the round trip of a symlinked CRLF startup file.

The command runs as a user runs it, in a child process (``python -m rocmfix``), with
``RLIMIT_FSIZE`` set in that child: every write past the limit fails with the kernel's
own EFBIG ("File too large"), in the journal, the backups and the startup file alike,
exactly where a full file system fails with ENOSPC. Nothing is patched in-process.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_util import Machine

from rocmfix.actions import ActionError, apply_plan, fsops, plan_action, undo

SRC = Path(__file__).resolve().parents[2] / "src"
ORIGINAL = (
    b"# my bashrc\r\nalias ll='ls -l'\r\n" + b"export KEEP=1\n" * 4000 + b"# no newline at the end"
)


def rocmfix(args: list[str], fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    # No bytecode from this child: under RLIMIT_FSIZE CPython's cache writer renames a
    # short-written .pyc into place (it does not check the count), and every later
    # import of that module in the checkout fails with "marshal data too short" (a
    # fresh clone in CI has no __pycache__ yet).
    env = {**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "rocmfix", *args],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=limit,
        timeout=60,
        check=False,
    )


def one_line_refusal(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("rocmfix: ") and len(lines) <= 2, done.stderr
    assert all(line.startswith(("rocmfix: ", "hint: ")) for line in lines), done.stderr


def journal_events(machine: Machine) -> list[tuple[str, str]]:
    if not machine.journal.exists():
        return []
    return [
        (row["id"], row["event"])
        for row in map(json.loads, machine.journal.read_text().splitlines())
    ]


APPLY = ["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--apply", "--yes"]


def test_a_full_disk_while_saving_backups_leaves_no_partial_backup(machine: Machine) -> None:
    machine.bashrc.write_bytes(ORIGINAL)
    done = rocmfix(APPLY, fsize=4096)  # the backup of a 56 KB file cannot be written
    one_line_refusal(done)
    assert "nothing was changed" in done.stderr
    assert machine.bashrc.read_bytes() == ORIGINAL
    assert journal_events(machine) == []
    backups = machine.state / "backups"
    left = sorted(p.relative_to(backups) for p in backups.rglob("*")) if backups.exists() else []
    assert left == [], f"half-written backups left behind: {left}"
    # And the next attempt, with room, works and undoes byte for byte.
    assert rocmfix(APPLY).returncode == 0
    assert rocmfix(["undo", "--yes"]).returncode == 0
    assert machine.bashrc.read_bytes() == ORIGINAL


def test_an_undo_the_journal_could_not_record_is_recorded_by_the_next_undo(
    machine: Machine,
) -> None:
    small = b"# my bashrc\r\nexport KEEP=1"  # restoring it fits under the limit, a journal line not
    machine.bashrc.write_bytes(small)
    assert rocmfix(APPLY).returncode == 0
    rid = journal_events(machine)[0][0]
    first = rocmfix(["undo", "--yes"], fsize=machine.journal.stat().st_size)
    one_line_refusal(first)
    assert "journal could not record it" in first.stderr
    assert machine.bashrc.read_bytes() == small  # the file itself was put back
    assert journal_events(machine)[-1] == (rid, "applied")  # and no torn line claims more
    # With room again, undo must not call the restored file "changed since" and refuse:
    # it finds the change already reversed and records that, so history stops listing it.
    again = rocmfix(["undo", "--yes"])
    assert again.returncode == 0, again.stderr
    assert f"undone {rid}" in again.stdout
    assert journal_events(machine)[-1] == (rid, "undone")
    assert machine.bashrc.read_bytes() == small
    assert "applied" not in rocmfix(["history"]).stdout
    assert rocmfix(["undo", "--yes"]).returncode == 2  # nothing left to undo


def test_a_symlinked_crlf_bashrc_round_trips_through_the_command(machine: Machine) -> None:
    # A dotfile manager's link, CRLF lines, no newline at the end: `rocmfix fix --apply`
    # writes through the link and `rocmfix undo` puts the target back byte for byte.
    dotfiles = machine.home / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "bashrc"
    target.write_bytes(ORIGINAL)
    target.chmod(0o640)
    machine.bashrc.symlink_to("dotfiles/bashrc")
    applied = rocmfix(APPLY)
    assert applied.returncode == 0, applied.stderr
    assert machine.bashrc.is_symlink() and os.readlink(machine.bashrc) == "dotfiles/bashrc"
    edited = target.read_bytes()
    assert edited.startswith(ORIGINAL) and b"HSA_OVERRIDE_GFX_VERSION='10.3.0'\r\n" in edited
    ((rid, event),) = journal_events(machine)[:1]
    assert event == "begin" and journal_events(machine)[-1] == (rid, "applied")
    backup = machine.state / "backups" / rid
    assert (backup / "0.before").read_bytes() == ORIGINAL
    assert (backup / "0.before").stat().st_mode & 0o777 == 0o600
    assert rid in rocmfix(["history"]).stdout
    undone = rocmfix(["undo", "--yes"])
    assert undone.returncode == 0 and f"undone {rid}" in undone.stdout, undone.stderr
    assert machine.bashrc.is_symlink() and os.readlink(machine.bashrc) == "dotfiles/bashrc"
    assert target.read_bytes() == ORIGINAL
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in dotfiles.iterdir()) == ["bashrc"]  # no temporary left
    assert journal_events(machine)[-1] == (rid, "undone")


def _can_mount_privately() -> bool:
    if shutil.which("unshare") is None:
        return False
    try:
        probe = subprocess.run(
            ["unshare", "-rm", "sh", "-c", "mount -t tmpfs none /mnt 2>/dev/null || exit 3"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_privately(), reason="needs `unshare -rm` and mount rights")
def test_a_startup_file_on_a_read_only_file_system_is_refused_before_anything(
    machine: Machine, tmp_path: Path
) -> None:
    # home-manager links ~/.bashrc into /nix/store, a read-only mount; so does a
    # read-only bind-mounted home in a container. Here: a private read-only tmpfs.
    ro = tmp_path / "ro"
    ro.mkdir()
    machine.bashrc.symlink_to(ro / "bashrc")
    script = (
        f'mount -t tmpfs -o size=1m none "{ro}" && printf "export A=1" > "{ro}/bashrc" '
        f'&& mount -o remount,ro "{ro}" && exec "$@"'
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1"}

    def in_namespace(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["unshare", "-rm", "sh", "-c", script, "sh", sys.executable, "-m", "rocmfix", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    session = in_namespace(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--session"])
    assert (
        session.returncode == 0 and "HSA_OVERRIDE_GFX_VERSION" in session.stdout
    )  # the hint works
    done = in_namespace(APPLY)
    one_line_refusal(done)
    assert "read-only file system" in done.stderr.lower()
    assert "--session" in done.stderr
    assert "read-only (mode" not in done.stdout  # not a note about the file's own mode
    assert not machine.state.exists()  # no journal, no backups: nothing was attempted


@pytest.mark.parametrize("existing", [False, True], ids=["new-dir", "empty-dir"])
def test_a_full_disk_during_collect_leaves_no_partial_snapshot(
    machine: Machine, tmp_path: Path, existing: bool
) -> None:
    out = tmp_path / "snap"
    if existing:
        out.mkdir()
    done = rocmfix(["collect", "--out", str(out), "--no-torch", "--timeout", "5"], fsize=64)
    one_line_refusal(done)
    assert "cannot write snapshot" in done.stderr
    # A half-written snapshot would be shared as if it were one; leave the place as it was.
    if existing:
        assert out.is_dir() and list(out.iterdir()) == []
    else:
        assert not out.exists()


def test_a_full_disk_during_undo_changes_nothing_and_says_so(machine: Machine) -> None:
    machine.bashrc.write_bytes(ORIGINAL)
    assert rocmfix(APPLY).returncode == 0
    applied = machine.bashrc.read_bytes()
    rid = journal_events(machine)[0][0]
    done = rocmfix(["undo", "--yes"], fsize=4096)  # the 56 KB original cannot be written back
    one_line_refusal(done)
    assert "File too large" in done.stderr
    # One step, and it failed: no "later steps were undone" for steps that do not exist.
    assert "nothing was changed" in done.stderr and "later steps" not in done.stderr
    assert machine.bashrc.read_bytes() == applied  # no half-written startup file
    assert sorted(p.name for p in machine.home.iterdir()) == [".bashrc"]  # no temporary left
    assert journal_events(machine)[-1] == (rid, "applied")
    assert rocmfix(["undo", "--yes"]).returncode == 0  # with room again
    assert machine.bashrc.read_bytes() == ORIGINAL


def test_an_undo_cut_short_midway_is_finished_by_the_next_undo(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two moves; undo puts the user db back, then the disk fills while copying the kernel
    # cache back (another file system). The next undo must finish the job, not call the
    # restored user db "recreated since" and refuse (nor, with --force, trip over it).
    cache = machine.home / ".cache" / "miopen"
    (cache / "3.2.0").mkdir(parents=True)
    (cache / "3.2.0" / "gfx1100.ukdb").write_bytes(b"kernels")
    userdb = machine.home / ".config" / "miopen"
    userdb.mkdir(parents=True)
    (userdb / "gfx1100_48.HIP.3_2_0.udb").write_bytes(b"perf")
    record = apply_plan(plan_action("clear-miopen-cache", {}, machine.ctx()))
    real_move = fsops.move

    def full_for_the_cache(src: str, dst: str) -> None:
        if os.fspath(dst) == str(cache):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_move(src, dst)

    monkeypatch.setattr(fsops, "move", full_for_the_cache)
    with pytest.raises(ActionError, match="stopped at step 1"):
        undo(record.id)
    assert userdb.is_dir() and not cache.exists()
    monkeypatch.setattr(fsops, "move", real_move)
    assert undo(record.id).status == "undone"
    assert (cache / "3.2.0" / "gfx1100.ukdb").read_bytes() == b"kernels"
    assert (userdb / "gfx1100_48.HIP.3_2_0.udb").read_bytes() == b"perf"
