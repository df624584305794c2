"""Which machine and which interpreter a command looks at.

`doctor`, `report` and `explain --check` all read either this machine or a
snapshot from `rocmfix collect`, and probe the torch of `--python`. Without
it the target is the user's environment, not rocmfix's own: installed with
pipx or `uv tool`, rocmfix runs from a venv that has no torch while the
user's training venv is active. So the default is the active environment
(``$VIRTUAL_ENV``, then ``$CONDA_PREFIX``), then the ``python3`` on PATH when
it has torch, then the interpreter running rocmfix; for a snapshot, the one it
recorded. ``python_choice`` says which and why, so every command can print it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from rocmfix.errors import InputError

_LAST_WHY: dict[str, str] = {}
_OWN = "the interpreter running rocmfix (no active environment with torch)"
_HAS_TORCH = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('torch') else 3)"


def _env_python(prefix: str) -> str | None:
    for name in ("bin/python", "bin/python3"):
        cand = os.path.join(prefix, name)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def _torch_beside(python: str) -> bool:
    """torch in the site-packages of the prefix ``python`` lives in (no process started)."""
    import glob

    prefix = os.path.dirname(os.path.dirname(os.path.realpath(python)))
    pattern = os.path.join(prefix, "lib", "python3*", "*-packages", "torch", "__init__.py")
    return bool(glob.glob(pattern))


def _has_torch(python: str) -> bool:
    if _torch_beside(python):
        return True
    try:
        done = subprocess.run(
            [python, "-c", _HAS_TORCH],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def default_python(env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """``(interpreter, why)``: the user's active environment, else ``python3`` on PATH
    when it has torch, else the interpreter running rocmfix."""
    env = os.environ if env is None else env
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = env.get(var)
        found = _env_python(prefix) if prefix else None
        if found:
            return found, f"the active environment (${var})"
    on_path = shutil.which("python3", path=env.get("PATH"))
    if (
        on_path
        and os.path.realpath(on_path) != os.path.realpath(sys.executable)
        and _has_torch(on_path)
    ):
        return on_path, "python3 on PATH (it has torch)"
    return sys.executable, _OWN


class LazyPython:
    """The default target, decided inside the torch probe's thread.

    When the choice hinges on whether ``python3`` on PATH has torch, that interpreter
    and rocmfix's own are probed side by side and the first with torch (in that order)
    is kept: the probe itself answers the question, so the choice adds no wall time.
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = os.environ if env is None else env
        self._value: str | None = None

    def __call__(self) -> str:
        if self._value is None:
            self._value = python_path(None)
        return self._value

    def probe(self, host: Any, timeout: float) -> Any:
        from concurrent.futures import ThreadPoolExecutor

        env = self._env
        for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
            found = _env_python(env[var]) if env.get(var) else None
            if found:
                self._settle(found, f"the active environment (${var})")
                return host.torch_probe(found, timeout)
        on_path = shutil.which("python3", path=env.get("PATH"))
        own = sys.executable
        if not on_path or os.path.realpath(on_path) == os.path.realpath(own):
            self._settle(own, _OWN)
            return host.torch_probe(own, timeout)
        with ThreadPoolExecutor(max_workers=2) as pool:
            theirs = pool.submit(host.torch_probe, on_path, timeout)
            mine = pool.submit(host.torch_probe, own, timeout)
            first = theirs.result()
            if first.flavour not in ("missing", "unknown"):
                self._settle(on_path, "python3 on PATH (it has torch)")
                return first
            self._settle(own, _OWN)
            return mine.result()

    def _settle(self, python: str, why: str) -> None:
        self._value = python
        _LAST_WHY[python] = why


class EarlyProbe:
    """The torch probe, started before the checks are imported.

    ``import torch`` in the child takes seconds; starting it first lets rocmfix's own
    start-up (importing the checks, reading the KB tables) overlap it instead of
    preceding it. ``run_checks`` collects it through ``probe`` like a ``LazyPython``; the
    thread is an ordinary (non-daemon) one, so the child is always waited for and reaped.
    """

    def __init__(self, target: Any, host: Any, timeout: float) -> None:
        import threading

        self._target = target
        self._result: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._work, args=(host, timeout), name="rocmfix-torch-probe"
        )
        self._thread.start()

    def _work(self, host: Any, timeout: float) -> None:
        try:
            probe = getattr(self._target, "probe", None)
            self._result = (
                probe(host, timeout)
                if probe is not None
                else host.torch_probe(self._target, timeout)
            )
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that collects it
            self._error = exc

    def __call__(self) -> str:
        return str(self._target() if callable(self._target) else self._target)

    def probe(self, host: Any, timeout: float) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


def python_choice(python: str) -> str:
    """Why ``python`` was the one probed (for the checklist header and JSON)."""
    return _LAST_WHY.get(python, "--python")


def python_path(path: str | None) -> str:
    """``path`` if it is an executable file; the default target (``default_python``) when None.

    Raises:
        InputError: the path is not an executable file.
    """
    if path is None:
        chosen, why = default_python()
        _LAST_WHY[chosen] = why
        return chosen
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise InputError(
            f"--python {path}: not an executable file",
            hint="give the path of your training env's python",
        )
    return path


def pick_target(
    snapshot: str | None, python: str | None, *, want_torch: bool = True, lazy: bool = False
) -> tuple[Any, Any]:
    """``(host, python)``: a SnapshotHost for ``snapshot``, else this machine.

    With ``want_torch=False`` no interpreter is looked for (``--no-torch`` must start fast);
    with ``lazy=True`` the default comes back as a ``LazyPython`` that ``run_checks`` resolves.
    """
    if snapshot:
        from rocmfix.snapshot import SnapshotHost

        host = SnapshotHost(snapshot)
        if not python:
            _LAST_WHY[host.python] = "the interpreter recorded in the snapshot"
        return host, python or host.python
    from rocmfix.host import LocalHost

    if python is None and not want_torch:
        return LocalHost(), sys.executable
    if python is None and lazy:
        return LocalHost(), LazyPython()
    return LocalHost(), python_path(python)
