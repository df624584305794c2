"""Checks of ROCm-related environment variables against the GPUs present.

An override or a visibility list is only right or wrong relative to the
hardware, so these checks compare the variables with the KFD topology.
"""

from __future__ import annotations

import re

from rocmfix.probes.base import CheckResult, Context, Status, check, ev, facts, result

_VISIBLE = (
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
)


def _major(gfx: str) -> str:
    m = re.match(r"gfx(\d+?)([0-9a-f]{2})$", gfx)
    return m.group(1) if m else gfx


@check("env-hsa-override", "HSA_OVERRIDE_GFX_VERSION")
def check_hsa_override(ctx: Context) -> CheckResult:
    value = ctx.env("HSA_OVERRIDE_GFX_VERSION")
    per_node = {k: v for k, v in ctx.host.env.items() if k.startswith("HSA_OVERRIDE_GFX_VERSION_")}
    gpus = ctx.gpus()
    evidence = [ev("HSA_OVERRIDE_GFX_VERSION", value if value is not None else "unset")]
    evidence += [ev(k, v) for k, v in per_node.items()]
    if value is None:
        return result("env-hsa-override", Status.OK, "not set", evidence=evidence)
    target = facts.override_to_gfx(value)
    if target is None:
        return result(
            "env-hsa-override",
            Status.FAIL,
            f"{value!r} is not a valid override (three decimal numbers, e.g. 10.3.0)",
            evidence=evidence,
            kb=["no-gpu-visible"],
            fix="Fix or unset HSA_OVERRIDE_GFX_VERSION.",
        )
    if not gpus:
        return result(
            "env-hsa-override",
            Status.WARN,
            f"set to {value} ({target}) but no GPU is visible",
            evidence=evidence,
        )
    dgpus = [g for g in gpus if not g.integrated] or list(gpus)
    gpu = dgpus[0]
    evidence.append(ev(f"physical gfx (KFD node {gpu.node})", gpu.gfx))
    right = facts.override_for_gfx(gpu.gfx)
    probe = ctx.torch()
    native_ok = probe is not None and probe.flavour == "rocm" and gpu.gfx in _bare(probe.arch_list)
    if target == gpu.gfx:
        return result(
            "env-hsa-override",
            Status.WARN,
            f"{value} names the GPU's own gfx; it does nothing",
            evidence=evidence,
            fix="unset HSA_OVERRIDE_GFX_VERSION",
        )
    if native_ok:
        return result(
            "env-hsa-override",
            Status.WARN,
            f"{value} is set but torch already has {gpu.gfx} kernels",
            details="AMD treats the override as a debugging knob; a leftover one has caused faults on supported GPUs.",
            evidence=evidence,
            kb=["memory-access-fault"],
            fix="unset HSA_OVERRIDE_GFX_VERSION",
        )
    if _major(target) != _major(gpu.gfx) or (right is not None and value != right):
        want = f"use {right}" if right else "no override is known to work for it"
        return result(
            "env-hsa-override",
            Status.FAIL,
            f"{value} ({target}) is wrong for {gpu.gfx}: {want}",
            details="An override from another family makes the GPU run code built for a different ISA: page "
            "faults, hangs or no GPU at all.",
            evidence=evidence,
            kb=["memory-access-fault", "no-binary-for-gpu"],
            fix=f"export HSA_OVERRIDE_GFX_VERSION={right}"
            if right
            else "unset HSA_OVERRIDE_GFX_VERSION",
        )
    others = [g for g in gpus if g is not gpu and _major(g.gfx) != _major(target) and not per_node]
    if others:
        return result(
            "env-hsa-override",
            Status.WARN,
            f"{value} suits {gpu.gfx} but also applies to {others[0].label()}",
            evidence=evidence,
            kb=["integrated-gpu-selected"],
            fix=f"Hide the other GPU (ROCR_VISIBLE_DEVICES) or use HSA_OVERRIDE_GFX_VERSION_{gpu.node}.",
        )
    return result(
        "env-hsa-override",
        Status.OK,
        f"{value} ({target}) is the known override for {gpu.gfx}",
        evidence=evidence,
    )


def _bare(archs: tuple[str, ...]) -> set[str]:
    return {a.split(":", 1)[0] for a in archs}


def _entries(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


@check("env-visible-devices", "GPU visibility variables")
def check_visible(ctx: Context) -> CheckResult:
    present = {k: ctx.env(k) for k in _VISIBLE if ctx.env(k) is not None}
    if not present:
        # No variable hides a GPU, but that rules out nothing: a GPU can be invisible for
        # reasons below the variables (no driver, no access, no GPU at all).
        return result("env-visible-devices", Status.OK, "no visibility variable set")
    count = len(ctx.gpus())
    evidence = [ev(k, v if v else "(empty)") for k, v in present.items()]
    evidence.append(ev("GPUs in KFD topology", count))
    for name, value in present.items():
        entries = _entries(value or "")
        if not entries or entries == ["-1"] or any(e.startswith("-") for e in entries):
            return result(
                "env-visible-devices",
                Status.FAIL,
                f"{name}={value!r} hides every GPU",
                evidence=evidence,
                kb=["no-gpu-visible"],
                fix=f"unset {name}",
            )
        indexes = [int(e) for e in entries if e.isdigit()]
        if count and any(i >= count for i in indexes):
            bad = max(indexes)
            return result(
                "env-visible-devices",
                Status.FAIL,
                f"{name} asks for device {bad}; only {count} exist (0..{count - 1})",
                evidence=evidence,
                kb=["invalid-device-ordinal", "no-gpu-visible"],
                fix=f"export {name}={','.join(str(i) for i in range(count))} or unset it",
            )
    hip, cuda = present.get("HIP_VISIBLE_DEVICES"), present.get("CUDA_VISIBLE_DEVICES")
    if hip is not None and cuda is not None and hip != cuda:
        return result(
            "env-visible-devices",
            Status.WARN,
            "HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES disagree",
            evidence=evidence,
            fix="Set only one of them (on AMD both filter the same HIP devices).",
        )
    if "ROCR_VISIBLE_DEVICES" in present and "HIP_VISIBLE_DEVICES" in present:
        return result(
            "env-visible-devices",
            Status.WARN,
            "ROCR_ and HIP_VISIBLE_DEVICES both set: HIP indices count the devices ROCr left visible",
            evidence=evidence,
        )
    return result(
        "env-visible-devices",
        Status.OK,
        ", ".join(f"{k}={v}" for k, v in present.items()),
        evidence=evidence,
        ruled_out=["no-gpu-visible"],
    )


_DEBUG_VARS = (
    "AMD_LOG_LEVEL",
    "AMD_SERIALIZE_KERNEL",
    "AMD_SERIALIZE_COPY",
    "HIP_LAUNCH_BLOCKING",
    "NCCL_DEBUG",
    "MIOPEN_FIND_ENFORCE",
    "MIOPEN_DEBUG_DISABLE_FIND_DB",
    "HSA_ENABLE_SDMA",
    "PYTORCH_NO_HIP_MEMORY_CACHING",
)
_LISTED = (
    "HIP_PLATFORM",
    "ROCM_PATH",
    "HSA_XNACK",
    "MIOPEN_FIND_MODE",
    "MIOPEN_USER_DB_PATH",
    "MIOPEN_CUSTOM_CACHE_DIR",
    "MIOPEN_DISABLE_CACHE",
    "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_CUDA_ALLOC_CONF",
    "HIPBLAS_WORKSPACE_CONFIG",
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "NCCL_SOCKET_IFNAME",
    "NCCL_IB_DISABLE",
    "RCCL_LOG_LEVEL",
    "NCCL_CONF_FILE",
    "HSA_CU_MASK",
    "ROC_GLOBAL_CU_MASK",
)


@check("env-other", "Other ROCm environment variables")
def check_env_other(ctx: Context) -> CheckResult:
    env = ctx.host.env
    evidence = [
        ev(k, env[k]) for k in ("LD_LIBRARY_PATH", "LD_PRELOAD", *_DEBUG_VARS, *_LISTED) if k in env
    ]
    notes, kb = [], []
    ld = env.get("LD_LIBRARY_PATH", "")
    rocm_dirs = [d for d in ld.split(":") if "rocm" in d.lower()]
    if rocm_dirs:
        notes.append(f"LD_LIBRARY_PATH puts {rocm_dirs[0]} ahead of torch's bundled ROCm libraries")
        kb.append("rocm-library-version-mismatch")
    if env.get("LD_PRELOAD"):
        notes.append(f"LD_PRELOAD={env['LD_PRELOAD']}")
    debug = [k for k in _DEBUG_VARS if env.get(k) not in (None, "", "0") and k != "HSA_ENABLE_SDMA"]
    if debug:
        notes.append(f"debug setting(s) left on: {', '.join(debug)} (slow)")
    if env.get("HSA_ENABLE_SDMA") == "0":
        notes.append("HSA_ENABLE_SDMA=0 (shader copies instead of DMA engines)")
    if env.get("PYTORCH_HIP_ALLOC_CONF") and env.get("PYTORCH_CUDA_ALLOC_CONF"):
        notes.append("PYTORCH_HIP_ALLOC_CONF is ignored because PYTORCH_CUDA_ALLOC_CONF is set")
    if env.get("HIP_PLATFORM") == "nvidia":
        notes.append("HIP_PLATFORM=nvidia makes hipcc build for CUDA")
    if not notes:
        return result(
            "env-other",
            Status.OK,
            f"{len(evidence)} related variable(s), nothing suspicious",
            evidence=evidence,
        )
    return result(
        "env-other",
        Status.WARN,
        notes[0] + (f" (+{len(notes) - 1} more)" if len(notes) > 1 else ""),
        details="\n".join(notes),
        evidence=evidence,
        kb=kb,
        fix="Unset what you did not set on purpose (check ~/.bashrc and your job scripts).",
    )
