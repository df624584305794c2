"""F5: fuzzy search over every knowledge-base entry (id, title, summary, symptoms).

Ranking is rapidfuzz's WRatio over one searchable string per entry; with an
empty query every entry is listed in KB order. Enter opens the entry, whose
fixes take their values from the machine.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList
from textual.widgets.option_list import Option

from rocmfix.screens.keys import LocalKeys
from rocmfix.screens.texts import t

MIN_SCORE = 45


_NAMED_MIN = 0.3
"""Below this a cause is a resemblance, not what the query names."""


def search(
    entries: tuple[Any, ...], query: str, lang: str = "en", matcher: Any = None
) -> list[Any]:
    """Entries ranked by how well they answer ``query`` (all of them, in order, when empty).

    An entry whose id or title holds the words ranks first; then close spellings
    of the title, then the words found in its summary or symptoms. ``matcher``
    (the KB's own matcher) adds the entries the query would name as an error
    text, so "gfx1031" finds the entry about GPUs without code in the build.
    """
    query = query.strip()
    if not query:
        return list(entries)
    from rapidfuzz import fuzz, utils

    q = utils.default_process(query)
    if not q:
        return []
    word = re.compile(r"\b" + re.escape(q))
    named: dict[str, float] = {}
    if matcher is not None:
        for match in matcher.explain_text(query).matches:
            if match.confidence >= _NAMED_MIN:  # the ranker gives every entry some weight
                named.setdefault(match.entry.id, match.confidence)
    scored = []
    for order, entry in enumerate(entries):
        title = utils.default_process(entry.text("title", lang) + " " + entry.id.replace("-", " "))
        hay = utils.default_process(
            " ".join((entry.text("summary", lang), *entry.symptoms, entry.text("explanation", lang)))
        )
        if word.search(title):
            score = 100.0
        elif word.search(hay):
            score = 85.0
        elif len(q) < 4:
            score = 0.0  # a fuzzy "oom" would match every "room" and "zoom"
        else:
            score = max(
                0.95 * fuzz.partial_ratio(q, title),
                0.9 * fuzz.token_set_ratio(q, title),
                0.75 * fuzz.partial_ratio(q, hay),
            )
        if entry.id in named:
            score = max(score, 80.0) + 15.0 * named[entry.id]
        if score >= MIN_SCORE:
            scored.append((-score, order, entry))
    return [e for _, _, e in sorted(scored, key=lambda t: (t[0], t[1]))]


class KbScreen(LocalKeys, Screen[None]):
    """Search box over the KB; enter on a result opens it."""

    BINDINGS = [Binding("escape", "focus_search", "Search", id="kb.search")]

    def compose(self) -> ComposeResult:
        yield Header()
        placeholder = t(self.app.session.lang, "kb_placeholder")  # type: ignore[attr-defined]
        yield Input(placeholder=placeholder, id="kb-query")
        yield OptionList(id="kb-results")
        yield Footer()

    def on_mount(self) -> None:
        self._fill("")
        self.query_one("#kb-query", Input).focus()

    @on(Input.Changed, "#kb-query")
    def refine(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#kb-query")
    def open_first(self) -> None:
        results = self.query_one("#kb-results", OptionList)
        if results.option_count and results.get_option_at_index(0).id != "kb-none":
            self._open(str(results.get_option_at_index(0).id))

    def _fill(self, query: str) -> None:
        session = self.app.session  # type: ignore[attr-defined]
        found = search(session.kb().entries, query, session.lang, matcher=session.matcher())
        results = self.query_one("#kb-results", OptionList)
        results.clear_options()
        if not found:
            results.add_option(
                Option(
                    Text(t(session.lang, "kb_none", query=query.strip()), style="dim italic"),
                    id="kb-none",
                    disabled=True,
                )
            )
        for entry in found:
            label = Text()
            label.append(entry.text("title", session.lang), style="dim" if entry.benign else "bold")
            benign = t(session.lang, "kb_benign") if entry.benign else ""
            label.append(f"  {entry.id}{benign}", style="dim")
            results.add_option(Option(label, id=entry.id))
        total = len(session.kb().entries)
        results.border_title = t(session.lang, "kb_count", found=len(found), total=total)

    @on(OptionList.OptionSelected, "#kb-results")
    def open_selected(self, event: OptionList.OptionSelected) -> None:
        self._open(str(event.option.id))

    def _open(self, entry_id: str) -> None:
        from rocmfix.screens.detail import DetailScreen

        self.app.push_screen(DetailScreen(entry=self.app.session.kb().get(entry_id)))  # type: ignore[attr-defined]

    def action_focus_search(self) -> None:
        self.query_one("#kb-query", Input).focus()
