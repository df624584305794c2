"""The doctor checklist, filling in live: a spinner per running check, then ✓ ! ✗.

Checks run in a thread worker through ``Session.run_checks`` (this machine or
a snapshot); each ``CheckFinished`` updates its row. Enter on a row opens the
check's details and the KB entries it confirms or rules out.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, OptionList, Static
from textual.widgets.option_list import Option

from rocmfix import i18n_results as results_zh
from rocmfix.messages import CheckFinished, ChecksDone
from rocmfix.screens.detail import _STYLE, MARKS
from rocmfix.screens.keys import LocalKeys
from rocmfix.screens.modals import ReportsWorkerErrors
from rocmfix.screens.texts import lang_of, t
from rocmfix.screens.verify import SPINNER


def mark(status: str) -> Text:
    return Text(MARKS[status], style=_STYLE[status])


class DoctorScreen(ReportsWorkerErrors, Screen[None]):
    """F3: every check of this machine (or the demo snapshot) as a live checklist."""

    BINDINGS = [Binding("r", "rerun", "Run again", id="doctor.rerun")]

    def __init__(self) -> None:
        super().__init__()
        self.results: dict[str, Any] = {}
        self.running = False
        self._tick = 0
        self._summary_text = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="doctor-summary", markup=False)
        yield DataTable(id="checks", cursor_type="row", zebra_stripes=False)
        yield Footer()

    def on_mount(self) -> None:
        lang = lang_of(self)
        table = self.query_one("#checks", DataTable)
        table.add_column(" ", key="mark", width=1)
        table.add_column(t(lang, "col_check"), key="title", width=30)
        table.add_column(t(lang, "col_result"), key="summary", width=40)
        self.set_interval(0.12, self._spin)
        self.action_rerun()
        self.call_after_refresh(self._fit_columns)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_columns)
        self.call_after_refresh(self._summary, self._summary_text)

    def _fit_columns(self) -> None:
        """Titles get what they need up to 40% of the width; the result column the rest.

        (A result longer than that is cut; enter shows it whole.)
        """
        from textual.widgets.data_table import ColumnKey

        table = self.query_one("#checks", DataTable)
        pad = 2 * table.cell_padding
        usable = table.scrollable_content_region.width or self.size.width
        available = usable - (1 + pad) - 2 * pad - 1
        from rich.cells import cell_len

        lang = lang_of(self)
        titles = [
            results_zh.title(cid, title, lang)
            for cid, title in self.app.session.check_titles().items()  # type: ignore[attr-defined]
        ]
        longest = max((cell_len(t) for t in titles), default=20)  # a Chinese character: 2 cells
        title_w = max(12, min(longest, int(available * 0.4)))
        widths = {"title": title_w, "summary": max(10, available - title_w)}
        for key, width in widths.items():
            column = table.columns[ColumnKey(key)]
            column.width, column.auto_width = width, False
        table._clear_caches()
        table._require_update_dimensions = True
        table.refresh()

    def action_rerun(self) -> None:
        if self.running:
            self.notify(t(lang_of(self), "checks_running"))
            return
        session = self.app.session  # type: ignore[attr-defined]
        lang = lang_of(self)
        table = self.query_one("#checks", DataTable)
        table.clear()
        self.results = {}
        for cid, title in session.check_titles().items():
            title = results_zh.title(cid, title, lang)
            table.add_row(Text(SPINNER[0]), title, Text(t(lang, "running"), style="dim"), key=cid)
        self.running = True
        self._summary(t(lang, "checking", machine=session.machine_name(lang)))
        self._run()

    @work(
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="probes",
        description="Running diagnostics",
    )
    def _run(self) -> None:
        session = self.app.session  # type: ignore[attr-defined]
        results = session.run_checks(None, lambda r: self.post_message(CheckFinished(r)))
        self.post_message(ChecksDone(results))

    def _spin(self) -> None:
        if not self.running:
            return
        self._tick += 1
        table = self.query_one("#checks", DataTable)
        for row_key in table.rows:
            if row_key.value not in self.results:
                table.update_cell(
                    row_key, "mark", Text(SPINNER[self._tick % len(SPINNER)], style="bold")
                )

    @on(CheckFinished)
    def fill_row(self, message: CheckFinished) -> None:
        res = message.result
        self.results[res.id] = res
        table = self.query_one("#checks", DataTable)
        if res.id not in table.rows:
            return
        table.update_cell(res.id, "mark", mark(res.status.value))
        style = "bold" if res.status.value in ("fail", "warn") else ""
        lang = lang_of(self)
        table.update_cell(
            res.id, "summary", Text(results_zh.summary(res.summary, lang), style=style)
        )
        machine = self.app.session.machine_name(lang)  # type: ignore[attr-defined]
        self._summary(
            t(lang, "checking_n", machine=machine, done=len(self.results), total=table.row_count)
        )

    @on(ChecksDone)
    def show_summary(self, message: ChecksDone) -> None:
        from rocmfix.probes import root_causes, summarize

        self.running = False
        for res in message.results:
            self.fill_row(CheckFinished(res))
        counts = summarize(message.results)["counts"]
        causes = [c["id"] for c in root_causes(message.results)]
        lang = lang_of(self)
        line = t(lang, "counts", **{k: counts[k] for k in ("fail", "warn", "error", "ok", "skip")})
        if causes:
            line += t(lang, "most_likely", ids=("、" if lang == "zh" else ", ").join(causes))
        elif counts["fail"] or counts["warn"]:
            line += t(lang, "no_cause")
        else:
            line += t(lang, "all_good")
        self._summary(line + t(lang, "enter_details"))

    def _summary(self, text: str) -> None:
        # Textual breaks lines only at spaces: Chinese would break at "6 项" and leave
        # ragged lines; it is wrapped between characters at the width instead
        self._summary_text = text
        shown = self.query_one("#doctor-summary", Static)
        if lang_of(self) == "zh" and shown.size.width:
            from rocmfix.commands._explain_render import wrap_cjk

            text = wrap_cjk(text, shown.size.width)
        shown.update(text)

    @on(DataTable.RowSelected, "#checks")
    def open_check(self, event: DataTable.RowSelected) -> None:
        res = self.results.get(str(event.row_key.value))
        if res is None:
            self.notify(t(lang_of(self), "check_running"))
            return
        self.app.push_screen(CheckScreen(res))


class CheckScreen(LocalKeys, Screen[None]):
    """One check: what it read, what it concluded, the fix and the KB entries involved."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="check.back")]

    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        res = self.result
        lang = lang_of(self)
        yield Header()
        with VerticalScroll(id="check-body"):
            title = Text()
            title.append(MARKS[res.status.value] + " ", style=_STYLE[res.status.value])
            title.append(results_zh.title(res.id, res.title, lang))
            yield Label(title, classes="detail-title")
            yield Label(
                f"{res.id} · {t(lang, 'status_' + res.status.value)} · {res.duration:.2f}s",
                classes="detail-sub",
            )
            yield Static(
                results_zh.summary(res.summary, lang), classes="detail-summary", markup=False
            )
            if res.details:
                yield Static(res.details, classes="detail-text", markup=False)
            if res.fix:
                yield Label(t(lang, "fix"), classes="section")
                yield Static(results_zh.summary(res.fix, lang), markup=False)
            if res.evidence:
                yield Label(t(lang, "evidence"), classes="section")
                yield Static(
                    "\n".join(f"{e.source}: {e.value}" for e in res.evidence),
                    classes="evidence",
                    markup=False,
                )
            yield Label(t(lang, "kb_entries"), classes="section")
            yield OptionList(id="kb-links")
        yield Footer()

    def on_mount(self) -> None:
        kb = self.app.session.kb()  # type: ignore[attr-defined]
        lang = lang_of(self)
        links = self.query_one("#kb-links", OptionList)
        for verb, ids in (("confirms", self.result.kb_ids), ("rules_out", self.result.ruled_out)):
            for kid in ids:
                entry = kb.get(kid)
                title = entry.text("title", lang) if entry else ""
                sep = "：" if lang == "zh" else ": "
                links.add_option(Option(f"{t(lang, verb)} {kid}{sep}{title}", id=f"{verb}:{kid}"))
        if not links.option_count:
            links.add_option(Option(t(lang, "no_entry"), disabled=True))

    @on(OptionList.OptionSelected, "#kb-links")
    def open_entry(self, event: OptionList.OptionSelected) -> None:
        kid = str(event.option.id).split(":", 1)[1]
        entry = self.app.session.kb().get(kid)  # type: ignore[attr-defined]
        if entry is not None:
            from rocmfix.screens.detail import DetailScreen

            self.app.push_screen(DetailScreen(entry=entry))
