"""Which machine and which interpreter a command looks at.

`doctor`, `report` and `explain --check` all read either this machine or a
snapshot from `rocmfix collect`, and probe the torch of `--python` (default:
the interpreter running rocmfix; for a snapshot, the one it recorded).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rocmfix.errors import InputError


def python_path(path: str | None) -> str:
    """``path`` if it is an executable file; this interpreter when None.

    Raises:
        InputError: the path is not an executable file.
    """
    if path is None:
        return sys.executable
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise InputError(
            f"--python {path}: not an executable file",
            hint="give the path of your training env's python",
        )
    return path


def pick_target(snapshot: str | None, python: str | None) -> tuple[Any, str]:
    """``(host, python)``: a SnapshotHost for ``snapshot``, else this machine."""
    if snapshot:
        from rocmfix.snapshot import SnapshotHost

        host = SnapshotHost(snapshot)
        return host, python or host.python
    from rocmfix.host import LocalHost

    return LocalHost(), python_path(python)
