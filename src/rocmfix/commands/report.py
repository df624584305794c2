"""`rocmfix report`: a redacted Markdown bug report, ready to paste into an issue.

Without ``--out`` the Markdown goes to stdout. With ``--out FILE`` a preview
is shown first and rocmfix asks before writing (``--yes`` skips the
question; no answer on a closed stdin means no). Redaction is on unless
``--no-redact``, which warns on stderr. The gathering lives in
``rocmfix.report``; this module only handles options, the preview and the
file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from rocmfix.errors import ExitCode, InputError

PREVIEW_LINES = 60
"""Lines of the report shown before asking to write it."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``rocmfix report``."""
    parser.add_argument("--log", metavar="FILE", help="a failed run's log (plain or .gz)")
    parser.add_argument(
        "--out", metavar="FILE", help="write the Markdown here (after a preview and a question)"
    )
    parser.add_argument("--yes", action="store_true", help="with --out: write without asking")
    parser.add_argument(
        "--no-redact",
        action="store_true",
        help="keep usernames, hostnames, addresses and secrets (not for public posting)",
    )
    parser.add_argument(
        "--snapshot", metavar="DIR", help="report on a snapshot from `rocmfix collect`"
    )
    parser.add_argument(
        "--python", metavar="PATH", help="interpreter whose torch to probe (default: this one)"
    )
    parser.add_argument("--no-torch", action="store_true", help="skip the torch probe")
    parser.add_argument(
        "--kb", action="append", default=[], metavar="PATH", help="extra KB file(s) to merge"
    )


def _host(args: argparse.Namespace) -> tuple[Any, str, str, bool]:
    from rocmfix.commands._target import pick_target

    host, python = pick_target(args.snapshot, args.python)
    if args.snapshot:
        return host, python, f"snapshot {Path(args.snapshot).resolve().name}", False
    return host, python, "this machine", True


def run(args: argparse.Namespace) -> int:
    from rocmfix import report, report_markdown

    if args.yes and not args.out:
        raise InputError("--yes only makes sense with --out FILE")
    if args.out and Path(args.out).is_dir():
        raise InputError(f"--out {args.out}: is a directory, expected a file name")
    host, python, source, live = _host(args)
    inp = report.gather(
        host,
        source=source,
        python=python,
        live=live,
        want_torch=not args.no_torch,
        log_path=args.log,
        kb_paths=args.kb,
    )
    if args.no_redact:
        from rocmfix._lang import locale_lang  # noqa: PLC0415
        from rocmfix.i18n_errors import warning  # noqa: PLC0415

        print(
            warning(
                "--no-redact: this report keeps usernames, hostnames, addresses, "
                "device serials and any secret in the log; do not post it publicly",
                locale_lang(),
            ),
            file=sys.stderr,
        )
    text = report_markdown.build(inp, redact=not args.no_redact)
    if not args.out:
        sys.stdout.write(text)
        return int(ExitCode.OK)
    return _write(text, Path(args.out), args.yes)


def _write(text: str, out: Path, yes: bool) -> int:
    target = _target(out)  # before the preview and the question: a refusal comes at once
    lines = text.splitlines()
    preview = lines[:PREVIEW_LINES]
    if len(lines) > PREVIEW_LINES:
        preview.append(f"... {len(lines) - PREVIEW_LINES} more lines (all of them go to the file)")
    sys.stdout.write("\n".join(preview) + "\n")
    if not yes and not _confirm(f"Write this report ({len(lines)} lines) to {out}? [y/N] "):
        print("rocmfix: not written (answer y, or pass --yes)", file=sys.stderr)
        return int(ExitCode.PROBLEMS_FOUND)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    except OSError as err:
        with contextlib.suppress(OSError):  # on a read-only file system this fails too
            tmp.unlink(missing_ok=True)
        raise InputError(f"--out {out}: cannot write ({err.strerror or err})") from None
    print(f"rocmfix: wrote {out}", file=sys.stderr)
    return int(ExitCode.OK)


def _target(out: Path) -> Path:
    """The file the report replaces: ``out``, or the file its symlink names (the link stays).

    Raises:
        InputError: ``out`` is a FIFO, a device or a socket (renaming over it replaced the node).
    """
    from rocmfix import safeio

    try:
        return Path(safeio.replace_target(out))
    except OSError as err:
        raise InputError(f"--out {out}: cannot write ({safeio.describe(err)})") from None


def _confirm(question: str) -> bool:
    print(question, end="", file=sys.stderr, flush=True)
    try:  # bounded: /dev/zero as stdin has no line end; a closed stdin is None
        answer = sys.stdin.readline(4096)
    except (OSError, ValueError, AttributeError):
        return False
    return answer.strip().lower() in ("y", "yes")
