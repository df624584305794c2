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


def run(args: argparse.Namespace) -> int:
    from rocmfix import fleet

    stdin_text = None
    if "-" in args.paths:
        if sys.stdin.isatty():
            raise InputError(
                "'-' reads doctor JSON from a pipe, but stdin is a terminal",
                hint="pdsh -w 'gpu[01-64]' rocmfix doctor --json | rocmfix fleet summarize -",
            )
        stdin_text = sys.stdin.buffer.read().decode("utf-8", "replace")
    nodes = fleet.load(args.paths, stdin_text=stdin_text)
    summary = fleet.summarize(nodes)
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
    else:
        sys.stdout.write("\n".join(render(summary, fleet.compress)) + "\n")
    status = summary["status"]
    return int(ExitCode.PROBLEMS_FOUND if status["fail"] or status["unreadable"] else ExitCode.OK)


def _names(names: list[str], compress: Any) -> str:
    text = compress(names)
    if len(text) > _MAX_NAMES:
        cut = text.rfind(", ", 0, _MAX_NAMES)
        shown = text[: cut if cut > 0 else _MAX_NAMES]
        return f"{shown} ... ({len(names)} nodes in all; --json lists every one)"
    return text


def _wrap(text: str, indent: str) -> list[str]:
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


def render(summary: dict[str, Any], compress: Any) -> list[str]:
    """The text summary, one string per line (80 columns)."""
    s = summary["status"]
    unchecked = [g["count"] for g in summary["groups"] if g["root_cause"].endswith("not-checked")]
    healthy = s["ok"] - sum(unchecked)
    lines = _wrap(
        f"rocmfix fleet: {summary['nodes']} nodes: {s['fail']} failing, {s['error']} with checks "
        f"that could not run, {s['warn']} with warnings only, {healthy} healthy, "
        + (f"{sum(unchecked)} with no problem found but torch not checked, " if unchecked else "")
        + f"{s['unreadable']} unreadable",
        "",
    )
    if s.get("torch_not_checked"):
        lines += _wrap(
            f"torch was not checked on {s['torch_not_checked']} node(s) (doctor --no-torch): "
            "a CPU or CUDA torch, or a GPU its build does not support, would not show. "
            "Run `rocmfix doctor --json` without --no-torch to check it.",
            "",
        )
    for g in summary["groups"]:
        lines += ["", f"{g['root_cause']}  ({g['count']} node{'s' * (g['count'] != 1)})"]
        lines += _wrap("nodes: " + _names(g["nodes"], compress), "  ")
        if g["failing_checks"]:
            lines += _wrap("failing checks: " + _counted(g["failing_checks"]), "  ")
        if g["also_suspected"]:
            lines += _wrap("also suspected: " + _counted(g["also_suspected"]), "  ")
        if g["next_command"]:
            lines.append(f"  next: {g['next_command']}")
    bad = [c for c in summary["checks"] if c["fail"] or c["error"]]
    if bad:
        lines += ["", "Checks failing anywhere:"]
        for c in bad:
            who = c["fail"] or c["error"]
            mark = "✗" if c["fail"] else "?"
            lines += _wrap(f"{mark} {c['id']} on {len(who)}: {_names(who, compress)}", "  ")
    lines += ["", "Versions:"]
    for key, label in (("torch", "torch"), ("rocm", "ROCm"), ("gfx", "gfx"), ("kernel", "kernel")):
        lines += _wrap(f"{label}: {_counted(summary['versions'][key])}", "  ")
    if summary["unreadable"]:
        lines += ["", "Unreadable:"]
        for u in summary["unreadable"][:20]:
            lines += _wrap(f"{u['node']} ({u['source']}): {u['problem']}", "  ")
        if len(summary["unreadable"]) > 20:
            lines.append(f"  ... and {len(summary['unreadable']) - 20} more (see --json)")
    return lines
