"""Typed errors and the documented exit codes of every rocmfix command.

Core modules raise these instead of printing; the CLI turns them into one red
line plus a hint on stderr, and the TUI into a notification. No traceback ever
reaches a user for an expected failure.
"""

from __future__ import annotations


class ExitCode(int):
    """Process exit codes; scripts and CI depend on them.

    An ``int`` with a name, like the ``enum.IntEnum`` it replaces: importing ``enum``
    costs a one-line ``rocmfix explain`` ~4 ms, and nothing here needs more than
    ``ExitCode.USAGE == 2``, ``int(code)``, ``.name`` and ``.value``.
    """

    __slots__ = ()

    OK: ExitCode
    """Success: a confident match (explain), no failed check (doctor), a passing verify."""
    PROBLEMS_FOUND: ExitCode
    """No confident match, a failed check, or a failed verify."""
    USAGE: ExitCode
    """Bad arguments or unreadable input (missing file, broken KB)."""
    INTERRUPTED: ExitCode
    """Stopped with Ctrl-C."""

    @property
    def name(self) -> str:
        return _EXIT_NAMES[int(self)]

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"<ExitCode.{self.name}: {int(self)}>"

    __str__ = int.__repr__  # as IntEnum's: str(ExitCode.USAGE) == "2"


_EXIT_NAMES = {0: "OK", 1: "PROBLEMS_FOUND", 2: "USAGE", 130: "INTERRUPTED"}
for _code, _name in _EXIT_NAMES.items():
    setattr(ExitCode, _name, ExitCode(_code))


class RocmfixError(Exception):
    """An expected failure with a message meant for a person.

    Args:
        message: One line saying what went wrong.
        hint: Optional next step for the user.
    """

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class InputError(RocmfixError):
    """The input (file, stdin, argument) cannot be read or is unusable."""


class KbError(RocmfixError):
    """A knowledge-base file is invalid; the message names file, line, entry and field."""


class ProbeError(RocmfixError):
    """A live check could not run."""


class ActionError(RocmfixError):
    """A fix action was refused or failed."""


def colour_wanted(stream: object) -> bool:
    """Whether plain ANSI colour may go to ``stream``: a terminal, NO_COLOR unset
    (https://no-color.org), and not TERM=dumb, which shows escape codes as text."""
    import os

    isatty = getattr(stream, "isatty", None)
    return (
        bool(isatty and isatty())
        and "NO_COLOR" not in os.environ
        and os.environ.get("TERM", "").lower() != "dumb"
    )
