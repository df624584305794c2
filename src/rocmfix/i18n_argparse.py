"""argparse's own words (usage, options, its error messages) and the command list in Chinese.

argparse looks every fixed string up through ``gettext`` at the moment it
formats it; ``chinese()`` points that lookup at this table while rocmfix
parses its command line and puts it back afterwards, so nothing outside the
parse changes. An option's own help text is worded by ``localize`` from ``OPTIONS_ZH``.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import unicodedata
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

# Each command's own option help, description and epilog words, by their English text.
# A text missing here stays English (``tests/test_cli_chinese_usage.py`` walks every
# parser, so a new option without a Chinese line fails there).
OPTIONS_ZH: dict[str, str] = {
    # explain
    "error text, or '-' to read stdin": "错误文本，或用 '-' 读取标准输入",
    "read a log file (plain or .gz)": "读取日志文件（纯文本或 .gz）",
    "show up to N causes (default 3)": "最多显示 N 个原因（默认 3）",
    "language (default: from the locale)": "语言（默认取自区域设置）",
    "print one JSON object (schema rocmfix.explain/1)": "输出一个 JSON 对象（schema rocmfix.explain/1）",
    "extra KB file(s) to merge": "要合并的额外知识库文件",
    "also run the live checks the top matches name and say which cause this machine confirms": (
        "同时运行排名靠前的原因所指的实时检查，并说明本机证实了哪个原因"
    ),
    "interpreter whose torch --check probes (default: this one)": (
        "--check 探测其 torch 的解释器（默认：当前解释器）"
    ),
    "with --check: check a recorded machine (rocmfix collect)": (
        "与 --check 同用：检查一台录制的机器（rocmfix collect）"
    ),
    # doctor
    "print one rocmfix.doctor/1 JSON object": "输出一个 rocmfix.doctor/1 JSON 对象",
    "show details and evidence of every check": "显示每项检查的详情和证据",
    "diagnose a snapshot from `rocmfix collect` instead of this machine": (
        "诊断 `rocmfix collect` 生成的快照，而不是本机"
    ),
    "interpreter whose torch to probe (default: the active venv/conda env, else python3 on"
    " PATH if it has torch, else rocmfix's own)": (
        "探测其 torch 的解释器（默认：当前激活的 venv/conda 环境；否则是 PATH 上装有 torch 的"
        " python3；再否则是 rocmfix 自己的）"
    ),
    "skip the torch probe and the checks that need it": "跳过 torch 探测和依赖它的检查",
    "run only this check (repeatable)": "只运行这项检查（可重复）",
    "seconds per external command": "每个外部命令的秒数上限",
    "seconds for the torch probe": "torch 探测的秒数上限",
    # verify
    "quick: runtime and small matmuls; standard (default): + timed matmul, conv2d through"
    " MIOpen, a mixed-precision training step; full: + nccl process group, torch.compile,"
    " most of the free memory (see the list below)": (
        "quick：运行时和小矩阵乘法；standard（默认）：再加计时矩阵乘法、经 MIOpen 的 conv2d、"
        "一步混合精度训练；full：再加 nccl 进程组、torch.compile、占用大部分空闲显存（见下面的列表）"
    ),
    "interpreter whose torch to test (default: this one); it needs torch, not rocmfix": (
        "测试其 torch 的解释器（默认：当前解释器）；它需要装有 torch，不需要 rocmfix"
    ),
    "GPU index to test, or 'all' (several GPUs also run an all-reduce); default 0": (
        "要测试的 GPU 编号，或 'all'（多块 GPU 时还会运行 all-reduce）；默认 0"
    ),
    "declare a hang after this long without progress (default 90)": (
        "没有进展超过这么久即判定为卡住（默认 90）"
    ),
    "square size of the timed matmul (default 8192; smaller when memory is short)": (
        "计时矩阵乘法的方阵大小（默认 8192；显存不足时会更小）"
    ),
    "stop the whole run after this long, however busy the child looks (default: --timeout plus"
    " the level's budget)": (
        "超过这么久就停止整个测试，无论子进程看起来多忙（默认：--timeout 加上该级别的预算）"
    ),
    "print one rocmfix.verify/1 JSON object": "输出一个 rocmfix.verify/1 JSON 对象",
    "levels:": "级别：",
    "(a few seconds after the torch import)": "（导入 torch 之后几秒钟）",
    "(about 10-15 s on a datacenter GPU; the first conv run can take minutes while MIOpen"
    " searches and compiles kernels)": (
        "（数据中心 GPU 上约 10-15 秒；第一次 conv 运行可能要几分钟，因为 MIOpen 要搜索并编译内核）"
    ),
    "(about 30-40 s on a datacenter GPU, more on a cold torch.compile cache)": (
        "（数据中心 GPU 上约 30-40 秒；torch.compile 缓存为空时更久）"
    ),
    # fix
    "a fix action id or a KB entry id": "修复动作 id 或知识库条目 id",
    "action parameters": "动作参数",
    "make the changes (asks first)": "执行更改（会先询问）",
    "with --apply: do not ask": "与 --apply 同用：不询问",
    "set-env: remove this variable": "set-env：删除这个变量",
    "set-env: write into this venv's activate": "set-env：写入这个 venv 的 activate",
    "set-env: print export lines instead of writing a file": "set-env：打印 export 行，而不写文件",
    "target interpreter (default: this one)": "目标解释器（默认：当前解释器）",
    "KB-ID: take values from this log": "KB-ID：从这个日志中取值",
    "extra KB file(s)": "额外的知识库文件",
    "KB-ID: which offered fix to apply (default 1, the best)": (
        "KB-ID：应用提供的第几项修复（默认 1，即最好的一项）"
    ),
    "after --apply, run `rocmfix verify`": "--apply 之后运行 `rocmfix verify`",
    "override where rocmfix thinks it runs": "指定 rocmfix 的运行环境，而不是自动判断",
    "print one JSON object (rocmfix.fix/1)": "输出一个 JSON 对象（rocmfix.fix/1）",
    # install-plan
    "interpreter to plan for (its torch and Python version are read), or just a Python version"
    " such as 3.12": (
        "为其制定计划的解释器（读取它的 torch 和 Python 版本），或只给 Python 版本，例如 3.12"
    ),
    "plan for the machine a `rocmfix collect` snapshot shows": (
        "为 `rocmfix collect` 快照中的机器制定计划"
    ),
    "plan for this GPU instead of the ones found (gfx1101, 'RX 7600'); repeatable": (
        "为这块 GPU 制定计划，而不是找到的那些（gfx1101、'RX 7600'）；可重复"
    ),
    "do not probe the installed torch": "不探测已安装的 torch",
    "print one rocmfix.install-plan/1 JSON object": "输出一个 rocmfix.install-plan/1 JSON 对象",
    # undo, history
    "journal id (see `rocmfix history`)": "修复记录 id（见 `rocmfix history`）",
    "the newest applied fix (default)": "最近一次应用的修复（默认）",
    "do not ask for confirmation": "不要求确认",
    "undo even if files changed since (the newer copy is kept)": (
        "即使文件之后被改动过也撤销（较新的副本会保留）"
    ),
    "print one JSON object (rocmfix.history/1)": "输出一个 JSON 对象（rocmfix.history/1）",
    # collect, report
    "directory to write (must be new or empty)": "要写入的目录（必须是新的或空的）",
    "do not probe torch": "不探测 torch",
    "print a rocmfix.collect/1 JSON object": "输出一个 rocmfix.collect/1 JSON 对象",
    "a failed run's log (plain or .gz)": "一次失败运行的日志（纯文本或 .gz）",
    "write the Markdown here (after a preview and a question)": "把 Markdown 写到这里（先预览并询问）",
    "with --out: write without asking": "与 --out 同用：不询问直接写入",
    "keep usernames, hostnames, addresses and secrets (not for public posting)": (
        "保留用户名、主机名、地址和密钥（不要公开发布）"
    ),
    "report on a snapshot from `rocmfix collect`": "针对 `rocmfix collect` 生成的快照写报告",
    "interpreter whose torch to probe (default: this one)": "探测其 torch 的解释器（默认：当前解释器）",
    "skip the torch probe": "跳过 torch 探测",
    # fleet
    "group many nodes' `rocmfix doctor --json` results by root cause": (
        "按根本原因汇总多个节点的 `rocmfix doctor --json` 结果"
    ),
    "Read doctor JSON files (or snapshot directories) from many nodes and print which nodes fail"
    " which checks, grouped by root cause.": (
        "读取多个节点的诊断 JSON 文件（或快照目录），按根本原因分组，列出哪些节点没通过哪些检查。"
    ),
    "doctor JSON files, pdsh output, directories; '-' reads stdin": (
        "诊断 JSON 文件、pdsh 输出或目录；'-' 读取标准输入"
    ),
    "print one JSON object (schema rocmfix.fleet/1)": "输出一个 JSON 对象（schema rocmfix.fleet/1）",
    # kb
    "validate KB files (default: the built-in KB and your kb.d)": (
        "校验知识库文件（默认：内置知识库和你的 kb.d）"
    ),
    "list entries": "列出条目",
    "show one entry": "显示一个条目",
    "accuracy on labelled cases (JSON lines)": "在已标注用例（JSON lines）上的准确率",
    "retrain the learned ranker from labelled reports (needs scikit-learn)": (
        "用已标注的报告重新训练排序模型（需要 scikit-learn）"
    ),
    "Validate KB files: each problem names file, line, entry and field.": (
        "校验知识库文件：每个问题都会指明文件、行、条目和字段。"
    ),
    "List every entry: id, severity and title.": "列出每个条目：id、严重程度和标题。",
    "Show one entry: summary, explanation, fixes and references.": (
        "显示一个条目：摘要、解释、修复和参考资料。"
    ),
    'Top-1, top-3 and unrelated-left-unmatched over labelled cases (one {"text", "label"} object'
    ' per line; label "none" for unrelated logs).': (
        '在已标注用例上统计 top-1、top-3 和无关日志未被误配的比例（每行一个 {"text", "label"}'
        ' 对象；无关日志的 label 为 "none"）。'
    ),
    "evaluate every labelled report under DIR (heldout/*.jsonl, logs/<id>/*.txt)": (
        "评估 DIR 下的每份已标注报告（heldout/*.jsonl、logs/<id>/*.txt）"
    ),
    "report tune and frozen sides apart (default with --repo: DIR/split.json)": (
        "分别报告调优侧和冻结侧（与 --repo 同用时默认：DIR/split.json）"
    ),
    "bury each case after N lines of noise": "把每个用例埋在 N 行噪声之后",
    "only every K-th case": "每 K 个用例只取一个",
    "signatures and symptoms only (no learned ranker)": "只用特征串和症状（不用学习的排序模型）",
    "Retrain the learned ranker from the tune side of DIR/split.json (DIR/heldout/*.jsonl,"
    " DIR/logs/<id>/*.txt); grouped cross-validation figures are printed, the artifact is written"
    " atomically and deterministically.": (
        "用 DIR/split.json 调优侧的数据（DIR/heldout/*.jsonl、DIR/logs/<id>/*.txt）重新训练排序模型；"
        "会打印分组交叉验证的数字，模型文件以原子、确定的方式写入。"
    ),
    "default: tests/data": "默认：tests/data",
    "artifact to write (default: the one rocmfix loads)": "要写入的模型文件（默认：rocmfix 加载的那个）",
    "also kNN and the leave-rounds-out estimate": "同时给出 kNN 和留轮次交叉验证的估计",
    "write the cross-validation figures here": "把交叉验证的数字写到这里",
    # demo, tui
    "interpreter verify runs when a GPU is present": "有 GPU 时 verify 使用的解释器",
    "keep the throwaway HOME and print its path": "保留临时 HOME 并打印它的路径",
    "log file to open ('-' reads stdin)": "要打开的日志文件（'-' 读取标准输入）",
    "interpreter whose torch is checked and verified": "检查和验证其 torch 的解释器",
    "doctor reads this recorded machine instead": "诊断读取这台录制的机器，而不是本机",
}


def localize(parser: argparse.ArgumentParser) -> None:
    """Word ``parser``'s own help (options, description, epilog; its subcommands too) in Chinese."""
    if parser.description in OPTIONS_ZH:
        parser.description = OPTIONS_ZH[parser.description]
    if parser.epilog:
        for en in sorted((k for k in OPTIONS_ZH if k in parser.epilog), key=len, reverse=True):
            parser.epilog = parser.epilog.replace(en, OPTIONS_ZH[en])
    for action in parser._actions:  # noqa: SLF001 - argparse keeps no public list
        if action.help in OPTIONS_ZH:
            action.help = OPTIONS_ZH[action.help]
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for choice in action._choices_actions:  # noqa: SLF001
                choice.help = OPTIONS_ZH.get(choice.help, choice.help)
            for sub in action.choices.values():
                localize(sub)


_TOKEN = re.compile(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]|[^\s\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]+| +")
_NO_LINE_START = set("，。；：、）！？」』")
_NO_LINE_END = set("（「『")


def display_width(text: str) -> int:
    """Terminal cells ``text`` takes (East Asian wide and full-width characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_wide(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` display columns: a Chinese character may end a
    line anywhere, an ASCII word (a flag, a path) is never split, no line starts with a space
    or with closing punctuation, none ends with an opening one."""
    units: list[str] = []
    opening = ""
    for token in _TOKEN.findall(text):
        if token in _NO_LINE_END:
            opening += token
        elif token[0] in _NO_LINE_START and units and not units[-1].isspace():
            units[-1] += opening + token
            opening = ""
        else:
            units.append(opening + token)
            opening = ""
    if opening:
        units.append(opening)
    lines: list[str] = []
    line = ""
    for unit in units:
        if line and display_width(line) + display_width(unit.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        if not line and unit.isspace():
            continue
        line += unit
    if line.strip():
        lines.append(line.rstrip())
    return lines


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


def _zh_pattern(template: str) -> re.Pattern[str]:
    """A Chinese argparse template as a regex; each ``%(name)s``/``%r``/``%s`` captures."""
    parts = re.split(r"(%\(\w+\)[sr]|%[sr])", template)
    out, n = [], 0
    for part in parts:
        m = re.fullmatch(r"%\((\w+)\)[sr]|%[sr]", part)
        if m:
            out.append(f"(?P<{m.group(1) or f'_{n}'}>.+?)")
            n += 1
        else:
            out.append(re.escape(part))
    return re.compile("^" + "".join(out) + "$", re.S)


_TO_EN = tuple(
    (_zh_pattern(zh), en)
    for table in (ARGPARSE_ZH, {"expected %s arguments": PLURAL_ZH["expected %s argument"]})
    for en, zh in table.items()
    if "%" in en and not en.endswith("\n")
)
_PLAIN_EN = {zh: en for en, zh in ARGPARSE_ZH.items() if "%" not in en}


def english(message: str) -> str:
    """argparse's error ``message`` worded in Chinese by :func:`chinese`, back in English.

    A ``--json`` usage error leaves its ``error`` field in English whatever the locale,
    as every refused command's does; the line on stderr stays in the user's language.
    Text argparse did not word (an option's type check, in English already) is kept.
    """
    if message in _PLAIN_EN:
        return _PLAIN_EN[message]
    for rx, en in _TO_EN:
        m = rx.match(message)
        if not m:
            continue
        values = {k: english(v) for k, v in m.groupdict().items()}
        en = en.replace(")r", ")s").replace("%r", "%s")  # the captured value is already quoted
        if en == "expected %s arguments" and values.get("_0") == "1":
            en = "expected %s argument"
        if "%(" in en:
            return en % values
        return en % tuple(values[k] for k in sorted(values))
    return message
