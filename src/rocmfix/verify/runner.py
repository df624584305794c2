"""Run the verify child in the target interpreter and survive whatever it does.

The child (``child.py``) may segfault, abort, hang inside the GPU driver, or
print nonsense. This side never imports torch: it spawns the child in its own
session, reads the line protocol with a per-stage stall timeout, keeps the
tail of stderr, kills the whole process group when the child stops answering,
and folds everything into a frozen ``VerifyResult``.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from rocmfix.errors import InputError
from rocmfix.verify.accumulate import Accumulator
from rocmfix.verify.model import StageEvent, VerifyResult

DEFAULT_TIMEOUT = 90.0
"""Seconds the child may go without reporting progress; covers a cold torch import."""
CHILD = Path(__file__).with_name("child.py")
_STDERR_KEEP = 400
"""Lines of stderr kept for matching and the tail."""
_KILL_GRACE = 2.0

OnStage = Callable[[StageEvent], None]


def _resolve_python(python: str | os.PathLike[str]) -> str:
    text = os.fspath(python)
    found = shutil.which(text) if os.sep not in text else os.path.abspath(text)
    if not found or not os.path.isfile(found):
        raise InputError(
            f"no interpreter at {text}", hint="pass --python PATH to a python with torch"
        )
    if not os.access(found, os.X_OK):
        raise InputError(
            f"{found} is not executable", hint="pass --python PATH to a python with torch"
        )
    return found


def _check_args(device: str, timeout: float) -> None:
    if device not in ("all", "cpu") and not device.isdigit():
        raise InputError(f"--device must be a GPU index or 'all', not {device!r}")
    if not timeout > 0:
        raise InputError(f"--timeout must be a positive number of seconds, not {timeout}")


def _pump_lines(stream: IO[str], sink: Callable[[str | None], None]) -> None:
    try:
        for line in stream:
            sink(line.rstrip("\n"))
    except (OSError, ValueError):
        pass  # the pipe was closed under us while killing the child
    finally:
        sink(None)


def _start_reader(stream: IO[str], sink: Callable[[str | None], None]) -> threading.Thread:
    thread = threading.Thread(target=_pump_lines, args=(stream, sink), daemon=True)
    thread.start()
    return thread


def _kill_group(proc: subprocess.Popen[str], dump_first: bool) -> bool:
    """Kill the child and its helpers; returns False if it would not die (stuck in the driver)."""
    if dump_first and proc.poll() is None and hasattr(signal, "SIGUSR1"):
        # The child registered faulthandler on SIGUSR1: ask where it hangs before killing it.
        try:
            os.kill(proc.pid, signal.SIGUSR1)
            proc.wait(timeout=0.3)
        except (OSError, subprocess.TimeoutExpired):
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=_KILL_GRACE)
    except subprocess.TimeoutExpired:
        return False
    return True


def _command(python: str, device: str, timeout: float, options: dict[str, Any]) -> list[str]:
    cmd = [python, "-u", "-X", "faulthandler", str(CHILD), "--timeout", f"{timeout:g}"]
    if device == "cpu":
        cmd += ["--cpu", "--ranks", str(int(options.get("ranks", 0)))]
    else:
        cmd += ["--device", device, "--size", str(int(options.get("size", 8192)))]
    return cmd


def _child_env(changes: Mapping[str, str | None] | None) -> dict[str, str] | None:
    if not changes:
        return None
    merged = dict(os.environ)
    for name, value in changes.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


def run_verify(
    python: str | os.PathLike[str] = sys.executable,
    timeout: float = DEFAULT_TIMEOUT,
    device: str = "0",
    on_stage: OnStage | None = None,
    env: Mapping[str, str | None] | None = None,
    **options: Any,
) -> VerifyResult:
    """Run the staged GPU test in a child of ``python`` and report what happened.

    Args:
        python: Interpreter whose torch is tested (it needs torch, not rocmfix).
        timeout: Seconds the child may go without finishing a stage before it
            is declared hung and killed.
        device: A GPU index (``"0"``), ``"all"``, or ``"cpu"`` to rehearse every
            stage on the CPU (used by tests; proves the interpreter, not a GPU).
        on_stage: Called with a ``StageEvent`` as each stage completes, from
            the calling thread (safe to call run_verify in a worker thread).
        env: Changes to the child's environment on top of this process's
            (``None`` removes a variable), e.g. what a just-applied set-env fix
            wrote to a startup file that this process never read.
        **options: ``size`` (largest timed matmul, default 8192) and ``ranks``
            (CPU rehearsal only: number of gloo all-reduce ranks).

    Returns:
        A VerifyResult; ``ok`` is False with a ``failure`` for every problem
        the child had, including crashes and hangs.

    Raises:
        InputError: ``python`` is not an executable file, or bad arguments.
    """
    device = str(device)
    _check_args(device, timeout)
    exe = _resolve_python(python)
    started = time.perf_counter()
    acc = Accumulator(python=exe, on_stage=on_stage)
    lines: queue.Queue[str | None] = queue.Queue()
    stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_KEEP)
    try:
        proc = subprocess.Popen(
            _command(exe, device, timeout, options),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
            env=_child_env(env),
        )
    except OSError as err:
        raise InputError(f"cannot run {exe}: {err.strerror or err}") from None
    assert proc.stdout is not None and proc.stderr is not None  # both are PIPE above
    _start_reader(proc.stdout, lines.put)
    err_thread = _start_reader(proc.stderr, lambda ln: ln is not None and stderr.append(ln))
    hung, killed = False, True
    try:
        hung = _read_protocol(lines, acc, timeout)
        if not hung:
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                hung = True
    finally:
        killed = _kill_group(proc, dump_first=hung)
        err_thread.join(timeout=1.0)
    return acc.finish(
        returncode=proc.returncode,
        hung=hung,
        killed=killed,
        timeout=timeout,
        stderr_lines=list(stderr),
        elapsed=time.perf_counter() - started,
    )


def _read_protocol(lines: queue.Queue[str | None], acc: Accumulator, timeout: float) -> bool:
    """Feed protocol lines to ``acc`` until EOF; True when the child went silent too long."""
    while True:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            return True
        if line is None:
            return False
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            acc.feed(event)
        else:
            acc.garbage(line)
