"""disable-gpu-manager: stop Ubuntu's gpu-manager from rewriting GPU settings at boot.

``systemctl disable`` then ``mask`` the service, only where it exists. Undo
unmasks it, and re-enables it only if it was enabled before, so the system
returns to exactly the state rocmfix found.
"""

from __future__ import annotations

from rocmfix.actions.base import Action, Command, Plan, root_argv
from rocmfix.actions.context import Context, read_command

UNIT = "gpu-manager.service"


def unit_state(unit: str = UNIT) -> dict[str, str] | None:
    """LoadState and UnitFileState of ``unit``; None when systemctl is unavailable."""
    got = read_command(("systemctl", "show", "-p", "LoadState", "-p", "UnitFileState", unit))
    if got is None or got[0] != 0:
        return None
    pairs = (line.partition("=") for line in got[1].splitlines())
    return {key: value.strip() for key, _, value in pairs if key}


class DisableGpuManager(Action):
    id = "disable-gpu-manager"
    summary = "disable and mask Ubuntu's gpu-manager service (needs root)"
    host_only = True

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        state = unit_state()
        if state is None:
            return Plan(
                plan_id, cls.id, params, (), notes=("systemd is not available: nothing to do",)
            )
        if state.get("LoadState") == "not-found":
            return Plan(
                plan_id, cls.id, params, (), notes=(f"{UNIT} is not installed: nothing to do",)
            )
        current = state.get("UnitFileState", "")
        if current == "masked":
            return Plan(plan_id, cls.id, params, (), notes=(f"{UNIT} is already masked",))
        enabled = current == "enabled"
        steps = (
            Command(
                root_argv(ctx, ("systemctl", "disable", UNIT)),
                root_argv(ctx, ("systemctl", "enable", UNIT)) if enabled else None,
                True,
                "stop it starting at boot",
            ),
            Command(
                root_argv(ctx, ("systemctl", "mask", UNIT)),
                root_argv(ctx, ("systemctl", "unmask", UNIT)),
                True,
                "stop anything else starting it",
            ),
        )
        return Plan(
            plan_id,
            cls.id,
            params,
            steps,
            notes=(
                f"{UNIT} is {current or 'in an unknown state'} now; the change holds from the next boot",
            ),
        )
