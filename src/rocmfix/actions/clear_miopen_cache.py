"""clear-miopen-cache: move MIOpen's kernel cache and user database aside.

Stale or corrupt entries there cause odd MIOpen failures; moving them (never
deleting) to ``backups/<id>/`` in rocmfix's state directory lets MIOpen
rebuild them while undo can put the old ones back. Locations follow MIOpen:
``MIOPEN_CUSTOM_CACHE_DIR`` (used as given) or ``~/.cache/miopen``, and
``MIOPEN_USER_DB_PATH`` or ``~/.config/miopen``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rocmfix.actions.base import Action, Move, Plan
from rocmfix.actions.context import Context
from rocmfix.errors import ActionError


def locations(ctx: Context) -> tuple[tuple[str, Path], ...]:
    """(label, path) of the kernel cache and the user db for this environment."""
    cache = ctx.env.get("MIOPEN_CUSTOM_CACHE_DIR") or str(ctx.home / ".cache" / "miopen")
    userdb = ctx.env.get("MIOPEN_USER_DB_PATH") or str(ctx.home / ".config" / "miopen")
    return (
        ("miopen-cache", Path(cache).expanduser()),
        ("miopen-userdb", Path(userdb).expanduser()),
    )


def _refuse_if_unsafe(path: Path, ctx: Context) -> None:
    """A misset variable must never make rocmfix move a home or the state directory."""
    real = Path(os.path.realpath(path))
    protected = [Path("/"), Path(os.path.realpath(ctx.home)), Path(os.path.realpath(ctx.state_dir))]
    for other in protected:
        if real == other or real in other.parents:
            raise ActionError(
                f"refusing to move {path}: it is or contains {other}",
                hint="check MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH",
            )


# What MIOpen keeps in these directories (MIOpen docs, "Kernel cache" and "Find-Db"):
# versioned sub-directories holding kernel databases (*.kdb, *.ukdb), the user
# perf/find databases (*.udb, *.ufdb.txt, *.updb.txt) and SQLite side files.
_MIOPEN_FILE = re.compile(
    r"[\w.+-]*\.(?:u?kdb|u?db|u?fdb\.txt|u?pdb\.txt|db\.txt)(?:-journal|-wal|-shm|\.lock)?"
)
_MAX_ENTRIES = 100_000
_MAX_DEPTH = 4


def looks_like_miopen(path: Path) -> str | None:
    """None when ``path`` holds only MIOpen cache files; else why it does not look like one."""
    if path.is_symlink() or not path.is_dir():
        return f"{path} is not a directory" if not path.is_symlink() else f"{path} is a symlink"
    seen = 0
    base = len(path.parts)
    for root, dirs, files in os.walk(path, followlinks=False):
        depth = len(Path(root).parts) - base
        if depth >= _MAX_DEPTH and dirs:
            return f"{path} is nested deeper than a MIOpen cache ({root})"
        seen += len(dirs) + len(files)
        if seen > _MAX_ENTRIES:
            return f"{path} holds more than {_MAX_ENTRIES} entries"
        for name in files:
            full = Path(root) / name
            if full.is_symlink() or not _MIOPEN_FILE.fullmatch(name):
                return f"{path} holds {full}, which is not a MIOpen cache file"
    return None  # only MIOpen files (or nothing at all): safe to move aside


class ClearMiopenCache(Action):
    id = "clear-miopen-cache"
    summary = "move MIOpen's kernel cache and user db to a backup (MIOpen rebuilds them)"

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        backup = ctx.state_dir / "backups" / plan_id
        steps: list[Move] = []
        seen: list[Path] = []
        skipped: list[str] = []
        for label, path in locations(ctx):
            real = Path(os.path.realpath(path))
            if not os.path.lexists(path) or any(real == s or s in real.parents for s in seen):
                continue
            _refuse_if_unsafe(path, ctx)
            why = looks_like_miopen(Path(path))
            if why is not None:
                if (
                    label == "miopen-cache"
                    and ctx.env.get("MIOPEN_CUSTOM_CACHE_DIR")
                    or (label == "miopen-userdb" and ctx.env.get("MIOPEN_USER_DB_PATH"))
                ):
                    raise ActionError(
                        f"refusing to move {path}: {why}",
                        hint="only a directory that holds MIOpen's own files is moved;"
                        " check MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH",
                    )
                skipped.append(f"left {path} alone: {why}")
                continue
            seen.append(real)
            steps.append(Move(str(path), str(backup / label)))
        notes = ["MIOpen recompiles kernels on the next run, so the first run is slower"]
        if not steps:
            notes = ["no MIOpen cache or user db found: nothing to move"]
        notes.extend(skipped)
        notes.append(
            "paths come from this shell's MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH;"
            " if your training job sets others, run this from its environment"
        )
        return Plan(plan_id, cls.id, params, tuple(steps), notes=tuple(notes))
