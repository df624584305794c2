"""reinstall-torch: replace the target interpreter's torch with the ROCm wheels.

torch, torchvision and torchaudio are installed together from one ROCm wheel
index (download.pytorch.org/whl/<index>). Without an index the compatibility
model (``rocmfix.compat``, the plan `rocmfix install-plan` prints) picks the
one whose verified wheels target every GPU in use for this Python; torch gets
a floor (``torch>=X``: the oldest verified release there that targets the
GPUs), so pip takes the newest wheel of that index and never downgrades an
installed torch of the same index. An explicit index that does not serve the
GPUs or the Python, or that would replace a working build with an older one,
is refused. Undo
reinstalls the exact versions found before, from the index their local tag
names (``+cu121``, ``+rocm6.1``, ``+cpu``, or PyPI for none).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from rocmfix import compat, facts
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


def torch_pin(index: str, gfxs: tuple[str, ...] = ()) -> tuple[str | None, bool]:
    """(floor release for ``index``, whether it is verified).

    The floor is the oldest release whose verified wheels on ``index`` target
    ``gfxs``: pip then takes the newest wheel of the index, so a torch newer
    than the floor on the same index is never downgraded.
    """
    rows = [r for r in facts.wheel_releases() if index in r.rocm_indexes]
    if not rows:
        raise ActionError(
            f"no PyTorch release in rocmfix's table offers {index}",
            hint="indexes look like rocm6.2, rocm6.2.4, rocm7.2",
        )
    good = [o for o in compat.offers() if o.index == index and all(compat._fits(o, g) for g in gfxs)]  # noqa: SLF001 - same model
    if good:
        return min(good, key=lambda o: [int(p) for p in o.release.split(".")]).release, True
    return None, False


def _machine(ctx: Context, python: str, have: Mapping[str, str] | None = None) -> compat.Machine:
    """The compat model's view of the fix context (GPUs, the target's torch and Python)."""
    gpus = (
        None
        if ctx.gpus is None
        else tuple(compat.Gpu(g.gfx, g.integrated, g.node, g.index, g.name) for g in ctx.gpus)
    )
    if have is None:
        try:
            have = installed(python)
        except ActionError:
            have = {}
    got = read_command((python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"))
    version = got[1].strip() if got and got[0] == 0 else None
    return compat.machine_of(
        gpus,
        torch_version=have.get("torch") or None,
        python=version,
        platform="wsl" if ctx.wsl else ("container" if ctx.container else "linux"),
        system_rocm=system_rocm_version(ctx),
        interpreter=python,
    )


def check_index(index: str, ctx: Context, python: str) -> None:
    """Refuse an index that would not serve this machine (ActionError with the plan's answer)."""
    if not ctx.gpus:
        return  # GPUs unknown (or none listed): the user's explicit choice stands
    machine = _machine(ctx, python)
    plan = compat.plan(machine)
    in_use = [v.runs_as or v.gpu.bare for v in plan.gpus if v.status in ("native", "override")]
    py = compat._py_key(machine.python)  # noqa: SLF001 - same model
    offers = [o for o in compat.offers() if o.index == index]
    if offers and py and not any(o.has_python(py) for o in offers):
        raise ActionError(
            f"{index} has no wheels for Python {machine.python}",
            hint=f"rocmfix install-plan says: {plan.summary}",
        )
    if offers and in_use and not any(all(compat._fits(o, g) for g in in_use) for o in offers):  # noqa: SLF001
        raise ActionError(
            f"the verified wheels on {index} do not target {', '.join(in_use)}",
            hint=f"rocmfix install-plan says: {plan.summary}",
        )
    own = machine.torch.index if machine.torch else None
    if plan.keep and own and own != index and compat.index_key(index) < compat.index_key(own):
        raise ActionError(
            f"torch {machine.torch.version} already targets these GPUs; {index} would"  # type: ignore[union-attr]
            " replace it with an older build",
            hint=f"keep it, or reinstall from its own index: rocm_index={own}",
        )


def installed(python: str) -> dict[str, str]:
    """{name: version} of the torch packages in ``python``; ActionError if unreadable."""
    got = read_command((python, "-m", "pip", "list", "--format=json"), timeout=60.0)
    try:
        assert got is not None and got[0] == 0
        rows = json.loads(got[1])
    except (AssertionError, ValueError, RecursionError):
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
            index = validate.rocm_index(params["rocm_index"])
            check_index(index, ctx, python)
            return {"rocm_index": index, "python": python}
        # The compatibility model picks the index from the GPUs (wheels bundle their own
        # ROCm, so the system ROCm does not decide it): the same plan the doctor shows.
        plan = compat.plan(_machine(ctx, python))
        if plan.index is None:
            raise ActionError(plan.summary, hint="`rocmfix install-plan` shows the facts it used")
        return {"rocm_index": plan.index, "python": python}

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        index, python = str(params["rocm_index"]), str(params["python"])
        have = installed(python)
        gfxs = tuple(
            v.runs_as or v.gpu.bare
            for v in compat.plan(_machine(ctx, python, have)).gpus
            if v.status in ("native", "override")
        )
        pin, verified = torch_pin(index, gfxs)
        own = compat.TorchBuild(have["torch"]) if have.get("torch") else None
        # Same index: never below the installed release (a repair, not a downgrade).
        if (
            own
            and own.index == index
            and own.release
            and pin
            and [int(p) for p in own.release.split(".")] > [int(p) for p in pin.split(".")]
        ):
            pin = own.release
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
        want = [f"torch>={pin}" if pin else "torch", "torchvision", "torchaudio"]
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
    release = compat.TorchBuild(torch).release if torch else None
    if not torch.endswith("+" + index):
        return False
    key = [int(p) for p in (release or "0.0").split(".")]
    if pin and key < [int(p) for p in pin.split(".")]:
        return False
    return all(have.get(p, "").endswith("+" + index) for p in PACKAGES)


def _restore_argv(python: str, have: Mapping[str, str]) -> tuple[str, ...]:
    url = index_of(have.get("torch") or next(iter(have.values())))
    pins = [f"{name}=={version}" for name, version in sorted(have.items())]
    return (python, "-m", "pip", "install", *(("--index-url", url) if url else ()), *pins)
