"""clear-miopen-cache: move MIOpen's kernel cache and user database aside.

Stale or corrupt entries there cause odd MIOpen failures; moving them (never
deleting) to ``backups/<id>/`` in rocmfix's state directory lets MIOpen
rebuild them while undo can put the old ones back. Locations follow MIOpen:
``MIOPEN_CUSTOM_CACHE_DIR`` (used as given) or ``~/.cache/miopen``, and
``MIOPEN_USER_DB_PATH`` or ``~/.config/miopen``.
"""

from __future__ import annotations

import os
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


class ClearMiopenCache(Action):
    id = "clear-miopen-cache"
    summary = "move MIOpen's kernel cache and user db to a backup (MIOpen rebuilds them)"

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        backup = ctx.state_dir / "backups" / plan_id
        steps: list[Move] = []
        seen: list[Path] = []
        for label, path in locations(ctx):
            real = Path(os.path.realpath(path))
            if not os.path.lexists(path) or any(real == s or s in real.parents for s in seen):
                continue
            _refuse_if_unsafe(path, ctx)
            seen.append(real)
            steps.append(Move(str(path), str(backup / label)))
        notes = ["MIOpen recompiles kernels on the next run, so the first run is slower"]
        if not steps:
            notes = ["no MIOpen cache or user db found: nothing to move"]
        notes.append(
            "paths come from this shell's MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH;"
            " if your training job sets others, run this from its environment"
        )
        return Plan(plan_id, cls.id, params, tuple(steps), notes=tuple(notes))
