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
_LINE = re.compile(r"^(?:export |set -gx |unset |set -e )([A-Z_][A-Z0-9_]*)(?:=| |$)'?([^']*)'?$")


def read_block(text: str) -> dict[str, str | None]:
    """Variables in rocmfix's block of ``text``, in order (None = removed)."""
    out: dict[str, str | None] = {}
    inside = False
    for line in text.splitlines():
        if line == BEGIN:
            inside = True
        elif line == END:
            inside = False
        elif inside and (m := _LINE.match(line)):
            out[m.group(1)] = None if line.startswith(("unset ", "set -e ")) else m.group(2)
    return out


def _split(text: str) -> tuple[str, str | None, str]:
    """(before, block or None, after) of ``text``."""
    start = text.find(BEGIN + "\n")
    end = text.find(END, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return text, None, ""
    stop = end + len(END)
    stop += 1 if text[stop : stop + 1] == "\n" else 0
    return text[:start], text[start:stop], text[stop:]


def _disable(text: str, names: set[str]) -> str:
    """Comment out the user's own assignments of ``names`` (for removals)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = _ASSIGN.match(line)
        if m and m.group(1) in names and not line.lstrip().startswith("#"):
            if line.lstrip().startswith(("unset", "set -e")):
                continue
            lines[i] = DISABLED + line
    return "".join(lines)


def edit(text: str, shell: str, changes: Mapping[str, str | None]) -> str:
    """``text`` with ``changes`` merged into the rocmfix block (created at the end)."""
    before, block, after = _split(text)
    current = read_block(block or "")
    merged = {**current, **changes}
    removed = {name for name, value in changes.items() if value is None}
    body = "".join(f"{line_for(shell, n, v)}\n" for n, v in merged.items())
    new_block = f"{BEGIN}\n{HEADER}\n{body}{END}\n"
    before, after = _disable(before, removed), _disable(after, removed)
    if block is None:
        sep = "" if not before or before.endswith("\n") else "\n"
        return f"{before}{sep}{new_block}"
    return f"{before}{new_block}{after}"
