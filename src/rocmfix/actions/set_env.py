"""set-env: persist (or remove) environment variables in a marked startup-file block.

Params: ``{NAME: VALUE}``, VALUE None removes the variable. Two option keys
(lower case, so they cannot clash with variable names): ``venv`` writes the
block into that virtual environment's ``bin/activate`` instead of the shell's
startup file, and ``session`` writes nothing and prints the lines to paste.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rocmfix import safeio
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
            checked = validate.env_name(name)
            clean[checked] = validate.env_value(checked, value, ctx)
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
            pick = shellrc.detect_shell if params.get("session") else shellrc.supported_shell
            shell = pick(ctx.env)
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
    before = read_startup_file(real, str(target))
    text = (before or b"").decode("utf-8", "surrogateescape")
    after = shellrc.edit(text, shell, changes).encode("utf-8", "surrogateescape")
    if after == before:
        return Plan(
            plan_id, action, params, (), notes=notes + (f"{real} already has these values",)
        )
    if before is not None and not os.access(real, os.W_OK):
        mode = os.stat(real).st_mode & 0o777
        notes += (
            f"{real} is read-only (mode {mode:04o}); rocmfix replaces it as a whole"
            " and keeps that mode",
        )
    notes += (f"open a new terminal (or `source {target}`) for the change to take effect",)
    return Plan(
        plan_id,
        action,
        params,
        (FileEdit(real, before, after, new_dirs=fsops.missing_dirs(real)),),
        notes=notes,
    )


STARTUP_MAX = 512 * 1024 * 1024
"""A shell startup file is never this large; reading more would only cost memory."""


def read_startup_file(real: str, shown: str) -> bytes | None:
    """Content of the (resolved) startup file, None when absent; ActionError when unusable."""
    if _on_read_only_fs(real):
        why = "it is on a read-only file system"
        raise ActionError(
            f"cannot edit {shown}: {why}",
            hint="change it where it is made (a dotfile manager), or use --session to print the lines instead",
        )
    if not os.path.lexists(real):
        return None
    try:
        return safeio.read_bytes(real, STARTUP_MAX)
    except OSError as err:
        raise ActionError(
            f"cannot edit {shown}: {safeio.describe(err)}",
            hint="fix or remove that file, or use --session to print the lines instead",
        ) from None


def _on_read_only_fs(path: str) -> bool:
    """Whether the directory that would hold ``path`` (or its nearest existing ancestor)
    is mounted read-only: a write there fails whatever the file's own mode says."""
    folder = os.path.dirname(path) or "."
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


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
