"""The journal: what rocmfix changed, where the backups are, and a lock.

The journal is an append-only JSON-lines file in ``$XDG_STATE_HOME/rocmfix/``.
Each change writes a ``begin`` event (with every step) before touching
anything, then ``applied`` or ``rolled-back``; ``undone`` is appended by undo.
Lines are never rewritten, so a crash leaves a readable record. File contents
are kept beside it in ``backups/<id>/``. A ``flock`` on ``lock`` keeps two
rocmfix processes from interleaving changes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rocmfix import safeio
from rocmfix.actions.base import FileEdit, Move, Plan, Step
from rocmfix.errors import ActionError

JOURNAL = "journal.jsonl"
LOCK_WAIT_S = 10.0
RECORD_ID = re.compile(r"\d{8}T\d{6}-[0-9a-f]{4,16}")
"""What :func:`new_record_id` makes; anything else never reaches a backup path."""
DAMAGED = "damaged"


def valid_id(record_id: object) -> str:
    """``record_id`` when it has the journal's id shape; ActionError otherwise."""
    if not isinstance(record_id, str) or not RECORD_ID.fullmatch(record_id):
        raise ActionError(
            f"{str(record_id)[:80]!r} is not a journal id",
            hint="ids look like 20260101T120000-3f9a; see `rocmfix history`",
        )
    return record_id


def new_record_id() -> str:
    """Sortable, timestamped id such as ``20260101T120000-3f9a``."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{secrets.token_hex(2)}"


@dataclass(frozen=True)
class JournalRecord:
    """One applied (or attempted) plan as the journal remembers it."""

    id: str
    action: str
    params: Mapping[str, object]
    time: str
    status: str
    """applied | undone | rolled-back | incomplete (rocmfix stopped midway) | damaged."""
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    damage: str | None = None
    """Why a damaged record cannot be undone (a backup missing or altered)."""

    @property
    def undoable(self) -> bool:
        return self.status in ("applied", "incomplete")


@contextlib.contextmanager
def locked(state: Path, wait_s: float | None = None) -> Iterator[None]:
    """Hold the state directory's lock; ActionError when another rocmfix keeps it."""
    wait_s = LOCK_WAIT_S if wait_s is None else wait_s
    make_private_dir(state)
    try:
        handle = open(state / "lock", "a+")  # noqa: SIM115 - closed below
    except OSError as err:
        raise ActionError(
            f"cannot use rocmfix's state directory {state}: {err.strerror or err}",
            hint="check that it is a writable directory (XDG_STATE_HOME)",
        ) from None
    with handle:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ActionError(
                        "another rocmfix process is changing this machine",
                        hint="wait for it to finish, then run the command again",
                    ) from None
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def backup_dir(state: Path, record_id: str) -> Path:
    return state / "backups" / valid_id(record_id)


def make_private_dir(path: Path) -> None:
    """Create ``path`` (and parents) with mode 0700: backups hold copies of private files."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except FileExistsError:
        raise ActionError(f"{path} exists and is not a directory") from None
    except OSError as err:
        raise ActionError(f"cannot create {path}: {err.strerror or err}") from None


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a short count is not an error)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(28, "No space left on device")
        view = view[n:]


def write_private(path: Path, data: bytes) -> None:
    """Write a backup file with mode 0600, synced; ENOSPC and short writes raise OSError."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_begin(state: Path, plan: Plan) -> None:
    """Save file contents to the backup folder, then journal the plan (before any change).

    Raises ActionError (nothing changed yet) when the state directory is full or unwritable.
    """
    folder = backup_dir(state, plan.id)
    make_private_dir(folder.parent)
    make_private_dir(folder)
    steps = []
    try:
        for n, step in enumerate(plan.steps):
            if isinstance(step, FileEdit):
                if step.before is not None:
                    write_private(folder / f"{n}.before", step.before)
                write_private(folder / f"{n}.after", step.after)
            steps.append(_step_to_json(step))
        _append(
            state,
            {
                "event": "begin",
                "id": plan.id,
                "action": plan.action,
                "params": dict(plan.params),
                "notes": list(plan.notes),
                "steps": steps,
                "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            },
        )
    except OSError as err:
        _discard_backups(folder)  # a half-written copy must not pass for a backup
        raise ActionError(
            f"cannot save backups in {state}: {err.strerror or err}; nothing was changed",
            hint="free some space there (or set XDG_STATE_HOME), then run the command again",
        ) from None


def _discard_backups(folder: Path) -> None:
    """Remove the backup folder of a plan whose begin line was never written."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
        os.rmdir(folder)


def write_event(state: Path, record_id: str, event: str, **extra: object) -> None:
    _append(
        state,
        {
            "event": event,
            "id": record_id,
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            **extra,
        },
    )


def _append(state: Path, entry: dict[str, object]) -> None:
    """Append one line whole or not at all (a failed write is cut back off)."""
    line = (json.dumps(entry, sort_keys=True) + "\n").encode()
    fd = os.open(state / JOURNAL, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        start = os.fstat(fd).st_size
        if start and os.pread(fd, 1, start - 1) != b"\n":
            line = b"\n" + line  # a torn last line (crash, full disk) must not swallow this one
        try:
            write_all(fd, line)
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


def read_history(state: Path) -> tuple[JournalRecord, ...]:
    """All records, oldest first, with their latest status (unreadable lines skipped)."""
    return read_history_checked(state)[0]


JOURNAL_MAX = 256 * 1024 * 1024
BACKUP_MAX = 512 * 1024 * 1024
"""Same cap as the startup files set-env edits (a 100 MB rc file still round-trips)."""


def read_history_checked(state: Path) -> tuple[tuple[JournalRecord, ...], tuple[str, ...]]:
    """(records, problems): a bad line costs that line, never the records around it."""
    path = state / JOURNAL
    if not os.path.lexists(path):
        return (), ()
    try:
        raw = safeio.read_bytes(path, JOURNAL_MAX)
    except OSError as err:
        raise ActionError(f"cannot read the journal {path}: {safeio.describe(err)}") from None
    begins: dict[str, dict[str, object]] = {}
    status: dict[str, str] = {}
    problems: list[str] = []
    for n, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        entry, why = _parse_line(line)
        if entry is None:
            problems.append(f"{path}:{n}: {why}; line skipped")
            continue
        rid = str(entry["id"])
        if entry.get("event") == "begin":
            if rid in begins:
                problems.append(f"{path}:{n}: a second begin for {rid}; line skipped")
                continue
            begins[rid] = entry
            status[rid] = "incomplete"
        elif rid in begins:
            status[rid] = str(entry.get("event"))
        else:
            problems.append(f"{path}:{n}: event for unknown record {rid}; line skipped")
    records = []
    for rid, entry in begins.items():
        record = _record(state, entry, status[rid])
        if record.damage:
            problems.append(f"{rid}: {record.damage}")
        records.append(record)
    return tuple(records), tuple(problems)


_EVENTS = frozenset({"begin", "applied", "rolled-back", "undone"})


def _parse_line(line: bytes) -> tuple[dict[str, object] | None, str]:
    try:
        entry = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except ValueError as err:
        return None, f"unreadable journal line ({getattr(err, 'msg', err)})"
    except RecursionError:
        return None, "unreadable journal line (nested too deeply)"
    if not isinstance(entry, dict):
        return None, "not a JSON object"
    if entry.get("event") not in _EVENTS:
        return None, f"unknown event {str(entry.get('event'))[:40]!r}"
    rid = entry.get("id")
    if not isinstance(rid, str) or not RECORD_ID.fullmatch(rid):
        return None, f"bad record id {str(rid)[:40]!r}"
    if entry["event"] == "begin":
        if not isinstance(entry.get("action"), str):
            return None, "begin without an action"
        if not isinstance(entry.get("steps") or [], list):
            return None, "steps is not a list"
        if not isinstance(entry.get("params") or {}, dict):
            return None, "params is not a mapping"
    return entry, ""


def _record(state: Path, entry: Mapping[str, object], status: str) -> JournalRecord:
    rid = str(entry["id"])
    folder = backup_dir(state, rid)
    raw_steps = entry.get("steps") or []
    params = entry.get("params") or {}
    notes = entry.get("notes") or ()
    notes_t = tuple(str(n) for n in notes) if isinstance(notes, list) else ()
    action, when = str(entry["action"]), str(entry.get("time", ""))
    try:
        steps = tuple(
            _step_from_json(folder, n, raw, rid, str(entry["action"]))
            for n, raw in enumerate(raw_steps)  # type: ignore[arg-type]  # checked list
        )
    except _Damaged as err:
        damaged = status if status in ("undone", "rolled-back") else DAMAGED
        return JournalRecord(rid, action, params, when, damaged, (), notes_t, str(err))  # type: ignore[arg-type]
    return JournalRecord(rid, action, params, when, status, steps, notes_t)  # type: ignore[arg-type]


class _Damaged(Exception):
    """A journal record whose steps or backups cannot be trusted for undo."""


def _step_to_json(step: Step) -> dict[str, object]:
    if isinstance(step, FileEdit):
        return {
            "kind": "edit",
            "path": step.path,
            "root": step.needs_root,
            "before_sha": sha(step.before),
            "after_sha": sha(step.after),
            "new_dirs": list(step.new_dirs),
        }
    if isinstance(step, Move):
        return {"kind": "move", "src": step.src, "dst": step.dst, "root": step.needs_root}
    return {
        "kind": "command",
        "argv": list(step.argv),
        "root": step.needs_root,
        "undo_argv": list(step.undo_argv) if step.undo_argv else None,
        "why": step.why,
        "timeout": step.timeout,
    }


def _backup(folder: Path, name: str, want_sha: object) -> bytes:
    try:
        data = safeio.read_bytes(folder / name, BACKUP_MAX, nofollow=True)
    except FileNotFoundError:
        raise _Damaged(f"backup {folder / name} is missing; this fix cannot be undone") from None
    except OSError as err:
        raise _Damaged(f"backup {folder / name}: {safeio.describe(err)}") from None
    if want_sha is not None and sha(data) != want_sha:
        raise _Damaged(f"backup {folder / name} was altered (checksum differs); not trusted")
    return data


def _step_from_json(
    folder: Path, n: int, raw: object, record_id: str = "", action: str = ""
) -> Step:
    """One journal step as typed data; commands are rebuilt from the action's own rules."""
    if not isinstance(raw, dict):
        raise _Damaged(f"step {n} is not a mapping")
    kind = raw.get("kind")
    root = bool(raw.get("root"))
    if kind == "edit":
        path = raw.get("path")
        if not isinstance(path, str) or not os.path.isabs(path):
            raise _Damaged(f"step {n}: bad path {str(path)[:80]!r}")
        before_sha = raw.get("before_sha")
        before = _backup(folder, f"{n}.before", before_sha) if before_sha else None
        after = _backup(folder, f"{n}.after", raw.get("after_sha"))
        new_dirs = raw.get("new_dirs") or []
        if not isinstance(new_dirs, list) or not all(
            isinstance(d, str) and path.startswith(d.rstrip("/") + "/") for d in new_dirs
        ):
            raise _Damaged(f"step {n}: bad new_dirs")
        return FileEdit(path, before, after, root, tuple(new_dirs))
    if kind == "move":
        src, dst = raw.get("src"), raw.get("dst")
        if not (isinstance(src, str) and isinstance(dst, str) and os.path.isabs(src)):
            raise _Damaged(f"step {n}: bad move")
        if not safeio.is_within(dst, folder) or os.path.normpath(dst) == os.path.normpath(folder):
            raise _Damaged(f"step {n}: the moved copy {dst[:120]} is outside {folder}")
        return Move(src, dst, root)
    if kind == "command":
        from rocmfix.actions.undo_rules import rebuild_command

        try:
            return rebuild_command(action, raw, root)
        except ValueError as err:
            raise _Damaged(f"step {n}: {err}") from None
    raise _Damaged(f"step {n}: unknown kind {str(kind)[:40]!r}")
