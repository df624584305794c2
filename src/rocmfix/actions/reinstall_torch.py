"""reinstall-torch: replace the target interpreter's torch with the ROCm wheels.

torch, torchvision and torchaudio are installed together from one ROCm wheel
index (download.pytorch.org/whl/<index>), pinned to the newest PyTorch release
whose row in the packaged wheel table is verified to offer that index. Undo
reinstalls the exact versions found before, from the index their local tag
names (``+cu121``, ``+rocm6.1``, ``+cpu``, or PyPI for none).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from rocmfix import facts
from rocmfix.actions import validate
from rocmfix.actions.base import Action, Command, Plan
from rocmfix.actions.context import Context, read_command
from rocmfix.errors import ActionError

PACKAGES = ("torch", "torchvision", "torchaudio")
BASE_URL = "https://download.pytorch.org/whl/"
PIP_TIMEOUT = 3600.0


def system_rocm_version(ctx: Context) -> str | None:
    root = Path(ctx.env.get("ROCM_PATH") or "/opt/rocm")
    try:
        return (root / ".info" / "version").read_text().strip().split("-")[0] or None
    except OSError:
        return None


def torch_pin(index: str) -> tuple[str | None, bool]:
    """(newest torch release offering ``index``, whether that row is verified)."""
    rows = [r for r in facts.wheel_releases() if index in r.rocm_indexes]
    if not rows:
        raise ActionError(
            f"no PyTorch release in rocmfix's table offers {index}",
            hint="indexes look like rocm6.2, rocm6.2.4, rocm7.2",
        )
    verified = [r for r in rows if not r.unverified]
    if verified:
        return verified[-1].torch, True
    return None, False


def installed(python: str) -> dict[str, str]:
    """{name: version} of the torch packages in ``python``; ActionError if unreadable."""
    got = read_command((python, "-m", "pip", "list", "--format=json"), timeout=60.0)
    try:
        assert got is not None and got[0] == 0
        rows = json.loads(got[1])
    except (AssertionError, ValueError):
        raise ActionError(
            f"cannot list the packages of {python} with pip",
            hint="pass the interpreter of your training env with --python",
        ) from None
    return {r["name"].lower(): r["version"] for r in rows if r.get("name", "").lower() in PACKAGES}


def index_of(version: str) -> str | None:
    """Wheel index URL a local version tag points at; None for a plain PyPI version."""
    _, _, tag = version.partition("+")
    return BASE_URL + tag if tag else None


class ReinstallTorch(Action):
    id = "reinstall-torch"
    summary = "install torch/torchvision/torchaudio from the ROCm wheel index for your ROCm"

    @classmethod
    def validate(cls, params: Mapping[str, object], ctx: Context) -> dict[str, object]:
        extra = set(params) - {"rocm_index", "python"}
        if extra:
            raise ActionError(
                f"reinstall-torch takes rocm_index and python (got {', '.join(sorted(extra))})"
            )
        python = str(params.get("python") or ctx.python)
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            raise ActionError(f"{python} is not an executable Python interpreter")
        if params.get("rocm_index"):
            return {"rocm_index": validate.rocm_index(params["rocm_index"]), "python": python}
        version = system_rocm_version(ctx)
        index = facts.rocm_index_for(version) if version else None
        if index is None:
            raise ActionError(
                "cannot tell which ROCm wheel index matches this system",
                hint="give it: rocmfix fix reinstall-torch rocm_index=rocm6.2",
            )
        return {"rocm_index": index, "python": python, "rocm_version": version}

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        index, python = str(params["rocm_index"]), str(params["python"])
        pin, verified = torch_pin(index)
        have = installed(python)
        notes = [f"target interpreter: {python}"]
        if not verified:
            notes.append(
                f"every release row offering {index} is marked unverified in the wheel"
                " table, so torch is not pinned; pip takes the newest torch on that index"
            )
        if _already(have, index, pin):
            return Plan(
                plan_id, cls.id, params, (), notes=(*notes, f"torch is already from {index}")
            )
        want = [f"torch=={pin}.*" if pin else "torch", "torchvision", "torchaudio"]
        steps = []
        if have:
            steps.append(
                Command(
                    (python, "-m", "pip", "uninstall", "-y", *sorted(have)),
                    _restore_argv(python, have),
                    False,
                    "remove the current build first",
                    PIP_TIMEOUT,
                )
            )
        steps.append(
            Command(
                (python, "-m", "pip", "install", "--index-url", BASE_URL + index, *want),
                (python, "-m", "pip", "uninstall", "-y", *PACKAGES),
                False,
                f"all three from the {index} index",
                PIP_TIMEOUT,
            )
        )
        notes.append("the download is several GB")
        return Plan(plan_id, cls.id, params, tuple(steps), notes=tuple(notes))


def _already(have: Mapping[str, str], index: str, pin: str | None) -> bool:
    torch = have.get("torch", "")
    if not torch.endswith("+" + index) or (pin and not torch.startswith(pin + ".")):
        return False
    return all(have.get(p, "").endswith("+" + index) for p in PACKAGES)


def _restore_argv(python: str, have: Mapping[str, str]) -> tuple[str, ...]:
    url = index_of(have.get("torch") or next(iter(have.values())))
    pins = [f"{name}=={version}" for name, version in sorted(have.items())]
    return (python, "-m", "pip", "install", *(("--index-url", url) if url else ()), *pins)
