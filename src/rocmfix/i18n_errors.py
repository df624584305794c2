"""Chinese wording of the CLI's one-line errors and hints (``--lang zh`` or a zh locale).

Errors are raised in English with the values filled in; here the common
ones are matched by shape and re-worded, keeping the values (paths, ids,
commands) exactly as they were. A message with no entry stays English:
it is still true, only not translated. Commands and flags are never
translated, since they are what the user types.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocmfix._lang import lang_of, locale_lang

__all__ = ["HINTS", "LABELS", "MESSAGES", "lang_of", "locale_lang", "translate"]

_V = r"(?P<{}>.+?)"


def _rx(pattern: str) -> re.Pattern[str]:
    """``{name}`` in ``pattern`` captures a value; the rest matches literally."""
    parts = re.split(r"\{(\w+)\}", pattern)
    out = []
    for i, part in enumerate(parts):
        out.append(_V.format(part) if i % 2 else re.escape(part))
    return re.compile("^" + "".join(out) + "$", re.S)


_FULL_WIDTH = str.maketrans({",": "，", ":": "：", "(": "（", ")": "）", ";": "；", "?": "？"})


def _fw(template: str) -> str:
    """Chinese punctuation in ``template`` outside `code` and {values}."""
    parts = re.split(r"(`[^`]*`|\{\w+\})", template)
    return "".join(p if p.startswith(("`", "{")) else p.translate(_FULL_WIDTH) for p in parts)


MESSAGES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (_rx(en), _fw(zh))
    for en, zh in (
        ("{p}: no such file", "{p}:文件不存在"),
        ("{p}: no such file or directory", "{p}:文件或目录不存在"),
        ("{p}: permission denied", "{p}:没有读取权限"),
        ("{p}: is a directory, expected a log file", "{p} 是目录,这里需要一个日志文件"),
        ("{p}: cannot read ({why})", "{p}:无法读取({why})"),
        ("cannot read {p}: {why}", "无法读取 {p}:{why}"),
        ("{p}: looks like binary data, not a text log", "{p} 看起来是二进制数据,不是文本日志"),
        ("the input looks like binary data, not a text log", "输入看起来是二进制数据,不是文本日志"),
        ("standard input is closed, nothing to read", "标准输入已关闭,没有可读的内容"),
        (
            "the interactive session needs a terminal ({what} is not one)",
            "交互界面需要终端({what} 不是终端)",
        ),
        (
            "the interactive session needs a terminal ({what} are not one)",
            "交互界面需要终端({what} 都不是终端)",
        ),
        (
            "stdin is a pipe or a file: to open the log it carries, add '-'",
            "标准输入是管道或文件:要打开其中的日志,请加上 '-'",
        ),
        ("'-' reads piped input, but stdin is a terminal", "'-' 读取管道输入,但标准输入是终端"),
        ("no terminal to show the app on", "没有可显示界面的终端"),
        ("unknown check id: {id}", "未知的检查项 id:{id}"),
        ("no KB entry {id}", "知识库中没有条目 {id}"),
        ("{t} is neither a fix action nor a KB entry id", "{t} 既不是修复动作,也不是知识库条目 id"),
        ("{python} is not an executable Python interpreter", "{python} 不是可执行的 Python 解释器"),
        ("{p} is not an executable file", "{p} 不是可执行文件"),
        ("expected NAME=VALUE, got {item}", "需要 NAME=VALUE 形式,得到的是 {item}"),
        ("no fix can be applied here", "这里没有可以应用的修复"),
        (
            "fix {n} is done by hand; rocmfix has no action for it",
            "修复 {n} 需要手动完成;rocmfix 没有对应的动作",
        ),
        ("fix {n} cannot be applied: {why}", "修复 {n} 无法应用:{why}"),
        (
            "--pick {n} is not one of the fixes offered here ({numbers})",
            "--pick {n} 不是这里提供的修复之一({numbers})",
        ),
        ("there is no applied fix to undo", "没有可以撤销的已应用修复"),
        ("no journal record {id}", "日志中没有记录 {id}"),
        ("give either an id or --last, not both", "请给出 id 或 --last,不要同时给出"),
        ("not a snapshot: {p} does not exist", "不是快照:{p} 不存在"),
        ("{p} does not show {id}", "{p} 中没有显示 {id}"),
        ("`rocmfix {name}` is not available in this build", "此版本中没有 `rocmfix {name}`"),
        ("command not found: {c}", "找不到命令:{c}"),
        ("interrupted", "已中断"),
    )
)

HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (_rx(en), _fw(zh))
    for en, zh in (
        (
            "check the path, or pipe the log: {cmd}",
            "请检查路径,或用管道传入日志:{cmd}",
        ),
        (
            "in scripts and pipelines use `rocmfix explain FILE` or `... | rocmfix explain -`",
            "在脚本和管道中请用 `rocmfix explain FILE` 或 `... | rocmfix explain -`",
        ),
        (
            "python train.py 2>&1 | rocmfix -   (or `| rocmfix explain -` for plain text)",
            "python train.py 2>&1 | rocmfix -   (纯文本输出用 `| rocmfix explain -`)",
        ),
        ("use `rocmfix explain -` in pipelines", "在管道中请用 `rocmfix explain -`"),
        ("known ids: {ids}", "已知的 id:{ids}"),
        ("did you mean: {ids}?", "你是不是想找:{ids}?"),
        ("pass --python PATH to a python with torch", "用 --python PATH 指定装有 torch 的 Python"),
        ("see `rocmfix history` for ids", "id 见 `rocmfix history`"),
        ("see `rocmfix history`", "见 `rocmfix history`"),
        ("try --from-log FILE with the full error log", "试试 --from-log FILE,传入完整的错误日志"),
        (
            "run `rocmfix explain -f FILE` to see what the log shows",
            "运行 `rocmfix explain -f FILE` 查看日志显示了什么",
        ),
        ("paste the error text or point --file at the log", "粘贴错误文本,或用 --file 指向日志"),
        ("actions: {a}; KB ids: {k}", "修复动作:{a};知识库 id:{k}"),
    )
)

LABELS = {"en": ("rocmfix: ", "hint: "), "zh": ("rocmfix：", "提示：")}


def translate(text: str, table: Sequence[tuple[re.Pattern[str], str]], lang: str) -> str:
    """``text`` in ``lang`` when the table has its shape; else unchanged."""
    if lang != "zh" or not text:
        return text
    for rx, template in table:
        m = rx.match(text)
        if m:
            return template.format(**m.groupdict())
    return text
