"""Human (rich) output of `rocmfix explain`: cause, evidence, why, fixes, references.

Kept apart from the command so that the ``--json`` path never imports rich.
Fits 80 columns; rich drops colour for NO_COLOR and for non-TTY output.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.text import Text

_LABELS = {
    "en": {
        "cause": "Cause",
        "possible": "Possibly related",
        "evidence": "Evidence",
        "why": "Why",
        "values": "Your values",
        "fix": "Fix",
        "refs": "References",
        "caveats": "Caveats",
        "benign": "Expected lines (harmless; not your problem)",
        "none": "No known ROCm root cause found.",
        "none_hint": "Nothing confident: paste the full log (the whole traceback, from the first error), or run `rocmfix explain --check` so this machine's live checks can decide (`rocmfix doctor` checks everything).",
        "similar": "Similar solved cases",
        "read": "read",
        "lines": "lines",
        "line": "line",
        "bytes": "bytes",
        "at_line_end": "",
        "times": "times",
        "first": "first at line",
        "last": "last at line",
        "first_error": "First error in the log at line",
        "run": "run",
        "type": "type",
        "root": "needs root",
        "risk": "risk",
        "checks": "This machine",
        "derived": "Derived for your GPU (not found in the text)",
        "waiting_one": "Fix {n} depends on this machine's GPUs, which the text does not name: `rocmfix explain --check` reads them here (or paste the output of `rocminfo`).",
        "waiting_many": "Fixes {n} depend on this machine's GPUs, which the text does not name: `rocmfix explain --check` reads them here (or paste the output of `rocminfo`).",
        "list_sep": ", ",
        "and": " and ",
        "risk_levels": {},
        "colon": ": ",
    },
    "zh": {
        "colon": "：",
        "cause": "原因",
        "possible": "可能相关",
        "evidence": "证据",
        "why": "原因说明",
        "values": "检测到的值",
        "fix": "修复",
        "refs": "参考资料",
        "caveats": "注意",
        "benign": "预期内的输出（无害，不是问题所在）",
        "none": "没有找到已知的 ROCm 根本原因。",
        "none_hint": "没有足够把握：请粘贴完整日志（从第一个错误开始的完整 traceback），或运行 `rocmfix explain --check` 让本机的实时检查来判断（`rocmfix doctor` 检查全部）。",
        "similar": "相似的已解决案例",
        "read": "读取",
        "lines": "行",
        "line": "行",
        "bytes": "字节",
        "at_line_end": " 行",
        "times": "次",
        "first": "首次出现于第",
        "last": "最后出现于第",
        "first_error": "日志中的第一个错误位于第",
        "run": "运行",
        "type": "输入",
        "root": "需要 root",
        "risk": "风险",
        "checks": "本机检查",
        "derived": "根据你的 GPU 推导（文本中并未出现）",
        "waiting_one": "修复 {n} 取决于本机的 GPU，而文本中没有写明：运行 `rocmfix explain --check` 在本机读取（或粘贴 `rocminfo` 的输出）。",
        "waiting_many": "修复 {n} 取决于本机的 GPU，而文本中没有写明：运行 `rocmfix explain --check` 在本机读取（或粘贴 `rocminfo` 的输出）。",
        "list_sep": "、",
        "and": "、",
        "risk_levels": {"low": "低", "medium": "中", "high": "高"},
    },
}


def _fix_command(fix: Any) -> str | None:
    if not fix.action:
        return None
    from rocmfix.actions import ACTIONS

    if fix.action not in ACTIONS:
        # A user KB file can name anything; never dress it up as a command to run.
        return f"(unknown fix action {fix.action[:60]!r}: not built into rocmfix, nothing to run)"
    parts = ["rocmfix", "fix", fix.action]
    for key, value in fix.params.items():
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        parts.append(f"{key}={'' if value is None else value}")
    return " ".join(parts)


_CJK_TOKEN = re.compile(
    r"[ \t]+"  # a break opportunity (dropped at a line end)
    r"|[（「『《【“‘]?`[^`\n]*`[。，、；：！？）」』》】”’]*"  # a `command`: copied, so never split
    r"|[\u3400-\u9fff\uf900-\ufaff（「『《【“‘]?[^\s\u3400-\u9fff\uf900-\ufaff。，、；：！？）」』》】”’（「『《【“‘]+"
    r"[。，、；：！？）」』》】”’]*"  # a Latin word (with the punctuation that must follow it)
    r"|[（「『《【“‘]*[\u3400-\u9fff\uf900-\ufaff][。，、；：！？）」』》】”’]*"  # one Chinese character
    r"|\S"
)


def wrap_cjk(text: str, width: int) -> str:
    """Chinese text broken into lines of at most ``width`` cells.

    Chinese breaks between any two characters and never inside a Latin word;
    no space is added at a break, none is left at a line's end, and a
    full-width closing mark never starts a line. rich, left alone, breaks
    only at spaces: it splits ``PyTorch`` in two and leaves lines ragged.
    """
    out: list[str] = []
    for paragraph in text.split("\n"):
        line, size = "", 0
        for token in _CJK_TOKEN.findall(paragraph):
            blank = token.isspace()
            cells = cell_len(token)
            if size + cells > width and line and not blank:
                out.append(line.rstrip())
                line, size = "", 0
            if blank and not line:
                continue
            line += token
            size += cells
        out.append(line.rstrip())
    return "\n".join(out)


def _prose(console: Console, text: str, indent: int, lang: str, style: str = "") -> None:
    """A paragraph of prose at ``indent``; Chinese is wrapped by ``wrap_cjk``, and so is
    English holding a `command`, which must not break across lines (users copy it)."""
    if lang == "zh" or "`" in text:
        text = wrap_cjk(text, max(20, console.width - indent))
    console.print(Padding(Text(text, style=style), (0, 0, 0, indent), expand=False))


def _whole(console: Console, text: str, indent: int, style: str) -> None:
    """A line users copy (a command, a URL): never wrapped; a narrow terminal folds it."""
    console.print(Text(" " * indent + text, style=style), soft_wrap=True)


def _evidence_line(ev: Any, t: dict[str, str]) -> Text:
    line = Text(f"L{ev.line:<6}", style="dim")
    line.append(ev.text[:300], style="bold")
    if ev.count > 1:
        line.append(
            f"  (×{ev.count}, {t['first']} {ev.line}, {t['last']} {ev.last_line})", style="dim"
        )
    return line


def _render_match(
    console: Console,
    m: Any,
    lang: str,
    t: dict[str, str],
    checks: dict[str, Any] | None,
    result: Any = None,
) -> None:
    entry = m.entry
    head = Text("✗ " if m.confident else "? ", style="bold red" if m.confident else "yellow")
    head.append(f"{t['cause'] if m.confident else t['possible']}{t['colon']}", style="bold")
    head.append(entry.text("title", lang), style="bold")
    head.append(f"  [{entry.id} · {m.confidence:.0%}]", style="cyan")
    console.print(head)
    _prose(console, entry.text("summary", lang), 2, lang)
    if m.evidence:
        console.print(
            Padding(Text(t["evidence"], style="bold underline"), (1, 0, 0, 2), expand=False)
        )
        for ev in m.evidence:
            console.print(Padding(_evidence_line(ev, t), (0, 0, 0, 4), expand=False))
    if not m.confident:
        return
    console.print(Padding(Text(t["why"], style="bold underline"), (1, 0, 0, 2), expand=False))
    _prose(console, entry.text("explanation", lang), 4, lang)
    from rocmfix.kb.render import DERIVED

    found = {k: v for k, v in m.params.items() if k not in DERIVED}
    derived = {k: v for k, v in m.params.items() if k in DERIVED}
    if "gfx_from" in derived and "gfx" in found:  # read from a product name, not written out
        derived["gfx"] = f"{found.pop('gfx')} ({derived.pop('gfx_from')})"
    if found:
        values = ", ".join(f"{k}={v}" for k, v in sorted(found.items()))
        console.print(
            Padding(Text(f"{t['values']}{t['colon']}{values}", style="green"), (1, 0, 0, 2), expand=False)
        )
    if derived:
        values = ", ".join(f"{k}={v}" for k, v in sorted(derived.items()))
        console.print(
            Padding(
                Text(f"{t['derived']}: {values}", style="green"),
                (0 if found else 1, 0, 0, 2),
                expand=False,
            )
        )
    if checks and entry.id in checks:
        verdict = checks[entry.id]
        console.print(
            Padding(
                Text(
                    f"{t['checks']}: {verdict['verdict']} — {verdict['summary']}", style="magenta"
                ),
                (1, 0, 0, 2),
            )
        )
    fixes = m.fixes(lang)
    if fixes:
        console.print(Padding(Text(t["fix"], style="bold underline"), (1, 0, 0, 2), expand=False))
        for fix in fixes:
            n = fix.number  # the entry's own numbering, as `kb show` and `fix --pick` use
            risk = t["risk_levels"].get(fix.risk, fix.risk)  # type: ignore[union-attr]
            sep = "，" if lang == "zh" else ", "
            meta = f"[{t['risk']}{t['colon']}{risk}{sep + t['root'] if fix.root else ''}]"
            if lang == "zh" or "`" in fix.text:  # a `command` in it is never split
                width = max(20, console.width - 4)
                wrapped = wrap_cjk(f"{n}. {fix.text}", width)
                meta = f"（{meta[1:-1]}）" if lang == "zh" else f" {meta}"  # kept whole
                last = wrapped.rsplit("\n", 1)[-1]
                glue = "\n" if cell_len(last + meta) > width else ""
                meta = meta.lstrip() if glue else meta
                line = Text(wrapped + glue)
                line.append(meta, style="dim")
                console.print(Padding(line, (0, 0, 0, 4), expand=False))
            else:
                console.print(
                    Padding(
                        f"{n}. {escape(fix.text)} [dim]{escape(meta)}[/dim]", (0, 0, 0, 4), expand=False
                    )
                )
            cmd = _fix_command(fix)
            if cmd:
                _whole(console, f"{t['run']}: {cmd}", 7, "cyan")
            for command in fix.commands:
                _whole(console, f"$ {command}", 7, "cyan")
    from rocmfix.kb.render import waiting_for_gpus

    waiting = waiting_for_gpus(entry.fixes, m.params) if checks is None else ()
    if waiting:
        nums = [str(n) for n in waiting]
        names = t["list_sep"].join(nums[:-1]) + t["and"] + nums[-1] if len(nums) > 1 else nums[0]
        key = "waiting_many" if len(waiting) > 1 else "waiting_one"
        _prose(console, t[key].format(n=names), 4, lang, "dim")
    if entry.text("caveats", lang):
        console.print(
            Padding(Text(t["caveats"], style="bold underline"), (1, 0, 0, 2), expand=False)
        )
        _prose(console, entry.text("caveats", lang), 4, lang, "yellow")
    if entry.references:
        console.print(Padding(Text(t["refs"], style="bold underline"), (1, 0, 0, 2), expand=False))
        for ref in entry.references:
            _whole(console, f"- {ref}", 4, "blue")
    from rocmfix.kb.ranker import similar_cases

    similar = similar_cases(result, entry.id) if result is not None else []
    if similar:
        console.print(
            Padding(Text(t["similar"], style="bold underline"), (1, 0, 0, 2), expand=False)
        )
        for case in similar:
            _whole(console, f"- {case.url}", 4, "blue")
            if case.resolution:
                console.print(
                    Padding(Text(case.resolution, style="dim"), (0, 0, 0, 6), expand=False)
                )


def render(result: Any, *, top: int, lang: str, checks: dict[str, Any] | None = None) -> None:
    """Print an Explanation for a person."""
    t = _LABELS.get(lang, _LABELS["en"])
    real = Console(highlight=False)
    console = Console(
        width=min(real.width, 100),
        highlight=False,
        soft_wrap=False,
        force_terminal=real.is_terminal,
        no_color=real.no_color,
        color_system=real.color_system,
    )
    with console.capture() as capture:
        _render_all(console, result, top=top, t=t, lang=lang, checks=checks)
    # rich pads wrapped, indented blocks to a rectangle; drop the padding so
    # copied text has no trailing blanks (colour resets are kept).
    for line in capture.get().splitlines():
        sys.stdout.write(_TRAILING.sub(r"\1", line) + "\n")


_TRAILING = re.compile(r"[ ]+((?:\x1b\[[0-9;]*m)*)$")


def _render_all(
    console: Console,
    result: Any,
    *,
    top: int,
    t: dict[str, str],
    lang: str,
    checks: dict[str, Any] | None,
) -> None:
    ex = result.excerpt
    console.print(
        Text(
            f"rocmfix explain · {t['read']} {ex.lines} {t['line' if ex.lines == 1 else 'lines']}"
            + (f"（{ex.bytes} {t['bytes']}）" if lang == "zh" else f" ({ex.bytes} {t['bytes']})"),
            style="dim",
        )
    )
    first = ex.first_fatal
    if first is not None and ex.lines > 20:
        console.print(
            Text(
                f"{t['first_error']} {first.first_line}{t['at_line_end']}{t['colon']}"
                f"{first.text[:120]}",
                style="dim",
            )
        )
    console.print()
    shown = result.matches[:top]
    confident = [m for m in shown if m.confident]
    if not confident:
        console.print(Text(t["none"], style="bold yellow"))
        console.print(Text(t["none_hint"], style="dim"))
    for m in confident:
        _render_match(console, m, lang, t, checks, result)
        console.print()
    others = [m for m in shown if not m.confident]
    if others:
        console.print(Text(t["possible"] + t["colon"].rstrip(), style="bold"))
        for m in others:
            console.print(
                Padding(
                    Text(f"- {m.entry.text('title', lang)}  [{m.entry.id} · {m.confidence:.0%}]"),
                    (0, 0, 0, 2),
                )
            )
        console.print()
    if result.benign:
        console.print(Text(t["benign"], style="bold green"))
        for b in result.benign:
            ev = b.evidence[0] if b.evidence else None
            where = f"L{ev.line} " if ev else ""
            console.print(
                Padding(
                    Text(f"✓ {where}{b.entry.text('title', lang)}", style="green"), (0, 0, 0, 2)
                )
            )
