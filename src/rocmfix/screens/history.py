"""F6: every fix in the journal, newest first, with undo.

Reads the journal of the session's state directory (the throwaway HOME in
demo mode). Undo asks first and runs in a thread worker; a refused undo
(files edited since) shows the diffs in a scrollable dialog.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from rocmfix.i18n_results import journal_status
from rocmfix.messages import FixUndone
from rocmfix.screens.modals import ConfirmModal, ReportsWorkerErrors
from rocmfix.screens.texts import lang_of, t


def params_text(params: Any) -> str:
    return " ".join(f"{k}={v}" for k, v in dict(params).items()) or "-"


class HistoryScreen(ReportsWorkerErrors, Screen[None]):
    """The journal as a table; u undoes the selected record."""

    BINDINGS = [
        Binding("u", "undo", "Undo selected", id="history.undo"),
        Binding("r", "refresh", "Refresh", id="history.refresh"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.records: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="history-where", markup=False)
        yield DataTable(id="history", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#history", DataTable)
        lang = lang_of(self)
        table.add_columns(*(t(lang, c) for c in ("col_id", "col_action", "col_status", "col_values")))
        self.action_refresh()

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        session = self.app.session  # type: ignore[attr-defined]
        records = session.history()
        self.records = {r.id: r for r in records}
        table = self.query_one("#history", DataTable)
        table.clear()
        for r in reversed(records):
            table.add_row(
                r.id, r.action, journal_status(r.status, lang_of(self)), params_text(r.params), key=r.id
            )
        lang = lang_of(self)
        where = t(lang, "journal", path=f"{session.state_dir}/journal.jsonl")
        self.query_one("#history-where", Static).update(
            where if records else t(lang, "no_fix_yet", where=where)
        )

    def action_undo(self) -> None:
        table = self.query_one("#history", DataTable)
        if not table.row_count:
            self.notify(t(lang_of(self), "nothing_to_undo"), severity="warning")
            return
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        record = self.records[str(row_key.value)]
        if not record.undoable:
            self.notify(
                t(lang_of(self), "not_undoable", id=record.id, status=record.status),
                severity="warning",
            )
            return
        self._confirm_and_undo(record)

    @work(exclusive=True, exit_on_error=False, group="confirm")
    async def _confirm_and_undo(self, record: Any) -> None:
        steps = "\n".join(s.undo_text() for s in reversed(record.steps))
        lang = lang_of(self)
        question = t(lang, "undo_q", id=record.id)
        if await self.app.push_screen_wait(ConfirmModal(question, steps, yes=t(lang, "undo"))):
            self._undo(record.id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="fix", description="Undoing fix")
    def _undo(self, record_id: str) -> None:
        self.post_message(FixUndone(self.app.session.undo(record_id)))  # type: ignore[attr-defined]

    @on(FixUndone)
    def refresh_after_undo(self, message: FixUndone) -> None:
        record = message.record
        self.notify(t(lang_of(self), "undone", id=record.id, action=record.action))
        self.action_refresh()
