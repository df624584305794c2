"""`rocmfix fleet summarize FILES|DIR`: many nodes' doctor results, grouped by root cause.

Reading and grouping live in ``rocmfix.fleet``; this module parses options
and prints either one ``rocmfix.fleet/1`` JSON object or an 80-column text
summary with node lists in hostlist notation (``gpu[001-040]``). Exit codes:
0 no node fails, 1 a node fails or could not be read, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

from rocmfix.errors import ExitCode, InputError

_WIDTH = 80
_MAX_NAMES = 400
"""Characters of node names shown per line before '... and N more'."""



_UNCHECKED_TAIL = " (without --no-torch) on these nodes"  # rocmfix.fleet's next_command

def configure(parser: argparse.ArgumentParser) -> None:
    """Sub-actions of ``rocmfix fleet``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    summ = sub.add_parser(
        "summarize",
        help="group many nodes' `rocmfix doctor --json` results by root cause",
        description="Read doctor JSON files (or snapshot directories) from many nodes and "
        "print which nodes fail which checks, grouped by root cause.",
    )
    summ.add_argument(
        "paths",
        nargs="+",
        metavar="FILE|DIR|-",
        help="doctor JSON files, pdsh output, directories; '-' reads stdin",
    )
    summ.add_argument(
        "--json", action="store_true", help="print one JSON object (schema rocmfix.fleet/1)"
    )


_STDIN_LIMIT = 64 * 1024 * 1024
"""Thousands of nodes' doctor JSON; more is a stream that does not end."""


def run(args: argparse.Namespace) -> int:
    from rocmfix import fleet

    stdin_text = None
    if "-" in args.paths:
        if sys.stdin is None:  # fd 0 closed
            raise InputError(
                "standard input is closed, nothing to read",
                hint="pdsh -w 'gpu[01-64]' rocmfix doctor --json | rocmfix fleet summarize -",
            )
        if sys.stdin.isatty():
            raise InputError(
                "'-' reads doctor JSON from a pipe, but stdin is a terminal",
                hint="pdsh -w 'gpu[01-64]' rocmfix doctor --json | rocmfix fleet summarize -",
            )
        data = sys.stdin.buffer.read(_STDIN_LIMIT + 1)  # an endless pipe must not fill memory
        if len(data) > _STDIN_LIMIT:
            raise InputError(
                "stdin: more than 64 MiB of doctor output",
                hint="save each node's `rocmfix doctor --json` in one folder and summarize the folder",
            )
        stdin_text = data.decode("utf-8", "replace")
    nodes = fleet.load(args.paths, stdin_text=stdin_text)
    summary = fleet.summarize(nodes)
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
    else:
        from rocmfix._lang import locale_lang

        lang = locale_lang()
        from rocmfix.termtext import plain

        # Node names and summaries come from other machines' files: no escape reaches the terminal.
        sys.stdout.write(plain("\n".join(render(summary, fleet.compress, lang))) + "\n")
    status = summary["status"]
    return int(ExitCode.PROBLEMS_FOUND if status["fail"] or status["unreadable"] else ExitCode.OK)


# The words of the text summary; ids, node names, versions and commands stay as they are.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "head": "rocmfix fleet: {nodes} nodes: {fail} failing, {error} with checks that could not run, "
        "{warn} with warnings only, {healthy} healthy, {unchecked}{unreadable} unreadable",
        "unchecked": "{n} with no problem found but torch not checked, ",
        "torch": "torch was not checked on {n} node(s) (doctor --no-torch): a CPU or CUDA torch, or a "
        "GPU its build does not support, would not show. Run `rocmfix doctor --json` without "
        "--no-torch to check it.",
        "group": "{id}  ({n} node{s})",
        "nodes": "nodes: ",
        "failing": "failing checks: ",
        "suspected": "also suspected: ",
        "next": "  next: {cmd}",
        "anywhere": "Checks failing anywhere:",
        "on": "{mark} {id} on {n}: {names}",
        "versions": "Versions:",
        "kernel": "kernel",
        "unreadable": "Unreadable:",
        "more": "  ... and {n} more (see --json)",
        "cut": "{shown} ... ({n} nodes in all; --json lists every one)",
    },
    "zh": {
        "head": "rocmfix fleet：共 {nodes} 个节点：{fail} 个失败，{error} 个有检查无法运行，"
        "{warn} 个只有警告，{healthy} 个正常，{unchecked}{unreadable} 个无法读取",
        "unchecked": "{n} 个未发现问题但没有检查 torch，",
        "torch": "有 {n} 个节点没有检查 torch（doctor --no-torch）：CPU 或 CUDA 版 torch、"
        "或构建不支持的 GPU 都不会显示出来。去掉 --no-torch 运行 `rocmfix doctor --json` 来检查。",
        "group": "{id}（{n} 个节点）",
        "nodes": "节点：",
        "failing": "失败的检查：",
        "suspected": "同时怀疑：",
        "next": "  下一步：{cmd}",
        "anywhere": "在任何节点上失败的检查：",
        "on": "{mark} {id} 在 {n} 个节点上：{names}",
        "versions": "版本：",
        "kernel": "内核",
        "unreadable": "无法读取：",
        "more": "  ……还有 {n} 个（见 --json）",
        "cut": "{shown} ……（共 {n} 个节点；--json 列出全部）",
    },
}


def _names(names: list[str], compress: Any, lang: str = "en") -> str:
    text = compress(names)
    if len(text) > _MAX_NAMES:
        cut = text.rfind(", ", 0, _MAX_NAMES)
        shown = text[: cut if cut > 0 else _MAX_NAMES]
        return WORDS[lang]["cut"].format(shown=shown, n=len(names))
    return text


def _wrap(text: str, indent: str, lang: str = "en") -> list[str]:
    if lang == "zh":
        from rocmfix.commands._explain_render import wrap_cjk  # noqa: PLC0415

        first, *rest = wrap_cjk(text, _WIDTH - len(indent) - 2).split("\n")
        return [indent + first] + [indent + "  " + line for line in rest]
    return textwrap.wrap(
        text,
        _WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_on_hyphens=False,
        break_long_words=False,
    )


def _counted(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} ({v})" for k, v in counts.items())


def render(summary: dict[str, Any], compress: Any, lang: str = "en") -> list[str]:
    """The text summary, one string per line (80 columns), in ``lang``."""
    w = WORDS.get(lang, WORDS["en"])
    lang = "zh" if w is WORDS["zh"] else "en"
    s = summary["status"]
    unchecked = [g["count"] for g in summary["groups"] if g["root_cause"].endswith("not-checked")]
    healthy = s["ok"] - sum(unchecked)
    lines = _wrap(
        w["head"].format(
            nodes=summary["nodes"],
            fail=s["fail"],
            error=s["error"],
            warn=s["warn"],
            healthy=healthy,
            unchecked=w["unchecked"].format(n=sum(unchecked)) if unchecked else "",
            unreadable=s["unreadable"],
        ),
        "",
        lang,
    )
    if s.get("torch_not_checked"):
        lines += _wrap(w["torch"].format(n=s["torch_not_checked"]), "", lang)
    for g in summary["groups"]:
        n = g["count"]
        lines += ["", w["group"].format(id=g["root_cause"], n=n, s="s" * (n != 1))]
        lines += _wrap(w["nodes"] + _names(g["nodes"], compress, lang), "  ", lang)
        if g["failing_checks"]:
            lines += _wrap(w["failing"] + _counted(g["failing_checks"]), "  ", lang)
        if g["also_suspected"]:
            lines += _wrap(w["suspected"] + _counted(g["also_suspected"]), "  ", lang)
        if g["next_command"]:
            cmd = g["next_command"]
            if lang == "zh" and cmd.endswith(_UNCHECKED_TAIL):  # JSON keeps the English
                cmd = cmd[: -len(_UNCHECKED_TAIL)] + "（不加 --no-torch），在这些节点上运行"
            lines.append(w["next"].format(cmd=cmd))
    bad = [c for c in summary["checks"] if c["fail"] or c["error"]]
    if bad:
        lines += ["", w["anywhere"]]
        for c in bad:
            who = c["fail"] or c["error"]
            mark = "✗" if c["fail"] else "?"
            names = _names(who, compress, lang)
            lines += _wrap(
                w["on"].format(mark=mark, id=c["id"], n=len(who), names=names), "  ", lang
            )
    lines += ["", w["versions"]]
    for key, label in (
        ("torch", "torch"),
        ("rocm", "ROCm"),
        ("gfx", "gfx"),
        ("kernel", w["kernel"]),
    ):
        sep = "：" if lang == "zh" else ": "
        lines += _wrap(f"{label}{sep}{_counted(summary['versions'][key])}", "  ", lang)
    if summary["unreadable"]:
        lines += ["", w["unreadable"]]
        for u in summary["unreadable"][:20]:
            lines += _wrap(f"{u['node']} ({u['source']}): {u['problem']}", "  ", lang)
        if len(summary["unreadable"]) > 20:
            lines.append(w["more"].format(n=len(summary["unreadable"]) - 20))
    return lines
