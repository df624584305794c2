"""Checks built on the torch probe: the build, the gfx comparison, the ROCm versions.

The decisive comparison is the GPU's gfx against the archs compiled into the
wheel: it predicts hipErrorNoBinaryForGpu before the user ever runs a kernel,
and names the exact override when one exists.
"""

from __future__ import annotations

import re

from rocmfix import compat
from rocmfix.probes import compat_view
from rocmfix.probes.base import CheckResult, Context, Status, check, ev, facts, result
from rocmfix.probes.install import gpu_agents, system_rocm_version
from rocmfix.probes.mathlibs import gfx_in_names, kernel_files, miopen_db_dirs
from rocmfix.probes.system import is_wsl
from rocmfix.torch_probe import TorchProbe

# AMD's WSL guide for PyTorch deletes the wheel's libhsa-runtime64.so* from torch/lib and puts
# the WSL runtime from /opt/rocm/lib in its place
# (https://rocm.docs.amd.com/projects/radeon/en/docs-6.3/docs/install/wsl/install-pytorch.html).
WSL_RUNTIME_FIX = (
    "Install AMD's WSL ROCm runtime, then replace torch's bundled runtime with it: "
    "cd $(python -c 'import torch, os; print(os.path.dirname(torch.__file__))')/lib && "
    'rm libhsa-runtime64.so* && cp "$(readlink -f /opt/rocm/lib/libhsa-runtime64.so)" libhsa-runtime64.so'
)


def wsl_bundled_runtime(probe: TorchProbe) -> str | None:
    """``libhsa-runtime64`` path when torch mapped its own bundled copy (or the probe did
    not record one but torch ships it), else None."""
    path = probe.loaded_libs.get("libhsa-runtime64")
    if path and probe.lib_dir and path.startswith(probe.lib_dir):
        return path
    return None


def _bare(archs: tuple[str, ...]) -> set[str]:
    return {a.split(":", 1)[0] for a in archs}


def _probe_problem(check_id: str, probe: TorchProbe | None) -> CheckResult | None:
    """A skip/error result when the probe gives nothing to compare, else None."""
    if probe is None:
        return result(check_id, Status.SKIP, "torch not probed (--no-torch)")
    if probe.flavour == "unknown":
        return result(check_id, Status.SKIP, f"torch probe failed: {probe.error}")
    if probe.flavour == "missing":
        return result(check_id, Status.SKIP, "torch is not installed in the target interpreter")
    return None


@check("torch-build", "PyTorch build", needs_torch=True)
def check_torch_build(ctx: Context) -> CheckResult:
    probe = ctx.torch()
    if probe is None:
        return result("torch-build", Status.SKIP, "torch not probed (--no-torch)")
    amd = bool(ctx.gpus())
    evidence = [
        ev("python", probe.python),
        ev("torch.__version__", probe.version),
        ev("torch.version.hip", probe.hip),
        ev("torch.version.cuda", probe.cuda),
        ev("arch list", " ".join(probe.arch_list) or "-"),
        ev("is_available / device_count", f"{probe.is_available} / {probe.device_count}"),
    ]
    evidence += [
        ev(f"device {i}", f"{d.name} ({d.gcn_arch_name})") for i, d in enumerate(probe.devices)
    ]
    if probe.flavour == "unknown":
        kb = ["segfault-at-gpu-init"] if probe.signal == "SIGSEGV" else []
        kb += ["gpu-hang-or-reset"] if probe.timed_out and probe.stage == "init" else []
        # HIP aborts the import-time device scan with this when no code object in torch
        # fits a visible GPU (hip_code_object.cpp); the child's last words name it.
        kb += ["no-binary-for-gpu"] if "hipErrorNoBinaryForGpu" in (probe.error or "") else []
        status = Status.FAIL if kb else Status.ERROR
        return result(
            "torch-build",
            status,
            f"probing torch failed: {probe.error}",
            evidence=evidence,
            kb=kb,
            fix="torch has no code for a visible GPU: see gpu-arch-vs-torch and env-hsa-override."
            if "no-binary-for-gpu" in kb
            else "",
        )
    if probe.flavour == "missing":
        return result(
            "torch-build",
            Status.FAIL if amd else Status.SKIP,
            f"torch is not installed for {probe.python}"
            + ("" if amd else " (and no AMD GPU on this machine)"),
            evidence=evidence,
            fix=compat_view.install_advice(ctx),
        )
    if probe.flavour in ("cpu", "cuda") and not amd and not probe.is_available:
        # No AMD GPU here (a CPU box, or rocmfix's own venv on a build host): a ROCm
        # reinstall would fix nothing. Point at the way to plan for the real machine.
        return result(
            "torch-build",
            Status.SKIP,
            f"torch {probe.version} is a {probe.flavour.upper() if probe.flavour == 'cpu' else 'CUDA'}"
            " build, and there is no AMD GPU on this machine: nothing to change here",
            evidence=evidence,
            fix=compat_view.install_advice(ctx),
        )
    if probe.flavour == "cuda" and not amd and probe.is_available:
        # An NVIDIA machine with a working CUDA torch: correct, just not a ROCm setup.
        names = ", ".join(sorted({d.name for d in probe.devices})) or "CUDA devices"
        return result(
            "torch-build",
            Status.OK,
            f"torch {probe.version} is a CUDA build running on {names} (not a ROCm setup)",
            evidence=evidence,
            ruled_out=["cuda-build-on-amd", "cpu-only-build"],
        )
    if probe.flavour == "cuda":
        return result(
            "torch-build",
            Status.FAIL if amd else Status.WARN,
            f"torch {probe.version} is a CUDA build (CUDA {probe.cuda})"
            + (" on an AMD GPU" if amd else ""),
            evidence=evidence,
            kb=["cuda-build-on-amd"],
            ruled_out=["cpu-only-build"],
            fix=compat_view.install_advice(ctx),
        )
    if probe.flavour == "cpu":
        return result(
            "torch-build",
            Status.FAIL if amd else Status.WARN,
            f"torch {probe.version} is a CPU-only build"
            + ("" if amd else " (and no AMD GPU here)"),
            evidence=evidence,
            kb=["cpu-only-build"],
            ruled_out=["cuda-build-on-amd"],
            fix=compat_view.install_advice(ctx),
        )
    ruled = ["cpu-only-build", "cuda-build-on-amd"]
    if not probe.is_available and is_wsl(ctx.host):
        why = f": {probe.error}" if probe.error else ""
        bundled = wsl_bundled_runtime(probe)
        return result(
            "torch-build",
            Status.FAIL,
            f"torch {probe.version} (ROCm) sees no GPU under WSL{why}",
            details="Under WSL the GPU is reached only through AMD's WSL runtime (/dev/dxg); "
            + (
                f"torch loads its own {bundled}, which has no WSL path."
                if bundled
                else "the visibility and /dev/kfd checks do not apply here."
            ),
            evidence=evidence,
            kb=["wsl-limitations"],
            ruled_out=ruled,
            fix=WSL_RUNTIME_FIX,
        )
    if not probe.is_available:
        why = f": {probe.error}" if probe.error else ""
        return result(
            "torch-build",
            Status.FAIL,
            f"torch {probe.version} (ROCm) sees no GPU{why}",
            evidence=evidence,
            kb=["no-gpu-visible"],
            ruled_out=ruled,
            fix="Read the device-nodes, user-groups and env-visible-devices checks.",
        )
    names = ", ".join(f"{d.name} ({d.gcn_arch_name})" for d in probe.devices)
    return result(
        "torch-build",
        Status.OK,
        f"torch {probe.version}, HIP {probe.hip}, {probe.device_count} GPU(s): {names}",
        evidence=evidence,
        ruled_out=[*ruled, "no-gpu-visible"],
    )


@check("gpu-arch-vs-torch", "GPU gfx vs torch, runtime and math libraries", needs_torch=True)
def check_arch(ctx: Context) -> CheckResult:
    every = list(ctx.gpus())
    if not every:
        return result("gpu-arch-vs-torch", Status.SKIP, "no GPU")
    shown = _visible(ctx, every)
    # Every visible GPU is judged, discrete ones first: HIP aborts when any visible
    # device lacks code, and an override meant for one card relabels all of them.
    judged = sorted(shown, key=lambda g: g.integrated)
    probe = ctx.torch()
    gpu = judged[0]
    gfx = compat_view.runs_as(ctx, gpu.node, gpu.gfx)
    runtime = [a.name for a in gpu_agents(ctx)] or [
        d.gcn_arch_name or "?" for d in (probe.devices if probe else ())
    ]
    blas_dir, blas = kernel_files(ctx, "rocblas", gfx)
    lt_dir, lt = kernel_files(ctx, "hipblaslt", gfx)
    mi_dirs = miopen_db_dirs(ctx)
    miopen = gfx_in_names(gfx, ctx.host.listdir(mi_dirs[0])) if mi_dirs else []
    places = [
        ev(
            "1 GPU (sysfs)",
            "; ".join(
                f"{g.gfx} at KFD node {g.node}"
                + (" (iGPU)" if g.integrated and len(every) > 1 else "")
                + ("" if g in shown else " (hidden)")
                for g in every
            ),
        ),
        ev(
            "2 runtime (after HSA_OVERRIDE_GFX_VERSION)",
            f"{', '.join(runtime) or '?'}; override "
            f"{ctx.env('HSA_OVERRIDE_GFX_VERSION') or 'unset'} -> "
            + ", ".join(compat_view.runs_as(ctx, g.node, g.gfx) for g in judged),
        ),
        ev("3 torch arch list", " ".join(probe.arch_list) if probe and probe.arch_list else "?"),
        ev(
            f"4 rocBLAS/hipBLASLt {blas_dir or '?'}",
            f"{len(blas)} rocBLAS, {len(lt)} hipBLASLt file(s) for {gfx}"
            if blas_dir
            else "no library folder",
        ),
        ev(
            f"5 MIOpen {mi_dirs[0] if mi_dirs else '?'}",
            f"{len(miopen)} db file(s) for {gfx}" if mi_dirs else "none",
        ),
    ]
    details = "\n".join(f"{e.source}: {e.value}" for e in places)
    problem = _probe_problem("gpu-arch-vs-torch", probe)
    if problem or probe is None or probe.flavour != "rocm":
        why = problem.summary if problem else f"torch is a {probe.flavour if probe else '?'} build"
        return result("gpu-arch-vs-torch", Status.SKIP, why, details=details, evidence=places)
    archs = _bare(probe.arch_list)
    has_discrete = any(not g.integrated for g in judged)
    for g in judged:
        name, value = compat_view.override_for_node(ctx, g.node)
        runs = compat_view.runs_as(ctx, g.node, g.gfx)
        if runs != g.gfx and compat_view.major(runs) != compat_view.major(g.gfx):
            return _wrong_family(ctx, g, runs, f"{name}={value}", details, places)
        if archs and runs not in archs:
            if g.integrated and has_discrete:
                return result(
                    "gpu-arch-vs-torch",
                    Status.WARN,
                    f"the iGPU {g.gfx} (node {g.node}) is visible and torch has no kernels for"
                    " it; HIP can then fail to load code for every device",
                    details=details,
                    evidence=places,
                    kb=["integrated-gpu-selected", "no-binary-for-gpu"],
                    fix="Hide the iGPU: rocmfix fix hide-igpu (not a global"
                    " HSA_OVERRIDE_GFX_VERSION, which would relabel the discrete GPU too).",
                )
            return _no_binary(ctx, g.gfx, runs, archs, details, places)
        g_dir, g_blas = kernel_files(ctx, "rocblas", runs)
        if g_dir and not g_blas:
            return result(
                "gpu-arch-vs-torch",
                Status.FAIL,
                f"torch has {runs} kernels but rocBLAS has none",
                details=details,
                evidence=places,
                kb=["rocblas-tensile-missing"],
                ruled_out=["no-binary-for-gpu"],
                fix="Use a ROCm/PyTorch build whose rocBLAS ships kernels for this gfx. "
                + compat_view.install_advice(ctx),
            )
    via = (
        f" via HSA_OVERRIDE_GFX_VERSION={ctx.env('HSA_OVERRIDE_GFX_VERSION')}"
        if gfx != gpu.gfx
        else ""
    )
    others = f" (and {len(judged) - 1} more GPU(s))" if len(judged) > 1 else ""
    unverified = [
        (g, value)
        for g in judged
        for _, value in [compat_view.override_for_node(ctx, g.node)]
        if value
        and compat_view.runs_as(ctx, g.node, g.gfx) != g.gfx
        and compat.verified_override(g.gfx)[0] != value
    ]
    if unverified:
        g, value = unverified[0]
        return result(
            "gpu-arch-vs-torch",
            Status.WARN,
            f"{g.gfx} runs as {compat_view.runs_as(ctx, g.node, g.gfx)} only through"
            f" HSA_OVERRIDE_GFX_VERSION={value}, which is not a verified override for it",
            details=details,
            evidence=places,
            ruled_out=["rocblas-tensile-missing"],
            fix=compat_view.install_advice(ctx),
        )
    return result(
        "gpu-arch-vs-torch",
        Status.OK,
        f"{gpu.gfx} runs as {gfx}{via}{others}; torch and rocBLAS have it",
        details=details,
        evidence=places,
        # Torch and rocBLAS built for each GPU's own gfx (a self-built stack for gfx803, say)
        # show the architecture is usable here, whatever the support tables say.
        ruled_out=["no-binary-for-gpu", "rocblas-tensile-missing"]
        + (
            ["unsupported-gpu-architecture"]
            if all(compat_view.runs_as(ctx, g.node, g.gfx) == g.gfx for g in judged)
            else []
        ),
    )


def _visible(ctx: Context, gpus: list) -> list:
    """The GPUs ROCR_VISIBLE_DEVICES leaves (indices in GPU order; UUIDs keep all)."""
    value = ctx.env("ROCR_VISIBLE_DEVICES")
    if value is None:
        return gpus
    items = [p.strip() for p in value.split(",") if p.strip()]
    if not items or not all(p.isdigit() for p in items):
        return gpus
    keep = [gpus[int(p)] for p in items if int(p) < len(gpus)]
    return keep or gpus


def _wrong_family(
    ctx: Context, gpu: object, runs: str, setting: str, details: str, places: list
) -> CheckResult:
    plan = compat_view.plan(ctx)
    per_node = {k: v for k, v in plan.env.items() if k.startswith("HSA_OVERRIDE_GFX_VERSION_")}
    if per_node:
        fix = (
            "unset HSA_OVERRIDE_GFX_VERSION and set only "
            + ", ".join(f"{k}={v}" for k, v in per_node.items())
            + " for the GPU that needs it"
        )
    else:
        fix = "unset HSA_OVERRIDE_GFX_VERSION"
    return result(
        "gpu-arch-vs-torch",
        Status.FAIL,
        f"{setting} makes {gpu.name} ({gpu.gfx}, node {gpu.node}) run as {runs}, another"  # type: ignore[attr-defined]
        " GPU family: wrong-ISA code faults",
        details=details,
        evidence=places,
        kb=["memory-access-fault", "no-binary-for-gpu"],
        fix=fix,
    )


def _no_binary(
    ctx: Context, physical: str, gfx: str, archs: set[str], details: str, places: list
) -> CheckResult:
    plan = compat_view.plan(ctx)
    verdict = next((v for v in plan.gpus if v.gpu.bare == physical), None)
    kb = ["no-binary-for-gpu"]
    if gfx != physical:
        summary = (
            f"HSA_OVERRIDE_GFX_VERSION makes {physical} run as {gfx}, which torch does not have"
        )
    else:
        summary = f"torch has no kernels for {physical}"
    if verdict is not None and verdict.status == "native" and plan.index:
        fix = compat_view.install_advice(ctx)
        summary += f"; the {plan.index} wheels target it natively"
    elif verdict is not None and verdict.status == "override" and verdict.override:
        env = " ".join(f"export {k}={v}" for k, v in plan.env.items())
        install = "" if plan.keep else compat_view.install_advice(ctx)
        fix = " ".join(p for p in (install, f"Then: {env}" if install and env else env) if p)
        summary += f"; {verdict.override} runs it as {verdict.runs_as}, which the plan's torch has"
    else:
        info = facts.gfx_info(physical)
        # A gfx missing from the table is too new only when it is newer than all of it:
        # gfx701 (Hawaii) is older than anything ROCm supports.
        where = facts.gfx_outside_table(physical) if info is None else None
        if facts.gfx_unsupported(physical) or (info is not None and info.support == "deprecated"):
            kb.append("unsupported-gpu-architecture")
        if where == "newer":
            kb.append("rocm-too-old-for-gpu")
        fix = plan.summary + "."
        summary += " and no verified override makes it work"
    return result(
        "gpu-arch-vs-torch", Status.FAIL, summary, details=details, evidence=places, kb=kb, fix=fix
    )


def _major_minor(version: str | None) -> str | None:
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


@check("torch-rocm-vs-system", "torch's ROCm vs the system ROCm", needs_torch=True)
def check_rocm_versions(ctx: Context) -> CheckResult:
    probe = ctx.torch()
    problem = _probe_problem("torch-rocm-vs-system", probe)
    if problem or probe is None:
        return problem  # type: ignore[return-value]  # problem is set whenever probe is None
    if probe.flavour != "rocm":
        return result("torch-rocm-vs-system", Status.SKIP, f"torch is a {probe.flavour} build")
    system = system_rocm_version(ctx.host)
    wheel = _major_minor(probe.hip)
    evidence = [ev("torch.version.hip", probe.hip), ev("system ROCm", system or "none")]
    evidence += [ev(f"loaded {k}", v) for k, v in probe.loaded_libs.items()]
    bundled = wsl_bundled_runtime(probe) if is_wsl(ctx.host) and not probe.is_available else None
    if bundled:
        # Under WSL the wheel's own runtime is the mismatch: it must be AMD's WSL build.
        return result(
            "torch-rocm-vs-system",
            Status.FAIL,
            f"under WSL torch loads its bundled {bundled} instead of AMD's WSL runtime",
            evidence=evidence,
            kb=["wsl-limitations"],
            fix=WSL_RUNTIME_FIX,
        )
    if not system:
        return result(
            "torch-rocm-vs-system",
            Status.OK,
            f"torch brings ROCm {wheel}; no system ROCm to conflict",
            evidence=evidence,
            ruled_out=["rocm-library-version-mismatch"],
        )
    if wheel == _major_minor(system):
        return result(
            "torch-rocm-vs-system",
            Status.OK,
            f"torch and the system both use ROCm {wheel}",
            evidence=evidence,
            ruled_out=["rocm-library-version-mismatch"],
        )
    foreign = [
        p for p in probe.loaded_libs.values() if probe.lib_dir and not p.startswith(probe.lib_dir)
    ]
    ld = [d for d in (ctx.env("LD_LIBRARY_PATH") or "").split(":") if "rocm" in d.lower()]
    if foreign or ld:
        where = foreign[0] if foreign else f"LD_LIBRARY_PATH={':'.join(ld)}"
        return result(
            "torch-rocm-vs-system",
            Status.FAIL,
            f"torch built for ROCm {wheel} but system ROCm {system} is loaded first ({where})",
            evidence=evidence,
            kb=["rocm-library-version-mismatch"],
            fix="Run the job without LD_LIBRARY_PATH (env -u LD_LIBRARY_PATH ...) rather than"
            " removing it for good: some ROCm 7.14 images need it (pytorch#188561). "
            + compat_view.install_advice(ctx),
        )
    return result(
        "torch-rocm-vs-system",
        Status.OK,
        f"torch brings ROCm {wheel} (system has {system}; not mixed)",
        evidence=evidence,
        ruled_out=["rocm-library-version-mismatch"],
    )


def _py_range(spec: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    found = re.findall(r"(>=|<=)\s*(\d+)\.(\d+)", spec)
    lo = next(((int(a), int(b)) for op, a, b in found if op == ">="), None)
    hi = next(((int(a), int(b)) for op, a, b in found if op == "<="), None)
    return (lo, hi) if lo and hi else None


@check("python-version", "Python version vs ROCm wheels", needs_torch=True)
def check_python(ctx: Context) -> CheckResult:
    probe = ctx.torch()
    if probe is None or not probe.python_version:
        return result("python-version", Status.SKIP, "interpreter not probed")
    releases = facts.wheel_releases()
    latest = releases[-1] if releases else None
    rng = _py_range(latest.python) if latest else None
    evidence = [ev(probe.python, probe.python_version)]
    if latest is None or rng is None:
        return result(
            "python-version", Status.OK, f"Python {probe.python_version}", evidence=evidence
        )
    evidence.append(ev(f"torch {latest.torch} wheels", latest.python))
    major, minor = (int(x) for x in probe.python_version.split(".")[:2])
    if not rng[0] <= (major, minor) <= rng[1]:
        return result(
            "python-version",
            Status.FAIL,
            f"Python {major}.{minor} has no ROCm wheels (torch {latest.torch} "
            f"supports {latest.python})",
            evidence=evidence,
            kb=["python-or-wheel-incompatible"],
            fix=f"Create a venv with Python {rng[1][0]}.{rng[1][1]} or older.",
        )
    return result(
        "python-version",
        Status.OK,
        f"Python {probe.python_version} has ROCm wheels",
        evidence=evidence,
        ruled_out=["python-or-wheel-incompatible"],
    )


@check("amdsmi-bindings", "amdsmi Python bindings", needs_torch=True)
def check_amdsmi(ctx: Context) -> CheckResult:
    probe = ctx.torch()
    problem = _probe_problem("amdsmi-bindings", probe)
    if problem or probe is None:
        return problem  # type: ignore[return-value]  # problem is set whenever probe is None
    if probe.flavour != "rocm":
        return result("amdsmi-bindings", Status.SKIP, f"not needed by a {probe.flavour} build")
    info = probe.amdsmi or {}
    if "found" not in info:
        # The live probe always answers; a record without the answer is unknown, not absent.
        return result("amdsmi-bindings", Status.SKIP, "whether amdsmi imports was not recorded")
    evidence = [ev("import amdsmi", info.get("error") or "ok")]
    if info.get("found") and info.get("error"):
        return result(
            "amdsmi-bindings",
            Status.FAIL,
            f"amdsmi is installed but fails to import: {info['error']}",
            evidence=evidence,
            kb=["amdsmi-bindings-missing"],
            fix="Reinstall the amdsmi bindings that match your ROCm (ROCM_PATH/share/amd_smi).",
        )
    if not info.get("found"):
        return result(
            "amdsmi-bindings",
            Status.OK,
            "amdsmi is not installed (only torch's GPU utilisation/memory queries use it)",
            evidence=evidence,
        )
    return result(
        "amdsmi-bindings",
        Status.OK,
        "amdsmi imports",
        evidence=evidence,
        ruled_out=["amdsmi-bindings-missing"],
    )


@check("triton", "Triton for torch.compile", needs_torch=True)
def check_triton(ctx: Context) -> CheckResult:
    probe = ctx.torch()
    problem = _probe_problem("triton", probe)
    if problem or probe is None:
        return problem  # type: ignore[return-value]  # problem is set whenever probe is None
    info = probe.triton or {}
    if "found" not in info:
        return result("triton", Status.SKIP, "which triton is installed was not recorded")
    evidence = [
        ev("triton distribution", f"{info.get('dist')} {info.get('version')}"),
        ev("triton/backends/amd", info.get("amd_backend")),
    ]
    if probe.flavour != "rocm":
        return result("triton", Status.SKIP, f"torch is a {probe.flavour} build", evidence=evidence)
    if not info.get("found"):
        return result(
            "triton",
            Status.WARN,
            "triton is not installed: torch.compile will fail",
            evidence=evidence,
            kb=["triton-or-compile-failure"],
            fix="pip install pytorch-triton-rocm from the same index URL as torch.",
        )
    if info.get("dist") != "pytorch-triton-rocm" and not info.get("amd_backend"):
        return result(
            "triton",
            Status.FAIL,
            f"{info.get('dist')} {info.get('version')} has no AMD backend",
            evidence=evidence,
            kb=["triton-or-compile-failure"],
            fix="pip uninstall triton && pip install pytorch-triton-rocm from torch's ROCm index.",
        )
    return result(
        "triton",
        Status.OK,
        f"{info.get('dist')} {info.get('version')} with the AMD backend",
        evidence=evidence,
        ruled_out=["triton-or-compile-failure"],
    )
