"""`rocmfix collect --out DIR`: record what the doctor reads into a shareable snapshot.

Every check runs once against a recording wrapper of the live host, so the
snapshot holds exactly the files, command outputs, device metadata and torch
probe the checks used, with secrets masked. ``rocmfix doctor --snapshot DIR``
replays it anywhere. Format: docs/snapshot-format.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from rocmfix import __version__
from rocmfix.commands._target import python_path
from rocmfix.commands.doctor import _positive
from rocmfix.errors import InputError


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``rocmfix collect``."""
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="directory to write (must be new or empty)"
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter whose torch to probe (default: the active venv/conda env, else python3 "
        "on PATH if it has torch, else rocmfix's own)",
    )
    parser.add_argument("--no-torch", action="store_true", help="do not probe torch")
    parser.add_argument(
        "--timeout", type=_positive, default=10.0, metavar="S", help="seconds per external command"
    )
    parser.add_argument("--json", action="store_true", help="print a rocmfix.collect/1 JSON object")


def run(args: argparse.Namespace) -> int:
    from rocmfix import probes
    from rocmfix.host import LocalHost
    from rocmfix.redact import Redactor, learn_tree, scrub_tree
    from rocmfix.report import known_identity
    from rocmfix.snapshot import RecordingHost

    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(
            f"--out {out}: exists and is not an empty directory", hint="choose a new directory"
        )
    python = python_path(args.python) if args.python or not args.no_torch else sys.executable
    made_out = not out.exists()
    rec = RecordingHost(LocalHost())
    results = probes.run_checks(
        rec, python=python, timeout=args.timeout, want_torch=not args.no_torch
    )
    try:
        created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        rec.write(
            out,
            python,
            extra={"created": created, "rocmfix_version": __version__, "source": "rocmfix collect"},
            redactor=Redactor(*known_identity(rec.inner, live=True)),
        )
        doctor = Redactor(*known_identity(rec.inner, live=True))
        report_json = probes.to_json(results)
        learn_tree([rec.files, rec.commands, report_json], doctor)
        (out / "doctor.json").write_text(
            json.dumps(scrub_tree(report_json, doctor), indent=1) + "\n", encoding="utf-8"
        )
    except OSError as exc:
        _discard_partial(out, made_out)  # half a snapshot must not be shared as one
        raise InputError(f"cannot write snapshot to {out}: {exc.strerror}") from None
    files = sum(1 for p in (out / "root").rglob("*") if p.is_file())
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "rocmfix.collect/1",
                    "out": str(out),
                    "files": files,
                    "commands": len(rec.commands),
                }
            )
        )
    else:
        print(
            f"Snapshot written to {out} ({files} files, {len(rec.commands)} command outputs;"
            " identities and secrets redacted as in `rocmfix report`; read it before sharing)."
        )
        print(f"Replay it with: rocmfix doctor --snapshot {out}", file=sys.stderr)
    return 0


def _discard_partial(out: Path, made_out: bool) -> None:
    """Remove what a failed collect wrote: ``out`` itself when it made it, else its contents
    (``--out`` was refused unless it was absent or an empty directory)."""
    import contextlib  # noqa: PLC0415 - only on failure
    import shutil  # noqa: PLC0415

    if made_out:
        shutil.rmtree(out, ignore_errors=True)
        return
    try:
        entries = list(out.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                entry.unlink(missing_ok=True)
