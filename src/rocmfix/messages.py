"""Messages that carry results from workers (and screens) to the widgets that show them.

Workers never touch widgets: they post one of these and a handler on the
screen renders it. Each message is a small dataclass holding core results
(``Explanation``, ``CheckResult``, ``StageEvent``...), so the UI only
translates data the core modules produced. Names are past tense: they say
what happened, the handler decides what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class MatchesReady(Message):
    """The paste (or a log) was matched against the knowledge base."""

    explanation: Any
    """``rocmfix.kb.matcher.Explanation``."""
    generation: int
    """Edit counter the match was made for; stale results are dropped."""
    seconds: float
    """Time the match took, shown in the status line."""
    text: str = ""
    """The text that was matched (evidence line numbers refer to it)."""


@dataclass
class CheckFinished(Message):
    """One doctor check finished (passed, failed, skipped or crashed)."""

    result: Any
    """``rocmfix.probes.CheckResult``."""


@dataclass
class ChecksDone(Message):
    """Every requested check has a result."""

    results: tuple[Any, ...]


@dataclass
class FixOutput(Message):
    """A line of output while a fix is applied (a command's stdout, a step done)."""

    line: str

    def can_replace(self, message: Message) -> bool:
        return False


@dataclass
class FixApplied(Message):
    """A plan was applied and journaled."""

    record: Any
    """``rocmfix.actions.JournalRecord``."""


@dataclass
class FixUndone(Message):
    """A journal record was undone."""

    record: Any


@dataclass
class VerifyStage(Message):
    """A verify stage completed (passed or failed)."""

    event: Any
    """``rocmfix.verify.StageEvent``."""


@dataclass
class VerifyDone(Message):
    """The GPU test finished; ``recorded`` marks a result replayed from the demo snapshot."""

    result: Any
    """``rocmfix.verify.VerifyResult``."""
    recorded: bool = False


@dataclass
class PlanMade(Message):
    """A fix's plan was computed (or refused: ``error`` says why)."""

    plan: Any
    error: str = ""


@dataclass
class LogLoaded(Message):
    """A log file or piped input was read and should fill the paste area."""

    text: str
    name: str
