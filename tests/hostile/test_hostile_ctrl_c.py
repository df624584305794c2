"""Ctrl-C typed into the terminal while verify or doctor waits on a child.

rocmfix runs in a pseudo-terminal as a user runs it (``python -m rocmfix``); the test
types ^C, so the terminal's line discipline sends SIGINT to rocmfix's foreground
process group. The GPU child and the torch probe live in sessions of their own and
never see that signal: rocmfix has to end them itself, promptly, without a traceback.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_util import alive

SRC = Path(__file__).resolve().parents[2] / "src"
FAKES = Path(__file__).resolve().parents[1] / "data" / "fake_pythons"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a pty")


def _wait_for(path: Path, seconds: float) -> int:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with contextlib.suppress(OSError, ValueError):
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def ctrl_c(args: list[str], pidfile: Path, env: dict[str, str]) -> tuple[int, float, str]:
    """Start rocmfix in a pty, type ^C once ``pidfile`` names its child; (exit, seconds, output)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become rocmfix
        os.environ.update(env)
        os.execv(sys.executable, [sys.executable, "-m", "rocmfix", *args])
    out = bytearray()
    status = None
    try:
        _wait_for(pidfile, 20)
        time.sleep(0.3)
        os.write(fd, b"\x03")
        sent = time.monotonic()
        while time.monotonic() - sent < 20:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                with contextlib.suppress(OSError):
                    out += os.read(fd, 65536)
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = raw
                break
        took = time.monotonic() - sent
    finally:
        if status is None:  # still running (or never reached ^C): end it, then fail
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        with contextlib.suppress(OSError):
            while select.select([fd], [], [], 0.1)[0] and (chunk := os.read(fd, 65536)):
                out += chunk
        os.close(fd)
    return os.waitstatus_to_exitcode(status), took, out.decode("utf-8", "replace")


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    pidfile = tmp_path / "child.pid"
    values = {
        "PYTHONPATH": str(SRC),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "ROCMFIX_TEST_PYTHON": sys.executable,
        "FAKE_HELPER_PIDFILE": str(pidfile),
        "TERM": "xterm",
    }
    yield values
    with contextlib.suppress(OSError, ValueError):
        os.kill(int(pidfile.read_text()), signal.SIGKILL)


def _gone(pid: int, seconds: float = 3.0) -> bool:
    end = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return not alive(pid)


def test_ctrl_c_mid_verify_exits_130_and_ends_the_hung_child_and_its_helper(
    env: dict[str, str],
) -> None:
    pidfile = Path(env["FAKE_HELPER_PIDFILE"])
    args = ["verify", "--python", str(FAKES / "hang_with_helper"), "--timeout", "60"]
    code, took, out = ctrl_c(args, pidfile, env)
    assert code == 130, out[-2000:]
    assert took < 5, f"took {took:.1f}s to stop after ^C"
    assert "Traceback" not in out and "interrupted" in out, out[-2000:]
    assert _gone(int(pidfile.read_text())), "the child's helper outlived rocmfix"


def test_ctrl_c_mid_doctor_exits_at_once_and_ends_the_torch_probe(
    env: dict[str, str], tmp_path: Path
) -> None:
    pidfile = Path(env["FAKE_HELPER_PIDFILE"])
    probe = tmp_path / "python"  # an interpreter whose torch import never returns
    probe.write_text(
        f"#!{sys.executable}\nimport os, time\n"
        f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(120)\n"
    )
    probe.chmod(0o755)
    args = ["doctor", "--python", str(probe), "--torch-timeout", "60", "--timeout", "30"]
    code, took, out = ctrl_c(args, pidfile, env)
    assert code == 130, out[-2000:]
    assert took < 5, f"took {took:.1f}s to stop after ^C (the probe's timeout is 60 s)"
    assert "Traceback" not in out and "interrupted" in out, out[-2000:]
    assert _gone(int(pidfile.read_text())), "the torch probe outlived rocmfix"


def _hanging_probe(tmp_path: Path, pidfile: Path) -> Path:
    probe = tmp_path / "python"
    probe.write_text(
        f"#!{sys.executable}\nimport os, time\n"
        f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(120)\n"
    )
    probe.chmod(0o755)
    return probe


@pytest.mark.parametrize(
    ("command", "sig"),
    [("doctor", signal.SIGTERM), ("doctor", signal.SIGHUP), ("verify", signal.SIGTERM)],
    ids=["doctor-SIGTERM", "doctor-SIGHUP", "verify-SIGTERM"],
)
def test_a_terminated_rocmfix_takes_its_children_with_it(
    env: dict[str, str], tmp_path: Path, command: str, sig: signal.Signals
) -> None:
    # `timeout 60 rocmfix doctor`, srun's time limit, a closed ssh session: rocmfix gets
    # SIGTERM or SIGHUP, not ^C. Its children sit in sessions of their own, so unless
    # rocmfix ends them they run on (a GPU child keeps the GPU busy) after it is gone.
    pidfile = Path(env["FAKE_HELPER_PIDFILE"])
    if command == "doctor":
        python = _hanging_probe(tmp_path, pidfile)
        args = ["doctor", "--python", str(python), "--torch-timeout", "60", "--json"]
    else:
        args = ["verify", "--python", str(FAKES / "hang_with_helper"), "--timeout", "60"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "rocmfix", *args],
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        child = _wait_for(pidfile, 20)
        time.sleep(0.3)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig, (proc.returncode, err[-2000:])
    assert b"Traceback" not in err, err[-2000:]
    assert _gone(child), f"{command}'s child outlived rocmfix after {sig.name}"
