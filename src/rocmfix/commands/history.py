"""`rocmfix history`: the fixes rocmfix applied, oldest first, from the journal.

Each line gives the journal id (for ``rocmfix undo ID``), the time, the action,
its status (applied, undone, rolled-back, incomplete) and its parameters.
``--json`` prints one ``rocmfix.history/1`` object.
"""

from __future__ import annotations

import argparse
import json

from rocmfix.errors import ExitCode

SCHEMA = "rocmfix.history/1"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help=f"print one JSON object ({SCHEMA})")


def run(args: argparse.Namespace) -> int:
    import sys

    from rocmfix.actions.journal import read_history_checked
    from rocmfix.actions.transaction import default_state

    records, problems = read_history_checked(default_state())
    if problems:
        from rocmfix._lang import locale_lang
        from rocmfix.i18n_errors import warning

        for problem in problems:
            print(warning(problem, locale_lang()), file=sys.stderr)
    if args.json:
        rows = [
            {
                "id": r.id,
                "time": r.time,
                "action": r.action,
                "status": r.status,
                "damage": r.damage,
                "params": dict(r.params),
                "steps": [s.render() for s in r.steps],
            }
            for r in records
        ]
        print(json.dumps({"schema": SCHEMA, "records": rows}, indent=2))
        return int(ExitCode.OK)
    from rocmfix._lang import locale_lang
    from rocmfix.i18n_argparse import display_width
    from rocmfix.i18n_results import journal_status

    lang = locale_lang()
    if not records:
        print("还没有应用过修复" if lang == "zh" else "no fixes applied yet")
    for r in records:
        params = " ".join(f"{k}={v}" for k, v in r.params.items() if k not in ("python",))
        status = journal_status(r.status, lang)
        pad = " " * max(0, 11 - display_width(status))  # 11 terminal cells
        print(f"{r.id}  {status}{pad} {r.action} {params}".rstrip())
    return int(ExitCode.OK)
