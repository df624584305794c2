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


NO_TTY_HINT = "in scripts and pipelines use `rocmfix explain FILE` or `... | rocmfix explain -`"
DUMB_HINT = (
    "use `rocmfix explain FILE` and `rocmfix doctor`, or run in a terminal with TERM=xterm-256color"
)


def _is_data(fd: int) -> bool:
    """True when ``fd`` is a pipe, a socket or a regular file (text was meant to be read)."""
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def require_terminal(reads_stdin: bool = False) -> None:
    """Refuse at once, with a one-line hint, where the app could not draw or take keys.

    Textual draws on stderr and reads keys from stdin; without a terminal it
    would write escape codes into a file or spin on a pipe until killed.
    ``reads_stdin``: ``rocmfix -`` reads a pipe first and takes keys from /dev/tty.
    """
    if (
        not reads_stdin
        and sys.stdin is not None  # None: fd 0 is closed, told below
        and not sys.stdin.isatty()
        and _is_data(0)
        and sys.stdout is not None
        and sys.stdout.isatty()
    ):
        raise InputError(
            "stdin is a pipe or a file: to open the log it carries, add '-'",
            hint="python train.py 2>&1 | rocmfix -   (or `| rocmfix explain -` for plain text)",
        )
    if os.environ.get("TERM", "").lower() == "dumb":
        # A dumb terminal (Emacs shell-mode, some CI consoles, `TERM=dumb ssh`) has no
        # cursor addressing: Textual would fill it with escape codes it cannot show.
        raise InputError(
            "TERM=dumb: this terminal cannot draw the interactive session",
            hint=DUMB_HINT,
        )
    missing = [
        name
        for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr))
        if not (reads_stdin and name == "stdin") and not (stream and stream.isatty())
    ]
    if missing:
        shown = ", ".join(missing)
        raise InputError(
            f"the interactive session needs a terminal ({shown} is not one)"
            if len(missing) == 1
            else f"the interactive session needs a terminal ({shown} are not one)",
            hint=NO_TTY_HINT,
        )


def read_piped_stdin() -> str:
    """All of stdin, then fd 0 reopened on the terminal so keys reach the app."""
    if sys.stdin is None:
        raise InputError(
            "standard input is closed, nothing to read",
            hint="python train.py 2>&1 | rocmfix -",
        )
    if sys.stdin.isatty():
        raise InputError(
            "'-' reads piped input, but stdin is a terminal",
            hint="python train.py 2>&1 | rocmfix -",
        )
    print("rocmfix: reading the log from stdin… (ctrl+c to stop)", file=sys.stderr)
    from rocmfix.screens.session import bounded_log_text

    data = bounded_log_text(sys.stdin.buffer, "-")  # a pipe that never ends costs 64 MiB
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
    require_terminal(reads_stdin=args.path == "-")
    from rocmfix.app import RocmfixApp
    from rocmfix.commands._target import python_path
    from rocmfix.commands.explain import default_lang
    from rocmfix.screens.session import Session

    session = Session(python=python_path(args.python), lang=default_lang())
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
    return int(code if code is not None else (app.return_code or ExitCode.OK))
