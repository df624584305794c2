"""Rich renderables for a VerifyResult: stage table, device table, failure panel.

Shared by `rocmfix verify` and the TUI (a ``Static`` can show ``render(result)``).
Nothing here prints; callers decide where the renderable goes.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rocmfix.i18n_results import FAILURE_KIND_ZH, stage, summary, verify_detail, verify_word
from rocmfix.termtext import plain  # the child and its interpreter are not trusted to print
from rocmfix.verify.model import DTYPES, STAGES, VerifyResult


def _stage_table(result: VerifyResult, lang: str = "en") -> Table:
    def w(key: str) -> str:
        return verify_word(lang, key)

    table = Table(title=w("stages"), title_justify="left", expand=False)
    table.add_column(w("stage"))
    table.add_column(w("gpu"), justify="right")
    table.add_column("", width=4)
    table.add_column(w("time"), justify="right")
    table.add_column(w("detail"), overflow="fold")
    for st in result.stages:
        mark = Text(w("ok"), style="green") if st.ok else Text(w("fail"), style="bold red")
        gpu = "" if st.device is None else str(st.device)
        # Text, not str: a str cell is rich markup, and the child names its stages
        detail = Text(plain(verify_detail(st.detail, lang)))
        name = Text(plain(stage(st.stage, st.label, lang)))
        table.add_row(name, gpu, mark, f"{st.seconds:.2f}s", detail)
    return table


def _rate(result: VerifyResult, index: int, dtype: str) -> str:
    dev = next(d for d in result.devices if d.index == index)
    got = dev.tflops.get(dtype)
    if got is None:
        return "-"
    ratio = dev.ratio(dtype)
    return f"{got:.1f}" if ratio is None else f"{got:.1f} ({ratio:.0%})"


def _device_table(result: VerifyResult, lang: str = "en") -> Table:
    table = Table(title=verify_word(lang, "devices"), title_justify="left")
    table.add_column(verify_word(lang, "gpu"), justify="right")
    table.add_column(verify_word(lang, "name"), overflow="fold")
    table.add_column(verify_word(lang, "arch"))
    for dtype in DTYPES:
        table.add_column(dtype, justify="right")
    for dev in result.devices:
        rates = [_rate(result, dev.index, d) for d in DTYPES]
        table.add_row(str(dev.index), Text(plain(dev.name)), Text(plain(dev.arch)), *rates)
    return table


def _failure_panel(result: VerifyResult, lang: str = "en") -> Panel:
    f = result.failure
    assert f is not None  # only called for failed runs
    lines = Text()
    kind = FAILURE_KIND_ZH.get(f.kind.value, f.kind.value) if lang == "zh" else f.kind.value
    kind += f" ({f.signal})" if f.signal else ""
    where = stage(f.stage, STAGES.get(f.stage, f.stage), lang)
    lines.append(
        plain(verify_word(lang, "failed_at", kind=kind, stage=where)) + "\n", style="bold red"
    )
    lines.append(plain(verify_detail(f.message, lang)) + "\n")
    if f.kb_ids:
        lines.append(verify_word(lang, "explained"), style="bold")
        lines.append(", ".join(f.kb_ids) + "\n")
        lines.append(verify_word(lang, "details", id=f.kb_ids[0]) + "\n", style="dim")
    if f.stderr_tail:
        lines.append(verify_word(lang, "stderr") + "\n", style="bold")
        lines.append("\n".join(f"  {plain(ln)}" for ln in f.stderr_tail[-8:]) + "\n", style="dim")
    lines.rstrip()
    return Panel(lines, title=verify_word(lang, "failed"), border_style="red", expand=False)


def render(result: VerifyResult, lang: str = "en") -> Group:
    """The human report: stages, devices, failure or verdict, notes."""
    parts: list[RenderableType] = []
    torch = result.torch
    if torch.version:
        build = torch.hip and f"HIP {torch.hip}" or torch.cuda and f"CUDA {torch.cuda}" or "CPU"
        parts.append(Text(plain(f"python {result.python}\ntorch {torch.version} ({build})")))
    parts.append(_stage_table(result, lang))
    if result.devices:
        parts.append(_device_table(result, lang))
    for note in result.notes:
        parts.append(
            Text(plain(verify_word(lang, "note", note=summary(note, lang))), style="yellow")
        )
    for kb_id in result.kb_hints:
        parts.append(Text(verify_word(lang, "read", id=kb_id), style="yellow"))
    if result.failure is not None:
        parts.append(_failure_panel(result, lang))
    else:
        verified = verify_word(lang, "verified", level=result.level, seconds=result.elapsed)
        parts.append(Text(verified, style="bold green"))
    return Group(*parts)
