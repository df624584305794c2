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
