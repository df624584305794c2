"""A real terminal for the installed app: tmux on a private socket.

``Terminal`` starts a command in a detached tmux pane of a given size, pastes
the way a terminal does (``paste-buffer -p``: bracketed paste, which tmux sends
only when the application asked for it), presses keys, reads the screen
(``capture-pane``) and reports the exit status (``remain-on-exit``). Nothing
here fakes Textual's input path: bytes go through a pty to the app.
"""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

TMUX = shutil.which("tmux")
_counter = itertools.count()


def rocmfix_command() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m rocmfix``."""
    script = Path(sys.executable).with_name("rocmfix")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "rocmfix"]


class Terminal:
    """One tmux server with one pane running ``command``."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        size: tuple[int, int] = (80, 24),
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        shell: bool = False,
    ) -> None:
        assert TMUX, "tmux is needed for terminal tests"
        self._tmp = Path(tempfile.mkdtemp(prefix=f"rocmfix-term-{next(_counter)}-"))
        self.socket = str(self._tmp / "tmux.sock")  # private server, removed with the folder
        conf = self._tmp / "tmux.conf"
        conf.write_text(
            "set -g remain-on-exit on\nset -g status off\nset -g history-limit 0\n"
            'set -g default-terminal "tmux-256color"\nset -sg escape-time 0\n'
        )
        full_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", str(self._tmp)),
            "LANG": "C.UTF-8",
            "COLORTERM": "truecolor",
        }
        for key in ("PYTHONPATH", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TMPDIR"):
            if key in os.environ:
                full_env[key] = os.environ[key]
        full_env.update(env or {})
        assignments = [f"{k}={v}" for k, v in full_env.items()]
        inner = command[0] if shell else "exec " + shlex.join(command)
        line = "exec env -i " + shlex.join(assignments) + " sh -c " + shlex.quote(inner)
        if cwd is not None:
            line = f"cd {shlex.quote(str(cwd))} && {line}"
        width, height = size
        self._tmux(
            "-f", str(conf), "new-session", "-d", "-s", "main",
            "-x", str(width), "-y", str(height), line,
        )  # fmt: skip

    # ------------------------------------------------------------ plumbing

    def _tmux(self, *args: str, data: bytes | None = None) -> str:
        proc = subprocess.run(
            [TMUX or "tmux", "-S", self.socket, *args],
            input=data,
            capture_output=True,
            timeout=30,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"tmux {args[0]} failed: {proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode("utf-8", "replace")

    def close(self) -> None:
        subprocess.run(
            [TMUX or "tmux", "-S", self.socket, "kill-server"], capture_output=True, check=False
        )
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ what a user does

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main")

    def styled_screen(self) -> str:
        """The screen with its escape sequences (colours) kept."""
        return self._tmux("capture-pane", "-p", "-e", "-t", "main")

    def wait_for(self, predicate: str | Callable[[str], bool], timeout: float = 30.0) -> str:
        """The screen once ``predicate`` (a substring or a test) holds; AssertionError after ``timeout``."""
        test = (lambda s: predicate in s) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if test(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {predicate!r}; screen:\n{text}")
            time.sleep(0.2)

    def wait_ready(self, marker: str, timeout: float = 60.0) -> str:
        """``marker`` is shown and the screen has stopped changing for half a second.

        Textual paints before it has finished starting; waiting for a still
        screen makes a test's later reads (not its keys: those queue, see
        ``test_keys_typed_while_the_app_starts_all_arrive``) deterministic.
        """
        screen = self.wait_for(marker, timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = self.screen()
            if now == screen:
                return now
            screen = now
        return screen

    def paste(self, text: str, *, line_end: str = "\n") -> None:
        """Bracketed paste of ``text`` with its newlines sent as ``line_end``.

        Most terminals send a pasted newline as CR; ``-r`` stops tmux from
        rewriting line ends itself, so the bytes are exactly these.
        """
        data = text.replace("\n", line_end) if line_end != "\n" else text
        self._tmux("load-buffer", "-b", "paste", "-", data=data.encode("utf-8"))
        self._tmux("paste-buffer", "-r", "-p", "-d", "-b", "paste", "-t", "main")

    def send_bytes(self, data: bytes) -> None:
        """Write ``data`` to the app's terminal exactly as given (tmux ``send-keys -H``)."""
        self._tmux("send-keys", "-t", "main", "-H", *(f"{b:02x}" for b in data))

    def press(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    def pid(self) -> int:
        return int(self._tmux("display-message", "-p", "-t", "main", "#{pane_pid}").strip())

    def alive(self) -> bool:
        return self._tmux("display-message", "-p", "-t", "main", "#{pane_dead}").strip() != "1"

    def _zombie_status(self) -> int | None:
        """The exit status the kernel holds for the pane's process once it has exited.

        tmux 3.3a sometimes sees the pty close but never reaps the child (it
        stays a zombie and ``pane_dead_status`` stays empty forever); the
        status is then read where the kernel keeps it, the last field of
        ``/proc/PID/stat`` (a wait status), so a test does not hang on tmux.
        """
        pid = self._tmux("display-message", "-p", "-t", "main", "#{pane_pid}").strip()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        if fields[0] != "Z":
            return None
        wait_status = int(fields[-1])
        if os.WIFSIGNALED(wait_status):
            return -os.WTERMSIG(wait_status)
        return os.WEXITSTATUS(wait_status)

    def exit_status(self, timeout: float = 20.0) -> int:
        """The command's exit status once it has ended; ``-N`` when signal N killed it.

        tmux marks a pane dead when its pty closes, which can be before it has
        reaped the process: wait until the status (or the signal) is known.
        """
        deadline = time.monotonic() + timeout
        fmt = "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}"
        while time.monotonic() < deadline:
            dead, status, sig = (
                self._tmux("display-message", "-p", "-t", "main", fmt).strip().split("|")
            )
            if dead == "1" and (status or sig):
                return int(status) if status else -int(sig)
            if dead == "1" and (code := self._zombie_status()) is not None:
                return code
            time.sleep(0.2)
        raise AssertionError(f"still running after {timeout}s; screen:\n{self.screen()}")
