"""hide-igpu: make ROCm see only the discrete GPUs when an iGPU sits beside them.

It sets ROCR_VISIBLE_DEVICES (through set-env) to the discrete GPUs' indices.
ROCr is the lowest layer, so the iGPU is filtered before HIP and PyTorch see
it; HIP_VISIBLE_DEVICES is left alone because HIP renumbers what ROCr exposes,
and a HIP list written with the old numbers would then hide the wrong device.
"""

from __future__ import annotations

from collections.abc import Mapping

from rocmfix.actions import shellrc
from rocmfix.actions.base import Action, Plan
from rocmfix.actions.context import Context
from rocmfix.actions.set_env import edit_plan
from rocmfix.errors import ActionError

VARIABLE = "ROCR_VISIBLE_DEVICES"
CAVEAT = (
    "AMD's ROCm 6.2-era prerequisites say an enabled iGPU can still crash the runtime"
    " when hidden; if it does, disable the iGPU in the BIOS"
)


class HideIgpu(Action):
    id = "hide-igpu"
    summary = "hide integrated GPUs from ROCm (ROCR_VISIBLE_DEVICES = the discrete GPUs)"

    @classmethod
    def validate(cls, params: Mapping[str, object], ctx: Context) -> dict[str, object]:
        super().validate({k: v for k, v in params.items() if k != "venv"}, ctx)
        if ctx.gpus is None:
            raise ActionError(
                "cannot list the GPUs on this machine, so cannot tell which to hide",
                hint=f"set {VARIABLE} yourself: rocmfix fix set-env {VARIABLE}=0",
            )
        return {"venv": params["venv"]} if params.get("venv") else {}

    @classmethod
    def build(cls, params: dict[str, object], ctx: Context, plan_id: str) -> Plan:
        gpus = ctx.gpus or ()
        discrete = [g for g in gpus if not g.integrated]
        if not any(g.integrated for g in gpus):
            return Plan(
                plan_id, cls.id, params, (), notes=("no integrated GPU found: nothing to hide",)
            )
        if not discrete:
            raise ActionError("every GPU found is integrated; hiding them would leave none")
        value = ",".join(str(g.index) for g in discrete)
        shown = ", ".join(f"{g.index}: {g.name} ({g.gfx})" for g in discrete)
        notes = (f"keeping {shown}", CAVEAT)
        full = {**params, VARIABLE: value}
        if params.get("venv"):
            target = shellrc.venv_activate(str(params["venv"]))
            return edit_plan(plan_id, cls.id, full, target, "bash", {VARIABLE: value}, notes)
        shell = shellrc.supported_shell(ctx.env)
        target = shellrc.startup_file(shell, ctx.home, ctx.env)
        return edit_plan(plan_id, cls.id, full, target, shell, {VARIABLE: value}, notes)
