"""Doctor checks: small independent diagnostics of a machine, run concurrently.

Public API (stable; the TUI and ``rocmfix explain --check`` use it):

- ``CHECKS``: registry of checks keyed by the ids in docs/checks.md.
- ``run_checks(host, ids=None, python=sys.executable, timeout=10.0, on_result=None)``.
- ``CheckResult``, ``Status``, ``Evidence``: what a check returns.
- ``to_json(results)``: the ``rocmfix.doctor/1`` object; ``summarize``, ``exit_code``.

Importing this package registers every check (one module per area).
"""

from __future__ import annotations

from rocmfix.probes import access, driver, env, gpus, install, mathlibs, system, torch_build  # noqa: F401 - register
from rocmfix.probes.base import CHECKS, Check, CheckResult, Context, Evidence, Status
from rocmfix.probes.report import SCHEMA, exit_code, root_causes, summarize, to_json
from rocmfix.probes.runner import run_checks

# Registry order is display order: the order of docs/checks.md, platform first.
ORDER = (
    "os-info",
    "wsl",
    "container",
    "amdgpu-module",
    "dkms-status",
    "kernel-log",
    "kernel-params",
    "secure-boot",
    "gpu-list",
    "integrated-gpu",
    "pcie-link",
    "device-nodes",
    "user-groups",
    "rocm-install",
    "rocminfo",
    "rocm-libraries",
    "env-hsa-override",
    "env-visible-devices",
    "env-other",
    "torch-build",
    "gpu-arch-vs-torch",
    "torch-rocm-vs-system",
    "math-libs-for-gfx",
    "miopen-cache",
    "gpu-manager",
    "shm-size",
    "memory",
    "kfd-processes",
    "python-version",
    "amdsmi-bindings",
    "compiler-headers",
    "triton",
)
_registered = dict(CHECKS)
CHECKS.clear()
CHECKS.update({k: _registered[k] for k in ORDER if k in _registered})
CHECKS.update({k: v for k, v in _registered.items() if k not in CHECKS})

__all__ = [
    "CHECKS",
    "SCHEMA",
    "Check",
    "CheckResult",
    "Context",
    "Evidence",
    "Status",
    "exit_code",
    "root_causes",
    "run_checks",
    "summarize",
    "to_json",
]
