"""Editing a shell startup file through one clearly marked rocmfix block.

rocmfix never rewrites a user's own lines except to comment out an assignment
that a removal asks for. Everything it adds lives between the two marker
lines, so a person can see at a glance what rocmfix set and delete it by hand.
These functions are pure text transforms; the action turns them into a plan.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from rocmfix.errors import ActionError

BEGIN = "# >>> rocmfix >>>"
END = "# <<< rocmfix <<<"
HEADER = "# Set by `rocmfix fix set-env`; `rocmfix undo` removes it."
DISABLED = "# disabled by rocmfix: "
SHELLS = ("bash", "zsh", "fish")


def detect_shell(env: Mapping[str, str]) -> str:
    """bash, zsh or fish from ``$SHELL`` (bash when unknown)."""
    name = Path(env.get("SHELL", "")).name
    return name if name in SHELLS else "bash"


def supported_shell(env: Mapping[str, str]) -> str:
    """Like :func:`detect_shell`, but refuses a login shell whose files rocmfix cannot write.

    A tcsh or nushell user given a ``~/.bashrc`` block would silently get nothing.
    """
    name = Path(env.get("SHELL", "")).name
    if name and name not in SHELLS and name not in ("sh", "dash", "ash"):
        raise ActionError(
            f"your shell is {name}; rocmfix writes only bash, zsh and fish startup files",
            hint="use --session to print the lines, or --venv PATH to write a venv's activate",
        )
    return detect_shell(env)


def startup_file(shell: str, home: Path, env: Mapping[str, str]) -> Path:
    """The file an interactive shell of that kind reads on start."""
    if shell == "zsh":
        return Path(env.get("ZDOTDIR") or home) / ".zshrc"
    if shell == "fish":
        return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "fish" / "config.fish"
    return home / ".bashrc"


def venv_activate(venv: str) -> Path:
    """``VENV/bin/activate``; ActionError when ``venv`` is not a virtual environment."""
    path = Path(venv).expanduser() / "bin" / "activate"
    if not path.is_file():
        raise ActionError(f"{venv} is not a virtual environment (no bin/activate)")
    return path


def line_for(shell: str, name: str, value: str | None) -> str:
    """One line setting (or, for None, removing) ``name`` in that shell's syntax."""
    if shell == "fish":
        return f"set -e {name}" if value is None else f"set -gx {name} '{value}'"
    return f"unset {name}" if value is None else f"export {name}='{value}'"


_ASSIGN = re.compile(r"^\s*(?:export\s+|declare\s+-x\s+|set\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)[=\s]")
# Exactly the lines line_for() writes: only these are rocmfix's to replace.
_MANAGED = re.compile(
    r"^(?:export (?P<bn>[A-Z_][A-Z0-9_]*)='(?P<bv>[A-Za-z0-9_.,:/=+@%^-]*)'"
    r"|set -gx (?P<fn>[A-Z_][A-Z0-9_]*) '(?P<fv>[A-Za-z0-9_.,:/=+@%^-]*)'"
    r"|unset (?P<un>[A-Z_][A-Z0-9_]*)|set -e (?P<en>[A-Z_][A-Z0-9_]*))$"
)


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def _managed(line: str) -> tuple[str, str | None] | None:
    """(name, value or None for a removal) when ``line`` is one rocmfix writes."""
    m = _MANAGED.match(_bare(line))
    if m is None:
        return None
    name = m.group("bn") or m.group("fn") or m.group("un") or m.group("en")
    value = m.group("bv") if m.group("bn") else m.group("fv") if m.group("fn") else None
    return name, value


def blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(begin index, end index) of every complete rocmfix block.

    Raises ActionError for a begin line without an end line (before the next
    begin or the end of the file): where the block stops is then a guess, and a
    guess could swallow the user's own lines.
    """
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i, line in enumerate(lines):
        if "rocmfix" not in line:
            continue  # cheap test first: rc files can hold millions of lines
        bare = _bare(line).rstrip()
        if bare == BEGIN:
            if start is not None:
                raise _unterminated(start)
            start = i
        elif bare == END and start is not None:
            out.append((start, i))
            start = None
    if start is not None:
        raise _unterminated(start)
    return out


def _unterminated(index: int) -> ActionError:
    return ActionError(
        f"the rocmfix block starting on line {index + 1} has no end line ({END!r});"
        " nothing was changed",
        hint=f"add the line {END!r} where the block should end, or delete the block",
    )


def read_block(text: str) -> dict[str, str | None]:
    """Variables rocmfix's blocks of ``text`` set, in order (None = removed)."""
    lines = text.splitlines(keepends=True)
    out: dict[str, str | None] = {}
    for start, end in blocks(lines):
        for line in lines[start + 1 : end]:
            if found := _managed(line):
                out[found[0]] = found[1]
    return out


def _disabled(line: str, names: set[str]) -> str:
    """``line`` commented out when it is the user's own assignment of one of ``names``."""
    m = _ASSIGN.match(line)
    body = line.lstrip()
    if not m or m.group(1) not in names or body.startswith(("#", "unset", "set -e")):
        return line
    return DISABLED + line


def edit(text: str, shell: str, changes: Mapping[str, str | None]) -> str:
    """``text`` with ``changes`` merged into rocmfix's last block (created at the end).

    Only lines that rocmfix itself writes (``export NAME='VALUE'``, ``unset
    NAME`` and their fish forms, inside a block) are ever replaced. Every other
    line, inside a block or outside, stays byte for byte, except that a removal
    comments out the user's own assignments of that variable.
    """
    lines = text.splitlines(keepends=True)
    found = blocks(lines)
    nl = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    removed = {name for name, value in changes.items() if value is None}
    managed_at = {i for s, e in found for i in range(s + 1, e) if _managed(lines[i])}
    if removed:
        lines = [
            line if i in managed_at or i in {s for s, _ in found} else _disabled(line, removed)
            for i, line in enumerate(lines)
        ]
    if not found:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += nl
        body = "".join(f"{line_for(shell, n, v)}{nl}" for n, v in changes.items())
        return "".join(lines) + f"{BEGIN}{nl}{HEADER}{nl}{body}{END}{nl}"
    start, end = found[-1]
    pending = dict(changes)
    for i in range(start + 1, end):
        got = _managed(lines[i])
        if got and got[0] in changes:
            ending = nl if lines[i].endswith("\n") else ""
            lines[i] = line_for(shell, got[0], changes[got[0]]) + ending
            pending.pop(got[0], None)
    insert = [f"{line_for(shell, n, v)}{nl}" for n, v in pending.items()]
    if insert and end > 0 and not lines[end - 1].endswith("\n"):
        lines[end - 1] += nl
    lines[end:end] = insert
    return "".join(lines)
