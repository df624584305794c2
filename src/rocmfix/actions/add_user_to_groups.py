"""add-user-to-groups: give the user access to /dev/kfd and the render nodes.

AMD's install guide adds the user to ``render`` and ``video``. Only those two
groups are accepted (a KB file must not be able to grant, say, ``sudo``), only
groups that exist and the user lacks are added, and undo removes exactly
those with ``gpasswd -d``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rocmfix.actions.base import Action, Command, Plan, root_argv
from rocmfix.actions.context import Context, read_command
from rocmfix.errors import ActionError

ALLOWED = ("render", "video")
USER_RE = re.compile(r"[a-z_][a-z0-9_.-]{0,31}\$?")


def existing(group: str) -> bool:
    got = read_command(("getent", "group", group))
    return got is not None and got[0] == 0 and bool(got[1].strip())


def member_of(user: str) -> set[str] | None:
    """Groups ``user`` belongs to in the group database (not this process's groups)."""
    got = read_command(("id", "-nG", user))
    return set(got[1].split()) if got and got[0] == 0 else None


class AddUserToGroups(Action):
    id = "add-user-to-groups"
    summary = "add the user to the render and video groups (needs root)"
    host_only = True

    @classmethod
    def validate(cls, params: Mapping[str, object], ctx: Context) -> dict[str, object]:
        extra = set(params) - {"groups"}
        if extra:
            raise ActionError(
                f"add-user-to-groups takes only 'groups' (got {', '.join(sorted(extra))})"
            )
        groups = params.get("groups", list(ALLOWED))
        if isinstance(groups, str):
            groups = groups.split(",")
        if not isinstance(groups, (list, tuple)) or not groups:
            raise ActionError("groups must be a list such as [render, video]")
        bad = [g for g in groups if g not in ALLOWED]
        if bad:
            raise ActionError(
                f"refusing to add {ctx.user} to {', '.join(map(str, bad))}",
                hint="only render and video give GPU access",
            )
        if not USER_RE.fullmatch(ctx.user):
            raise ActionError(f"{ctx.user!r} is not a user name rocmfix will pass to usermod")
        return {"groups": sorted(set(groups)), "user": ctx.user}

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        user = str(params["user"])
        have = member_of(user)
        if have is None:
            raise ActionError(f"cannot read the groups of {user}", hint="is `id` installed?")
        groups = [str(g) for g in params["groups"]]  # type: ignore[attr-defined]  # validated list
        missing = [g for g in groups if not existing(g)]
        todo = [g for g in groups if g not in have and g not in missing]
        notes = [f"group {g} does not exist here (the ROCm packages create it)" for g in missing]
        steps = tuple(
            Command(
                root_argv(ctx, ("usermod", "-a", "-G", g, user)),
                root_argv(ctx, ("gpasswd", "-d", user, g)),
                True,
                f"add {user} to {g}",
            )
            for g in todo
        )
        if steps:
            notes.append(f"{user} must log out and back in (or reboot) before the new groups apply")
        else:
            notes.append(
                f"{user} is already in {', '.join(g for g in groups if g in have) or 'no group to add'}"
            )
        return Plan(plan_id, cls.id, params, steps, notes=tuple(notes))
