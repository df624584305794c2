"""argparse's own words (usage, options, its error messages) and the command list in Chinese.

argparse looks every fixed string up through ``gettext`` at the moment it
formats it; ``chinese()`` points that lookup at this table while rocmfix
parses its command line and puts it back afterwards, so nothing outside the
parse changes. An option's own help text stays as its command wrote it.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator

ARGPARSE_ZH: dict[str, str] = {
    "usage: ": "用法：",
    "positional arguments": "位置参数",
    "options": "选项",
    "show this help message and exit": "显示此帮助信息并退出",
    "show program's version number and exit": "显示程序版本号并退出",
    "%(prog)s: error: %(message)s\n": "%(prog)s：错误：%(message)s\n",
    "the following arguments are required: %s": "缺少以下参数：%s",
    "unrecognized arguments: %s": "无法识别的参数：%s",
    "invalid choice: %(value)r (choose from %(choices)s)": "无效的选项：%(value)r（可选：%(choices)s）",
    "argument %(argument_name)s: %(message)s": "参数 %(argument_name)s：%(message)s",
    "expected one argument": "需要一个值",
    "expected at least one argument": "至少需要一个值",
    "expected at most one argument": "最多只能有一个值",
    "invalid %(type)s value: %(value)r": "无效的 %(type)s 值：%(value)r",
    "ambiguous option: %(option)s could match %(matches)s": "有歧义的选项：%(option)s 可能是 %(matches)s",
    "not allowed with argument %s": "不能与参数 %s 同时使用",
    "one of the arguments %s is required": "参数 %s 中必须给出一个",
    "ignored explicit argument %r": "忽略了显式给出的值 %r",
}

PLURAL_ZH: dict[str, str] = {"expected %s argument": "需要 %s 个值"}

COMMANDS_ZH: dict[str, str] = {
    "explain": "找出错误信息或日志的根本原因",
    "doctor": "检查本机，逐一证实或排除每个原因",
    "verify": "证明 GPU 可用：在子进程中分阶段运行矩阵乘法测试",
    "fix": "预览（默认）或应用一项有引导、可撤销的修复",
    "install-plan": "哪个 ROCm wheel 索引和 torch 适合这块 GPU",
    "undo": "逐字节撤销一项已应用的修复",
    "history": "列出修复记录中已应用的修复",
    "collect": "记录本机的可分享快照",
    "report": "写一份已脱敏、可直接粘贴的错误报告",
    "fleet": "汇总多台机器的诊断结果",
    "kb": "校验、列出、查看和评估知识库",
    "demo": "在内置的故障机器上打开交互界面",
    "tui": "打开交互界面（默认）",
}

TOP_ZH = {
    "description": "解释、诊断、修复并验证 AMD GPU 上 PyTorch-on-ROCm 的故障。",
    "commands": "命令：",
    "more": "运行 `rocmfix 命令 --help` 查看某个命令的选项。",
    "path": "在交互界面中打开的日志文件（'-' 表示标准输入）",
    "python": "交互界面检查和验证其 torch 的解释器",
    "snapshot": "诊断读取这台录制的机器，而不是本机",
    "version": "显示程序版本号并退出",
}


@contextlib.contextmanager
def chinese(lang: str) -> Iterator[None]:
    """While inside, argparse formats its fixed strings in ``lang`` (only ``zh`` differs)."""
    if lang != "zh":
        yield
        return
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]

    def plural(singular: str, plural_form: str, n: int) -> str:
        return PLURAL_ZH.get(singular) or saved[1](singular, plural_form, n)

    format_help = argparse.HelpFormatter.format_help

    def full_width_headings(self: argparse.HelpFormatter) -> str:
        # argparse writes "heading:" with an ASCII colon; a Chinese heading takes "："
        text = format_help(self)
        for heading in ("位置参数", "选项"):
            text = text.replace(f"\n{heading}:\n", f"\n{heading}：\n")
        return text

    argparse._ = lambda text: ARGPARSE_ZH.get(text, text)  # type: ignore[attr-defined]
    argparse.ngettext = plural  # type: ignore[attr-defined]
    argparse.HelpFormatter.format_help = full_width_headings  # type: ignore[method-assign]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]
        argparse.HelpFormatter.format_help = format_help  # type: ignore[method-assign]
