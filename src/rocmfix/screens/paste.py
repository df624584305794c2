"""The paste screen: a text area, and the ranked causes updating as you type.

Matching runs in a thread worker, debounced: a keystroke restarts a short
timer, a big paste a longer one, and a result is shown only if no edit came
after it (``generation``). A paste over ``BIG_PASTE`` characters never enters
the text area whole (a 50 MB document would make every keystroke slow): the
last ``TAIL_LINES`` lines are shown and editable, the rest is kept aside and
still matched, so line numbers stay true to the original log.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Label, OptionList, TextArea
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from rocmfix.kb.match_child import OFFLOAD_CHARS, explain_in_child
from rocmfix.messages import MatchesReady
from rocmfix.screens.modals import ReportsWorkerErrors
from rocmfix.termtext import plain

BIG_PASTE = 512 * 1024
TAIL_LINES = 2000
DEBOUNCE_S = 0.3
DEBOUNCE_BIG_S = 0.8
MAX_SHOWN = 8
PLACEHOLDER = (
    "Paste an error message or a whole failed log here (or run `rocmfix train.log`).\n"
    "Causes appear below as you type. F1 help · ctrl+p commands"
)
TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "placeholder": PLACEHOLDER,
        "waiting": "Waiting for text.",
        "matching": "matching…",
        "lines": "{n:,} lines",
        "line": "1 line",
        "big": " ({mb:.1f} MB, showing the last {tail:,})",
        "took": " · matched in {s:.1f}s",
        "none": "No known cause found. Paste more of the log, or search the KB (F5).",
        "confident_list": "Top cause is confident: enter opens it.",
        "confident_area": "Top cause is confident: ctrl+o opens it (tab: the list).",
        "weak": "Only weak matches: these are possibly related.",
        "symptom": "(matched the words you typed, not an error line)",
        "nothing": "Nothing to open yet: paste an error first.",
        "causes": "Likely causes",
    },
    "zh": {
        "placeholder": (
            "在这里粘贴错误信息或整份失败的日志（或运行 `rocmfix train.log`）。\n"
            "输入时下方即显示可能的原因。F1 帮助 · ctrl+p 命令"
        ),
        "waiting": "等待输入文本。",
        "matching": "匹配中…",
        "lines": "{n:,} 行",
        "line": "1 行",
        "big": "（{mb:.1f} MB，显示最后 {tail:,} 行）",
        "took": " · 匹配用时 {s:.1f} 秒",
        "none": "未找到已知原因。请粘贴更多日志，或在知识库中搜索（F5）。",
        "confident_list": "首要原因可信：按 enter 打开。",
        "confident_area": "首要原因可信：按 ctrl+o 打开（tab 进入列表）。",
        "weak": "只有较弱的匹配：以下原因可能相关。",
        "symptom": "（匹配的是你输入的描述，而非错误行）",
        "nothing": "还没有可打开的内容：请先粘贴错误信息。",
        "causes": "可能的原因",
    },
}


SLOW_MATCH_S = 2.0
"""A match that took longer than this says how long it took."""


def tr(lang: str, key: str, **values: Any) -> str:
    """The UI string ``key`` in ``lang`` (English when not translated)."""
    text = TEXTS.get(lang, TEXTS["en"]).get(key) or TEXTS["en"][key]
    return text.format(**values) if values else text


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR (old Mac files, some terminals' pastes) become LF, so lines stay lines."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_tail(text: str, keep: int = TAIL_LINES) -> tuple[str, str]:
    """``(prefix, tail)`` with the last ``keep`` lines in ``tail``; prefix ends with a newline."""
    cut = len(text)
    for _ in range(keep):
        cut = text.rfind("\n", 0, cut)
        if cut < 0:
            return "", text
    return text[: cut + 1], text[cut + 1 :]


class LogArea(TextArea):
    """A TextArea that keeps all but the tail of a huge paste out of the document."""

    prefix: str = ""
    """Text before the shown tail (empty unless a huge log was pasted or opened)."""
    just_pasted: bool = False
    """A paste was the last edit (no key since): its confident cause may take the focus."""

    def on_key(self) -> None:
        self.just_pasted = False

    def load_log(self, text: str, announce: bool = True) -> None:
        """Show ``text`` (its tail only when it is huge); the full text stays matchable.

        ``announce`` posts ``TextArea.Changed`` as an edit would (a paste);
        a caller that starts the match itself passes False.
        """
        text = plain(normalize_newlines(text))  # a log's escapes must not reach the terminal
        if len(text) > BIG_PASTE:
            self.prefix, shown = split_tail(text)
        else:
            self.prefix, shown = "", text
        self.load_text(shown)
        if announce:
            self.post_message(TextArea.Changed(self))

    def full_text(self) -> str:
        return self.prefix + self.text

    def clear_all(self) -> None:
        self.prefix = ""
        self.load_text("")
        self.post_message(TextArea.Changed(self))

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual calls the handler of every class in the MRO unless the event's
        # default is prevented: calling super() here as well inserted each paste twice.
        event.stop()
        event.prevent_default()
        if self.read_only:
            return
        self.just_pasted = True
        text = plain(normalize_newlines(event.text))
        if len(text) > BIG_PASTE:
            self.load_log(self.full_text() + text)
            self.move_cursor(self.document.end)
            return
        if result := self._replace_via_keyboard(text, *self.selection):
            self.move_cursor(result.end_location)
        self.focus()


def _bar(confidence: float, width: int = 5) -> str:
    filled = round(confidence * width)
    return "█" * filled + "░" * (width - filled)


def match_option(match: Any, lang: str, described: bool = True) -> Option:
    """One ranked cause: confidence, title, id and its strongest evidence line."""
    line = Text()
    style = "bold" if match.confident else "dim"
    line.append(
        f"{match.confidence:4.0%} {_bar(match.confidence)} ",
        style="bold" if match.confident else "",
    )
    line.append(match.entry.text("title", lang), style=style)
    line.append(f"  {match.entry.id}", style="dim")
    for ev in match.evidence[:2]:
        line.append(f"\n      L{ev.line}: ", style="dim")
        line.append(ev.text[:160], style="italic")
    if not match.evidence and match.via == "symptom" and described:
        line.append("\n      " + tr(lang, "symptom"), style="dim italic")
    return Option(line, id=match.entry.id)


class PasteScreen(ReportsWorkerErrors, Screen[None]):
    """Paste or type; ranked causes update below; enter opens one."""

    BINDINGS = [
        Binding("ctrl+l", "clear", "Clear", id="paste.clear", tooltip="Empty the paste area"),
        Binding("ctrl+o", "open_top", "Open top cause", id="paste.open_top"),
        Binding("tab", "app.focus_next", "Results", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(id="paste")
        self._generation = 0
        self._timer: Timer | None = None
        self._matched_signature: tuple[int, str] | None = None
        self._timer_armed = False
        self.explanation: Any = None
        self.source_text = ""
        self._summary = ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="paste-body"):
            yield LogArea(
                id="log",
                soft_wrap=False,
                tab_behavior="focus",
                show_line_numbers=False,
                placeholder=tr(self._lang, "placeholder"),
            )
            yield Label(tr(self._lang, "waiting"), id="paste-status")
            yield OptionList(id="matches")
        yield Footer()

    @property
    def _lang(self) -> str:
        session = getattr(self.app, "session", None)
        return getattr(session, "lang", "en")

    @property
    def area(self) -> LogArea:
        return self.query_one("#log", LogArea)

    def on_mount(self) -> None:
        self.area.focus()
        self.query_one("#matches", OptionList).border_title = tr(self._lang, "causes")

    def load_log(self, text: str, name: str = "") -> None:
        """Put a log (opened file, piped input, demo log) in the area and match it at once."""
        self.area.load_log(text, announce=False)
        if name:
            self.area.border_title = name
            self.query_one("#matches", OptionList).focus()
        self._start_match(0.0)

    def _signature(self) -> tuple[int, str]:
        return len(self.area.prefix), self.area.text

    @on(TextArea.Changed, "#log")
    def rematch_after_pause(self) -> None:
        if self._signature() == self._matched_signature:
            return  # reloaded with the same text (a loaded log announces itself once more)
        big = len(self.area.prefix) + len(self.area.text) > BIG_PASTE
        self._start_match(DEBOUNCE_BIG_S if big else DEBOUNCE_S)

    def _start_match(self, delay: float) -> None:
        self._generation += 1
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(delay, self._fire) if delay else None
        self._timer_armed = bool(delay)
        if not delay:
            self._launch_match()

    def _timer_pending(self) -> bool:
        """True while a debounced match is waiting to start."""
        return self._timer is not None and self._timer_armed

    def _fire(self) -> None:
        self._timer_armed = False
        self._launch_match()

    def _launch_match(self) -> None:
        self._matched_signature = self._signature()
        text = self.area.full_text()
        if not text.strip():
            self.explanation = None
            self.query_one("#matches", OptionList).clear_options()
            self._summary = ""
            self._status(tr(self._lang, "waiting"))
            return
        self._status(tr(self._lang, "matching"))
        self._match(text, self._generation)

    @work(thread=True, exclusive=True, exit_on_error=False, group="match", description="Matching")
    def _match(self, text: str, generation: int) -> None:
        started = time.perf_counter()
        worker = get_current_worker()
        if len(text) >= OFFLOAD_CHARS:
            # seconds of matching: in a child that a newer edit or quit kills at once
            explanation = explain_in_child(text, lambda: worker.is_cancelled or self._quitting())
            if explanation is None:
                return
        else:
            explanation = self.app.session.explain(text)  # type: ignore[attr-defined]
        if worker.is_cancelled:
            return
        self.post_message(
            MatchesReady(explanation, generation, time.perf_counter() - started, text)
        )

    def _quitting(self) -> bool:
        return bool(getattr(self.app, "_exit", False)) or not self.app.is_running

    @on(MatchesReady)
    def show_matches(self, message: MatchesReady) -> None:
        if message.generation != self._generation:
            return  # an edit came after this text; a newer match is on its way
        self.explanation = message.explanation
        self.source_text = message.text
        options = self.query_one("#matches", OptionList)
        options.clear_options()
        lang = self.app.session.lang  # type: ignore[attr-defined]
        shown = message.explanation.matches[:MAX_SHOWN]
        described = message.text.count("\n") < 3  # a few typed words, not a pasted log
        options.add_options([match_option(m, lang, described) for m in shown])
        if shown:
            options.highlighted = 0
        lang = self._lang
        excerpt = message.explanation.excerpt
        size = tr(lang, "line") if excerpt.lines == 1 else tr(lang, "lines", n=excerpt.lines)
        if self.area.prefix:
            size += tr(lang, "big", mb=excerpt.bytes / 1e6, tail=TAIL_LINES)
        took = tr(lang, "took", s=message.seconds) if message.seconds >= SLOW_MATCH_S else ""
        self._summary = size + took
        if shown and message.explanation.top and self.area.just_pasted:
            options.focus()  # a paste with a confident cause: enter opens it
        self.area.just_pasted = False
        self._show_verdict()

    def _show_verdict(self) -> None:
        if not self._summary or self.explanation is None:
            return
        lang = self._lang
        if not self.explanation.matches:
            verdict = tr(lang, "none")
        elif self.explanation.top:
            focused = self.query_one("#matches", OptionList).has_focus
            verdict = tr(lang, "confident_list" if focused else "confident_area")
        else:
            verdict = tr(lang, "weak")
        self._status(f"{self._summary} · {verdict}")

    def on_descendant_focus(self) -> None:
        self._show_verdict()

    async def on_paste(self, event: events.Paste) -> None:
        """A paste while the results list has the focus still goes into the log."""
        self.area.focus()
        await self.area._on_paste(event)

    def _status(self, text: str) -> None:
        self.query_one("#paste-status", Label).update(text)

    @on(OptionList.OptionSelected, "#matches")
    def open_selected_match(self, event: OptionList.OptionSelected) -> None:
        self._open(event.option_index)

    def action_open_top(self) -> None:
        self._open(0)

    def _open(self, index: int) -> None:
        if not self.explanation or index >= len(self.explanation.matches):
            self.notify(tr(self._lang, "nothing"), severity="warning")
            return
        from rocmfix.screens.detail import DetailScreen

        self.app.push_screen(DetailScreen(self.explanation.matches[index], self.source_text))

    def action_clear(self) -> None:
        self.area.clear_all()
        self.area.border_title = None
        self.area.focus()
