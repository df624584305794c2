"""Guided, reversible fixes: the registry and the API the CLI and the TUI call.

``plan_action`` is pure and returns a :class:`Plan` listing every step (file
diff, move or command, each marked ``needs_root``). ``apply_plan`` runs it
with backups and a journal record; ``undo`` and ``history`` read that journal.
KB entries name actions by the ids in :data:`ACTIONS`.
"""

from __future__ import annotations

from collections.abc import Mapping

from rocmfix.actions.add_user_to_groups import AddUserToGroups
from rocmfix.actions.base import Action, Command, FileEdit, Move, Plan, Step
from rocmfix.actions.clear_miopen_cache import ClearMiopenCache
from rocmfix.actions.context import Context, GpuInfo, detect
from rocmfix.actions.disable_gpu_manager import DisableGpuManager
from rocmfix.actions.hide_igpu import HideIgpu
from rocmfix.actions.journal import JournalRecord
from rocmfix.actions.reinstall_torch import ReinstallTorch
from rocmfix.actions.set_env import SetEnv
from rocmfix.actions.transaction import ChangedSinceError, apply_plan, history, undo
from rocmfix.errors import ActionError

ACTIONS: dict[str, type[Action]] = {
    cls.id: cls
    for cls in (
        ClearMiopenCache,
        SetEnv,
        DisableGpuManager,
        AddUserToGroups,
        ReinstallTorch,
        HideIgpu,
    )
}


def get_action(action_id: str) -> type[Action]:
    try:
        return ACTIONS[action_id]
    except KeyError:
        raise ActionError(
            f"unknown fix action {action_id!r}", hint="actions: " + ", ".join(ACTIONS)
        ) from None


def plan_action(action_id: str, params: Mapping[str, object], host: object = None) -> Plan:
    """The plan for ``action_id``; ``host`` is a Context (anything else: this machine)."""
    ctx = host if isinstance(host, Context) else detect()
    return get_action(action_id).plan(params, ctx)


__all__ = [
    "ACTIONS",
    "Action",
    "ActionError",
    "ChangedSinceError",
    "Command",
    "Context",
    "FileEdit",
    "GpuInfo",
    "JournalRecord",
    "Move",
    "Plan",
    "Step",
    "apply_plan",
    "detect",
    "get_action",
    "history",
    "plan_action",
    "undo",
]
