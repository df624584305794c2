"""Where a fix would run: home, user, root or not, container, WSL, GPUs.

Actions plan against this frozen snapshot instead of reading the machine
themselves, so tests build a Context by hand and never touch the real system.
``detect()`` prefers the doctor's probes (``rocmfix.probes``) and falls back
to a minimal read of the KFD topology and container/WSL markers while those
probes are not importable.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_KFD_NODES = Path("/sys/class/kfd/kfd/topology/nodes")


@dataclass(frozen=True)
class GpuInfo:
    """One GPU as HIP numbers it (``index``), with what hide-igpu needs."""

    index: int
    gfx: str
    name: str
    integrated: bool


@dataclass(frozen=True)
class Context:
    """The machine and user a plan is made for."""

    home: Path
    env: Mapping[str, str]
    user: str
    is_root: bool
    container: str | None = None
    """docker | podman | other container kind, or None on a host."""
    wsl: bool = False
    gpus: tuple[GpuInfo, ...] | None = None
    """GPUs in HIP order; None when they could not be listed."""
    python: str = sys.executable
    """Interpreter whose torch the fixes target."""

    @property
    def state_dir(self) -> Path:
        return state_dir(self.env, self.home)


def state_dir(env: Mapping[str, str], home: Path) -> Path:
    """``$XDG_STATE_HOME/rocmfix`` (default ``~/.local/state/rocmfix``)."""
    base = env.get("XDG_STATE_HOME") or str(home / ".local" / "state")
    return Path(base) / "rocmfix"


def current_user(env: Mapping[str, str]) -> str:
    """The person to fix things for: the sudo caller when run through sudo."""
    return env.get("SUDO_USER") or env.get("USER") or env.get("LOGNAME") or getpass.getuser()


def detect(where: str = "auto", python: str | None = None) -> Context:
    """Context of this process; ``where`` overrides the detected place (host/docker/podman/wsl)."""
    env = dict(os.environ)
    container, wsl = _place(where)
    return Context(
        home=Path(env.get("HOME") or Path.home()),
        env=env,
        user=current_user(env),
        is_root=os.geteuid() == 0,
        container=container,
        wsl=wsl,
        gpus=read_gpus(),
        python=python or sys.executable,
    )


def _place(where: str) -> tuple[str | None, bool]:
    if where == "host":
        return None, False
    if where == "wsl":
        return None, True
    if where in ("docker", "podman"):
        return where, False
    try:
        from rocmfix.host import LocalHost
        from rocmfix.probes.system import container_kind, is_wsl

        host = LocalHost()
        return container_kind(host), bool(is_wsl(host))
    except ImportError:
        return _fallback_container(), _fallback_wsl()


def _fallback_container() -> str | None:
    if Path("/run/.containerenv").exists():
        return "podman"
    if Path("/.dockerenv").exists():
        return "docker"
    return None


def _fallback_wsl() -> bool:
    try:
        release = Path("/proc/sys/kernel/osrelease").read_text().lower()
    except OSError:
        release = ""
    return "microsoft" in release or (Path("/dev/dxg").exists() and not Path("/dev/kfd").exists())


def read_gpus() -> tuple[GpuInfo, ...] | None:
    """GPUs in HIP order, or None when the topology cannot be read."""
    try:
        from rocmfix.host import LocalHost
        from rocmfix.probes.gpus import read_gpus as probe_gpus
    except ImportError:
        return _fallback_gpus(_KFD_NODES)
    try:
        found = probe_gpus(LocalHost())
    except Exception:  # noqa: BLE001 - a broken probe must not stop a fix; treat as unknown
        return None
    return tuple(
        GpuInfo(i, str(g.gfx), str(g.name), bool(g.integrated)) for i, g in enumerate(found)
    )


def _fallback_gpus(nodes: Path) -> tuple[GpuInfo, ...] | None:
    """Minimal KFD topology read: nodes with SIMDs are GPUs, in node order."""
    from rocmfix import facts

    if not nodes.is_dir():
        return None
    out: list[GpuInfo] = []
    for node in sorted(nodes.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0):
        props = _properties(node / "properties")
        if props.get("simd_count", 0) <= 0:
            continue
        gfx = facts.gfx_from_target_version(props.get("gfx_target_version", 0)) or "unknown"
        info = facts.gfx_info(gfx)
        out.append(
            GpuInfo(
                len(out),
                gfx,
                info.products[0] if info and info.products else gfx,
                bool(info and info.integrated),
            )
        )
    return tuple(out)


def _properties(path: Path) -> dict[str, int]:
    try:
        text = path.read_text()
    except OSError:
        return {}
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().isdigit():
            out[key] = int(value)
    return out


def read_command(argv: tuple[str, ...], timeout: float = 15.0) -> tuple[int, str] | None:
    """Run a read-only command for planning: (exit status, stdout), or None if it cannot run."""
    from rocmfix import children

    try:
        done = children.run(argv, timeout)
    except OSError:
        return None
    if done.timed_out or done.returncode is None:
        return None
    return done.returncode, done.stdout.decode("utf-8", "replace")
