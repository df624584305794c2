"""The GPU test, live: stages as they complete, then TFLOPS per dtype as bars.

``VerifyPanel`` is used on its own screen (F4) and at the end of the fix flow.
It runs ``Session.verify`` in a thread worker (the child process does the GPU
work; nothing GPU-related runs in this process) and renders each
``StageEvent`` as it arrives. In demo mode without a GPU the result is the
snapshot's recorded one and the panel says so in its title.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, Static

from rocmfix.i18n_results import summary
from rocmfix.messages import VerifyDone, VerifyStage
from rocmfix.screens.keys import LocalKeys
from rocmfix.screens.modals import ReportsWorkerErrors
from rocmfix.screens.texts import lang_of, t

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
BAR_WIDTH = 30


def stages_text(
    events: list[Any], running: bool, tick: int = 0, level: str = "standard", lang: str = "en"
) -> Text:
    """Completed stages with ✓/✗ and, while running, the next stage of ``level`` with a spinner."""
    from rocmfix.verify import LEVELS, STAGES

    out = Text()
    from rich.cells import cell_len

    from rocmfix.i18n_results import stage, verify_detail

    for ev in events:
        mark, style = ("✓", "green") if ev.ok else ("✗", "bold red")
        where = f" gpu{ev.device}" if ev.device is not None else ""
        out.append(f"{mark} ", style=style)
        label = stage(ev.stage, ev.label, lang)
        label += " " * max(0, 28 - cell_len(label))  # a Chinese character takes two cells
        out.append(f"{label}{where:<6}{ev.seconds:6.2f}s  ")
        detail = verify_detail(ev.detail, lang)
        while cell_len(detail) > 30:  # 30 cells: a Chinese character takes two
            detail = detail[:-1]
        out.append(detail + "\n", style="dim")
    if running:
        done = {ev.stage for ev in events}
        order = LEVELS[level].stages if level in LEVELS else tuple(STAGES)
        nxt = next(
            (stage(sid, STAGES[sid], lang) for sid in order if sid not in done),
            t(lang, "finishing"),
        )
        out.append(f"{SPINNER[tick % len(SPINNER)]} {nxt}…\n", style="bold")
    out.rstrip()
    return out


def perf_text(devices: tuple[Any, ...], lang: str = "en") -> Text:
    """One bar per dtype: achieved TFLOPS against the dense peak (or the best dtype)."""
    from rocmfix.verify.model import DTYPES

    out = Text()
    for dev in devices:
        if not dev.tflops:
            continue
        out.append(f"gpu{dev.index} {dev.name} ({dev.arch})\n", style="bold")
        scale = max([*dev.tflops.values(), *dev.peak_tflops.values()])
        for dtype in DTYPES:
            got = dev.tflops.get(dtype)
            if got is None:
                continue
            peak = dev.peak_tflops.get(dtype)
            ref = peak or scale
            filled = round(BAR_WIDTH * min(got / ref, 1.0)) if ref else 0
            ratio = dev.ratio(dtype)
            style = "green" if ratio is None or ratio >= 0.3 else "yellow"
            out.append(f"  {dtype:<5}")
            out.append("█" * filled, style=style)
            out.append("░" * (BAR_WIDTH - filled), style="dim")
            tail = f" {got:7.1f} TFLOPS"
            tail += (
                t(lang, "of_peak", peak=peak, ratio=ratio)
                if peak and ratio is not None
                else t(lang, "no_peak")
            )
            out.append(tail + "\n")
    out.rstrip()
    return out


def outcome_text(result: Any, lang: str = "en") -> str:
    """One line: passed, or where and how it failed."""
    if result.ok:
        return t(lang, "passed")
    failure = result.failure
    if failure is None:
        return t(lang, "failed")
    from rocmfix.i18n_results import FAILURE_KIND_ZH, stage, verify_detail

    kind = FAILURE_KIND_ZH.get(failure.kind.value, failure.kind.value) if lang == "zh" else None
    return t(
        lang,
        "failed_at",
        stage=stage(failure.stage, failure.stage, lang),
        kind=kind or failure.kind.value,
        message=verify_detail(failure.message, lang),
    )


class VerifyPanel(ReportsWorkerErrors, Vertical):
    """Runs verify and shows its stages and throughput; posts VerifyDone upwards."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.events: list[Any] = []
        self.running = False
        self.result: Any = None
        self._tick = 0

    def compose(self) -> ComposeResult:
        lang = lang_of(self)
        yield Label(t(lang, "gpu_test"), id="verify-title", classes="section")
        yield Static(t(lang, "not_run"), id="verify-stages")
        yield Static("", id="verify-perf")
        yield Label("", id="verify-outcome")

    def on_mount(self) -> None:
        self.set_interval(0.12, self._spin)

    def start(self) -> None:
        """Start (or restart) the GPU test."""
        session = self.app.session  # type: ignore[attr-defined]
        self.events = []
        self.result = None
        self.running = True
        lang = lang_of(self)
        title = t(lang, "level", level=session.verify_level)
        if session.will_record():
            title += t(lang, "recorded_title")
        self.query_one("#verify-title", Label).update(title)
        self.query_one("#verify-perf", Static).update("")
        self.query_one("#verify-outcome", Label).update("")
        self.set_class(False, "-ok", "-fail")
        self.add_class("-running")
        self._render_stages()
        self._run()

    @work(thread=True, exclusive=True, exit_on_error=False, group="verify", description="GPU test")
    def _run(self) -> None:
        session = self.app.session  # type: ignore[attr-defined]
        result, recorded = session.verify(lambda ev: self.post_message(VerifyStage(ev)))
        self.post_message(VerifyDone(result, recorded))

    def _level(self) -> str:
        return str(getattr(self.app.session, "verify_level", "standard"))  # type: ignore[attr-defined]

    def _spin(self) -> None:
        if self.running:
            self._tick += 1
            self._render_stages()

    def _render_stages(self) -> None:
        self.query_one("#verify-stages", Static).update(
            stages_text(self.events, self.running, self._tick, self._level(), lang_of(self))
        )

    @on(VerifyStage)
    def add_stage(self, message: VerifyStage) -> None:
        message.stop()
        self.events.append(message.event)
        self._render_stages()

    @on(VerifyDone)
    def show_result(self, message: VerifyDone) -> None:
        self.running = False
        self.result = message.result
        self.events = list(message.result.stages)
        self._render_stages()
        lang = lang_of(self)
        self.query_one("#verify-perf", Static).update(perf_text(message.result.devices, lang))
        outcome = outcome_text(message.result, lang)
        notes = [n for n in message.result.notes if n]
        if notes:
            outcome += "\n" + "\n".join(t(lang, "note") + summary(n, lang) for n in notes)
        if message.recorded:
            outcome += "\n" + t(lang, "recorded_note")
        self.query_one("#verify-outcome", Label).update(outcome)
        self.remove_class("-running")
        self.set_class(message.result.ok, "-ok")
        self.set_class(not message.result.ok, "-fail")

    def stop_spinner(self) -> None:
        self.running = False


class VerifyScreen(LocalKeys, Screen[None]):
    """F4: prove the GPU works with the target interpreter's torch."""

    BINDINGS = [
        Binding("r", "rerun", "Run again", id="verify.rerun"),
        Binding("p", "choose_python", "Python…", id="verify.python"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="verify-body"):
            yield Label(self._target(), id="verify-target", classes="detail-sub")
            yield VerifyPanel(id="verify-panel")
        yield Footer()

    def _target(self) -> str:
        session = self.app.session  # type: ignore[attr-defined]
        if session.will_record():
            return t(lang_of(self), "target_recorded")
        return t(lang_of(self), "target", python=session.python)

    def action_choose_python(self) -> None:
        from rocmfix.screens.modals import PythonModal

        session = self.app.session  # type: ignore[attr-defined]
        self.app.push_screen(PythonModal(session.python), self._use_python)

    def _use_python(self, path: str | None) -> None:
        if not path:
            return
        session = self.app.session  # type: ignore[attr-defined]
        session.use_python(path)
        self.query_one("#verify-target", Label).update(self._target())
        self.action_rerun()

    def on_mount(self) -> None:
        self.query_one(VerifyPanel).start()

    def action_rerun(self) -> None:
        panel = self.query_one(VerifyPanel)
        if panel.running:
            self.notify(t(lang_of(self), "verify_running"))
            return
        panel.start()
