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

from rocmfix.errors import ExitCode
from rocmfix.verify import DEFAULT_LEVEL, DEFAULT_TIMEOUT, LEVELS, STAGES, StageEvent, run_verify


def _device_arg(value: str) -> str:
    if value == "all" or value.isdigit():
        return value
    raise argparse.ArgumentTypeError(f"expected a GPU index (0, 1, ...) or 'all', not {value!r}")


def _timeout_arg(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {value!r}")
    if seconds > 1_000_000:  # more overflows the thread waits (see doctor's MAX_SECONDS)
        raise argparse.ArgumentTypeError(f"expected at most 1000000 seconds (about 11 days), not {value!r}")
    return seconds


def _size_arg(value: str) -> int:
    if value.isdigit() and 256 <= int(value) <= 32768:
        return int(value)
    raise argparse.ArgumentTypeError(f"expected a matrix size from 256 to 32768, not {value!r}")


def levels_help() -> str:
    """One paragraph per level: its stages and what it should take."""
    lines = ["levels:"]
    for level in LEVELS.values():
        lines.append(f"  {level.name}: {', '.join(level.stages)}")
        lines.append(f"    ({level.expected})")
    return "\n".join(lines)


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``rocmfix verify``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ((parser.epilog + "\n\n") if parser.epilog else "") + levels_help()
    parser.add_argument(
        "--level",
        default=DEFAULT_LEVEL,
        choices=list(LEVELS),
        help="quick: runtime and small matmuls; standard (default): + timed matmul, conv2d "
        "through MIOpen, a mixed-precision training step; full: + nccl process group, "
        "torch.compile, most of the free memory (see the list below)",
    )
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
        "--deadline",
        default=None,
        type=_timeout_arg,
        metavar="SECONDS",
        help="stop the whole run after this long, however busy the child looks "
        "(default: --timeout plus the level's budget)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one rocmfix.verify/1 JSON object"
    )


NO_AMD_GPU = (
    "No AMD GPU on this machine (no /dev/kfd, no AMD display device): a failure here says "
    "nothing about ROCm, and no ROCm reinstall is advised. Run rocmfix on the GPU machine, "
    "or replay what `rocmfix collect` recorded there with `rocmfix doctor --snapshot DIR`."
)


def amd_gpu_present(root: str = "/") -> bool:
    """Whether this machine shows an AMD GPU: /dev/kfd, or a DRM device of vendor 0x1002."""
    import glob  # noqa: PLC0415
    import os  # noqa: PLC0415

    if os.path.exists(os.path.join(root, "dev/kfd")):
        return True
    for vendor in glob.glob(os.path.join(root, "sys/class/drm/*/device/vendor")):
        try:
            with open(vendor, encoding="ascii", errors="replace") as fh:
                if fh.read(16).strip().lower() == "0x1002":
                    return True
        except OSError:
            continue
    return False


def run(args: argparse.Namespace) -> int:
    """Run the verify child and report; 0 when the GPU passed, 1 otherwise."""
    common = {"level": args.level, "deadline": args.deadline, "size": args.size}
    if args.json:
        result = run_verify(args.python, args.timeout, args.device, **common)
        doc = result.to_json()
        if not result.ok and not amd_gpu_present():
            doc["note"] = NO_AMD_GPU
        print(json.dumps(doc, indent=2))
    else:
        # rich is imported only for the table: --json stays quick to start.
        from rich.console import Console

        from rocmfix._lang import locale_lang
        from rocmfix.verify.render import render

        lang = locale_lang()
        with _live_progress(args.level, lang) as on_stage:
            result = run_verify(args.python, args.timeout, args.device, on_stage, **common)
        console = Console(highlight=False)
        console.print(render(result, lang))
        if not result.ok and not amd_gpu_present():
            from rocmfix.i18n_results import verify_word

            console.print(NO_AMD_GPU if lang != "zh" else verify_word(lang, "no_amd_gpu"), style="yellow")
    return int(ExitCode.OK if result.ok else ExitCode.PROBLEMS_FOUND)


@contextmanager
def _live_progress(level: str, lang: str = "en") -> Iterator[Callable[[StageEvent], None] | None]:
    """A spinner on stderr naming the running stage; nothing when stderr is not a terminal."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    err = Console(stderr=True, highlight=False)
    if not err.is_terminal:
        yield None
        return
    from rich.markup import escape

    from rocmfix.i18n_results import stage, verify_word
    from rocmfix.termtext import plain

    order = list(LEVELS[level].stages)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as progress:
        first = stage("import", STAGES["import"], lang)
        task = progress.add_task(verify_word(lang, "running", stage=first), total=None)

        def on_stage(event: StageEvent) -> None:
            mark = "[green]✓[/]" if event.ok else "[red]✗[/]"
            where = f" (GPU {event.device})" if event.device is not None else ""
            # the stage name comes from the child: neither rich markup nor an escape in it
            label = escape(plain(stage(event.stage, event.label, lang)))
            progress.console.print(f"{mark} {label}{where}  {event.seconds:.2f}s")
            later = order[order.index(event.stage) + 1 :] if event.stage in order else []
            if event.ok and later:
                running = verify_word(lang, "running", stage=stage(later[0], STAGES[later[0]], lang))
                progress.update(task, description=running)

        yield on_stage
