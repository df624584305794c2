"""`rocmfix verify`: run the staged GPU test and show what passed, how fast, and why not.

The work happens in ``rocmfix.verify.run_verify`` (a child process of the
target interpreter); this module only parses options, shows live progress on
stderr when it is a terminal, and renders the result as rich tables on stdout
or as one ``rocmfix.verify/1`` JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from rocmfix.errors import ExitCode
from rocmfix.verify import DEFAULT_TIMEOUT, STAGES, StageEvent, VerifyResult, run_verify
from rocmfix.verify.model import DTYPES


def _device_arg(value: str) -> str:
    if value == "all" or value.isdigit():
        return value
    raise argparse.ArgumentTypeError(f"expected a GPU index (0, 1, ...) or 'all', not {value!r}")


def _timeout_arg(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {value!r}")
    return seconds


def _size_arg(value: str) -> int:
    if value.isdigit() and 256 <= int(value) <= 32768:
        return int(value)
    raise argparse.ArgumentTypeError(f"expected a matrix size from 256 to 32768, not {value!r}")


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``rocmfix verify``."""
    parser.add_argument(
        "--python",
        default=sys.executable,
        metavar="PATH",
        help="interpreter whose torch to test (default: this one); it needs torch, not rocmfix",
    )
    parser.add_argument(
        "--device",
        default="0",
        type=_device_arg,
        metavar="N|all",
        help="GPU index to test, or 'all' (several GPUs also run an all-reduce); default 0",
    )
    parser.add_argument(
        "--timeout",
        default=DEFAULT_TIMEOUT,
        type=_timeout_arg,
        metavar="SECONDS",
        help=f"declare a hang after this long without progress (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--size",
        default=8192,
        type=_size_arg,
        metavar="N",
        help="square size of the timed matmul (default 8192; smaller when memory is short)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one rocmfix.verify/1 JSON object"
    )


def run(args: argparse.Namespace) -> int:
    """Run the verify child and report; 0 when the GPU passed, 1 otherwise."""
    if args.json:
        result = run_verify(args.python, args.timeout, args.device, size=args.size)
        print(json.dumps(result.to_json(), indent=2))
    else:
        out = Console(highlight=False)
        with _live_progress() as on_stage:
            result = run_verify(args.python, args.timeout, args.device, on_stage, size=args.size)
        out.print(render(result))
    return int(ExitCode.OK if result.ok else ExitCode.PROBLEMS_FOUND)


@contextmanager
def _live_progress() -> Iterator[Callable[[StageEvent], None] | None]:
    """A spinner on stderr naming the running stage; nothing when stderr is not a terminal."""
    err = Console(stderr=True, highlight=False)
    if not err.is_terminal:
        yield None
        return
    order = list(STAGES)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task(f"running: {STAGES['import']}", total=None)

        def on_stage(event: StageEvent) -> None:
            mark = "[green]✓[/]" if event.ok else "[red]✗[/]"
            where = f" (GPU {event.device})" if event.device is not None else ""
            progress.console.print(f"{mark} {event.label}{where}  {event.seconds:.2f}s")
            later = order[order.index(event.stage) + 1 :] if event.stage in order else []
            if event.ok and later:
                progress.update(task, description=f"running: {STAGES[later[0]]}")

        yield on_stage


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
    if result.failure is not None:
        parts.append(_failure_panel(result))
    else:
        parts.append(Text(f"GPU verified in {result.elapsed:.1f}s", style="bold green"))
    return Group(*parts)
