"""Rich renderables for a VerifyResult: stage table, device table, failure panel.

Shared by `rocmfix verify` and the TUI (a ``Static`` can show ``render(result)``).
Nothing here prints; callers decide where the renderable goes.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rocmfix.verify.model import DTYPES, STAGES, VerifyResult


def _stage_table(result: VerifyResult) -> Table:
    table = Table(title="Stages", title_justify="left", expand=False)
    table.add_column("stage")
    table.add_column("gpu", justify="right")
    table.add_column("", width=4)
    table.add_column("time", justify="right")
    table.add_column("detail", overflow="fold")
    for st in result.stages:
        mark = Text("ok", style="green") if st.ok else Text("FAIL", style="bold red")
        gpu = "" if st.device is None else str(st.device)
        table.add_row(st.label, gpu, mark, f"{st.seconds:.2f}s", st.detail)
    return table


def _rate(result: VerifyResult, index: int, dtype: str) -> str:
    dev = next(d for d in result.devices if d.index == index)
    got = dev.tflops.get(dtype)
    if got is None:
        return "-"
    ratio = dev.ratio(dtype)
    return f"{got:.1f}" if ratio is None else f"{got:.1f} ({ratio:.0%})"


def _device_table(result: VerifyResult) -> Table:
    table = Table(title="Devices: TFLOPS (% of dense peak)", title_justify="left")
    table.add_column("gpu", justify="right")
    table.add_column("name", overflow="fold")
    table.add_column("arch")
    for dtype in DTYPES:
        table.add_column(dtype, justify="right")
    for dev in result.devices:
        rates = [_rate(result, dev.index, d) for d in DTYPES]
        table.add_row(str(dev.index), dev.name, dev.arch, *rates)
    return table


def _failure_panel(result: VerifyResult) -> Panel:
    f = result.failure
    assert f is not None  # only called for failed runs
    lines = Text()
    kind = f.kind.value + (f" ({f.signal})" if f.signal else "")
    lines.append(f"{kind} at {STAGES.get(f.stage, f.stage)}\n", style="bold red")
    lines.append(f.message + "\n")
    if f.kb_ids:
        lines.append("explained by: ", style="bold")
        lines.append(", ".join(f.kb_ids) + "\n")
        lines.append(f"details: rocmfix kb show {f.kb_ids[0]}\n", style="dim")
    if f.stderr_tail:
        lines.append("last lines of stderr:\n", style="bold")
        lines.append("\n".join(f"  {ln}" for ln in f.stderr_tail[-8:]) + "\n", style="dim")
    lines.rstrip()
    return Panel(lines, title="verify failed", border_style="red", expand=False)


def render(result: VerifyResult) -> Group:
    """The human report: stages, devices, failure or verdict, notes."""
    parts: list[RenderableType] = []
    torch = result.torch
    if torch.version:
        build = torch.hip and f"HIP {torch.hip}" or torch.cuda and f"CUDA {torch.cuda}" or "CPU"
        parts.append(Text(f"python {result.python}\ntorch {torch.version} ({build})"))
    parts.append(_stage_table(result))
    if result.devices:
        parts.append(_device_table(result))
    for note in result.notes:
        parts.append(Text(f"note: {note}", style="yellow"))
    for kb_id in result.kb_hints:
        parts.append(Text(f"read: rocmfix kb show {kb_id}", style="yellow"))
    if result.failure is not None:
        parts.append(_failure_panel(result))
    else:
        parts.append(
            Text(
                f"GPU verified at level {result.level} in {result.elapsed:.1f}s",
                style="bold green",
            )
        )
    return Group(*parts)
