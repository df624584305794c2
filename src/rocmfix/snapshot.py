"""Snapshots: a machine recorded by ``rocmfix collect`` and replayed by the doctor.

``RecordingHost`` wraps a live host and notes every answer it gives while the
checks run, so a snapshot holds exactly what the checks read. ``SnapshotHost``
answers the same questions from the recorded directory without touching the
live system: users share a broken machine this way, and the tests run the
doctor against fixtures modelled on real machines. Secrets in the environment
are masked before anything is written. Format: docs/snapshot-format.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat as stat_mod
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rocmfix import safeio
from rocmfix.errors import InputError
from rocmfix.host import (
    DEFAULT_TIMEOUT,
    CommandResult,
    Host,
    MemoryInfo,
    OpenResult,
    ProcessInfo,
    StatInfo,
    open_result_from_record,
)

# One redaction for everything rocmfix lets leave the machine (snapshots, reports);
# MASK and redact_env are re-exported for callers.
from rocmfix.redact import MASK, redact_env  # noqa: F401
from rocmfix.torch_probe import TorchProbe

SCHEMA = "rocmfix.snapshot/1"


def _stat_to_dict(st: StatInfo) -> dict[str, Any]:
    return {
        "mode": stat_mod.filemode(st.mode),
        "uid": st.uid,
        "gid": st.gid,
        "size": st.size,
        "owner": st.owner,
        "group": st.group,
    }


def _mode_from_text(text: str) -> int:
    kinds = {
        "c": stat_mod.S_IFCHR,
        "d": stat_mod.S_IFDIR,
        "l": stat_mod.S_IFLNK,
        "b": stat_mod.S_IFBLK,
        "-": stat_mod.S_IFREG,
    }
    mode = kinds.get(text[0], stat_mod.S_IFREG)
    for i, ch in enumerate(text[1:10]):
        if ch != "-":
            mode |= 1 << (8 - i)
    return mode


class RecordingHost:
    """A Host that forwards to another one and records every answer."""

    def __init__(self, inner: Host) -> None:
        self.inner = inner
        self.env = inner.env
        self.user, self.uid, self.groups, self.gids = (
            inner.user,
            inner.uid,
            inner.groups,
            inner.gids,
        )
        self._lock = threading.Lock()
        self.files: dict[str, str] = {}
        self.commands: list[dict[str, Any]] = []
        self.stats: dict[str, dict[str, Any] | None] = {}
        self.dirs: dict[str, list[str]] = {}
        self.exist: dict[str, bool] = {}
        self.links: dict[str, str] = {}
        self.rw: dict[str, bool] = {}
        self.rw_errno: dict[str, str] = {}
        self.disks: dict[str, int] = {}
        self.holders: dict[str, list[dict[str, Any]]] = {}
        self.mem: MemoryInfo | None = None
        self.torch: TorchProbe | None = None

    def _note(self, table: dict[str, Any], key: str, value: Any) -> None:
        with self._lock:
            table[key] = value

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        res = self.inner.run(argv, timeout)
        with self._lock:
            self.commands.append({"argv": list(argv), **res.__dict__})
        return res

    def read_text(self, path: str) -> str | None:
        text = self.inner.read_text(path)
        if text is not None:
            self._note(self.files, path, text)
        return text

    def exists(self, path: str) -> bool:
        found = self.inner.exists(path)
        self._note(self.exist, path, found)
        return found

    def listdir(self, path: str) -> tuple[str, ...]:
        names = self.inner.listdir(path)
        self._note(self.dirs, path, list(names))
        return names

    def stat(self, path: str) -> StatInfo | None:
        st = self.inner.stat(path)
        self._note(self.stats, path, _stat_to_dict(st) if st else None)
        return st

    def readlink(self, path: str) -> str | None:
        target = self.inner.readlink(path)
        if target is not None:
            self._note(self.links, path, target)
        return target

    def can_open_rw(self, path: str) -> bool:
        return self.open_rw(path).ok

    def open_rw(self, path: str) -> OpenResult:
        res = self.inner.open_rw(path)
        with self._lock:
            self.rw[path] = res.ok
            if res.errno and not res.ok:
                self.rw_errno[path] = res.errno
        return res

    def disk_total(self, path: str) -> int | None:
        size = self.inner.disk_total(path)
        if size is not None:
            self._note(self.disks, path, size)
        return size

    def memory(self) -> MemoryInfo | None:
        self.mem = self.inner.memory()
        return self.mem

    def processes_holding(self, path: str) -> tuple[ProcessInfo, ...]:
        procs = self.inner.processes_holding(path)
        self._note(self.holders, path, [p.__dict__ for p in procs])
        return procs

    def torch_probe(self, python: str, timeout: float) -> TorchProbe:
        self.torch = self.inner.torch_probe(python, timeout)
        return self.torch

    def write(
        self,
        out_dir: str | Path,
        python: str,
        extra: Mapping[str, Any] | None = None,
        redactor: Any = None,
    ) -> Path:
        """Write the snapshot (``snapshot.json`` + ``root/``) into ``out_dir``.

        With a :class:`rocmfix.redact.Redactor` (what ``collect`` passes), the
        environment is cut to the allow-list the checks need and every file,
        command output, path and value goes through the same redaction as
        ``rocmfix report``; the redactor first learns names from all of it.
        """
        out = Path(out_dir)
        root = out / "root"
        root.mkdir(parents=True, exist_ok=True)
        files = dict(self.files)
        data = self._data(python, extra)
        if redactor is not None:
            from rocmfix.redact import learn_tree, scrub_tree, shared_env

            data["env"] = shared_env(self.env)
            learn_tree([files, data], redactor)
            files = {redactor.scrub(p): redactor.scrub(t) for p, t in files.items()}
            data = scrub_tree(data, redactor)  # type: ignore[assignment]  # same shape back
            data["schema"] = SCHEMA
        for path, text in sorted(files.items()):
            dest = _under(root, path)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8", errors="surrogateescape")
        (out / "snapshot.json").write_text(
            json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        return out

    def _data(self, python: str, extra: Mapping[str, Any] | None) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            **(extra or {}),
            "python": python,
            "user": {
                "name": self.user,
                "uid": self.uid,
                "groups": list(self.groups),
                "gids": list(self.gids),
            },
            "env": redact_env(self.env),
            "commands": self.commands,
            "stat": self.stats,
            "exists": self.exist,
            "listdir": self.dirs,
            "links": self.links,
            "rw": self.rw,
            "rw_errno": self.rw_errno,
            "disk_total": self.disks,
            "memory": self.mem.__dict__ if self.mem else None,
            "processes_holding": self.holders,
            "torch": self.torch.to_dict() if self.torch else None,
        }


def _under(root: Path, path: str) -> Path:
    rel = os.path.normpath("/" + path).lstrip("/")
    return root / rel


class SnapshotHost:
    """A recorded machine: answers every Host question from a snapshot directory."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        meta = self.dir / "snapshot.json"
        try:  # a FIFO named snapshot.json must not wait for a writer
            data = json.loads(safeio.read_bytes(meta, 256 * safeio.MiB).decode("utf-8"))
        except RecursionError:
            why = "JSON nested too deeply"  # json.loads gives up past the recursion limit
            raise InputError(f"cannot read snapshot {meta}: {why}") from None
        except FileNotFoundError:
            raise InputError(
                f"not a snapshot: {meta} does not exist",
                hint="create one with `rocmfix collect --out DIR`",
            ) from None
        except OSError as exc:
            raise InputError(f"cannot read snapshot {meta}: {safeio.describe(exc)}") from None
        except ValueError as exc:
            raise InputError(f"cannot read snapshot {meta}: {exc}") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise InputError(
                f"{meta}: unsupported snapshot schema {data.get('schema') if isinstance(data, dict) else '?'}",
                hint=f"this rocmfix reads {SCHEMA}",
            )
        self.data = _sane(data, meta)
        self.root = self.dir / "root"
        self._real_root = os.path.realpath(self.root)
        if os.path.islink(self.root):
            raise InputError(
                f"{self.root} is a symlink; a snapshot's files must be inside it",
                hint="replay never follows a link out of the snapshot",
            )
        user = self.data["user"]
        try:
            self.user = str(user.get("name", "user"))
            self.uid = int(user.get("uid", 1000))
            self.groups = tuple(str(g) for g in user.get("groups") or ())
            self.gids = tuple(int(g) for g in user.get("gids") or ())
        except (TypeError, ValueError, AttributeError):
            raise InputError(f"{meta}: 'user' is malformed") from None
        self.env: Mapping[str, str] = {str(k): str(v) for k, v in self.data["env"].items()}
        self.python = str(self.data.get("python") or "python3")

    def _file(self, path: str) -> Path:
        """The recorded copy of ``path``; a link leading out of the snapshot yields a dead path."""
        f = _under(self.root, path)
        real = os.path.realpath(f)
        if real != self._real_root and not real.startswith(self._real_root + os.sep):
            return self.root / ".rocmfix-outside-snapshot"
        return f

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        want = list(argv)
        for entry in self.data.get("commands") or ():
            if entry.get("argv") == want:
                return CommandResult(
                    entry.get("returncode"),
                    str(entry.get("stdout") or ""),
                    str(entry.get("stderr") or ""),
                    timed_out=bool(entry.get("timed_out")),
                    missing=bool(entry.get("missing")),
                    unrecorded=bool(entry.get("unrecorded")),
                )
        return CommandResult(
            None, "", f"{argv[0]}: not recorded in this snapshot", missing=True, unrecorded=True
        )

    def read_text(self, path: str) -> str | None:
        f = self._file(path)
        try:
            data, _cut = safeio.read_head(f, FILE_LIMIT)
        except OSError:
            return None
        return data.decode("utf-8", errors="replace")

    def exists(self, path: str) -> bool:
        recorded = self.data.get("exists", {}).get(path)
        if recorded is not None:
            return bool(recorded)
        if self.data.get("stat", {}).get(path) or path in self.data.get("links", {}):
            return True
        return path in self.data.get("listdir", {}) or self._file(path).exists()

    def listdir(self, path: str) -> tuple[str, ...]:
        names = set(self.data.get("listdir", {}).get(path) or ())
        d = self._file(path)
        if d.is_dir():
            with contextlib.suppress(OSError):
                names.update(sorted(os.listdir(d))[:MAX_DIR_ENTRIES])
        return tuple(sorted(names))

    def stat(self, path: str) -> StatInfo | None:
        rec = self.data.get("stat", {}).get(path)
        if rec:
            return StatInfo(
                _mode_from_text(rec["mode"]),
                int(rec.get("uid", 0)),
                int(rec.get("gid", 0)),
                int(rec.get("size", 0)),
                str(rec.get("owner", "root")),
                str(rec.get("group", "root")),
            )
        f = self._file(path)
        if not f.exists() and path not in self.data.get("listdir", {}):
            return None
        is_dir = f.is_dir() or path in self.data.get("listdir", {})
        mode = (stat_mod.S_IFDIR | 0o755) if is_dir else (stat_mod.S_IFREG | 0o644)
        try:
            size = 0 if is_dir else f.stat().st_size
        except OSError:
            return None
        gid = self.gids[0] if self.gids else self.uid
        return StatInfo(
            mode, self.uid, gid, size, self.user, self.groups[0] if self.groups else self.user
        )

    def readlink(self, path: str) -> str | None:
        return self.data.get("links", {}).get(path)

    def can_open_rw(self, path: str) -> bool:
        return self.open_rw(path).ok

    def open_rw(self, path: str) -> OpenResult:
        return open_result_from_record(
            (self.data.get("rw") or {}).get(path), (self.data.get("rw_errno") or {}).get(path)
        )

    @property
    def torch_recorded(self) -> bool:
        """False when collect ran with ``--no-torch``: replay skips torch as collect did."""
        return bool(self.data.get("torch"))

    def knows(self, path: str) -> bool:
        """Whether the snapshot holds any answer about ``path`` (an absent path that was
        never asked about is unknown, not absent)."""
        d = self.data
        return (
            path in (d.get("exists") or {})
            or path in (d.get("stat") or {})
            or path in (d.get("links") or {})
            or path in (d.get("listdir") or {})
            or self._file(path).exists()
        )

    def disk_total(self, path: str) -> int | None:
        value = self.data.get("disk_total", {}).get(path)
        return int(value) if value is not None else None

    def memory(self) -> MemoryInfo | None:
        mem = self.data.get("memory")
        try:
            return MemoryInfo(**mem) if mem else None
        except TypeError:
            return None

    def processes_holding(self, path: str) -> tuple[ProcessInfo, ...]:
        return tuple(
            ProcessInfo(**p) for p in self.data.get("processes_holding", {}).get(path) or ()
        )

    def holders_recorded(self, path: str) -> bool:
        """Whether collect asked who holds ``path`` (an empty list is an answer)."""
        return path in (self.data.get("processes_holding") or {})

    def torch_probe(self, python: str, timeout: float) -> TorchProbe:
        rec = self.data.get("torch")
        if not rec:
            return TorchProbe(
                python, "unknown", error="the torch probe was not recorded in this snapshot"
            )
        try:
            return TorchProbe.from_dict(rec)
        except (TypeError, ValueError, AttributeError):
            return TorchProbe(python, "unknown", error="the recorded torch probe is malformed")


FILE_LIMIT = 4 * 1024 * 1024
"""Bytes of one recorded file the replay reads (the live host reads no more either)."""
MAX_DIR_ENTRIES = 10_000
_TABLES = (
    "stat",
    "exists",
    "listdir",
    "links",
    "rw",
    "rw_errno",
    "disk_total",
    "processes_holding",
)


def _sane(data: dict[str, Any], meta: Path) -> dict[str, Any]:
    """``data`` with every table of the expected type (a fuzzed file gets one clear line)."""
    out = dict(data)
    for key in _TABLES:
        value = out.get(key)
        if value is None:
            out[key] = {}
        elif not isinstance(value, dict):
            raise InputError(f"{meta}: '{key}' must be a mapping, not {type(value).__name__}")
    for key in ("user", "env"):
        value = out.get(key) or {}
        if not isinstance(value, dict):
            raise InputError(f"{meta}: '{key}' must be a mapping, not {type(value).__name__}")
        out[key] = value
    commands = out.get("commands") or []
    if not isinstance(commands, list):
        raise InputError(f"{meta}: 'commands' must be a list")
    out["commands"] = [c for c in commands if isinstance(c, dict)]
    for key in ("memory", "torch"):
        if out.get(key) is not None and not isinstance(out[key], dict):
            raise InputError(f"{meta}: '{key}' must be a mapping or null")
    return out


def snapshot_meta(directory: str | Path) -> dict[str, Any]:
    """The non-machine fields of a snapshot (created, sources, notes...)."""
    data = SnapshotHost(directory).data
    skip = {
        "commands",
        "stat",
        "exists",
        "listdir",
        "links",
        "rw",
        "rw_errno",
        "env",
        "torch",
        "processes_holding",
    }
    return {k: v for k, v in data.items() if k not in skip}
