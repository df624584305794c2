"""`rocmfix [PATH | -]`: open the interactive session, optionally on a log.

``PATH`` is read inside the app (a missing file is a notification, not a
crash). ``-`` reads piped input to the end first, then reattaches the
keyboard from the terminal (``/dev/tty``) so the app can take keys while
stdin was a pipe. Textual is imported only here and below, never by the
other commands.
"""

from __future__ import annotations

import argparse
import os
import sys

from rocmfix.errors import ExitCode, InputError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="log file to open ('-' reads stdin)")
    parser.add_argument(
        "--python", metavar="PATH", help="interpreter whose torch is checked and verified"
    )
    parser.add_argument(
        "--snapshot", metavar="DIR", help="doctor reads this recorded machine instead"
    )


def read_piped_stdin() -> str:
    """All of stdin, then fd 0 reopened on the terminal so keys reach the app."""
    if sys.stdin.isatty():
        raise InputError(
            "'-' reads piped input, but stdin is a terminal",
            hint="python train.py 2>&1 | rocmfix -",
        )
    print("rocmfix: reading the log from stdin… (ctrl+c to stop)", file=sys.stderr)
    data = sys.stdin.buffer.read().decode("utf-8", "replace")
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise InputError(
            "no terminal to show the app on", hint="use `rocmfix explain -` in pipelines"
        ) from None
    os.dup2(tty, 0)
    os.close(tty)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - fd 0 lives as long as the process
    return data


def run(args: argparse.Namespace) -> int:
    from rocmfix.app import RocmfixApp
    from rocmfix.screens.session import Session

    session = Session(python=args.python or sys.executable)
    if args.snapshot:
        from rocmfix.snapshot import SnapshotHost

        SnapshotHost(args.snapshot)  # validates before the screen is taken over
        from pathlib import Path

        session.snapshot = Path(args.snapshot)
    if args.path == "-":
        app = RocmfixApp(session, text=read_piped_stdin(), name="stdin")
    else:
        app = RocmfixApp(session, path=args.path)
    code = app.run()
    return int(code if code is not None else ExitCode.OK)
