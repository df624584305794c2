"""Checks of ROCm-related environment variables against the GPUs present.

An override or a visibility list is only right or wrong relative to the
hardware, so these checks compare the variables with the KFD topology.
"""

from __future__ import annotations

import re

from rocmfix.probes.base import (
    CheckResult,
    Context,
    Evidence,
    Status,
    check,
    ev,
    facts,
    result,
)
from rocmfix.probes.install import _UNRECOGNIZED, check_rocminfo

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
    if value is None and not per_node:
        return result("env-hsa-override", Status.OK, "not set", evidence=evidence)
    target = facts.override_to_gfx(value) if value is not None else "per-node"
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
    return _judge_overrides(ctx, gpus, evidence)


def _judge_overrides(ctx: Context, gpus: tuple, evidence: list) -> CheckResult:
    """Judge the override each GPU actually gets (its per-node variable, else the global one)."""
    from rocmfix import compat
    from rocmfix.probes import compat_view

    probe = ctx.torch()
    archs = _bare(probe.arch_list) if probe is not None and probe.flavour == "rocm" else set()
    has_discrete = any(not g.integrated for g in gpus)
    found: list[tuple[int, str, list[str], str]] = []  # (rank, summary, kb, fix)
    plan = compat_view.plan(ctx)
    per_node_fix = ", ".join(
        f"{k}={v}" for k, v in plan.env.items() if k.startswith("HSA_OVERRIDE_GFX_VERSION_")
    )
    ok_lines = []
    for g in gpus:
        name, value = compat_view.override_for_node(ctx, g.node)
        evidence.append(
            ev(
                f"KFD node {g.node}",
                f"{g.gfx}{' (iGPU)' if g.integrated else ''}: {name or 'no override'}",
            )
        )
        if value is None:
            continue
        target = facts.override_to_gfx(value)
        if target is None:
            found.append(
                (
                    3,
                    f"{name}={value!r} is not a valid override",
                    ["no-gpu-visible"],
                    f"unset {name}",
                )
            )
            continue
        if target == g.gfx:
            found.append(
                (
                    1,
                    f"{name}={value} names {g.gfx}'s own target; it does nothing",
                    [],
                    f"unset {name}",
                )
            )
            continue
        who = f"{g.name} ({g.gfx}, node {g.node})"
        if _major(target) != _major(g.gfx):
            fix = f"unset {name}" + (f" and set only {per_node_fix}" if per_node_fix else "")
            allowed, _ = compat.verified_override(g.gfx)
            use = f" (use {allowed})" if allowed else ""
            found.append(
                (
                    3,
                    f"{name}={value} makes {who} run as {target}, another GPU family:"
                    f" wrong-ISA code faults{use}",
                    ["memory-access-fault", "no-binary-for-gpu"],
                    fix,
                )
            )
            continue
        if g.integrated and has_discrete and name == "HSA_OVERRIDE_GFX_VERSION":
            found.append(
                (
                    2,
                    f"the global {value} also relabels the iGPU {g.gfx} (node {g.node})",
                    ["integrated-gpu-selected"],
                    "Hide the iGPU (rocmfix fix hide-igpu) or set HSA_OVERRIDE_GFX_VERSION_<node>"
                    " for the discrete GPU only.",
                )
            )
            continue
        if g.gfx in archs:
            found.append(
                (
                    2,
                    f"{name}={value} is set but torch already has {g.gfx} kernels",
                    ["memory-access-fault"],
                    f"unset {name}",
                )
            )
            continue
        refused = compat.refused_override(g.gfx, value)
        allowed, _ = compat.verified_override(g.gfx)
        if refused and refused.get("unnecessary"):
            found.append(
                (
                    2,
                    f"{name}={value} stands in for {g.gfx} kernels this torch lacks, but"
                    f" {refused.get('why')}",
                    [],
                    compat_view.install_advice(ctx) + f" Then unset {name}.",
                )
            )
        elif refused:
            found.append(
                (
                    3 if g.gfx in ("gfx1103", "gfx1033") else 2,
                    f"{name}={value} on {who} is known to misbehave: {refused.get('why')}",
                    ["memory-access-fault", "no-binary-for-gpu"],
                    compat_view.install_advice(ctx),
                )
            )
        elif allowed is None or allowed != value:
            want = (
                f"the sourced value is {allowed}"
                if allowed
                else "rocmfix knows no verified override for it"
            )
            native = " Official wheels target it natively." if compat.native_offers(g.gfx) else ""
            found.append(
                (
                    2,
                    f"{name}={value} ({target}) is not a verified override for {g.gfx}: {want}",
                    ["no-binary-for-gpu"],
                    (compat_view.install_advice(ctx) if native else f"unset {name}"),
                )
            )
        else:
            ok_lines.append(
                f"{value} ({target}) is the sourced override for {g.gfx} (node {g.node})"
            )
    if not found:
        return result(
            "env-hsa-override",
            Status.OK,
            "; ".join(ok_lines) or "no override applies to any GPU",
            evidence=evidence,
        )
    found.sort(key=lambda f: -f[0])
    rank, summary, kb, fix = found[0]
    status = Status.FAIL if rank >= 3 else Status.WARN
    details = "\n".join(f[1] for f in found)
    if rank == 2 and "memory-access-fault" in kb:
        details += "\nAMD treats the override as a debugging knob; a leftover one has caused faults on supported GPUs."
    return result(
        "env-hsa-override",
        status,
        summary + (f" (+{len(found) - 1} more)" if len(found) > 1 else ""),
        details=details,
        evidence=evidence,
        kb=kb,
        fix=fix,
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


# Libraries ROCm's runtime loads that a foreign LD_LIBRARY_PATH folder can shadow.
_SHADOWABLE = (
    "libamdhip64.so",
    "libhsa-runtime64.so",
    "libhsakmt.so",
    "libamd_comgr.so",
    "librocblas.so",
    "libMIOpen.so",
    "libdrm_amdgpu.so",
)


def _foreign_ld_dirs(ctx: Context, foreign: list[str]) -> tuple[str, list[Evidence]] | None:
    """A note when a non-ROCm LD_LIBRARY_PATH folder is read to hold a ROCm library, or
    rocminfo's runtime fails to recognise a GPU while that folder comes first (the
    rocminfo check names the folder for that failure; this check must agree with it)."""
    if not foreign:
        return None
    for folder in foreign:
        names = ctx.host.listdir(folder)
        hits = sorted(n for n in names for lib in _SHADOWABLE if n.startswith(lib))
        if hits:
            return (
                f"LD_LIBRARY_PATH puts {folder} (holds {hits[0]}) ahead of ROCm's own libraries",
                [ev(f"ls {folder}", ", ".join(hits))],
            )
    if _UNRECOGNIZED not in ctx.rocminfo().stdout + ctx.rocminfo().stderr:
        return None
    # The rocminfo check decides whether the release itself is too old; only when it blames
    # the library path does this check (same reading, cached) say so too.
    verdict = ctx.once("rocminfo-verdict", lambda: check_rocminfo(ctx))
    if "rocm-library-version-mismatch" not in verdict.kb_ids:
        return None
    return (
        f"LD_LIBRARY_PATH puts {foreign[0]} ahead of ROCm's own libraries, and rocminfo's "
        "runtime does not recognise a GPU its release lists",
        [ev("rocminfo", _UNRECOGNIZED)],
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
    foreign = [d for d in ld.split(":") if d.strip() and "rocm" not in d.lower()]
    foreign_note = _foreign_ld_dirs(ctx, foreign)
    if foreign_note is not None:
        note, blamed = foreign_note
        notes.append(note)
        evidence.extend(blamed)
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
            f"{len(evidence)} related variable(s), nothing suspicious"
            if not foreign
            else f"{len(evidence)} related variable(s); LD_LIBRARY_PATH adds "
            + ", ".join(
                f"{d} (no ROCm library in it)" if ctx.host.exists(d) else f"{d} (not read)"
                for d in foreign
            ),
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
