"""Checks built on the torch probe: the build, the gfx comparison, the ROCm versions.

The decisive comparison is the GPU's gfx against the archs compiled into the
wheel: it predicts hipErrorNoBinaryForGpu before the user ever runs a kernel,
and names the exact override when one exists.
"""

from __future__ import annotations

import re

from rocmfix.probes.base import CheckResult, Context, Status, check, ev, facts, result
from rocmfix.probes.install import gpu_agents, system_rocm_version
from rocmfix.probes.mathlibs import effective_gfx, gfx_in_names, kernel_files, miopen_db_dirs
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
        status = Status.FAIL if kb else Status.ERROR
        return result(
            "torch-build", status, f"probing torch failed: {probe.error}", evidence=evidence, kb=kb
        )
    if probe.flavour == "missing":
        return result(
            "torch-build",
            Status.FAIL,
            f"torch is not installed for {probe.python}",
            evidence=evidence,
            fix="Install a ROCm wheel: pip install torch --index-url https://download.pytorch.org/whl/<rocm>",
        )
    index = _suggest_index(ctx)
    install = (
        f"pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/{index}"
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
            fix=install,
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
            fix=install,
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


def _suggest_index(ctx: Context) -> str:
    system = system_rocm_version(ctx.host)
    index = facts.rocm_index_for(system) if system else None
    if index:
        return index
    newest = facts.wheel_releases()[-1] if facts.wheel_releases() else None
    return newest.rocm_indexes[0] if newest and newest.rocm_indexes else "rocm<version>"


@check("gpu-arch-vs-torch", "GPU gfx vs torch, runtime and math libraries", needs_torch=True)
def check_arch(ctx: Context) -> CheckResult:
    gpus = [g for g in ctx.gpus() if not g.integrated] or list(ctx.gpus())
    if not gpus:
        return result("gpu-arch-vs-torch", Status.SKIP, "no GPU")
    probe = ctx.torch()
    gpu = gpus[0]
    gfx = effective_gfx(ctx, gpu.gfx)
    runtime = [a.name for a in gpu_agents(ctx)] or [
        d.gcn_arch_name or "?" for d in (probe.devices if probe else ())
    ]
    blas_dir, blas = kernel_files(ctx, "rocblas", gfx)
    lt_dir, lt = kernel_files(ctx, "hipblaslt", gfx)
    mi_dirs = miopen_db_dirs(ctx)
    miopen = gfx_in_names(gfx, ctx.host.listdir(mi_dirs[0])) if mi_dirs else []
    places = [
        ev("1 GPU (sysfs)", f"{gpu.gfx} at KFD node {gpu.node}"),
        ev(
            "2 runtime (after HSA_OVERRIDE_GFX_VERSION)",
            f"{', '.join(runtime) or '?'}; override "
            f"{ctx.env('HSA_OVERRIDE_GFX_VERSION') or 'unset'} -> {gfx}",
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
    if archs and gfx not in archs:
        return _no_binary(ctx, gpu.gfx, gfx, archs, details, places)
    if blas_dir and not blas:
        return result(
            "gpu-arch-vs-torch",
            Status.FAIL,
            f"torch has {gfx} kernels but rocBLAS has none",
            details=details,
            evidence=places,
            kb=["rocblas-tensile-missing"],
            ruled_out=["no-binary-for-gpu"],
            fix="Use a ROCm/PyTorch build whose rocBLAS ships kernels for this gfx.",
        )
    via = (
        f" via HSA_OVERRIDE_GFX_VERSION={ctx.env('HSA_OVERRIDE_GFX_VERSION')}"
        if gfx != gpu.gfx
        else ""
    )
    return result(
        "gpu-arch-vs-torch",
        Status.OK,
        f"{gpu.gfx} runs as {gfx}{via}; torch and rocBLAS have it",
        details=details,
        evidence=places,
        ruled_out=["no-binary-for-gpu", "rocblas-tensile-missing"],
    )


def _no_binary(
    ctx: Context, physical: str, gfx: str, archs: set[str], details: str, places: list
) -> CheckResult:
    override = facts.override_for_gfx(physical)
    info = facts.gfx_info(physical)
    kb = ["no-binary-for-gpu"]
    if gfx != physical:
        fix = (
            f"export HSA_OVERRIDE_GFX_VERSION={override}"
            if override and facts.override_to_gfx(override) in archs
            else "unset HSA_OVERRIDE_GFX_VERSION"
        )
        summary = (
            f"HSA_OVERRIDE_GFX_VERSION makes {physical} run as {gfx}, which torch does not have"
        )
    elif override and facts.override_to_gfx(override) in archs:
        fix = f"export HSA_OVERRIDE_GFX_VERSION={override}"
        summary = (
            f"torch has no kernels for {physical}; HSA_OVERRIDE_GFX_VERSION={override} runs it as "
            f"{facts.override_to_gfx(override)}"
        )
    else:
        # A gfx missing from the table is too new only when it is newer than all of it:
        # gfx701 (Hawaii) is older than anything ROCm supports.
        where = facts.gfx_outside_table(physical) if info is None else None
        if facts.gfx_unsupported(physical) or (info is not None and info.support == "deprecated"):
            kb.append("unsupported-gpu-architecture")
        if where == "newer":
            kb.append("rocm-too-old-for-gpu")
        fix = "No override is known to work; use a build that targets it (or an older ROCm stack) or another GPU."
        summary = f"torch has no kernels for {physical} and no known override makes it work"
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
            fix=f"Unset LD_LIBRARY_PATH, or install the wheel for your ROCm: --index-url "
            f"https://download.pytorch.org/whl/{facts.rocm_index_for(system) or 'rocm' + (system or '')}",
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
