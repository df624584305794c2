"""Key labels (the footer, the command palette's key list) in the session's language.

Bindings are declared in English on each class; a Chinese session gets a
copy with the descriptions translated, per instance, so an English app in the
same process (tests) keeps its own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.binding import BindingsMap

ZH = {
    "Help": "帮助",
    "Paste": "粘贴",
    "Doctor": "诊断",
    "Verify": "验证",
    "KB": "知识库",
    "History": "历史",
    "Quit": "退出",
    "Clear": "清空",
    "Open top cause": "打开首要原因",
    "Results": "结果",
    "Back": "返回",
    "Check this machine": "检查本机",
    "Fixes": "修复",
    "Run again": "重新运行",
    "Apply": "应用",
    "Undo": "撤销",
    "Next step": "下一步",
    "Undo selected": "撤销所选",
    "Refresh": "刷新",
    "Search": "搜索",
    "Yes": "是",
    "No": "否",
    "Close": "关闭",
    "Copy": "复制",
    "Cancel": "取消",
}


def localize(node: Any, lang: str) -> None:
    """Give ``node`` (an App, Screen or widget) its own bindings with translated labels."""
    if lang != "zh":
        return
    translated = BindingsMap()
    for key, bindings in node._bindings.key_to_bindings.items():  # noqa: SLF001 - Textual's map
        translated.key_to_bindings[key] = [
            replace(b, description=ZH.get(b.description, b.description)) for b in bindings
        ]
    node._bindings = translated  # noqa: SLF001


class LocalKeys:
    """Mixin: on mount, the node's key labels follow the session's language."""

    def on_mount(self) -> None:
        session = getattr(self.app, "session", None)  # type: ignore[attr-defined]
        lang = getattr(session, "lang", "en")
        if lang == "zh":
            localize(self, lang)
            self.refresh_bindings()  # type: ignore[attr-defined]
