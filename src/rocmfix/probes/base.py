"""The shapes every doctor check shares: statuses, results, context, registry.

A check is a plain function ``check(ctx) -> CheckResult`` registered under an
id from docs/checks.md. Checks are independent: each reads what it needs
through ``ctx`` (a Host plus a few shared, computed-once readings such as the
GPU list and the torch probe), so they can run concurrently and be tested
alone against a snapshot.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rocmfix.host import CommandResult, Host
from rocmfix.termtext import plain

if TYPE_CHECKING:
    from rocmfix.probes.gpus import Gpu
    from rocmfix.torch_probe import TorchProbe

T = TypeVar("T")


class _LazyFacts:
    """``rocmfix.facts`` loaded on first use: parsing its YAML costs ~35 ms, which a
    machine without an AMD GPU never needs (``--no-torch`` must start fast)."""

    def __getattr__(self, name: str) -> Any:
        from rocmfix import facts as real

        return getattr(real, name)


facts: Any = _LazyFacts()


class Status(enum.Enum):
    """Outcome of one check, worst last."""

    OK = "ok"
    """Nothing wrong found."""
    SKIP = "skip"
    """Not applicable here, or what it needs cannot be read."""
    WARN = "warn"
    """Suspicious, or wrong in a way that may not matter."""
    ERROR = "error"
    """The check itself crashed or timed out; says nothing about the machine."""
    FAIL = "fail"
    """A real problem that stops PyTorch from using the GPU."""

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Status.OK: 0, Status.SKIP: 0, Status.WARN: 1, Status.ERROR: 1, Status.FAIL: 2}


@dataclass(frozen=True)
class Evidence:
    """One thing a check read: a file and its value, a command and its output line."""

    source: str
    value: str

    def __post_init__(self) -> None:
        # Values come from this machine or a snapshot (a kernel log line names a USB
        # device, any user names their own process): no terminal control in them.
        object.__setattr__(self, "source", plain(self.source))
        object.__setattr__(self, "value", plain(self.value))


@dataclass(frozen=True)
class CheckResult:
    """What one check found."""

    id: str
    title: str
    status: Status
    summary: str
    """One line, shown in the checklist."""
    details: str = ""
    """Longer explanation, shown with ``-v``."""
    evidence: tuple[Evidence, ...] = ()
    kb_ids: tuple[str, ...] = ()
    """Knowledge-base ids this result confirms (root causes present on this machine)."""
    ruled_out: tuple[str, ...] = ()
    """Knowledge-base ids this result rules out."""
    fix: str = ""
    """Suggested next step, one or two sentences; empty when nothing to do."""
    duration: float = 0.0

    def __post_init__(self) -> None:
        for name in ("summary", "details", "fix"):  # see Evidence
            object.__setattr__(self, name, plain(getattr(self, name)))


@dataclass
class Context:
    """What a check may use: the host and readings shared between checks.

    Shared readings are computed once, on first use, under a lock, so two
    checks asking for the GPU list at the same time read sysfs once.
    """

    host: Host
    python: str
    timeout: float = 10.0
    """Seconds allowed to each external command."""
    torch_timeout: float = 60.0
    want_torch: bool = True
    """False with ``--no-torch``: torch-dependent checks report skip."""
    torch_future: Future[TorchProbe] | None = None
    _cache: dict[str, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _key_locks: dict[str, threading.Lock] = field(default_factory=dict)

    def once(self, key: str, compute: Callable[[], T]) -> T:
        """Return the cached value for ``key``, computing it the first time."""
        with self._lock:
            lock = self._key_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._cache:
                self._cache[key] = compute()
            return self._cache[key]  # type: ignore[no-any-return]  # stored by this method only

    def gpus(self) -> tuple[Gpu, ...]:
        from rocmfix.probes.gpus import read_gpus

        return self.once("gpus", lambda: read_gpus(self.host))

    def torch(self) -> TorchProbe | None:
        """The torch probe result (waits for the child), or None with --no-torch."""
        if not self.want_torch:
            return None
        if self.torch_future is not None:
            return self.torch_future.result()
        return self.once("torch", lambda: self.host.torch_probe(self.python, self.torch_timeout))

    def rocminfo(self) -> CommandResult:
        from rocmfix.probes.install import run_rocminfo

        return self.once("rocminfo", lambda: run_rocminfo(self))

    def env(self, name: str) -> str | None:
        return self.host.env.get(name)


CheckFn = Callable[[Context], CheckResult]


@dataclass(frozen=True)
class Check:
    """A registered check: its id, title and function."""

    id: str
    title: str
    fn: CheckFn
    needs_torch: bool = False


CHECKS: dict[str, Check] = {}
"""Registry of every check, keyed by the ids documented in docs/checks.md."""


def check(check_id: str, title: str, *, needs_torch: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Register a check function under ``check_id``."""

    def register(fn: CheckFn) -> CheckFn:
        if check_id in CHECKS:
            raise ValueError(f"duplicate check id {check_id}")
        CHECKS[check_id] = Check(check_id, title, fn, needs_torch)
        return fn

    return register


def result(
    check_id: str,
    status: Status,
    summary: str,
    *,
    details: str = "",
    evidence: list[Evidence] | tuple[Evidence, ...] = (),
    kb: tuple[str, ...] | list[str] = (),
    ruled_out: tuple[str, ...] | list[str] = (),
    fix: str = "",
) -> CheckResult:
    """Build a CheckResult for a registered check (the title comes from the registry)."""
    return CheckResult(
        id=check_id,
        title=CHECKS[check_id].title,
        status=status,
        summary=summary,
        details=details,
        evidence=tuple(evidence),
        kb_ids=tuple(dict.fromkeys(kb)),
        ruled_out=tuple(dict.fromkeys(ruled_out)),
        fix=fix,
    )


def ev(source: str, value: object) -> Evidence:
    """Evidence with the value flattened to one trimmed line."""
    text = " ".join(str(value).split())
    return Evidence(source, text[:300])


def human_bytes(n: int | float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
