"""The bundled demo: a failed training log, a broken machine and a throwaway HOME.

``rocmfix demo`` opens the interactive session on these files so that anyone,
with or without an AMD GPU, can walk paste → cause → check → fix → verify →
undo. The machine is a recorded RX 6700 XT without ``HSA_OVERRIDE_GFX_VERSION``
(``snapshot/``, replayed by ``SnapshotHost``); fixes write into a temporary
HOME that is deleted on exit; verify runs for real only when this machine has
a GPU, otherwise the recorded result is shown and labelled as recorded.
No textual import here: the app and the tests both use these helpers.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

DEMO_DIR = Path(__file__).resolve().parent
LOG = DEMO_DIR / "train.log"
"""A training run that died with ``HIP error: invalid device function`` on gfx1031."""
SNAPSHOT = DEMO_DIR / "snapshot"
"""The recorded machine the demo's doctor reads."""

_SEEDED_BASHRC = "# ~/.bashrc of the rocmfix demo (a throwaway HOME)\nalias ll='ls -l'\n"


def make_home() -> Path:
    """A fresh temporary HOME with a small ``.bashrc`` for set-env to edit."""
    home = Path(tempfile.mkdtemp(prefix="rocmfix-demo-home-"))
    (home / ".bashrc").write_text(_SEEDED_BASHRC, encoding="utf-8")
    return home


def demo_env(home: Path) -> dict[str, str]:
    """Environment the demo's fixes plan against: bash, and state under the throwaway HOME."""
    return {
        "HOME": str(home),
        "USER": "alex",
        "SHELL": "/bin/bash",
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }


def gpu_present() -> bool:
    """A quick, side-effect-free guess whether this machine has a GPU torch could use."""
    return any(os.path.exists(p) for p in ("/dev/kfd", "/dev/nvidiactl", "/dev/dxg"))


def recorded_verify(fixed: bool) -> Any:
    """The demo machine's recorded verify result, before or after the override fix.

    Returns:
        A ``rocmfix.verify.VerifyResult``.
    """
    name = "verify-after.json" if fixed else "verify-before.json"
    return verify_from_json(json.loads((DEMO_DIR / name).read_text(encoding="utf-8")))


def verify_from_json(data: dict[str, Any]) -> Any:
    """Rebuild a ``VerifyResult`` from its ``rocmfix.verify/1`` JSON object."""
    from rocmfix.verify import (
        DeviceResult,
        Failure,
        FailureKind,
        StageEvent,
        TorchInfo,
        VerifyResult,
    )

    fail = data.get("failure")
    return VerifyResult(
        ok=bool(data["ok"]),
        python=str(data.get("python", "")),
        stages=tuple(
            StageEvent(
                s["stage"],
                bool(s["ok"]),
                float(s["seconds"]),
                s.get("device"),
                s.get("detail", ""),
                dict(s.get("data") or {}),
            )
            for s in data.get("stages", ())
        ),
        devices=tuple(
            DeviceResult(
                index=int(d["index"]),
                name=str(d["name"]),
                arch=str(d["arch"]),
                tflops=dict(d.get("tflops") or {}),
                peak_tflops=dict(d.get("peak_tflops") or {}),
                peak_name=d.get("peak_name"),
                peak_unverified=bool(d.get("peak_unverified")),
                memory_gib=d.get("memory_gib"),
            )
            for d in data.get("devices", ())
        ),
        failure=None
        if not fail
        else Failure(
            stage=fail["stage"],
            kind=FailureKind(fail["kind"]),
            message=fail["message"],
            signal=fail.get("signal"),
            stderr_tail=tuple(fail.get("stderr_tail") or ()),
            kb_ids=tuple(fail.get("kb_ids") or ()),
        ),
        torch=TorchInfo(**(data.get("torch") or {})),
        notes=tuple(data.get("notes") or ()),
        elapsed=float(data.get("elapsed") or 0.0),
        child_elapsed=data.get("child_elapsed"),
        level=str(data.get("level") or "standard"),
        env=dict(data.get("env") or {}),
        kb_hints=tuple(data.get("kb_hints") or ()),
    )
