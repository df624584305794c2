"""The fix flow: plan (the exact diff), confirm, apply with live output, verify, undo.

The plan is computed in a worker and shown before anything can change.
``a`` asks for confirmation in a dialog, then applies in a thread worker: a
plain command's output streams into the log; a step that needs root pauses
the app (``App.suspend``) so ``sudo`` can ask for the password in the real
terminal, or, where the terminal cannot be handed over, the step is refused
and the exact command shown. After a successful apply the GPU test runs by
itself and the banner says "recovered" or "still failing" with the next step.
``u`` undoes the applied fix from the same screen.
"""

from __future__ import annotations

import subprocess
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, Log, Static

from rocmfix.errors import ActionError
from rocmfix.i18n_results import risk
from rocmfix.messages import FixApplied, FixOutput, FixUndone, PlanMade, VerifyDone
from rocmfix.screens.modals import ConfirmModal, ErrorModal, ReportsWorkerErrors
from rocmfix.screens.texts import lang_of, t
from rocmfix.screens.verify import VerifyPanel


def plan_text(plan: Any, lang: str = "en") -> Text:
    """A plan's rendering with diff lines coloured and root steps marked (its headings and
    notes in ``lang``; the diff and the commands exactly as they will be written and run)."""
    from rocmfix.i18n_results import plan_line

    out = Text()
    for line in plan.render().splitlines():
        body = line.lstrip()
        style = ""
        if body.startswith("+") and not body.startswith("+++"):
            style = "green"
        elif body.startswith("-") and not body.startswith("---"):
            style = "red"
        elif body.startswith(("step", "plan ")):
            style = "bold"
        elif body.startswith("note:"):
            style = "italic"
        if "[needs root]" in line:
            style = "bold yellow"
        out.append(plan_line(line, lang) + "\n", style=style)
    out.rstrip()
    return out


class FixScreen(ReportsWorkerErrors, Screen[None]):
    """One fix from plan to proof: preview, apply, verify, undo."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="fix.back"),
        Binding("a", "apply", "Apply", id="fix.apply", tooltip="Apply the plan (asks first)"),
        Binding("u", "undo", "Undo", id="fix.undo", tooltip="Put the files back as they were"),
        Binding("v", "verify", "Verify", id="fix.verify", tooltip="Run the GPU test again"),
        Binding("n", "next_step", "Next step", id="fix.next", show=False),
    ]

    def __init__(self, fix: Any, entry: Any = None) -> None:
        super().__init__()
        self.fix = fix
        self.entry = entry
        self.plan: Any = None
        self.record: Any = None
        self.busy = False
        self._undone = False

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="fix-body"):
            yield Label(self._t("fix_title", text=self.fix.text), classes="detail-title")
            yield Label(self._subtitle(), classes="detail-sub")
            yield Label(self._t("plan_title"), classes="section", id="plan-title")
            yield Static(self._t("computing_plan"), id="plan", markup=False)
            yield Label(self._t("output"), classes="section")
            yield Log(id="fix-log", auto_scroll=True)
            yield VerifyPanel(id="fix-verify")
            yield Label("", id="outcome")
        yield Footer()

    def _t(self, key: str, **values: Any) -> str:
        return t(lang_of(self), key, **values)

    def _target(self) -> str:
        """Session.fix_target in the session's language."""
        session = self.app.session  # type: ignore[attr-defined]
        if session.demo:
            return self._t("target_demo")
        if session.snapshot is not None:
            return self._t("target_snapshot", name=session.snapshot.name)
        return self._t("target_here")

    def _subtitle(self) -> str:
        home = self.app.session.context().home  # type: ignore[attr-defined]
        cause = self._t("fix_for", id=self.entry.id) if self.entry is not None else ""
        return self._t(
            "fix_sub",
            cause=cause,
            action=self.fix.action,
            risk=risk(self.fix.risk, lang_of(self)),
            target=self._target(),
            home=home,
        )

    def on_mount(self) -> None:
        self.query_one("#fix-verify").display = False
        self._make_plan()

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan", description="Planning")
    def _make_plan(self) -> None:
        try:
            plan = self.app.session.plan(self.fix.action, self.fix.params)  # type: ignore[attr-defined]
        except ActionError as err:
            self.post_message(PlanMade(None, err.message + (f" ({err.hint})" if err.hint else "")))
            return
        self.post_message(PlanMade(plan))

    @on(PlanMade)
    def show_plan(self, message: PlanMade) -> None:
        shown = self.query_one("#plan", Static)
        if message.plan is None:
            shown.update(
                Text(self._t("cannot_plan", error=message.error), style="bold red")
            )
            return
        self.plan = message.plan
        shown.update(plan_text(self.plan, lang_of(self)))
        if self.plan.changes_nothing:
            self._outcome(self._t("nothing_to_change"), "-ok")
        elif self._undone:
            self._outcome(self._t("undone_again"), "")
        else:
            self._outcome(self._t("press_a"), "")

    def _log(self, line: str) -> None:
        self.query_one("#fix-log", Log).write_line(line)

    def _outcome(self, text: str, cls: str) -> None:
        label = self.query_one("#outcome", Label)
        label.update(text)
        label.set_class(cls == "-ok", "-ok")
        label.set_class(cls == "-fail", "-fail")
        if self.record is not None or self._undone:
            self.call_after_refresh(self.query_one("#fix-body").scroll_end, animate=False)

    # ------------------------------------------------------------ apply

    def action_apply(self) -> None:
        if self.plan is None or self.plan.changes_nothing:
            self.notify(self._t("no_plan"), severity="warning")
            return
        if self.record is not None:
            self.notify(self._t("already_applied"), severity="warning")
            return
        if self.busy:
            return
        self._confirm_and_apply()

    @work(exclusive=True, exit_on_error=False, group="confirm")
    async def _confirm_and_apply(self) -> None:
        steps = len(self.plan.steps)
        detail = self._t("apply_detail", steps=steps, target=self._target())
        if self.plan.needs_root:
            detail += self._t("needs_root")
        if not await self.app.push_screen_wait(ConfirmModal(self._t("apply_q"), detail)):
            self.notify(self._t("nothing_changed"))
            return
        self.busy = True
        self._log(self._t("applying", id=self.plan.id, action=self.plan.action))
        self._apply()

    @work(thread=True, exclusive=True, exit_on_error=False, group="fix", description="Applying fix")
    def _apply(self) -> None:
        try:
            record = self.app.session.apply(self.plan, self._runner)  # type: ignore[attr-defined]
        finally:
            self.busy = False
        self.post_message(FixApplied(record))

    def _runner(self, argv: tuple[str, ...], timeout: float) -> None:
        """Run one command of the plan (called in the apply thread)."""
        if argv and argv[0] == "sudo":
            code = self.app.call_from_thread(self._run_suspended, argv, timeout)
        else:
            code = self._run_captured(argv, timeout)
        if code != 0:
            raise ActionError(f"`{' '.join(argv)}` failed with exit status {code}")

    def _run_captured(self, argv: tuple[str, ...], timeout: float) -> int:
        self.post_message(FixOutput("$ " + " ".join(argv)))
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
            )
        except FileNotFoundError:
            raise ActionError(f"command not found: {argv[0]}") from None
        assert proc.stdout is not None  # PIPE above
        for line in proc.stdout:
            self.post_message(FixOutput(line.rstrip("\n")))
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise ActionError(f"`{' '.join(argv)}` did not finish within {timeout:.0f}s") from None

    def _run_suspended(self, argv: tuple[str, ...], timeout: float) -> int:
        """Hand the terminal to sudo (it may ask for a password), then come back."""
        try:
            with self.app.suspend():
                print(f"rocmfix: running `{' '.join(argv)}` (needs root)", flush=True)
                return subprocess.run(argv, timeout=timeout, check=False).returncode
        except SuspendNotSupported:
            raise ActionError(
                f"this step needs root; run it yourself: {' '.join(argv)}",
                hint="then run rocmfix again",
            ) from None

    @on(FixOutput)
    def show_output(self, message: FixOutput) -> None:
        self._log(message.line)

    @on(FixApplied)
    def verify_after_apply(self, message: FixApplied) -> None:
        self.record = message.record
        state_dir = self.app.session.state_dir  # type: ignore[attr-defined]
        self._log(self._t("applied_log", id=self.record.id, path=state_dir))
        for note in self.plan.notes:
            self._log(self._t("note") + note)
        self.query_one("#plan-title", Label).update(self._t("plan_applied"))
        self._outcome(self._t("applied_running"), "")
        self.action_verify()

    def action_verify(self) -> None:
        panel = self.query_one("#fix-verify", VerifyPanel)
        if panel.running:
            self.notify(self._t("verify_already"))
            return
        panel.display = True
        panel.start()

    @on(VerifyDone)
    def show_outcome(self, message: VerifyDone) -> None:
        result = message.result
        if self.record is None:
            return
        if result.ok:
            self._outcome(self._t("recovered"), "-ok")
            return
        nxt = ""
        if result.failure and result.failure.kb_ids:
            nxt = self._t("next_open", id=result.failure.kb_ids[0])
        self._outcome(self._t("still_failing", next=nxt), "-fail")

    def action_next_step(self) -> None:
        panel = self.query_one("#fix-verify", VerifyPanel)
        failure = panel.result.failure if panel.result is not None else None
        if failure is None or not failure.kb_ids:
            return
        entry = self.app.session.kb().get(failure.kb_ids[0])  # type: ignore[attr-defined]
        if entry is not None:
            from rocmfix.screens.detail import DetailScreen

            self.app.push_screen(DetailScreen(entry=entry))

    # ------------------------------------------------------------ undo

    def action_undo(self) -> None:
        if self.record is None:
            self.notify(self._t("nothing_applied"), severity="warning")
            return
        if self.busy:
            return
        self._confirm_and_undo()

    @work(exclusive=True, exit_on_error=False, group="confirm")
    async def _confirm_and_undo(self) -> None:
        steps = "\n".join(s.undo_text() for s in reversed(self.record.steps))
        if not await self.app.push_screen_wait(
            ConfirmModal(self._t("undo_q", id=self.record.id), steps, yes=self._t("undo"))
        ):
            return
        self.busy = True
        self._undo()

    @work(thread=True, exclusive=True, exit_on_error=False, group="fix", description="Undoing fix")
    def _undo(self) -> None:
        try:
            record = self.app.session.undo(self.record.id)  # type: ignore[attr-defined]
        finally:
            self.busy = False
        self.post_message(FixUndone(record))

    @on(FixUndone)
    def show_undone(self, message: FixUndone) -> None:
        self._log(self._t("undone_log", id=message.record.id))
        self.record = None
        self._undone = True
        self.query_one("#plan-title", Label).update(self._t("plan_undone"))
        self._make_plan()

    def action_back(self) -> None:
        if self.busy:
            self.notify(self._t("wait_fix"), severity="warning")
            return
        self.app.pop_screen()


def show_undo_conflict(app: Any, err: Any) -> None:
    """Undo refused because files changed: the diffs go into a scrollable dialog."""
    app.push_screen(ErrorModal(err.message, (err.details or "") + "\n\n" + (err.hint or "")))
