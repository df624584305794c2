"""set-env: persist (or remove) environment variables in a marked startup-file block.

Params: ``{NAME: VALUE}``, VALUE None removes the variable. Two option keys
(lower case, so they cannot clash with variable names): ``venv`` writes the
block into that virtual environment's ``bin/activate`` instead of the shell's
startup file, and ``session`` writes nothing and prints the lines to paste.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rocmfix.actions import fsops, shellrc, validate
from rocmfix.actions.base import Action, FileEdit, Plan
from rocmfix.actions.context import Context
from rocmfix.errors import ActionError

OPTIONS = ("venv", "session")


class SetEnv(Action):
    id = "set-env"
    summary = "persist environment variables in your shell startup file (or a venv)"

    @classmethod
    def validate(cls, params: Mapping[str, object], ctx: Context) -> dict[str, object]:
        variables = {k: v for k, v in params.items() if k not in OPTIONS}
        if not variables:
            raise ActionError("set-env needs at least one NAME=VALUE (or --unset NAME)")
        clean: dict[str, object] = {}
        for name, value in variables.items():
            clean[validate.env_name(name)] = validate.env_value(name, value, ctx)
        _judge_overrides(clean, ctx)
        if params.get("venv"):
            clean["venv"] = str(shellrc.venv_activate(str(params["venv"])).parent.parent)
        if params.get("session"):
            clean["session"] = True
        return clean

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        changes = {k: v for k, v in params.items() if k not in OPTIONS}
        notes = device_notes(changes, ctx)
        if params.get("venv"):
            shell, target = "bash", shellrc.venv_activate(str(params["venv"]))
            notes += (
                "the variables apply from the next `source bin/activate`;"
                " `deactivate` does not unset them",
            )
        else:
            shell = shellrc.detect_shell(ctx.env)
            target = shellrc.startup_file(shell, ctx.home, ctx.env)
        if params.get("session"):
            lines = tuple(shellrc.line_for(shell, n, v) for n, v in changes.items())  # type: ignore[arg-type]  # validated str | None
            return Plan(
                plan_id,
                cls.id,
                params,
                (),
                notes=(
                    "session mode: nothing is written;"
                    " run these lines in the shell that will start PyTorch",
                ),
                output=lines,
            )
        return edit_plan(plan_id, cls.id, params, target, shell, changes, notes)  # type: ignore[arg-type]


def edit_plan(
    plan_id: str,
    action: str,
    params: dict[str, object],
    target: os.PathLike[str],
    shell: str,
    changes: Mapping[str, str | None],
    notes: tuple[str, ...],
) -> Plan:
    """A plan with one file edit, or none when the file already says exactly this."""
    real = os.path.realpath(target)
    before = fsops.read_bytes(real)
    after = shellrc.edit((before or b"").decode("utf-8"), shell, changes).encode("utf-8")
    if after == before:
        return Plan(
            plan_id, action, params, (), notes=notes + (f"{real} already has these values",)
        )
    notes += (f"open a new terminal (or `source {target}`) for the change to take effect",)
    return Plan(plan_id, action, params, (FileEdit(real, before, after),), notes=notes)


def device_notes(changes: Mapping[str, object], ctx: Context) -> tuple[str, ...]:
    if ctx.gpus is None and any(n in validate.DEVICE_LISTS for n in changes):
        return ("the GPUs could not be listed here, so device indices were not checked",)
    return ()


def _judge_overrides(values: Mapping[str, object], ctx: Context) -> None:
    """Refuse an HSA_OVERRIDE_GFX_VERSION[_<node>] the compatibility model says is wrong
    for the GPUs here (a native build exists, mixed GPUs, an unverified or harmful value)."""
    if not ctx.gpus:
        return
    from rocmfix import compat

    gpus = [compat.Gpu(g.gfx, g.integrated, g.node, g.index, g.name) for g in ctx.gpus]
    for name, value in values.items():
        if value is None or not name.startswith("HSA_OVERRIDE_GFX_VERSION"):
            continue
        why = compat.judge_override(name, str(value), gpus)
        if why:
            raise ActionError(
                f"not setting {name}={value}: {why}",
                hint="`rocmfix install-plan` shows what fits these GPUs",
            )
