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
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from rocmfix.errors import InputError
from rocmfix.verify.accumulate import Accumulator
from rocmfix.verify.model import DEFAULT_LEVEL, LEVELS, StageEvent, VerifyResult

DEFAULT_TIMEOUT = 90.0
"""Seconds the child may go without reporting progress; covers a cold torch import."""
CHILD = Path(__file__).with_name("child.py")
_STDERR_KEEP = 400
"""Lines of stderr kept for matching and the tail."""
_KILL_GRACE = 2.0
_PROTOCOL_LINE_MAX = 1 << 20
"""Bytes of one stdout line kept; the rest of a longer line is read and dropped."""
_STDERR_LINE_MAX = 16 << 10
"""Bytes of one stderr line kept (a 1.5 GB progress bar costs 16 KiB, not 4 GB)."""
RUN_TAG = "ROCMFIX_VERIFY_RUN"
"""Environment variable marking every process of one run, to find those that left its session."""

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


def _check_args(device: str, timeout: float, level: str, deadline: float | None) -> None:
    if device not in ("all", "cpu") and not device.isdigit():
        raise InputError(f"--device must be a GPU index or 'all', not {device!r}")
    if not timeout > 0:
        raise InputError(f"--timeout must be a positive number of seconds, not {timeout}")
    if level not in LEVELS:
        raise InputError(f"--level must be one of {', '.join(LEVELS)}, not {level!r}")
    if deadline is not None and not deadline > 0:
        raise InputError(f"--deadline must be a positive number of seconds, not {deadline}")


def _pump_lines(stream: IO[bytes], sink: Callable[[str | None], None], limit: int) -> None:
    """Read lines of at most ``limit`` bytes; the rest of a longer line is skipped unread."""
    try:
        while True:
            piece = stream.readline(limit)
            if not piece:
                break
            if not piece.endswith(b"\n"):
                rest = piece
                while rest and not rest.endswith(b"\n"):
                    rest = stream.readline(limit)
            sink(piece.rstrip(b"\r\n").decode("utf-8", "replace"))
    except (OSError, ValueError):
        pass  # the pipe was closed under us while killing the child
    finally:
        sink(None)


def _start_reader(
    stream: IO[bytes], sink: Callable[[str | None], None], limit: int
) -> threading.Thread:
    thread = threading.Thread(target=_pump_lines, args=(stream, sink, limit), daemon=True)
    thread.start()
    return thread


def _descendants(pid: int) -> list[int]:
    """Pids of the child's process tree while it is alive (only needed when it hangs)."""
    import psutil  # imported here: a passing run never pays for it

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _tagged(tag: str) -> list[int]:
    """Pids of this user's processes whose environment carries this run's tag.

    A helper that called setsid() or double-forked has left the child's process
    group and tree, but it inherited the environment, so it is still found here.
    Reads /proc directly (a few ms); elsewhere there is nothing to scan.
    """
    from rocmfix.children import other_pids  # noqa: PLC0415 - only after a hang

    found = []
    needle = f"{RUN_TAG}={tag}\0".encode()
    for pid in other_pids():
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if needle in fh.read() + b"\0":
                    found.append(pid)
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _reap_strays(tag: str, tree: list[int]) -> list[int]:
    """Kill what is left of the run outside its process group; returns their pids."""
    killed = []
    for pid in dict.fromkeys([*tree, *_tagged(tag)]):
        if not _alive(pid):
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    deadline = time.monotonic() + _KILL_GRACE
    while any(_alive(pid) for pid in killed) and time.monotonic() < deadline:
        time.sleep(0.02)
    return killed


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


def _command(
    python: str, device: str, timeout: float, level: str, options: dict[str, Any]
) -> list[str]:
    cmd = [python, "-u", "-X", "faulthandler", str(CHILD), "--timeout", f"{timeout:g}"]
    cmd += ["--level", level]
    for name in ("compile_timeout", "pg_timeout"):
        if options.get(name):
            cmd += ["--" + name.replace("_", "-"), f"{float(options[name]):g}"]
    if device == "cpu":
        cmd += ["--cpu", "--ranks", str(int(options.get("ranks", 0)))]
    else:
        cmd += ["--device", device, "--size", str(int(options.get("size", 8192)))]
    return cmd


def _child_env(changes: Mapping[str, str | None] | None, tag: str) -> dict[str, str]:
    merged = dict(os.environ)
    for name, value in (changes or {}).items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    merged[RUN_TAG] = tag
    return merged


def run_verify(
    python: str | os.PathLike[str] = sys.executable,
    timeout: float = DEFAULT_TIMEOUT,
    device: str = "0",
    on_stage: OnStage | None = None,
    env: Mapping[str, str | None] | None = None,
    level: str = DEFAULT_LEVEL,
    deadline: float | None = None,
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
        level: ``quick``, ``standard`` (default) or ``full`` (``LEVELS``).
        deadline: Seconds the whole run may take, however chatty the child is
            (default: ``timeout`` plus the level's budget).
        **options: ``size`` (largest timed matmul, default 8192),
            ``compile_timeout`` / ``pg_timeout`` (seconds for torch.compile's
            first call and for the process group, full level) and
            ``ranks`` (CPU rehearsal only: number of gloo all-reduce ranks).

    Returns:
        A VerifyResult; ``ok`` is False with a ``failure`` for every problem
        the child had, including crashes and hangs.

    Raises:
        InputError: ``python`` is not an executable file, or bad arguments.
    """
    device = str(device)
    _check_args(device, timeout, level, deadline)
    exe = _resolve_python(python)
    limit = deadline if deadline is not None else timeout + LEVELS[level].budget
    started = time.perf_counter()
    acc = Accumulator(
        python=exe,
        on_stage=on_stage,
        level=level,
        cpu=device == "cpu",
        ranks=int(options.get("ranks", 0)),
    )
    lines: queue.Queue[str | None] = queue.Queue()
    stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_KEEP)
    tag = uuid.uuid4().hex
    try:
        proc = subprocess.Popen(
            _command(exe, device, timeout, level, options),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=_child_env(env, tag),
        )
    except OSError as err:
        raise InputError(f"cannot run {exe}: {err.strerror or err}") from None
    assert proc.stdout is not None and proc.stderr is not None  # both are PIPE above
    _start_reader(proc.stdout, lines.put, _PROTOCOL_LINE_MAX)
    err_thread = _start_reader(
        proc.stderr, lambda ln: ln is not None and stderr.append(ln), _STDERR_LINE_MAX
    )
    hung: str | None = None
    killed = True
    end = time.monotonic() + limit
    from rocmfix import children  # noqa: PLC0415

    try:
        with children.tracked(proc, tag):  # quitting the app ends it at once
            hung = _read_protocol(lines, acc, timeout, end)
            if hung is None:
                try:
                    proc.wait(timeout=max(0.1, min(timeout, end - time.monotonic())))
                except subprocess.TimeoutExpired:
                    hung = "deadline" if time.monotonic() >= end else "stall"
    finally:
        tree = _descendants(proc.pid) if proc.poll() is None else []
        killed = _kill_group(proc, dump_first=hung is not None)
        strays = _reap_strays(tag, tree)
        err_thread.join(timeout=1.0)
    return acc.finish(
        returncode=proc.returncode,
        hung=hung is not None,
        killed=killed,
        timeout=timeout,
        stderr_lines=list(stderr),
        elapsed=time.perf_counter() - started,
        deadline=limit if hung == "deadline" else None,
        strays=strays,
    )


def _read_protocol(
    lines: queue.Queue[str | None], acc: Accumulator, timeout: float, end: float
) -> str | None:
    """Feed protocol lines to ``acc`` until EOF.

    Returns None at EOF, ``"stall"`` when the child went silent for ``timeout``
    seconds, ``"deadline"`` when the run outlived its overall deadline (a child
    that keeps printing but never finishes).
    """
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return "deadline"
        try:
            line = lines.get(timeout=min(timeout, left))
        except queue.Empty:
            return "deadline" if time.monotonic() >= end else "stall"
        if line is None:
            return None
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested past the limit
            event = None
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            acc.feed(event)
        else:
            acc.garbage(line)
