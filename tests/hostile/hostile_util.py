"""Shared pieces of the hostile suite (issue 13): a throwaway machine and the four checks.

Every hostile case asserts the same things a user relies on: no traceback
(one clear line and a documented exit code), nothing lost (the user's file
byte-identical after undo, untouched after a refusal), no secret in any
output, bounded time and memory, and no process left behind.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from _fakes import FAKEBIN, Machine  # noqa: F401 - re-exported to the hostile tests
from rocmfix.cli import main

EXIT_CODES = {0, 1, 2}
"""What rocmfix documents for its commands (130 is Ctrl-C only)."""


class Outcome:
    def __init__(self, code: int, out: str, err: str, seconds: float) -> None:
        self.code, self.out, self.err, self.seconds = code, out, err, seconds

    def clean_refusal(self) -> None:
        """Exit 2 with one ``rocmfix:`` line (and maybe a hint), no traceback."""
        assert self.code == 2, (self.code, self.err)
        self.no_traceback()
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert lines and lines[0].startswith("rocmfix: "), self.err
        assert all(line.startswith(("rocmfix: ", "hint: ")) for line in lines), self.err

    def no_traceback(self) -> None:
        assert "Traceback" not in self.err + self.out, self.err[-2000:]
        assert self.code in EXIT_CODES, (self.code, self.err)


def cli(args: Sequence[str], stdin: str = "") -> Outcome:
    """Run ``rocmfix ARGS`` in this process; any exception escaping main() fails the test."""
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = old_stdin
    return Outcome(code, out.getvalue(), err.getvalue(), time.monotonic() - start)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        # A zombie is dead for every purpose that matters here.
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    start = time.monotonic()
    yield
    took = time.monotonic() - start
    assert took < seconds, f"took {took:.1f}s, bound {seconds}s"
