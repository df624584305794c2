"""One cause in full: why, the evidence in context, values found, fixes, references.

Opened from a ranked match (with its evidence and extracted values) or from
the KB browser (values then come from the machine). ``c`` runs the checks the
entry names and says whether this machine confirms or rules the cause out;
selecting a fix with an action opens the fix flow.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, OptionList, Static
from textual.widgets.option_list import Option

from rocmfix.messages import CheckFinished, ChecksDone
from rocmfix.screens.modals import ReportsWorkerErrors

CONTEXT_LINES = 2
MAX_CONTEXT_TEXT = 8_000_000
MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-", "error": "?"}


def evidence_in_context(text: str, lines: tuple[int, ...], around: int = CONTEXT_LINES) -> Text:
    """The evidence lines of ``text`` with ``around`` lines either side, evidence highlighted."""
    out = Text()
    if not lines:
        return out
    if len(text) > MAX_CONTEXT_TEXT:
        return out  # only the evidence lines themselves are shown for huge logs
    all_lines = text.split("\n")
    wanted: set[int] = set()
    for no in lines:
        wanted.update(range(max(1, no - around), min(len(all_lines), no + around) + 1))
    previous = 0
    for no in sorted(wanted):
        if previous and no != previous + 1:
            out.append("   ⋮\n", style="dim")
        hit = no in lines
        out.append(f"{no:>5} {'▶' if hit else ' '} ", style="bold" if hit else "dim")
        out.append(all_lines[no - 1][:200] + "\n", style="reverse" if hit else "")
        previous = no
    out.rstrip()
    return out


def fix_option(n: int, fix: Any, lang: str = "en") -> Option:
    """A fix as the list shows it: number, what it does, action or manual, risk."""
    from rocmfix.i18n_results import risk

    label = Text()
    kind = f"[{fix.action}]" if fix.action else _t(lang, "by_hand")
    label.append(f"{n}. {kind} ", style="bold" if fix.action else "")
    label.append(fix.text)
    root = f" · {_t(lang, 'root')}" if fix.root else ""
    label.append(f"  {_t(lang, 'risk')} {risk(fix.risk, lang)}{root}", style="dim")
    for command in fix.commands:
        label.append(f"\n     $ {command}", style="italic")
    return Option(label, id=f"fix-{n}")


TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "caveat": "Caveat: ",
        "fixes": "Fixes",
        "machine": "This machine",
        "press_c": "Press c to run the checks this cause names: ",
        "refs": "References",
        "similar": "Similar solved cases",
        "evidence": "Evidence",
        "values": "Values found",
        "values_machine": "Values from this machine",
        "no_fix": "No fix applies with the values known.",
        "waiting": "Fix {n} depends on this machine's GPUs, which the text does not name: `rocmfix explain --check` reads them (or paste the output of `rocminfo`).",
        "waiting_many": "Fixes {n} depend on this machine's GPUs, which the text does not name: `rocmfix explain --check` reads them (or paste the output of `rocminfo`).",
        "from_kb": "from the knowledge base",
        "confidence": "confidence",
        "by_signature": "matched by signature",
        "by_description": "matched your description",
        "by_hand": "[by hand]",
        "risk": "risk",
        "root": "root",
        "manual": "This one is done by hand: run the commands shown.",
        "manual_title": "Manual step",
        "unknown_value": "A value this fix needs is unknown (shown as <name>).",
        "no_check": "This cause names no check to run.",
        "checking": "Checking {machine}…",
        "checking_n": "Checking… {done}/{total}",
        "confirmed": "CONFIRMED on this machine by {ids}",
        "ruled_out": "RULED OUT by {ids}",
        "neither": "Neither confirmed nor ruled out by these checks.",
    },
    "zh": {
        "caveat": "注意：",
        "fixes": "修复",
        "machine": "本机",
        "press_c": "按 c 运行这个原因涉及的检查：",
        "refs": "参考资料",
        "similar": "相似的已解决案例",
        "evidence": "证据",
        "values": "检测到的值",
        "values_machine": "本机的值",
        "no_fix": "根据已知的值，没有适用的修复。",
        "waiting": "修复 {n} 取决于本机的 GPU，而文本中没有写明：运行 `rocmfix explain --check` 读取（或粘贴 `rocminfo` 的输出）。",
        "waiting_many": "修复 {n} 取决于本机的 GPU，而文本中没有写明：运行 `rocmfix explain --check` 读取（或粘贴 `rocminfo` 的输出）。",
        "from_kb": "来自知识库",
        "confidence": "可信度",
        "by_signature": "由错误特征匹配",
        "by_description": "由你的描述匹配",
        "by_hand": "[手动]",
        "risk": "风险",
        "root": "需要 root",
        "manual": "这一项需要手动完成：请运行显示的命令。",
        "manual_title": "手动步骤",
        "unknown_value": "这项修复需要的一个值未知（显示为 <name>）。",
        "no_check": "这个原因没有可运行的检查。",
        "checking": "正在检查{machine}…",
        "checking_n": "正在检查… {done}/{total}",
        "confirmed": "本机的检查 {ids} 证实了这个原因",
        "ruled_out": "检查 {ids} 排除了这个原因",
        "neither": "这些检查既没有证实也没有排除这个原因。",
    },
}


def _t(lang: str, key: str, **values: Any) -> str:
    text = TEXTS.get(lang, TEXTS["en"]).get(key) or TEXTS["en"][key]
    return text.format(**values) if values else text


class Prose(Static):
    """A paragraph; Chinese is wrapped between characters at the widget's width.

    Textual breaks lines only at spaces, which leaves Chinese text ragged
    (a whole clause moves down when it does not fit); ``wrap_cjk`` breaks it
    as Chinese is set. Its lines fit the width, so Textual keeps them as they are.
    """

    def __init__(self, text: str, lang: str, **kw: Any) -> None:
        super().__init__(text, markup=False, **kw)
        self._raw = text
        self._lang = lang

    def _wrapped(self, width: int) -> str:
        from rocmfix.commands._explain_render import wrap_cjk

        return wrap_cjk(self._raw, max(1, width))

    def render(self) -> Any:
        if self._lang != "zh":
            return super().render()
        return self._wrapped(self.content_size.width)

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        if self._lang != "zh":
            return super().get_content_height(container, viewport, width)
        return self._wrapped(width).count("\n") + 1


class DetailScreen(ReportsWorkerErrors, Screen[None]):
    """A KB entry with the evidence that matched it and the fixes it offers."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="detail.back"),
        Binding("c", "check", "Check this machine", id="detail.check"),
        Binding("f", "focus_fixes", "Fixes", id="detail.fixes"),
    ]

    def __init__(self, match: Any = None, source_text: str = "", entry: Any = None) -> None:
        super().__init__()
        self.match = match
        self.entry = entry if entry is not None else match.entry
        self.source_text = source_text
        self.fixes: tuple[Any, ...] = ()

    def compose(self) -> ComposeResult:
        lang = self.app.session.lang  # type: ignore[attr-defined]
        entry = self.entry
        yield Header()
        with VerticalScroll(id="detail-body"):
            yield Label(entry.text("title", lang), classes="detail-title")
            yield Label(self._subtitle(), classes="detail-sub")
            yield Prose(entry.text("summary", lang), lang, classes="detail-summary")
            yield Prose(entry.text("explanation", lang).strip(), lang, classes="detail-text")
            if entry.text("caveats", lang):
                yield Prose(
                    _t(lang, "caveat") + entry.text("caveats", lang).strip(),
                    lang,
                    classes="detail-caveat",
                )
            yield from self._evidence()
            yield from self._values()
            yield Label(_t(lang, "fixes"), classes="section")
            yield OptionList(id="fixes")
            yield Label(_t(lang, "machine"), classes="section")
            yield Static(
                _t(lang, "press_c") + ", ".join(entry.checks or ("none",)),
                id="check-results",
                markup=False,
            )
            if entry.references:
                yield Label(_t(lang, "refs"), classes="section")
                yield Static("\n".join(entry.references), classes="detail-refs", markup=False)
            similar = self._similar()
            if similar:
                yield Label(_t(lang, "similar"), classes="section")
                yield Static(similar, classes="detail-refs", markup=False)
        yield Footer()

    def _similar(self) -> str:
        """Up to three solved real reports like the user's, with how each was resolved."""
        from rocmfix.kb.ranker import default_ranker

        model = default_ranker()
        if self.match is None or model is None or not self.source_text.strip():
            return ""
        cases = model.similar(self.source_text[-32768:], self.entry.id)
        return "\n".join(f"{c.url}\n  {c.resolution}" for c in cases)

    def _subtitle(self) -> str:
        lang = self.app.session.lang  # type: ignore[attr-defined]
        if self.match is None:
            return f"{self.entry.id} · {_t(lang, 'from_kb')}"
        how = _t(lang, "by_signature" if self.match.via == "signature" else "by_description")
        return f"{self.entry.id} · {_t(lang, 'confidence')} {self.match.confidence:.0%} · {how}"

    def _evidence(self) -> ComposeResult:
        if self.match is None or not self.match.evidence:
            return
        yield Label(_t(self.app.session.lang, "evidence"), classes="section")  # type: ignore[attr-defined]
        lines = tuple(e.line for e in self.match.evidence)
        context = evidence_in_context(self.source_text, lines)
        if not context.plain:
            context = Text("\n".join(f"{e.line:>5} ▶ {e.text}" for e in self.match.evidence))
        yield Static(context, classes="evidence")

    def _values(self) -> ComposeResult:
        params = self._params()
        if not params:
            return
        lang = self.app.session.lang  # type: ignore[attr-defined]
        yield Label(_t(lang, "values" if self.match else "values_machine"), classes="section")
        yield Static(
            "\n".join(f"{k:<16} {v}" for k, v in sorted(params.items())),
            classes="values",
            markup=False,
        )

    def _params(self) -> dict[str, str]:
        if self.match is not None:
            return dict(self.match.params)
        try:
            return self.app.session.system_params()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - values are a convenience; the entry still shows
            return {}

    def on_mount(self) -> None:
        from rocmfix.kb.render import render_fixes, waiting_for_gpus

        lang = self.app.session.lang  # type: ignore[attr-defined]
        params = self._params()
        self.fixes = render_fixes(self.entry.fixes, params, lang)
        fixes = self.query_one("#fixes", OptionList)
        fixes.add_options([fix_option(f.number, f, lang) for f in self.fixes])
        if not self.fixes:
            fixes.add_option(Option(_t(lang, "no_fix"), disabled=True))
        # Fixes left out until the GPUs are known (a match from a text naming none); after
        # the fixes offered, so an option's index stays its fix's place in self.fixes.
        waiting = waiting_for_gpus(self.entry.fixes, params) if self.match is not None else ()
        if waiting:
            sep = "、" if lang == "zh" else ", "
            names = sep.join(map(str, waiting))
            key = "waiting_many" if len(waiting) > 1 else "waiting"
            fixes.add_option(Option(Text(_t(lang, key, n=names), style="dim"), disabled=True))
        actions = [n for n, f in enumerate(self.fixes) if f.action and f.complete]
        fixes.highlighted = actions[0] if actions else (0 if self.fixes else None)
        fixes.focus(scroll_visible=False)

    def action_focus_fixes(self) -> None:
        self.query_one("#fixes", OptionList).focus()

    @on(OptionList.OptionSelected, "#fixes")
    def start_fix_flow(self, event: OptionList.OptionSelected) -> None:
        fix = self.fixes[event.option_index]
        if fix.action is None:
            lang = self.app.session.lang  # type: ignore[attr-defined]
            self.notify(_t(lang, "manual"), title=_t(lang, "manual_title"))
            return
        if not fix.complete:
            lang = self.app.session.lang  # type: ignore[attr-defined]
            self.notify(_t(lang, "unknown_value"), severity="warning")
            return
        from rocmfix.screens.fix import FixScreen

        self.app.push_screen(FixScreen(fix, self.entry))

    def action_check(self) -> None:
        session = self.app.session  # type: ignore[attr-defined]
        if not self.entry.checks:
            self.notify(_t(session.lang, "no_check"), severity="warning")
            return
        self.query_one("#check-results", Static).update(
            _t(session.lang, "checking", machine=session.machine_name(session.lang))
        )
        self._results: list[Any] = []
        self._run_checks()

    @work(thread=True, exclusive=True, exit_on_error=False, group="probes", description="Checking")
    def _run_checks(self) -> None:
        session = self.app.session  # type: ignore[attr-defined]
        results = session.run_checks(
            tuple(self.entry.checks), lambda r: self.post_message(CheckFinished(r))
        )
        self.post_message(ChecksDone(results))

    @on(CheckFinished)
    def show_check_progress(self, message: CheckFinished) -> None:
        self._results.append(message.result)
        lang = self.app.session.lang  # type: ignore[attr-defined]
        self.query_one("#check-results", Static).update(
            _t(lang, "checking_n", done=len(self._results), total=len(self.entry.checks))
        )

    @on(ChecksDone)
    def show_verdict(self, message: ChecksDone) -> None:
        results = self.query_one("#check-results", Static)
        results.update(verdict(self.entry.id, message.results, self.app.session.lang))  # type: ignore[attr-defined]
        self.call_after_refresh(self.query_one("#detail-body").scroll_to_widget, results)


def verdict(entry_id: str, results: tuple[Any, ...], lang: str = "en") -> Text:
    """Each check's line, then whether the machine confirms or rules out ``entry_id``."""
    out = Text()
    confirmed = [r for r in results if entry_id in r.kb_ids]
    ruled_out = [r for r in results if entry_id in r.ruled_out]
    for r in results:
        out.append(f"{MARKS[r.status.value]} ", style=_STYLE[r.status.value])
        from rocmfix import i18n_results as words

        sep, fix = ("：", "修复：") if lang == "zh" else (": ", "fix: ")
        out.append(f"{words.title(r.id, r.title, lang)}{sep}{words.summary(r.summary, lang)}\n")
        if r.fix and r.status.value in ("fail", "warn"):
            out.append(f"    {fix}{words.summary(r.fix, lang)}\n", style="dim")
    if confirmed:
        ids = ", ".join(r.id for r in confirmed)
        out.append(_t(lang, "confirmed", ids=ids), style="bold red")
    elif ruled_out:
        out.append(_t(lang, "ruled_out", ids=", ".join(r.id for r in ruled_out)), style="bold green")
    else:
        out.append(_t(lang, "neither"), style="bold")
    return out


_STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim", "error": "magenta"}
