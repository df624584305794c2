"""`rocmfix fix`: preview (the default) or apply one guided, reversible fix.

``rocmfix fix ACTION [NAME=VALUE ...]`` shows the exact plan and changes
nothing. ``--apply`` asks before changing anything, ``--apply --yes`` does not
(for scripts). ``rocmfix fix KB-ID`` offers that knowledge-base entry's fixes,
with values taken from ``--from-log FILE`` or from this machine. ``--verify``
runs the GPU test after applying and says whether the machine recovered.
Exit codes: 0 done (or previewed), 1 declined or not recovered, 2 refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rocmfix.errors import ActionError, ExitCode, InputError

if TYPE_CHECKING:
    from rocmfix.actions import Context, Plan

    Offer = tuple[int, str, Plan | str]
    """The fix's number in its KB entry, its label, its plan or why it is not offered."""

SCHEMA = "rocmfix.fix/1"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="ACTION|KB-ID", help="a fix action id or a KB entry id")
    # default=[]: without it argparse names NAME=VALUE as required too when ACTION is missing
    parser.add_argument(
        "params", nargs="*", default=[], metavar="NAME=VALUE", help="action parameters"
    )
    parser.add_argument("--apply", action="store_true", help="make the changes (asks first)")
    parser.add_argument("-y", "--yes", action="store_true", help="with --apply: do not ask")
    parser.add_argument(
        "--unset", action="append", default=[], metavar="NAME", help="set-env: remove this variable"
    )
    parser.add_argument("--venv", metavar="PATH", help="set-env: write into this venv's activate")
    parser.add_argument(
        "--session",
        action="store_true",
        help="set-env: print export lines instead of writing a file",
    )
    parser.add_argument("--python", metavar="PATH", help="target interpreter (default: this one)")
    parser.add_argument("--from-log", metavar="FILE", help="KB-ID: take values from this log")
    parser.add_argument(
        "--kb", action="append", default=[], metavar="PATH", help="extra KB file(s)"
    )
    parser.add_argument(
        "--pick",
        type=int,
        default=1,
        metavar="N",
        help="KB-ID: which offered fix to apply (default 1, the best)",
    )
    parser.add_argument("--verify", action="store_true", help="after --apply, run `rocmfix verify`")
    parser.add_argument(
        "--where",
        choices=("auto", "host", "docker", "podman", "wsl"),
        default="auto",
        help="override where rocmfix thinks it runs",
    )
    parser.add_argument("--json", action="store_true", help=f"print one JSON object ({SCHEMA})")


def parse_assignments(items: list[str], unset: list[str]) -> dict[str, object]:
    """``NAME=VALUE`` words (and ``--unset`` names) as a params mapping."""
    out: dict[str, object] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise InputError(f"expected NAME=VALUE, got {item!r}")
        out[name] = value.split(",") if name == "groups" else value
    for name in unset:
        out[name] = None
    return out


def run(args: argparse.Namespace) -> int:
    from rocmfix.actions import ACTIONS, detect

    ctx = detect(args.where, args.python)
    if args.target in ACTIONS:
        params = parse_assignments(args.params, args.unset)
        params.update(_mode_params(args))
        offers: list[Offer] = [(1, args.target, _plan(args.target, params, ctx))]
        manual: list[tuple[int, str]] = []
    else:
        offers, manual = _kb_offers(args, ctx)
    if args.json and not args.apply:
        _print_json(offers, manual, None)
        return int(ExitCode.OK)
    if not args.json:  # --json --apply prints one object, after the change
        _show(offers, manual)
    chosen = _choose(offers, args.pick, manual) if args.apply else None
    if chosen is None:
        if not args.apply:
            plans = [p for _, _, p in offers if not isinstance(p, str)]
            if plans and all(p.changes_nothing for p in plans) and any(p.output for p in plans):
                _say("nothing was changed.")  # session mode: the user runs the lines shown
            elif plans and all(p.changes_nothing for p in plans):
                _say("nothing to change: this is already in place.")
            elif not plans:
                _say("nothing here that rocmfix can apply: the fixes above are done by hand.")
            else:
                _say("dry run: nothing was changed. Add --apply to make these changes.")
        return int(ExitCode.OK)
    return _apply(chosen, args, ctx)


def _mode_params(args: argparse.Namespace) -> dict[str, object]:
    extra: dict[str, object] = {}
    if args.venv:
        extra["venv"] = args.venv
    if args.session:
        extra["session"] = True
    if args.python and args.target == "reinstall-torch":
        extra["python"] = args.python
    return extra


def _plan(action_id: str, params: Mapping[str, object], ctx: Context) -> Plan:
    from rocmfix.actions import get_action

    return get_action(action_id).plan(params, ctx)


def _kb_offers(
    args: argparse.Namespace, ctx: Context
) -> tuple[list[Offer], list[tuple[int, str]]]:
    """Plans for a KB entry's action fixes (or why each is not offered) and its manual steps.

    Each carries the fix's number in the entry (``kb show`` numbers them the same).
    """
    from rocmfix.actions import ACTIONS
    from rocmfix.kb.loader import load_kb
    from rocmfix.kb.render import render_fixes

    kb = load_kb(args.kb)
    entry = kb.get(args.target)
    if entry is None:
        raise InputError(
            f"{args.target!r} is neither a fix action nor a KB entry id",
            hint="actions: " + ", ".join(ACTIONS) + "; KB ids: `rocmfix kb list`",
        )
    params = _log_params(args.from_log, entry.id, kb) if args.from_log else system_params(ctx)
    offers: list[Offer] = []
    manual: list[tuple[int, str]] = []
    for number, raw in enumerate(entry.fixes, 1):
        missing = [name for name in raw.when if name not in params]
        if raw.action and missing:
            hint = "" if args.from_log else "; try --from-log FILE"
            offers.append((number, raw.action, f"not offered: needs {', '.join(missing)}{hint}"))
        # the human listing reads the entry's own Chinese text; JSON stays English
        for fix in render_fixes((raw,), params, "en" if args.json else _LANG()):
            if fix.action is None:
                manual.append((number, fix.text + "".join(f"\n    {c}" for c in fix.commands)))
                continue
            label = f"{fix.action} - {fix.text}"
            try:
                offers.append((number, label, _plan(fix.action, fix.params, ctx)))
            except ActionError as err:
                offers.append((number, label, f"not offered: {err.message}"))
    if not offers and not manual:
        raise ActionError(
            f"{entry.id} has no fix that applies with what is known",
            hint="try --from-log FILE with the full error log",
        )
    return offers, manual


def _log_params(path: str, entry_id: str, kb: Any) -> dict[str, str]:
    from rocmfix import safeio
    from rocmfix.kb.matcher import matcher_for

    # Streamed with bounded memory (a 2 GB log, a gzip bomb); a FIFO or a device
    # such as /dev/zero is refused instead of read forever.
    try:
        with safeio.open_log(path) as stream:
            explanation = matcher_for(kb).explain_stream(stream)
    except OSError as err:
        raise InputError(f"cannot read {path}: {safeio.describe(err)}") from None
    if explanation.excerpt.binary and not explanation.matches:
        raise InputError(f"{path}: looks like binary data, not a text log")
    for match in explanation.matches:
        if match.entry.id == entry_id:
            return dict(match.params)
    raise InputError(
        f"{path} does not show {entry_id}",
        hint="run `rocmfix explain -f FILE` to see what the log shows",
    )


def system_params(ctx: Context) -> dict[str, str]:
    """Values for KB placeholders read from this machine (gfx, ROCm version)."""
    from rocmfix.actions.reinstall_torch import system_rocm_version
    from rocmfix.kb.render import clean_value, derive

    found: dict[str, str] = {}
    discrete = [g for g in ctx.gpus or () if not g.integrated]
    if discrete and (gfx := clean_value("gfx", discrete[0].gfx)):
        found["gfx"] = gfx
    version = system_rocm_version(ctx)
    if version and (clean := clean_value("rocm_version", version)):
        found["rocm_version"] = clean
    if ctx.gpus is None:
        return derive(found)
    # Every GPU, the target's torch and Python: the compatibility model fills the values.
    from rocmfix.actions.reinstall_torch import _machine

    machine = _machine(ctx, ctx.python)
    if machine.torch and (tv := clean_value("torch_version", machine.torch.version)):
        found["torch_version"] = tv
    return derive(found, machine=machine)


def _choose(
    offers: list[Offer], pick: int | None, manual: list[tuple[int, str]] | None = None
) -> Plan | None:
    """The offer numbered ``pick`` (the entry's own numbering), or the first one that can be applied."""
    if pick is None:
        plans = [p for _, _, p in offers if not isinstance(p, str)]
        if not plans:
            raise ActionError("no fix can be applied here")
        return plans[0]
    by_number = {n: p for n, _, p in offers}
    if pick not in by_number:
        if any(n == pick for n, _ in manual or ()):
            raise InputError(f"fix {pick} is done by hand; rocmfix has no action for it")
        numbers = ", ".join(str(n) for n in sorted(by_number)) or "none"
        raise InputError(f"--pick {pick} is not one of the fixes offered here ({numbers})")
    chosen = by_number[pick]
    if isinstance(chosen, str):
        raise ActionError(f"fix {pick} cannot be applied: {chosen.removeprefix('not offered: ')}")
    return chosen


def _apply(plan: Plan, args: argparse.Namespace, ctx: Context) -> int:
    from rocmfix.actions import apply_plan

    if plan.changes_nothing:
        _say("nothing to change.")
        if args.json:
            _print_json([(1, plan.action, plan)], [], None)
        return int(ExitCode.OK)
    if not args.yes and not confirm(_words(f"Apply these {len(plan.steps)} change(s)?")):
        _say("nothing was changed.")
        if args.json:
            _print_json([(1, plan.action, plan)], [], None)
        return int(ExitCode.PROBLEMS_FOUND)
    record = apply_plan(plan)
    if args.json:
        _print_json([(1, plan.action, plan)], [], record.id)
    else:
        print(_words(f"applied {record.id}; undo with: rocmfix undo {record.id}"))
    if record.status == "incomplete":  # the changes are made; only the journal's last line is missing
        _say(
            f"note: the journal could not record that {record.id} finished (disk full?); "
            f"`rocmfix undo {record.id}` still reverses it."
        )
    return _verify(ctx) if args.verify else int(ExitCode.OK)


def _verify(ctx: Context) -> int:
    from rocmfix.verify import run_verify

    result = run_verify(python=ctx.python, level="standard")  # the same level as the TUI's
    if result.ok:
        print(_words("verify: recovered (the GPU test passes)"))
        return int(ExitCode.OK)
    failure = result.failure
    why = f"{failure.stage}: {failure.message}" if failure else "unknown failure"
    print(_words(f"verify: not recovered ({why})"))
    return int(ExitCode.PROBLEMS_FOUND)


def confirm(question: str) -> bool:
    """Ask on stderr, read one line from stdin; anything but yes (or end of input) is no."""
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    try:  # bounded: /dev/zero as stdin has no line end; a closed stdin is None
        answer = sys.stdin.readline(4096)
    except (OSError, ValueError, AttributeError):
        return False
    return answer.strip().lower() in ("y", "yes")


def _LANG() -> str:  # noqa: N802 - read at call time, so a test's locale counts
    from rocmfix._lang import locale_lang

    return locale_lang()


def _words(line: str) -> str:
    """A line rocmfix writes around a plan, in the session's language."""
    from rocmfix.i18n_results import plan_line

    return plan_line(line, _LANG())


def _say(text: str) -> None:
    print(_words(text), file=sys.stderr)


def _show(offers: list[Offer], manual: list[tuple[int, str]]) -> None:
    """Every fix in the entry's order, each under the number `kb show` gives it."""
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    numbered = len(offers) + len(manual) > 1
    shown: list[tuple[int, int, str, Plan | str | None]] = [
        *((n, 0, action, plan) for n, action, plan in offers),
        *((n, 1, text, None) for n, text in manual),
    ]
    for n, _, label, plan in sorted(shown, key=lambda item: (item[0], item[1])):
        if plan is None:
            head = f"fix {n}, to do by hand:" if numbered else "to do by hand:"
            console.print(_words(head), style="bold", markup=False)
            console.print("  " + label, markup=False)
            continue
        if numbered:
            console.print(_words(f"fix {n}: {label}"), style="bold", markup=False)
        if isinstance(plan, str):
            console.print(_words(f"  {plan}"), style="yellow", markup=False)
            continue
        for line in plan.render().splitlines():
            console.print(_words(line), style=_style(line), markup=False)


def _style(line: str) -> str:
    body = line.lstrip()
    if body.startswith("+") and not body.startswith("+++"):
        return "green"
    if body.startswith("-") and not body.startswith("---"):
        return "red"
    if body.startswith("note:"):
        return "dim"
    return "bold" if body.startswith(("plan ", "$", "step")) else ""


def _print_json(offers: list[Offer], manual: list[tuple[int, str]], applied: str | None) -> None:
    out = {
        "schema": SCHEMA,
        "offers": [
            {"number": n, "action": a, "refused": p}
            if isinstance(p, str)
            else {"number": n, **p.to_json()}
            for n, a, p in offers
        ],
        "manual": [text for _, text in manual],
        "manual_numbers": [n for n, _ in manual],
        "applied": applied,
    }
    print(json.dumps(out, indent=2))
