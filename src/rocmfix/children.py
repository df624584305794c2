"""Run a child with a deadline, bounded output and nothing left behind.

``subprocess.communicate`` keeps every byte a child prints (a probe writing
3 GB costs 3 GB) and, after a kill, waits without limit for the pipes to
close, which a grandchild that called ``setsid`` may hold forever. Here the
parent reads both pipes itself: it keeps at most ``max_output`` bytes of each
(the head, plus the last ``tail`` bytes, where a result line usually is),
stops at the deadline, and then ends every process it can tie to the child:
its process group, its session, any process still holding one of its
pipes, and any process whose environment carries the run's tag (which is how
a double-forked, ``setsid`` grandchild that closed its output is found).
"""

from __future__ import annotations

import contextlib
import errno
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

OUTPUT_LIMIT = 8 * 1024 * 1024
TAIL = 256 * 1024
RUN_TAG = "ROCMFIX_CHILD_RUN"
"""Environment variable marking every process one :func:`run` started, to find strays."""
GRACE_S = 0.5
"""After the child exits, how long its pipes may stay open (a grandchild holding them)."""


@dataclass
class _Sink:
    limit: int
    tail_limit: int
    head: bytearray
    tail: bytearray
    dropped: int = 0

    def add(self, data: bytes) -> None:
        room = self.limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.dropped += len(data)
            self.tail += data
            if len(self.tail) > self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    def value(self) -> bytes:
        if not self.dropped:
            return bytes(self.head)
        cut = self.dropped - len(self.tail)
        note = f"\n[... {cut} bytes of output not kept ...]\n".encode() if cut > 0 else b""
        return bytes(self.head) + note + bytes(self.tail)


@dataclass(frozen=True)
class Finished:
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool


def run(
    argv: Sequence[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
    max_output: int = OUTPUT_LIMIT,
) -> Finished:
    """Run ``argv`` (no shell, stdin from /dev/null) in a new session. OSError if it cannot start."""
    if _STOPPING:
        raise OSError(errno.EINTR, "interrupted")
    tag = os.urandom(8).hex()
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**(os.environ if env is None else env), RUN_TAG: tag},
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    sinks = {
        proc.stdout.fileno(): _Sink(max_output, TAIL, bytearray(), bytearray()),
        proc.stderr.fileno(): _Sink(max_output, TAIL, bytearray(), bytearray()),
    }
    pipes = _pipe_ids(list(sinks))
    _LIVE[proc.pid] = (proc, pipes, tag)
    deadline = time.monotonic() + timeout
    exited_at: float | None = None
    timed_out = False
    sel = selectors.DefaultSelector()
    for fd in sinks:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    try:
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if now >= deadline:
                timed_out = proc.poll() is None
                break
            if exited_at is not None and now - exited_at > GRACE_S:
                break  # the child is gone; whoever still holds its pipes is reaped below
            wait = min(deadline - now, 0.1 if exited_at is None else GRACE_S)
            for key, _ in sel.select(max(wait, 0.0)):
                try:
                    data = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    sinks[key.fd].add(data)
                else:
                    sel.unregister(key.fd)
    finally:
        still_open = bool(sel.get_map())
        sel.close()
        reap(proc, pipes, scan=timed_out or still_open, tag=tag)
        _LIVE.pop(proc.pid, None)
        for stream in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()
    code = None if timed_out else proc.returncode
    out, err = (s.value() for s in sinks.values())
    return Finished(code, out, err, timed_out)


_LIVE: dict[int, tuple[subprocess.Popen[bytes], set[str], str]] = {}
"""Children :func:`run` is waiting on right now (in any thread), by pid."""
_STOPPING = False


def stop_all() -> None:
    """End every child :func:`run` still waits on, and refuse new ones (Ctrl-C).

    The children live in sessions of their own, so the terminal's SIGINT never
    reaches them; without this the threads waiting on them (the doctor's torch
    probe) would hold the exit until their timeouts.
    """
    global _STOPPING
    _STOPPING = True
    end_live()


@contextlib.contextmanager
def tracked(proc: subprocess.Popen[bytes], tag: str) -> Iterator[None]:
    """While the caller waits on ``proc`` (started elsewhere, in a session of its own,
    with ``RUN_TAG=tag``), :func:`end_live` ends it as it ends :func:`run`'s children:
    its group, its session, whoever holds its pipes and whatever carries its tag.

    An orphan that kept the child's stdout left the verify runner waiting for EOF
    until its stall timeout, and quitting the app with it.
    """
    pipes = _pipe_ids([s.fileno() for s in (proc.stdout, proc.stderr) if s is not None])
    _LIVE[proc.pid] = (proc, pipes, tag)
    try:
        yield
    finally:
        _LIVE.pop(proc.pid, None)


def end_live() -> None:
    """Kill every child :func:`run` is waiting on now, with all it left behind (quitting the app)."""
    for proc, pipes, tag in list(_LIVE.values()):
        reap(proc, pipes, scan=True, tag=tag)


def _pipe_ids(fds: list[int]) -> set[str]:
    out = set()
    for fd in fds:
        with contextlib.suppress(OSError):
            st = os.fstat(fd)
            out.add(f"pipe:[{st.st_ino}]")
    return out


def reap(
    proc: subprocess.Popen[bytes], pipes: set[str], scan: bool = True, tag: str | None = None
) -> None:
    """Kill ``proc``'s group and, with ``scan``, its session and whoever holds ``pipes``.

    With ``tag``, also every process whose environment carries ``RUN_TAG=tag``: a
    helper that left the session and closed its output inherited that much.
    """
    pid = proc.pid
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
    else:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # the group may outlive its leader
    others = _session_and_holders(pid, pipes) if scan else []
    others += tagged(RUN_TAG, tag) if tag else []
    for other in dict.fromkeys(others):
        with contextlib.suppress(OSError):
            os.kill(other, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def tagged(name: str, tag: str) -> list[int]:
    """Pids of this user's processes whose environment holds ``name=tag``.

    A helper that called setsid() or double-forked has left the child's process
    group and tree, but it inherited the environment. Reads /proc (a few ms);
    elsewhere there is nothing to scan.
    """
    needle = f"\0{name}={tag}\0".encode()
    found = []
    for pid in other_pids():
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if needle in b"\0" + fh.read() + b"\0":
                    found.append(pid)
        except OSError:
            continue
    return found


def other_pids() -> list[int]:
    """Every pid in /proc except this process's own (empty where there is no /proc)."""
    me = os.getpid()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [int(n) for n in names if n.isdigit() and int(n) != me]


def _session_and_holders(sid: int, pipes: set[str]) -> list[int]:
    """Our own processes in session ``sid``, or with an fd on one of ``pipes``."""
    uid = os.getuid()
    found = []
    for pid in other_pids():
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            if os.getsid(pid) == sid:
                found.append(pid)
                continue
            if pipes and _holds(pid, pipes):
                found.append(pid)
        except OSError:
            continue
    return found


def _holds(pid: int, pipes: set[str]) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") in pipes:
                return True
    return False
