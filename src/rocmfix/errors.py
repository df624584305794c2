"""Typed errors and the documented exit codes of every rocmfix command.

Core modules raise these instead of printing; the CLI turns them into one red
line plus a hint on stderr, and the TUI into a notification. No traceback ever
reaches a user for an expected failure.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """Process exit codes; scripts and CI depend on them."""

    OK = 0
    """Success: a confident match (explain), no failed check (doctor), a passing verify."""
    PROBLEMS_FOUND = 1
    """No confident match, a failed check, or a failed verify."""
    USAGE = 2
    """Bad arguments or unreadable input (missing file, broken KB)."""
    INTERRUPTED = 130
    """Stopped with Ctrl-C."""


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
