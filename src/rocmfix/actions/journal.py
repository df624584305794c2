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
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rocmfix.actions.base import Command, FileEdit, Move, Plan, Step
from rocmfix.errors import ActionError

JOURNAL = "journal.jsonl"
LOCK_WAIT_S = 10.0


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
    """applied | undone | rolled-back | incomplete (rocmfix stopped midway)."""
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()

    @property
    def undoable(self) -> bool:
        return self.status in ("applied", "incomplete")


@contextlib.contextmanager
def locked(state: Path, wait_s: float | None = None) -> Iterator[None]:
    """Hold the state directory's lock; ActionError when another rocmfix keeps it."""
    wait_s = LOCK_WAIT_S if wait_s is None else wait_s
    state.mkdir(parents=True, exist_ok=True)
    with open(state / "lock", "a+") as handle:
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
    return state / "backups" / record_id


def write_begin(state: Path, plan: Plan) -> None:
    """Save file contents to the backup folder, then journal the plan (before any change)."""
    folder = backup_dir(state, plan.id)
    folder.mkdir(parents=True, exist_ok=True)
    steps = []
    for n, step in enumerate(plan.steps):
        if isinstance(step, FileEdit):
            if step.before is not None:
                (folder / f"{n}.before").write_bytes(step.before)
            (folder / f"{n}.after").write_bytes(step.after)
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
    line = json.dumps(entry, sort_keys=True) + "\n"
    fd = os.open(state / JOURNAL, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def read_history(state: Path) -> tuple[JournalRecord, ...]:
    """All records, oldest first, with their latest status."""
    path = state / JOURNAL
    if not path.exists():
        return ()
    begins: dict[str, dict[str, object]] = {}
    status: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as err:
            raise ActionError(f"{path}:{n}: unreadable journal line ({err.msg})") from None
        rid = str(entry.get("id"))
        if entry.get("event") == "begin":
            begins[rid] = entry
            status[rid] = "incomplete"
        elif rid in begins:
            status[rid] = str(entry.get("event"))
    return tuple(_record(state, entry, status[rid]) for rid, entry in begins.items())


def _record(state: Path, entry: Mapping[str, object], status: str) -> JournalRecord:
    rid = str(entry["id"])
    folder = backup_dir(state, rid)
    raw_steps = entry.get("steps") or []
    assert isinstance(raw_steps, list)
    steps = tuple(_step_from_json(folder, n, raw) for n, raw in enumerate(raw_steps))
    params = entry.get("params") or {}
    assert isinstance(params, dict)
    return JournalRecord(
        rid,
        str(entry["action"]),
        params,
        str(entry.get("time", "")),
        status,
        steps,
        tuple(str(n) for n in entry.get("notes") or ()),
    )  # type: ignore[union-attr]  # list from JSON


def _step_to_json(step: Step) -> dict[str, object]:
    if isinstance(step, FileEdit):
        return {
            "kind": "edit",
            "path": step.path,
            "root": step.needs_root,
            "before_sha": sha(step.before),
            "after_sha": sha(step.after),
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


def _step_from_json(folder: Path, n: int, raw: Mapping[str, object]) -> Step:
    kind = raw.get("kind")
    root = bool(raw.get("root"))
    if kind == "edit":
        before = folder / f"{n}.before"
        after = (folder / f"{n}.after").read_bytes()
        return FileEdit(
            str(raw["path"]), before.read_bytes() if raw.get("before_sha") else None, after, root
        )
    if kind == "move":
        return Move(str(raw["src"]), str(raw["dst"]), root)
    undo_argv = raw.get("undo_argv")
    return Command(
        tuple(raw["argv"]),
        tuple(undo_argv) if undo_argv else None,  # type: ignore[arg-type]  # lists from JSON
        root,
        str(raw.get("why", "")),
        float(raw.get("timeout", 120.0)),
    )  # type: ignore[arg-type]
