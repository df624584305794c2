"""`rocmfix doctor`: check this machine (or a snapshot) and name the likely root causes.

The checks live in ``rocmfix.probes``; this module parses options, picks the
host (live or ``--snapshot DIR``), and renders a flutter-doctor style
checklist or one ``rocmfix.doctor/1`` JSON object. rich is imported only for
the human output so that ``--json`` and ``--no-torch`` start fast.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import textwrap
from typing import Any

from rocmfix.errors import colour_wanted

MARKS = {
    "ok": ("✓", "green"),
    "warn": ("!", "yellow"),
    "fail": ("✗", "red"),
    "skip": ("-", "dim"),
    "error": ("?", "magenta"),
}
"""Checklist marks; ``?`` means the check itself crashed or timed out."""


MAX_SECONDS = 1_000_000.0
"""About 11 days: more overflows the thread waits (a traceback), and nobody means more."""


def _positive(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    # nan compares false with everything: it would pass ``seconds <= 0`` and mean no timeout
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {value!r}")
    if seconds > MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected at most 1000000 seconds (about 11 days), not {value!r}"
        )
    return seconds


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``rocmfix doctor``."""
    parser.add_argument(
        "--json", action="store_true", help="print one rocmfix.doctor/1 JSON object"
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="show details and evidence of every check"
    )
    parser.add_argument(
        "--snapshot",
        metavar="DIR",
        help="diagnose a snapshot from `rocmfix collect` instead of this machine",
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter whose torch to probe (default: the active venv/conda env, else python3 "
        "on PATH if it has torch, else rocmfix's own)",
    )
    parser.add_argument(
        "--no-torch", action="store_true", help="skip the torch probe and the checks that need it"
    )
    parser.add_argument(
        "--check", action="append", metavar="ID", help="run only this check (repeatable)"
    )
    parser.add_argument(
        "--timeout", type=_positive, default=10.0, metavar="S", help="seconds per external command"
    )
    parser.add_argument(
        "--torch-timeout",
        type=_positive,
        default=60.0,
        metavar="S",
        help="seconds for the torch probe",
    )


def run(args: argparse.Namespace) -> int:
    from rocmfix.commands._target import EarlyProbe, pick_target, python_choice

    host, python = pick_target(args.snapshot, args.python, want_torch=not args.no_torch, lazy=True)
    if not args.snapshot and not args.no_torch and args.check is None:
        # Every check runs, so the probe will: start its child before importing the checks.
        python = EarlyProbe(python, host, args.torch_timeout)
    from rocmfix import probes

    probed = not args.no_torch and getattr(host, "torch_recorded", True)
    results = probes.run_checks(
        host,
        ids=args.check,
        python=python,
        timeout=args.timeout,
        want_torch=not args.no_torch,
        torch_timeout=args.torch_timeout,
    )
    if callable(python):
        python = python()  # resolved by the probe already; cached
    if args.json:
        doc = probes.to_json(results)
        if probed:
            doc["python"] = {"path": python, "chosen_as": python_choice(python)}
        if not args.snapshot:
            # Names the node when many machines' results are summarized (rocmfix fleet);
            # `rocmfix report` redacts it before anything is shared.
            import socket

            doc["host"] = socket.gethostname()
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    else:
        render(
            results,
            verbose=args.verbose,
            source=args.snapshot,
            python=f"{python} ({python_choice(python)})" if probed else None,
        )
    return probes.exit_code(results)


def _painter(stream: Any) -> Any:
    color = colour_wanted(stream)
    codes = {
        "green": "32",
        "yellow": "33",
        "red": "31",
        "dim": "2",
        "magenta": "35",
        "bold": "1",
        "cyan": "36",
    }

    def paint(text: str, style: str) -> str:
        return f"\033[{codes[style]}m{text}\033[0m" if color else text

    return paint


def _wrap(text: str, indent: str, width: int) -> list[str]:
    # A path or URL is never cut at a hyphen or mid-word (users copy them); a line with
    # Chinese in it is wrapped by display width, a Chinese character taking two columns.
    if any(ch >= "\u2e80" for ch in text):
        from rocmfix.i18n_argparse import wrap_wide

        lines = wrap_wide(text, width - len(indent) - 2) or [""]
        return [indent + lines[0]] + [indent + "  " + line for line in lines[1:]]
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_on_hyphens=False,
        break_long_words=False,
    ) or [indent]


def render(
    results: tuple[Any, ...],
    verbose: bool = False,
    source: str | None = None,
    python: str | None = None,
) -> None:
    """Print the checklist and the closing verdict (80 columns, colour only on a TTY)."""
    # Plain ANSI rather than rich: importing and starting rich costs ~100 ms,
    # a third of the start-up budget of `rocmfix doctor --no-torch`.
    from rocmfix._lang import locale_lang
    from rocmfix.i18n_results import WHY_PYTHON_ZH, doctor_word, evidence_source, summary, title
    from rocmfix.probes import summarize
    from rocmfix.termtext import plain

    lang = locale_lang()
    out, paint = sys.stdout, _painter(sys.stdout)
    width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 100))
    where = (
        doctor_word(lang, "snapshot", name=source) if source else doctor_word(lang, "this_machine")
    )
    open_, close = ("（", "）") if lang == "zh" else (" (", ")")
    lines = [paint("rocmfix doctor", "bold") + plain(f"{open_}{where}{close}")]
    if python:
        if lang == "zh":
            for en, zh in WHY_PYTHON_ZH.items():
                python = python.replace(f" ({en})", f"（{zh}）")
        lines.append(plain(doctor_word(lang, "probed", python=python)))
    sep = "：" if lang == "zh" else ": "
    for res in results:
        mark, style = MARKS[res.status.value]
        head = plain(f"{title(res.id, res.title, lang)}{sep}{summary(res.summary, lang)}")
        first, *rest = _wrap(head, "", width - 2)
        lines.append(f"{paint(mark, style)} {first}")
        lines += [f"  {line}" for line in rest]
        if res.fix and (verbose or res.status.value in ("fail", "warn")):
            fix_word = paint(doctor_word(lang, "fix"), "cyan")
            space = "" if lang == "zh" else " "
            lines += _wrap(f"{fix_word}{space}{plain(summary(res.fix, lang))}", "    ", width + 9)
        if verbose:
            lines += [
                paint(line, "dim")
                for d in plain(res.details).splitlines()
                for line in _wrap(summary(d, lang), "    ", width)
            ]
            colon = "：" if lang == "zh" else ": "
            for e in res.evidence:
                text = plain(f"{evidence_source(e.source, lang)}{colon}{e.value}")
                lines += _wrap(text, "    ", width)
            if res.kb_ids or res.ruled_out:
                kb = doctor_word(
                    lang,
                    "kb",
                    confirms=", ".join(res.kb_ids) or "-",
                    rules_out=", ".join(res.ruled_out) or "-",
                )
                lines += [paint(line, "dim") for line in _wrap(kb, "    ", width)]
    result = summarize(results)
    c = result["counts"]
    lines += ["", doctor_word(lang, "counts", **c)]
    if result["root_causes"]:
        lines.append(paint(doctor_word(lang, "causes"), "bold"))
        lines += [
            doctor_word(lang, "cause", n=i, id=rc["id"], checks=", ".join(rc["checks"]))
            for i, rc in enumerate(result["root_causes"], 1)
        ]
    lines.append(doctor_word(lang, "next", cmd=paint(result["next_command"], "bold")))
    out.write("\n".join(lines) + "\n")
