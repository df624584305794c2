"""The vocabulary every fix action shares: steps, plans and the action base class.

A plan is data: the exact file edits, moves and commands that ``apply`` will
perform, each marked with whether it needs root. Showing a plan and running it
use the same objects, so what the user approved is what runs. Actions build
plans from validated parameters and a :class:`~rocmfix.actions.context.Context`
and never change anything themselves.
"""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rocmfix.actions.context import Context
from rocmfix.errors import ActionError


@dataclass(frozen=True)
class FileEdit:
    """Replace the whole content of one file (created when ``before`` is None)."""

    path: str
    """Absolute path with symlinks resolved, so a dotfile link keeps pointing at its target."""
    before: bytes | None
    """Content when the plan was made; apply refuses if the file changed since."""
    after: bytes
    needs_root: bool = False
    new_dirs: tuple[str, ...] = ()
    """Directories apply creates for a new file (outermost first); undo removes them if empty."""

    def undo_text(self) -> str:
        verb = "delete" if self.before is None else "restore"
        return f"{verb} {self.path} (as it was before)"

    def render(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = self.after.decode("utf-8", "replace").splitlines(keepends=True)
        src = self.path if self.before is not None else "/dev/null"
        diff = difflib.unified_diff(old, new, src, self.path)
        # As diff(1) does: a last line without a newline is marked, so a line that only
        # gains its newline does not look like the user's text removed and added again.
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in diff
        ).rstrip("\n")


@dataclass(frozen=True)
class Move:
    """Move a file or directory aside (to a backup); undo moves it back."""

    src: str
    dst: str
    needs_root: bool = False

    def undo_text(self) -> str:
        return f"move {self.dst} back to {self.src}"

    def render(self) -> str:
        return f"move {self.src}\n  -> {self.dst}"


@dataclass(frozen=True)
class Command:
    """Run one external command; ``argv`` already carries ``sudo`` when it is needed."""

    argv: tuple[str, ...]
    undo_argv: tuple[str, ...] | None
    """Command that reverses this one, or None when nothing needs reversing."""
    needs_root: bool
    why: str
    timeout: float = 120.0

    def undo_text(self) -> str:
        return (
            f"$ {shlex.join(self.undo_argv)}"
            if self.undo_argv
            else f"(nothing to reverse: {shlex.join(self.argv)})"
        )

    def render(self) -> str:
        return f"$ {shlex.join(self.argv)}    # {self.why}"


Step = FileEdit | Move | Command


@dataclass(frozen=True)
class Plan:
    """Everything one action would do, computed without changing anything."""

    id: str
    """Journal id the plan will be recorded under (timestamped; names the backup folder)."""
    action: str
    params: Mapping[str, object]
    """Validated, normalised parameters (JSON-serialisable)."""
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    """What the user must know: re-login needed, unverified facts, skipped steps."""
    output: tuple[str, ...] = ()
    """Lines for the user to run or paste themselves (session exports, container flags)."""

    @property
    def needs_root(self) -> bool:
        return any(step.needs_root for step in self.steps)

    @property
    def changes_nothing(self) -> bool:
        return not self.steps

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "action": self.action,
            "params": dict(self.params),
            "needs_root": self.needs_root,
            "steps": [
                {"kind": type(s).__name__.lower(), "needs_root": s.needs_root, "shown": s.render()}
                for s in self.steps
            ],
            "notes": list(self.notes),
            "output": list(self.output),
        }

    def render(self) -> str:
        """The plan as plain text: every step exactly as it will run."""
        lines = [f"plan {self.id}: {self.action}"]
        for n, step in enumerate(self.steps, 1):
            root = " [needs root]" if step.needs_root else ""
            lines.append(f"step {n}{root}:")
            lines.extend("  " + line for line in step.render().splitlines())
        if not self.steps and not self.output:  # session mode: the lines to run are the plan
            lines.append("nothing to change")
        lines.extend(f"note: {note}" for note in self.notes)
        lines.extend(self.output)
        return "\n".join(lines)


def root_argv(ctx: Context, argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` as it must run: prefixed with sudo unless rocmfix already runs as root."""
    return argv if ctx.is_root else ("sudo", *argv)


class Action:
    """Base class: subclasses set ``id``/``summary`` and implement ``validate`` and ``build``.

    ``plan`` is pure. ``apply`` and ``undo`` are the same for every action because
    they execute the generic steps of a plan (see ``rocmfix.actions.transaction``).
    """

    id: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    host_only: ClassVar[bool] = False
    """True for fixes that belong to the host (groups, services): never applied in a container."""

    @classmethod
    def validate(cls, params: Mapping[str, object], ctx: Context) -> dict[str, object]:
        """Check and normalise ``params``; raise ActionError with a clear message if bad."""
        if params:
            raise ActionError(f"{cls.id} takes no parameters (got {', '.join(map(str, params))})")
        return {}

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        """The plan for already validated ``params``."""
        raise NotImplementedError

    @classmethod
    def plan(cls, params: Mapping[str, object], ctx: Context, plan_id: str | None = None) -> Plan:
        """Validate ``params`` and return the plan; changes nothing."""
        from rocmfix.actions.journal import new_record_id

        clean = cls.validate(params, ctx)
        pid = plan_id or new_record_id()
        if cls.host_only and ctx.container:
            return Plan(
                pid,
                cls.id,
                clean,
                (),
                notes=(host_fix_note(cls.id, ctx.container),),
                output=container_flags(ctx.container),
            )
        if cls.host_only and ctx.wsl:
            return Plan(pid, cls.id, clean, (), notes=WSL_NOTES)
        return cls.build(clean, ctx, pid)


WSL_NOTES = (
    "Under WSL, ROCm reaches the GPU through /dev/dxg (librocdxg); there is no /dev/kfd,"
    " no render group to join and no gpu-manager, so this host fix does not apply.",
    "Install the GPU driver on Windows and ROCm for WSL following AMD's WSL instructions;"
    " recent guides build librocdxg and set HSA_ENABLE_DXG_DETECTION=1 (not confirmed in AMD docs).",
)


def host_fix_note(action_id: str, container: str) -> str:
    where = (
        ""
        if container in ("docker", "podman")
        else " (give it the same devices and groups through its own configuration)"
    )
    return (
        f"{action_id} belongs to the host, not this {container} container: nothing is"
        f" changed here. Start the container with these flags instead{where}:"
    )


def container_flags(container: str) -> tuple[str, ...]:
    """The run flags AMD documents for GPU containers (render added for hosts that need it)."""
    tool = "podman" if container == "podman" else "docker"
    return (
        f"  {tool} run --device=/dev/kfd --device=/dev/dri --group-add video"
        " --group-add render --ipc=host --shm-size 8G IMAGE",
    )
