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
    if not records:
        from rocmfix._lang import locale_lang

        print("还没有应用过修复" if locale_lang() == "zh" else "no fixes applied yet")
    for r in records:
        params = " ".join(f"{k}={v}" for k, v in r.params.items() if k not in ("python",))
        print(f"{r.id}  {r.status:<11} {r.action} {params}".rstrip())
    return int(ExitCode.OK)
