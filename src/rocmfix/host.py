"""One interface to everything the doctor reads from a machine.

Checks never touch ``os``, ``subprocess`` or ``/proc`` themselves; they ask a
:class:`Host`. :class:`LocalHost` answers from the live system, and
``rocmfix.snapshot.SnapshotHost`` answers from a recorded snapshot, which is
how users share a broken machine and how the tests run without a GPU. Every
command runs with a timeout and is killed when it overruns, because rocminfo
can hang forever on a wedged GPU.
"""

from __future__ import annotations

import errno as errno_mod
import grp
import os
import pwd
import shutil
import stat as stat_mod
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rocmfix.torch_probe import TorchProbe

_READ_LIMIT = 4 * 1024 * 1024
DEFAULT_TIMEOUT = 10.0
"""Seconds an external command may run before it is killed."""


@dataclass(frozen=True)
class CommandResult:
    """What one external command did."""

    returncode: int | None
    """Exit status; None when the command did not run or was killed on timeout."""
    stdout: str
    stderr: str
    timed_out: bool = False
    """True when the command overran its timeout and was killed."""
    missing: bool = False
    """True when the executable was not found."""
    unrecorded: bool = False
    """True when a snapshot has no record of this command (``missing`` is then True too):
    nothing is known about it, which is not the same as "not installed"."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.missing


@dataclass(frozen=True)
class StatInfo:
    """The parts of ``os.stat`` the checks use, with owner names resolved."""

    mode: int
    uid: int
    gid: int
    size: int
    owner: str
    group: str

    @property
    def is_dir(self) -> bool:
        return stat_mod.S_ISDIR(self.mode)

    @property
    def is_char_device(self) -> bool:
        return stat_mod.S_ISCHR(self.mode)

    @property
    def permissions(self) -> str:
        """``crw-rw----`` style text, as ``ls -l`` prints it."""
        return stat_mod.filemode(self.mode)


PERMISSION_ERRNOS = frozenset({"EACCES", "EPERM"})
UNRECORDED = "unrecorded"
"""``OpenResult.errno`` of a snapshot that never tried to open the path."""


@dataclass(frozen=True)
class OpenResult:
    """Whether a path opened read-write, and the errno name when it did not.

    The errno tells apart a permission problem (EACCES/EPERM: groups, ACLs, a
    container's device cgroup) from a driver that has no device behind the
    node (ENOMEM/ENODEV/ENXIO: KFD rejected the GPU) and a missing node (ENOENT).
    """

    ok: bool
    errno: str | None = None
    """errno name (``EACCES``), None when it opened or the error was not recorded,
    ``UNRECORDED`` when a snapshot holds no answer for the path."""

    @property
    def permission(self) -> bool:
        """Refused for lack of permission (the fix is groups or the container run line)."""
        return not self.ok and self.errno in PERMISSION_ERRNOS

    @property
    def known(self) -> bool:
        return self.errno != UNRECORDED

    def describe(self) -> str:
        if self.ok:
            return "yes"
        if self.errno == UNRECORDED:
            return "not recorded"
        if not self.errno:
            return "no"
        code = getattr(errno_mod, self.errno, None)
        return (
            f"no ({self.errno}: {os.strerror(code)})"
            if isinstance(code, int)
            else f"no ({self.errno})"
        )


def open_result_from_record(ok: object, errno: object = None) -> OpenResult:
    """A snapshot's ``rw`` entry (bool, or None when absent) and ``rw_errno`` entry -> OpenResult."""
    if ok is None:
        return OpenResult(False, UNRECORDED)
    return OpenResult(bool(ok), None if ok or not errno else str(errno))


@dataclass(frozen=True)
class MemoryInfo:
    """RAM and swap in bytes."""

    total: int
    available: int
    swap_total: int
    swap_used: int


@dataclass(frozen=True)
class ProcessInfo:
    """A process that holds a device open."""

    pid: int
    name: str
    user: str


class Host(Protocol):
    """What a check may read. Implementations: LocalHost, SnapshotHost."""

    env: Mapping[str, str]
    """Environment of the process being diagnosed."""
    user: str
    """Name of the running user."""
    uid: int
    groups: tuple[str, ...]
    """Group names of the running process (primary and supplementary)."""
    gids: tuple[int, ...]

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult: ...
    def read_text(self, path: str) -> str | None: ...
    def exists(self, path: str) -> bool: ...
    def listdir(self, path: str) -> tuple[str, ...]: ...
    def stat(self, path: str) -> StatInfo | None: ...
    def readlink(self, path: str) -> str | None: ...
    def can_open_rw(self, path: str) -> bool: ...
    def open_rw(self, path: str) -> OpenResult: ...
    def disk_total(self, path: str) -> int | None: ...
    def memory(self) -> MemoryInfo | None: ...
    def processes_holding(self, path: str) -> tuple[ProcessInfo, ...]: ...
    def torch_probe(self, python: str, timeout: float) -> TorchProbe: ...


def parse_meminfo(text: str) -> MemoryInfo | None:
    """``/proc/meminfo`` -> MemoryInfo (None when the fields are missing)."""
    kib: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            kib[key.strip()] = int(parts[0]) * 1024
    if "MemTotal" not in kib:
        return None
    avail = kib.get("MemAvailable", kib.get("MemFree", 0))
    swap = kib.get("SwapTotal", 0)
    return MemoryInfo(kib["MemTotal"], avail, swap, swap - kib.get("SwapFree", swap))


def run_command(
    argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None
) -> CommandResult:
    """Run ``argv`` without a shell, killing it (and its children) on timeout."""
    if not argv:
        raise ValueError("empty command")
    exe = (
        argv[0]
        if os.sep in argv[0]
        else shutil.which(argv[0], path=(env or os.environ).get("PATH"))
    )
    if exe is None or not os.path.exists(exe):
        return CommandResult(None, "", f"{argv[0]}: command not found", missing=True)
    from rocmfix import children

    try:
        done = children.run([exe, *argv[1:]], timeout, env=env)
    except OSError as exc:
        return CommandResult(None, "", f"{argv[0]}: {exc.strerror}", missing=True)
    return CommandResult(
        done.returncode, _text(done.stdout), _text(done.stderr), timed_out=done.timed_out
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        proc.kill()


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


class LocalHost:
    """The live system this process runs on."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        self.uid = os.getuid()
        self.user = _user_name(self.uid)
        gids = [os.getgid(), *os.getgroups()]
        self.gids = tuple(dict.fromkeys(gids))
        self.groups = tuple(_group_name(g) for g in self.gids)

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        return run_command(argv, timeout, env=self.env)

    def read_text(self, path: str) -> str | None:
        # Small reads: some procfs/sysfs handlers refuse large read sizes (ENOMEM).
        chunks: list[bytes] = []
        try:
            with open(path, "rb", buffering=0) as fh:
                while sum(map(len, chunks)) < _READ_LIMIT:
                    chunk = fh.read(4096)
                    if not chunk:
                        break
                    chunks.append(chunk)
        except OSError:
            return None
        return b"".join(chunks).decode("utf-8", errors="replace")

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def listdir(self, path: str) -> tuple[str, ...]:
        try:
            return tuple(sorted(os.listdir(path)))
        except OSError:
            return ()

    def stat(self, path: str) -> StatInfo | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return StatInfo(
            st.st_mode,
            st.st_uid,
            st.st_gid,
            st.st_size,
            _user_name(st.st_uid),
            _group_name(st.st_gid),
        )

    def readlink(self, path: str) -> str | None:
        try:
            return os.readlink(path)
        except OSError:
            return None

    def can_open_rw(self, path: str) -> bool:
        return self.open_rw(path).ok

    def open_rw(self, path: str) -> OpenResult:
        # Opening is the only honest test: ACLs, seccomp and container device
        # cgroups all decide access, and none of them show in the mode bits.
        # /dev/kfd answers ENOMEM/ENODEV when KFD has no device for the GPU.
        try:
            fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            name = errno_mod.errorcode.get(exc.errno or 0)
            return OpenResult(False, name)
        os.close(fd)
        return OpenResult(True)

    def disk_total(self, path: str) -> int | None:
        try:
            st = os.statvfs(path)
        except OSError:
            return None
        return st.f_blocks * st.f_frsize

    def memory(self) -> MemoryInfo | None:
        info = parse_meminfo(self.read_text("/proc/meminfo") or "")
        if info is not None:
            return info
        import psutil  # fallback only: importing it costs start-up time --no-torch cannot spare

        vm, sw = psutil.virtual_memory(), psutil.swap_memory()
        return MemoryInfo(vm.total, vm.available, sw.total, sw.used)

    def processes_holding(self, path: str) -> tuple[ProcessInfo, ...]:
        found: list[ProcessInfo] = []
        for pid in (p for p in self.listdir("/proc") if p.isdigit()):
            fd_dir = f"/proc/{pid}/fd"
            if any(self.readlink(f"{fd_dir}/{fd}") == path for fd in self.listdir(fd_dir)):
                st = self.stat(f"/proc/{pid}")
                name = (self.read_text(f"/proc/{pid}/comm") or "?").strip()
                found.append(ProcessInfo(int(pid), name, st.owner if st else "?"))
        return tuple(found)

    def torch_probe(self, python: str, timeout: float) -> TorchProbe:
        from rocmfix.torch_probe import probe_torch

        return probe_torch(python, timeout)
