"""RocmfixApp: the interactive session that `rocmfix`, `rocmfix PATH` and `rocmfix demo` open.

Each main screen is a mode (paste, doctor, verify, kb, history) with its own
stack, reached by an F-key, the command palette or the footer. The app holds
the ``Session`` (which machine, HOME and interpreter), routes every worker
error to a notification or an ``ErrorModal`` (never a traceback), and on quit
refuses to leave a fix half-applied and stops the child processes it started.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from rocmfix.errors import RocmfixError
from rocmfix.messages import LogLoaded
from rocmfix.screens.session import Session


def _paste() -> Screen[Any]:
    from rocmfix.screens.paste import PasteScreen

    return PasteScreen()


def _doctor() -> Screen[Any]:
    from rocmfix.screens.doctor import DoctorScreen

    return DoctorScreen()


def _verify() -> Screen[Any]:
    from rocmfix.screens.verify import VerifyScreen

    return VerifyScreen()


def _kb() -> Screen[Any]:
    from rocmfix.screens.kb import KbScreen

    return KbScreen()


def _history() -> Screen[Any]:
    from rocmfix.screens.history import HistoryScreen

    return HistoryScreen()


PALETTE = (  # mode, title, help: the command palette's own entries
    ("paste", "Paste: explain an error or a log", "Paste text and see the ranked causes (F2)"),
    ("doctor", "Doctor: check this machine", "Run every check with a live checklist (F3)"),
    (
        "verify",
        "Verify: GPU test",
        "Staged matmul test in a child process, TFLOPS per dtype (F4)",
    ),
    ("kb", "Knowledge base: search causes", "Fuzzy search over every entry (F5)"),
    ("history", "History: applied fixes", "The journal, with undo (F6)"),
    ("help", "Help", "Keys and the flow (F1)"),
)
PALETTE_ZH = (
    ("paste", "粘贴：解释错误信息或日志", "粘贴文本，查看排好序的原因（F2）"),
    ("doctor", "诊断：检查本机", "运行每项检查，清单实时更新（F3）"),
    ("verify", "验证：GPU 测试", "在子进程中分阶段测试矩阵乘法，给出各数据类型的 TFLOPS（F4）"),
    ("kb", "知识库：搜索原因", "在所有条目中模糊搜索（F5）"),
    ("history", "历史：已应用的修复", "修复记录，可撤销（F6）"),
    ("help", "帮助", "按键与流程（F1）"),
)


class RocmfixApp(App[int]):
    """Paste → cause → check → fix → verify → undo, in one terminal app."""

    CSS_PATH = Path(__file__).with_name("rocmfix.tcss")
    TITLE = "rocmfix"
    ENABLE_COMMAND_PALETTE = True
    MODES = {"paste": _paste, "doctor": _doctor, "verify": _verify, "kb": _kb, "history": _history}
    BINDINGS = [
        Binding("f1", "help", "Help", id="app.help", priority=True, tooltip="Keys and the flow"),
        Binding("f2", "switch_mode('paste')", "Paste", id="app.paste", priority=True),
        Binding("f3", "switch_mode('doctor')", "Doctor", id="app.doctor", priority=True),
        Binding("f4", "switch_mode('verify')", "Verify", id="app.verify", priority=True),
        Binding("f5", "switch_mode('kb')", "KB", id="app.kb", priority=True),
        Binding("f6", "switch_mode('history')", "History", id="app.history", priority=True),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]

    def __init__(
        self,
        session: Session | None = None,
        path: str | None = None,
        text: str | None = None,
        name: str = "",
    ) -> None:
        super().__init__()
        from rocmfix import paste_guard

        paste_guard.install()  # a paste split by a slow terminal must not freeze the keyboard
        self.session = session or Session()
        from rocmfix.screens.keys import localize

        localize(self, self.session.lang)  # the F-keys and Quit in the footer
        self._path = path
        self._text = text
        self._name = name
        if self.session.demo:
            self.sub_title = (
                "演示 · 录制的 RX 6700 XT · 修复只写入临时 HOME"
                if self.session.lang == "zh"
                else "demo · recorded RX 6700 XT · fixes go to a throwaway HOME"
            )

    def on_mount(self) -> None:
        if not self.is_headless:
            self._exit_on_signals()
        self.switch_mode("paste")
        if self._text is not None:
            self.post_message(LogLoaded(self._text, self._name))
        elif self._path is not None:
            self._open_log(self._path)
        if self.session.demo:
            zh = self.session.lang == "zh"
            self.notify(
                "一台录制下来的故障机器；修复只会改动临时 HOME。"
                if zh
                else "A recorded broken machine; fixes touch only a throwaway HOME.",
                title="rocmfix 演示" if zh else "rocmfix demo",
                timeout=5,
            )

    @work(thread=True, exclusive=True, exit_on_error=False, group="open", description="Opening log")
    def _open_log(self, path: str) -> None:
        from rocmfix.screens.session import read_log

        self.post_message(LogLoaded(read_log(path), Path(path).name))

    @on(LogLoaded)
    def fill_paste_area(self, message: LogLoaded) -> None:
        from rocmfix.screens.paste import PasteScreen

        screen = self.get_screen_stack("paste")[0] if self.current_mode == "paste" else None
        if isinstance(screen, PasteScreen):
            screen.load_log(message.text, message.name)

    def get_screen_stack(self, mode: str) -> list[Screen[Any]]:
        return list(self._screen_stacks.get(mode, ()))

    # ------------------------------------------------------------ errors

    @on(Worker.StateChanged)
    def report_worker_error(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.show_worker_error(event.worker)

    def show_worker_error(self, worker: Worker[Any]) -> None:
        """A RocmfixError becomes a notification (a dialog when it has details); anything else a dialog."""
        from rocmfix.i18n_errors import HINTS, MESSAGES, translate

        error = worker.error
        details = getattr(error, "details", None)
        lang = self.session.lang
        if isinstance(error, RocmfixError):
            message = translate(error.message, MESSAGES, lang)
            hint_text = translate(error.hint, HINTS, lang) if error.hint else ""
        if isinstance(error, RocmfixError) and details:
            from rocmfix.screens.modals import ErrorModal

            self.push_screen(
                ErrorModal(message, details + ("\n\n" + hint_text if hint_text else ""))
            )
        elif isinstance(error, RocmfixError):
            hint = f"\n{hint_text}" if hint_text else ""
            self.notify(
                message + hint,
                title=worker.description or "rocmfix",
                severity="error",
                timeout=10,
            )
        else:
            from rocmfix.screens.modals import ErrorModal
            from rocmfix.screens.texts import t

            text = "".join(traceback.format_exception(error)) if error else "unknown error"
            what = worker.description or t(lang, "a_task")
            self.push_screen(ErrorModal(t(lang, "failed_unexpectedly", what=what), text))

    # ------------------------------------------------------------ commands

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for mode, title, help_text in PALETTE_ZH if self.session.lang == "zh" else PALETTE:
            if mode == "help":
                yield SystemCommand(title, help_text, self.action_help)
            else:
                yield SystemCommand(
                    title, help_text, lambda mode=mode: self.switch_mode(mode)
                )
        yield from super().get_system_commands(screen)

    def action_help(self) -> None:
        from rocmfix.screens.modals import HelpScreen

        self.push_screen(HelpScreen())

    # ------------------------------------------------------------ quitting

    def _exit_on_signals(self) -> None:
        """SIGINT, SIGTERM and SIGHUP end the session as a shell expects: 128 + the signal.

        The terminal is restored and children are stopped on the way out, and
        the caller's ``finally`` (the demo's throwaway HOME) still runs.
        """
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._exit_for_signal, int(sig))

    def _exit_for_signal(self, signum: int) -> None:
        stop_children()
        self.exit(128 + signum)

    async def action_quit(self) -> None:
        busy = [w for w in self.workers if w.group == "fix" and w.state == WorkerState.RUNNING]
        if busy:
            from rocmfix.screens.texts import t

            self.notify(t(self.session.lang, "fix_busy"), severity="warning")
            return
        stop_children()
        self.exit(0)


def stop_children() -> None:
    """Kill the child processes still running (verify child, probes): their results are moot.

    ``children.end_live`` comes first: it also ends what a probe left outside its
    session (found by the run's tag), which is no longer our descendant; done here
    rather than in the threads waiting on the probes, which may not run before exit.
    """
    import psutil

    from rocmfix import children as running

    running.end_live()
    try:
        children = psutil.Process().children(recursive=True)
    except psutil.Error:
        return
    for child in children:
        try:
            child.kill()
        except psutil.Error:
            continue
