"""The doctor's view of the compatibility model: this machine as ``compat.Machine``.

Checks that give install or override advice (torch-build, gpu-arch-vs-torch,
env-hsa-override, rocminfo) ask here instead of reading the wheel tables
themselves, so every place advises the same plan. Not a check module.
"""

from __future__ import annotations

import re

from rocmfix import compat
from rocmfix.probes.base import Context


def machine(ctx: Context, with_torch: bool = True) -> compat.Machine:
    """Every GPU (with KFD node and HIP order), the probed torch, Python, platform, ROCm."""

    def build() -> compat.Machine:
        from rocmfix.probes.install import system_rocm_version
        from rocmfix.probes.system import container_kind, is_wsl

        gpus = tuple(
            compat.Gpu(g.gfx, g.integrated, g.node, i, g.name) for i, g in enumerate(ctx.gpus())
        )
        probe = ctx.torch() if with_torch else None
        version = arch = python = None
        if probe is not None:
            python = probe.python_version
            if probe.version and probe.flavour in ("rocm", "cuda", "cpu"):
                version, arch = probe.version, tuple(probe.arch_list)
        platform = (
            "wsl" if is_wsl(ctx.host) else ("container" if container_kind(ctx.host) else "linux")
        )
        return compat.machine_of(
            gpus,
            torch_version=version,
            arch_list=arch,
            python=python,
            platform=platform,
            system_rocm=system_rocm_version(ctx.host),
            interpreter=probe.python if probe is not None else "python",
        )

    return ctx.once(f"compat-machine-{with_torch}", build)


def plan(ctx: Context) -> compat.Plan:
    return ctx.once("compat-plan", lambda: compat.plan(machine(ctx)))


def install_advice(ctx: Context) -> str:
    """One or two sentences: what to install here, from the plan (never a placeholder)."""
    p = plan(ctx)
    if p.verdict in ("no-amd-gpu", "unknown"):
        return f"{p.summary[:1].upper()}{p.summary[1:]}. {' '.join(p.notes)}"
    if not p.index:
        return f"{p.summary}. See `rocmfix install-plan`."
    if p.keep:
        return f"{p.summary} (`rocmfix install-plan` explains why)."
    return (
        f"Install torch, torchvision and torchaudio from the {p.index} index"
        f" (`rocmfix fix reinstall-torch`, or by hand: pip install '{p.torch_spec}'"
        f" torchvision torchaudio --index-url {p.index_url}); `rocmfix install-plan` shows why."
    )


def override_for_node(ctx: Context, node: int) -> tuple[str | None, str | None]:
    """(variable name, value) of the override that applies to KFD node ``node``, if any.

    libhsakmt reads HSA_OVERRIDE_GFX_VERSION_<node> before the global variable.
    """
    name = f"HSA_OVERRIDE_GFX_VERSION_{node}"
    value = ctx.env(name)
    if value is not None:
        return name, value
    value = ctx.env("HSA_OVERRIDE_GFX_VERSION")
    return ("HSA_OVERRIDE_GFX_VERSION", value) if value is not None else (None, None)


def runs_as(ctx: Context, node: int, physical: str) -> str:
    """The gfx the runtime uses for the GPU at ``node`` (override when valid, else physical)."""
    _, value = override_for_node(ctx, node)
    return (compat.facts.override_to_gfx(value) if value else None) or physical


def major(gfx: str) -> str:
    m = re.match(r"gfx(\d+?)([0-9a-f]{2})$", gfx)
    return m.group(1) if m else gfx
