"""Dialogs shared by every screen: confirm a change, show a long error, show help.

``ConfirmModal`` returns a bool and defaults to "no" (Escape, or n). ``ErrorModal``
is for output too long for a notification (a diff that blocks an undo, a
command's output): it scrolls, ``c`` copies it, and its keys never reach the
screen below. ``HelpScreen`` lists the keys and the flow.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Markdown, Static
from textual.worker import Worker, WorkerState

from rocmfix.screens.keys import LocalKeys
from rocmfix.screens.texts import lang_of, t


class ReportsWorkerErrors(LocalKeys):
    """Mixin for screens and widgets: a worker that fails is shown by the app, never raised.

    ``Worker.StateChanged`` does not bubble, so each node that owns workers
    forwards failures to ``RocmfixApp.show_worker_error``.
    """

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.app.show_worker_error(event.worker)  # type: ignore[attr-defined]


class ConfirmModal(LocalKeys, ModalScreen[bool]):
    """Ask one yes/no question; the answer is the screen's result."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, detail: str = "", yes: str | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.question = question
        self.detail = detail
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title")
            if self.detail:
                yield Static(self.detail, classes="dialog-detail", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yes = self.yes or t(lang_of(self), "apply")
                yield Button(f"{yes} (y)", variant="warning", id="yes")
                yield Button(t(lang_of(self), "cancel_n"), id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def answer_from_button(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class ErrorModal(LocalKeys, ModalScreen[None]):
    """A scrollable error with a title; ``c`` copies the text to the clipboard."""

    BINDINGS = [
        Binding("escape,q,enter", "close", "Close", id="error.close"),
        Binding("c", "copy", "Copy", id="error.copy"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -error"):
            yield Label(self.title_text, classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(self.text, markup=False)
            yield Label(t(lang_of(self), "error_hint"), classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify(t(lang_of(self), "copied"))


HELP = """\
## rocmfix

**Paste → cause → check → fix → verify → undo.**

1. Paste an error or a whole log into the paste screen (or run `rocmfix train.log`,
   or `python train.py 2>&1 | rocmfix -`). Causes are ranked as you type.
2. Open a cause (**enter**) to see why, the evidence in context and the values found.
   **c** checks this machine for it.
3. Pick a fix: you see the exact change, confirm, it is applied with a backup,
   then the GPU test runs. **u** undoes it.

| key | where | does |
|---|---|---|
| **F2** | anywhere | paste screen |
| **F3** | anywhere | doctor: check this machine |
| **F4** | anywhere | verify: GPU test |
| **F5** | anywhere | knowledge base search |
| **F6** | anywhere | history of applied fixes |
| **ctrl+p** | anywhere | command palette |
| **esc** | detail screens | back |
| **ctrl+q** | anywhere | quit |

Nothing changes on the machine without a plan and a confirmation; every
applied fix can be undone from the fix screen or the history.

**esc**, **q** or **F1** closes this help.
"""

HELP_ZH = """\
## rocmfix

**粘贴 → 原因 → 检查 → 修复 → 验证 → 撤销。**

1. 把错误信息或整份日志粘贴到粘贴界面（或运行 `rocmfix train.log`，
   或 `python train.py 2>&1 | rocmfix -`）。输入时即给出按可能性排序的原因。
2. 打开一个原因（**enter**），查看理由、上下文中的证据和找到的取值。
   按 **c** 在本机检查这个原因。
3. 选择一项修复：先看到确切的改动，确认后才应用，并保留备份；
   随后运行 GPU 测试。按 **u** 撤销。

| 按键 | 位置 | 作用 |
|---|---|---|
| **F2** | 任意位置 | 粘贴界面 |
| **F3** | 任意位置 | 诊断：检查本机 |
| **F4** | 任意位置 | 验证：GPU 测试 |
| **F5** | 任意位置 | 搜索知识库 |
| **F6** | 任意位置 | 已应用修复的历史 |
| **ctrl+p** | 任意位置 | 命令面板 |
| **esc** | 详情界面 | 返回 |
| **ctrl+q** | 任意位置 | 退出 |

没有计划和确认，本机不会有任何改动；每项已应用的修复都可以在修复界面或历史中撤销。

按 **esc**、**q** 或 **F1** 关闭帮助。
"""


class HelpScreen(LocalKeys, ModalScreen[None]):
    """Keys and the flow, in one scrollable page."""

    BINDINGS = [Binding("escape,q,f1", "close", "Close", id="help.close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def compose(self) -> ComposeResult:
        lang = lang_of(self)
        with VerticalScroll(classes="dialog -help") as page:
            page.border_title = t(lang, "help")
            page.border_subtitle = t(lang, "help_hint")
            yield Markdown(HELP_ZH if lang == "zh" else HELP)

    def action_close(self) -> None:
        self.dismiss(None)


class PythonModal(LocalKeys, ModalScreen["str | None"]):
    """Ask for the interpreter whose torch is checked and verified (a venv's bin/python)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="python.cancel")]

    def __init__(self, current: str) -> None:
        super().__init__(classes="dialog-screen")
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            lang = lang_of(self)
            yield Label(t(lang, "which_python"), classes="dialog-title")
            yield Static(t(lang, "python_detail"), classes="dialog-detail", markup=False)
            yield Input(value=self.current, id="python-path")
            yield Static("", id="python-error", classes="dialog-hint", markup=False)

    @on(Input.Submitted, "#python-path")
    def use_path(self, event: Input.Submitted) -> None:
        import os

        from rocmfix.commands._target import python_path
        from rocmfix.errors import InputError

        path = os.path.expanduser(event.value.strip())
        try:
            python_path(path)
        except InputError as err:
            self.query_one("#python-error", Static).update(err.message)
            return
        self.dismiss(os.path.abspath(path))

    def action_cancel(self) -> None:
        self.dismiss(None)
