"""`rocmfix undo`: reverse an applied fix byte for byte.

``rocmfix undo`` (or ``--last``) takes the newest applied fix, ``rocmfix undo
ID`` a given one. The steps to reverse are shown and confirmed first unless
``--yes``. If a file was edited after rocmfix wrote it, undo stops and shows
the difference; ``--force`` undoes anyway and keeps the edited copy in the
backup folder. Exit codes: 0 undone, 1 declined, 2 refused.
"""

from __future__ import annotations

import argparse
import sys

from rocmfix.errors import ExitCode


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", nargs="?", help="journal id (see `rocmfix history`)")
    parser.add_argument("--last", action="store_true", help="the newest applied fix (default)")
    parser.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--force",
        action="store_true",
        help="undo even if files changed since (the newer copy is kept)",
    )


def run(args: argparse.Namespace) -> int:
    from rocmfix.actions import ChangedSinceError, undo
    from rocmfix.actions.transaction import default_state, find_record
    from rocmfix.commands.fix import confirm
    from rocmfix.errors import InputError

    if args.id and args.last:
        raise InputError("give either an id or --last, not both")
    record = find_record(default_state(), args.id or "last")
    if record.damage and not record.undoable:
        from rocmfix.errors import ActionError

        raise ActionError(
            f"{record.id} ({record.action}) cannot be undone: {record.damage}",
            hint="nothing was changed; see `rocmfix history`",
        )
    from rocmfix._lang import locale_lang
    from rocmfix.i18n_results import plan_line

    lang = locale_lang()
    print(plan_line(f"undo {record.id}: {record.action} ({record.status}, {record.time})", lang))
    for step in reversed(record.steps):
        print(plan_line(f"  {step.undo_text()}", lang))
    if not args.yes and not confirm(plan_line("Undo these change(s)?", lang)):
        print(plan_line("nothing was changed.", lang), file=sys.stderr)
        return int(ExitCode.PROBLEMS_FOUND)
    from rocmfix.actions.journal import backup_dir

    keep = backup_dir(default_state(), record.id)
    before = set(keep.glob("*.newer")) if keep.is_dir() else set()
    try:
        undone = undo(record.id, force=args.force)
    except ChangedSinceError as err:
        print(err.details, file=sys.stderr)
        raise
    print(plan_line(f"undone {undone.id}", lang))
    kept = sorted(set(keep.glob("*.newer")) - before) if keep.is_dir() else []
    for path in kept:
        # --force: the lines written after the fix are not lost; say where they are
        print(plan_line(f"  the version edited since the fix is kept at {path}", lang))
    return int(ExitCode.OK)
