"""`rocmfix install-plan`: which ROCm wheel index and torch for this machine, and why.

Reads the GPUs (every one, with its KFD node), the target interpreter's torch
and Python version, the platform and the system ROCm, from this machine, a
snapshot (``--snapshot DIR``) or a GPU the user names (``--gpu gfx1101``,
``--gpu "RX 7600"``), and prints the plan of ``rocmfix.compat``: the exact
commands, the reasons, and the facts (with sources) it used. It never runs
pip; ``rocmfix fix reinstall-torch`` applies the same plan reversibly.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any

from rocmfix.errors import InputError

_MARK = {"native": "✓", "override": "~", "unsupported": "✗", "hidden": "-"}


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``rocmfix install-plan``."""
    parser.add_argument(
        "--python",
        metavar="PATH|X.Y",
        help="interpreter to plan for (its torch and Python version are read), or just a"
        " Python version such as 3.12",
    )
    parser.add_argument(
        "--snapshot", metavar="DIR", help="plan for the machine a `rocmfix collect` snapshot shows"
    )
    parser.add_argument(
        "--gpu",
        action="append",
        metavar="GFX|NAME",
        help="plan for this GPU instead of the ones found (gfx1101, 'RX 7600'); repeatable",
    )
    parser.add_argument("--no-torch", action="store_true", help="do not probe the installed torch")
    parser.add_argument(
        "--json", action="store_true", help="print one rocmfix.install-plan/1 JSON object"
    )


def _named_gpus(names: list[str]) -> tuple[Any, ...]:
    from rocmfix import compat

    out = []
    for raw in names:
        for part in (p for p in raw.split(",") if p.strip()):
            gpu = compat.gpu_from_name(part)
            if gpu is None:
                raise InputError(
                    f"--gpu {part.strip()!r}: not a gfx target or GPU name rocmfix knows",
                    hint="give the gfx target, e.g. --gpu gfx1101 (rocminfo | grep gfx)",
                )
            out.append(gpu)
    return tuple(out)


def build_plan(args: argparse.Namespace) -> tuple[Any, dict[str, object]]:
    """(plan, target description) for the options given."""
    from dataclasses import replace

    from rocmfix import compat
    from rocmfix.commands._target import pick_target
    from rocmfix.probes.base import Context
    from rocmfix.probes.compat_view import machine

    version = None
    python = args.python
    if python and re.fullmatch(r"3\.\d{1,2}", python) and not os.path.exists(python):
        version, python = python, None
    named = _named_gpus(args.gpu) if args.gpu else ()
    probe_torch = not args.no_torch and (bool(args.python and not version) or not named)
    target: dict[str, object] = {"snapshot": args.snapshot, "gpus_named": bool(named)}
    if named and not args.snapshot and not probe_torch:
        m = compat.Machine(gpus=named, python=version, interpreter="python")
    else:
        host, py = pick_target(args.snapshot, python)
        ctx = Context(host=host, python=py, want_torch=probe_torch)
        m = machine(ctx, with_torch=probe_torch)
        target["python"] = py
        if named:
            m = replace(m, gpus=named, gpus_known=True)
        if version:
            m = replace(m, python=version)
    target["python_version"] = m.python
    return compat.plan(m), target


def run(args: argparse.Namespace) -> int:
    plan, target = build_plan(args)
    if args.json:
        doc = plan.to_json()
        doc["target"] = target
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    else:
        sys.stdout.write(render(plan))
    return 0 if plan.index else 1


def render(plan: Any, lang: str | None = None) -> str:
    """The plan for a person: verdict, GPUs, commands, notes, facts with sources."""
    if lang is None:
        from rocmfix._lang import locale_lang

        lang = locale_lang()
    from rocmfix.i18n_results import INSTALL_PLAN_WORDS_ZH, install_plan_text

    zh = lang == "zh"

    def word(key: str, english: str) -> str:
        return INSTALL_PLAN_WORDS_ZH.get(key, english) if zh else english

    colon = "：" if zh else ": "
    lines = [
        f"rocmfix install-plan · {word(plan.verdict, plan.verdict)}",
        f"  {install_plan_text(plan.summary, lang)}",
        "",
    ]
    if plan.gpus:
        lines.append(word("GPUs", "GPUs"))
        for v in plan.gpus:
            status = word(v.status, v.status)
            if v.override:
                extra = (
                    f"（{INSTALL_PLAN_WORDS_ZH['as'].format(gfx=v.runs_as)}，"
                    f"HSA_OVERRIDE_GFX_VERSION {v.override}）"
                    if zh
                    else f" as {v.runs_as} (HSA_OVERRIDE_GFX_VERSION {v.override})"
                )
            else:
                extra = ""
            note = f" — {v.note}" if v.note else ""
            lines.append(f"  {_MARK.get(v.status, '?')} {v.gpu.label()}{colon}{status}{extra}{note}")
        lines.append("")
    if plan.index or plan.env:
        lines.append(
            word(
                "commands",
                "Commands (rocmfix never runs pip itself; `rocmfix fix reinstall-torch` applies"
                " the install reversibly)",
            )
        )
        lines += [f"  $ {c}" for c in plan.commands]
        lines.append("")
    if plan.notes:
        lines.append(word("Notes", "Notes"))
        lines += [f"  - {install_plan_text(n, lang)}" for n in plan.notes]
        lines.append("")
    if plan.facts:
        lines.append(word("Facts used", "Facts used"))
        for f in plan.facts:
            lines.append(f"  - {f.text}")
            lines += [f"      {u}" for u in f.sources]
        lines.append("")
    lines.append(word("Inputs", "Inputs") + colon + "; ".join(plan.inputs))
    return "\n".join(lines) + "\n"
