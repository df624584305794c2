"""Apply and undo plans: backups first, one step at a time, rollback on failure.

``apply_plan`` re-checks that every file is still what the plan saw (so the
plan shown is exactly what runs), journals the plan and its backups, then runs
the steps. If a step fails, the steps already done are reversed and the
record is marked ``rolled-back``. ``undo`` refuses to overwrite a file the
user edited since, unless forced, and then keeps that newer copy as well.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from rocmfix.actions import fsops
from rocmfix.actions.base import FileEdit, Move, Plan, Step
from rocmfix.actions.context import state_dir
from rocmfix.actions.journal import (
    DAMAGED,
    JournalRecord,
    backup_dir,
    locked,
    read_history,
    sha,
    valid_id,
    write_begin,
    write_event,
    write_private,
)
from rocmfix.errors import ActionError

Runner = Callable[[tuple[str, ...], float], None]


class ChangedSinceError(ActionError):
    """Undo found files changed after rocmfix wrote them; ``details`` holds the diffs."""

    def __init__(self, message: str, details: str, hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.details = details


def default_state() -> Path:
    return state_dir(os.environ, Path(os.environ.get("HOME") or Path.home()))


def run_command(argv: tuple[str, ...], timeout: float) -> None:
    """Run ``argv`` with the terminal's stdin; its output goes to stderr. Raises on failure."""
    try:
        done = subprocess.run(argv, stdout=2, stderr=2, timeout=timeout, check=False)
    except FileNotFoundError:
        raise ActionError(f"command not found: {argv[0]}") from None
    except subprocess.TimeoutExpired:
        raise ActionError(f"`{' '.join(argv)}` did not finish within {timeout:.0f}s") from None
    if done.returncode != 0:
        raise ActionError(f"`{' '.join(argv)}` failed with exit status {done.returncode}")


def apply_plan(
    plan: Plan, state: Path | None = None, runner: Runner = run_command
) -> JournalRecord:
    """Apply ``plan``; returns its journal record. Raises ActionError (after rollback)."""
    state = state or default_state()
    if plan.changes_nothing:
        raise ActionError(f"{plan.action}: nothing to change", hint="the fix is already in place")
    with locked(state):
        _preflight(plan.steps)
        write_begin(state, plan)
        done: list[Step] = []
        for n, step in enumerate(plan.steps, 1):
            try:
                _do(step, runner)
            except (OSError, ActionError) as err:
                failures = _rollback(done, runner)
                msg = getattr(err, "message", None) or getattr(err, "strerror", None) or str(err)
                try:
                    write_event(state, plan.id, "rolled-back", error=msg, failures=failures)
                except OSError as jerr:
                    failures.append(f"the journal could not record the rollback ({jerr.strerror})")
                raise ActionError(
                    f"{plan.action}: step {n} failed ({msg}); "
                    f"{len(done)} earlier change(s) rolled back",
                    hint="; ".join(failures) or None,
                ) from None
            done.append(step)
        # If this line cannot be written, the begin line and backups are on disk:
        # undo finds the record as incomplete and reverses the steps that took effect.
        with contextlib.suppress(OSError):
            write_event(state, plan.id, "applied")
    return find_record(state, plan.id)


def _preflight(steps: tuple[Step, ...]) -> None:
    for step in steps:
        if isinstance(step, FileEdit) and _current(step.path) != step.before:
            raise ActionError(
                f"{step.path} changed since the plan was made",
                hint="run the command again to see a fresh plan",
            )
        if isinstance(step, Move):
            if not os.path.lexists(step.src):
                raise ActionError(f"{step.src} no longer exists", hint="run the command again")
            if os.path.lexists(step.dst):
                raise ActionError(f"backup destination {step.dst} already exists")


def _current(path: str) -> bytes | None:
    """What ``path`` holds now (None: absent); ActionError when it cannot be read as a file."""
    from rocmfix import safeio
    from rocmfix.actions.set_env import STARTUP_MAX

    if not os.path.lexists(path):
        return None
    try:
        return safeio.read_bytes(path, STARTUP_MAX)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ActionError(f"cannot read {path}: {safeio.describe(err)}") from None


def _do(step: Step, runner: Runner) -> None:
    if isinstance(step, FileEdit):
        fsops.atomic_write(step.path, step.after)
    elif isinstance(step, Move):
        fsops.move(step.src, step.dst)
    else:
        runner(step.argv, step.timeout)


def _reverse(step: Step, runner: Runner) -> None:
    if isinstance(step, FileEdit):
        if step.before is None:
            fsops.remove(step.path)
            fsops.remove_new_dirs(step.new_dirs)
        else:
            fsops.atomic_write(step.path, step.before)
    elif isinstance(step, Move):
        fsops.move(step.dst, step.src)
    elif step.undo_argv:
        runner(step.undo_argv, step.timeout)


def _rollback(done: list[Step], runner: Runner) -> list[str]:
    failures = []
    for step in reversed(done):
        try:
            _reverse(step, runner)
        except (OSError, ActionError) as err:
            failures.append(f"could not reverse `{step.render().splitlines()[0]}`: {err}")
    return failures


def history(state: Path | None = None) -> tuple[JournalRecord, ...]:
    """Every journal record, oldest first."""
    return read_history(state or default_state())


def find_record(state: Path, record_id: str) -> JournalRecord:
    """The record with ``record_id`` (``last``: the newest undoable one)."""
    if record_id != "last":
        valid_id(record_id)
    records = read_history(state)
    if record_id == "last":
        live = [r for r in records if r.undoable]
        if not live:
            raise ActionError("there is no applied fix to undo", hint="see `rocmfix history`")
        return live[-1]
    for record in records:
        if record.id == record_id:
            return record
    raise ActionError(f"no journal record {record_id!r}", hint="see `rocmfix history` for ids")


def undo(
    record_id: str = "last",
    force: bool = False,
    state: Path | None = None,
    runner: Runner = run_command,
) -> JournalRecord:
    """Reverse a record's steps, newest first. Raises ChangedSinceError unless ``force``."""
    state = state or default_state()
    with locked(state):
        record = find_record(state, record_id)
        if record.damage and record.status == DAMAGED:
            raise ActionError(
                f"{record.id} ({record.action}) cannot be undone: {record.damage}",
                hint="nothing was changed; restore the backup folder or undo the change by hand",
            )
        if not record.undoable:
            raise ActionError(f"{record.id} ({record.action}) is {record.status}; nothing to undo")
        if record.status == "applied" and _already_reversed(record.steps):
            # An earlier undo put everything back but could not journal it (full disk,
            # crash): record it now instead of calling the restored files "changed since".
            try:
                write_event(state, record.id, "undone", found_reversed=True)
            except OSError as err:
                raise ActionError(
                    f"{record.id} was undone, but the journal could not record it ({err.strerror})",
                    hint="free space in rocmfix's state directory",
                ) from None
            return find_record(state, record.id)
        # Incomplete: only the steps that took effect. Applied: not the steps an earlier
        # undo, cut short (full disk), already reversed.
        live = [
            (n, s)
            for n, s in enumerate(record.steps)
            if (_was_done(s) if record.status == "incomplete" else not _step_reversed(s))
        ]
        conflicts = _conflicts(tuple(s for _, s in live))
        if conflicts and not force:
            raise ChangedSinceError(
                f"{len(conflicts)} file(s) changed since {record.id} was applied; not undoing",
                "\n".join(conflicts),
                hint="pass --force to undo anyway (the newer copy is kept)",
            )
        keep = backup_dir(state, record.id)
        for reversed_count, (n, step) in enumerate(reversed(live)):
            try:
                _set_aside(step, keep / f"{n}.newer")
                _reverse(step, runner)
            except OSError as err:
                raise ActionError(
                    f"undo of {record.id} stopped at step {n + 1}: {err.strerror or err}",
                    hint=(
                        "later steps were undone; run `rocmfix undo` again once fixed"
                        if reversed_count
                        else "nothing was changed; run `rocmfix undo` again once fixed"
                    ),
                ) from None
        try:
            write_event(state, record.id, "undone")
        except OSError as err:
            raise ActionError(
                f"{record.id} was undone, but the journal could not record it ({err.strerror})",
                hint="free space in rocmfix's state directory",
            ) from None
    return find_record(state, record.id)


def _conflicts(steps: tuple[Step, ...]) -> list[str]:
    out = []
    for step in steps:
        if isinstance(step, FileEdit):
            try:
                now = _current(step.path)
            except ActionError as err:
                out.append(f"{step.path}: {err.message}")
                continue
            if sha(now) != sha(step.after):
                out.append(_diff(step.path, step.after, now))
        elif isinstance(step, Move) and os.path.lexists(step.src):
            out.append(f"{step.src} exists again (recreated since it was moved aside)")
        elif isinstance(step, Move) and not os.path.lexists(step.dst):
            out.append(f"backup {step.dst} is missing")
    return out


def _diff(path: str, ours: bytes, now: bytes | None) -> str:
    a = ours.decode("utf-8", "replace").splitlines(keepends=True)
    b = (now or b"").decode("utf-8", "replace").splitlines(keepends=True)
    label = "(deleted)" if now is None else f"{path} (now)"
    body = "".join(difflib.unified_diff(a, b, f"{path} (as rocmfix wrote it)", label))
    return body.rstrip("\n") or f"{path}: changed"


def _set_aside(step: Step, dest: Path) -> None:
    """Under --force, keep what would be overwritten so that nothing is lost."""
    if isinstance(step, FileEdit):
        now = _current(step.path)
        if now is not None and sha(now) != sha(step.after):
            write_private(dest, now)
    elif isinstance(step, Move) and os.path.lexists(step.src) and os.path.lexists(step.dst):
        fsops.move(step.src, dest)


def _already_reversed(steps: tuple[Step, ...]) -> bool:
    """Whether every step of an applied record is back in its state before the fix.

    Only file edits and moves can be checked; a record with a command step is never
    assumed reversed.
    """
    return bool(steps) and all(_step_reversed(s) for s in steps)


def _step_reversed(step: Step) -> bool:
    """Whether a file edit or move is back as it was before the fix (commands: never known)."""
    if isinstance(step, FileEdit):
        try:
            return _current(step.path) == step.before
        except ActionError:
            return False
    if isinstance(step, Move):
        return os.path.lexists(step.src) and not os.path.lexists(step.dst)
    return False


def _was_done(step: Step) -> bool:
    """For a record interrupted midway: whether this step had taken effect."""
    if isinstance(step, FileEdit):
        try:
            return _current(step.path) == step.after
        except ActionError:
            return False
    if isinstance(step, Move):
        return os.path.lexists(step.dst)
    return True
