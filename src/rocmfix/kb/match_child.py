"""Explain a big text in a child process that the caller can abandon at once.

A match of tens of megabytes takes seconds of pure Python (regular
expressions hold the GIL). Run in a thread, nothing can stop it: quitting
the app waited for it to finish. Here the text goes to ``python -m
rocmfix.kb.match_child`` on stdin, the pickled ``Explanation`` comes back on
stdout, and the caller kills the child the moment the result is moot (a
newer edit, quit, a signal). The child is our own code run by our own
interpreter, so its pickle is trusted; nothing from the text is executed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

OFFLOAD_CHARS = 256 * 1024
"""Texts at least this long are matched in a child (smaller ones take milliseconds)."""
POLL_S = 0.1


class MatchFailed(RuntimeError):
    """The child could not explain the text (its last error line says why)."""


def _package_root() -> str:
    """The folder that holds the ``rocmfix`` package this process imported."""
    return str(Path(__file__).resolve().parents[2])


def explain_in_child(text: str, cancelled: Callable[[], bool]) -> Any:
    """``Explanation`` of ``text`` from a child; None once ``cancelled()`` turned true.

    The child is killed (and reaped) as soon as ``cancelled()`` holds or when
    it is killed from outside (``app.stop_children`` on quit): then None.
    """
    data = text.encode("utf-8", "surrogatepass")
    env = dict(os.environ)
    root = _package_root()
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["ROCMFIX_MATCH_PARENT"] = str(os.getpid())
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rocmfix.kb.match_child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            cwd=root,
            env=env,
        )
        out: list[bytes] = []
        feeder = threading.Thread(target=_feed, args=(proc, data), daemon=True)
        reader = threading.Thread(target=_drain, args=(proc, out), daemon=True)
        feeder.start()
        reader.start()
        try:
            while proc.poll() is None:
                if cancelled():
                    return None
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(POLL_S)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            feeder.join(5)
            reader.join(5)
        if proc.returncode != 0:
            if proc.returncode < 0 or cancelled():
                return None  # killed: quit, a newer edit or a signal; the result is moot
            errors.seek(0)
            lines = errors.read().decode("utf-8", "replace").strip().splitlines()
            raise MatchFailed(lines[-1] if lines else f"matcher exited with {proc.returncode}")
    return pickle.loads(b"".join(out))  # noqa: S301 - our own child's output, never user data


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    # OSError/ValueError: the child was killed, nothing more to feed
    with contextlib.suppress(OSError, ValueError), proc.stdin:
        view = memoryview(data)
        for start in range(0, len(view), 1 << 20):
            proc.stdin.write(view[start : start + (1 << 20)])


def _drain(proc: subprocess.Popen[bytes], out: list[bytes]) -> None:
    assert proc.stdout is not None
    with contextlib.suppress(OSError, ValueError), proc.stdout:
        while chunk := proc.stdout.read(1 << 16):
            out.append(chunk)


def _die_with_parent() -> None:
    """Linux: the kernel kills this child when the app dies, even by SIGKILL."""
    parent = os.environ.get("ROCMFIX_MATCH_PARENT")
    with contextlib.suppress(OSError, AttributeError, ValueError):
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if parent and os.getppid() != int(parent):
        os._exit(1)  # the app died before the line above took effect


def main() -> int:
    _die_with_parent()
    with contextlib.suppress(OSError, AttributeError):
        os.nice(5)  # seconds of matching must not starve the app's input and drawing
    from rocmfix.kb.matcher import explain_text

    text = sys.stdin.buffer.read().decode("utf-8", "surrogatepass")
    explanation = explain_text(text)
    sys.stdout.buffer.write(pickle.dumps(explanation, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
