"""Checks of what the math libraries ship for this GPU, and of local build/caches.

torch's arch list covers PyTorch's own kernels only: rocBLAS/hipBLASLt need
Tensile kernel files for the gfx and MIOpen has per-gfx databases. Their
file names carry the gfx, so listing the library folders answers the
question without loading anything.
"""

from __future__ import annotations

import os
import re

from rocmfix.probes.base import CheckResult, Context, Status, check, ev, facts, human_bytes, result
from rocmfix.probes.install import active_install


def gfx_in_names(gfx: str, names: tuple[str, ...] | list[str]) -> list[str]:
    """File names that mention ``gfx`` as a whole token (gfx1030 does not match gfx10300)."""
    pattern = re.compile(rf"(?<![0-9a-z]){re.escape(gfx)}(?![0-9a-z])")
    return [n for n in names if pattern.search(n)]


def library_dirs(ctx: Context, lib: str) -> list[str]:
    """Folders holding ``lib``'s kernel files (``rocblas`` or ``hipblaslt``), the one in use first."""
    probe = ctx.torch()
    dirs: list[str] = []
    if probe and probe.loaded_libs.get(f"lib{lib}"):
        dirs.append(f"{os.path.dirname(probe.loaded_libs[f'lib{lib}'])}/{lib}/library")
    if probe and probe.flavour == "rocm" and probe.lib_dir:
        dirs.append(f"{probe.lib_dir}/{lib}/library")
    inst = active_install(ctx.host)
    if inst:
        dirs.append(f"{inst.path}/lib/{lib}/library")
    return [d for d in dict.fromkeys(dirs) if ctx.host.exists(d)]


def miopen_db_dirs(ctx: Context) -> list[str]:
    probe = ctx.torch()
    dirs = []
    if probe and probe.flavour == "rocm" and probe.lib_dir:
        dirs.append(f"{os.path.dirname(probe.lib_dir)}/share/miopen/db")
    inst = active_install(ctx.host)
    if inst:
        dirs.append(f"{inst.path}/share/miopen/db")
    return [d for d in dict.fromkeys(dirs) if ctx.host.exists(d)]


def kernel_files(ctx: Context, lib: str, gfx: str) -> tuple[str | None, list[str]]:
    """(folder in use, files in it for ``gfx``); folder None when no library folder exists."""
    dirs = library_dirs(ctx, lib)
    if not dirs:
        return None, []
    return dirs[0], gfx_in_names(gfx, ctx.host.listdir(dirs[0]))


def effective_gfx(ctx: Context, physical: str) -> str:
    """The gfx the runtime uses: HSA_OVERRIDE_GFX_VERSION when valid, else the physical one."""

    value = ctx.env("HSA_OVERRIDE_GFX_VERSION")
    return (facts.override_to_gfx(value) if value else None) or physical


@check("math-libs-for-gfx", "rocBLAS / hipBLASLt kernels for the GPU")
def check_math_libs(ctx: Context) -> CheckResult:
    """Judge every GPU (discrete ones when an iGPU sits beside them) by the gfx it runs as."""
    from rocmfix.probes.compat_view import runs_as

    gpus = [g for g in ctx.gpus() if not g.integrated] or list(ctx.gpus())
    if not gpus:
        return result("math-libs-for-gfx", Status.SKIP, "no GPU")
    probe = ctx.torch()
    if probe is not None and probe.flavour not in ("rocm", "unknown"):
        return result("math-libs-for-gfx", Status.SKIP, f"torch is a {probe.flavour} build")
    targets = list(dict.fromkeys(runs_as(ctx, g.node, g.gfx) for g in gpus))
    folder, _ = kernel_files(ctx, "rocblas", targets[0])
    if folder is None:
        return result("math-libs-for-gfx", Status.SKIP, "no rocBLAS library folder found")
    evidence, missing, no_lt = [], [], []
    for gfx in targets:
        _, files = kernel_files(ctx, "rocblas", gfx)
        evidence.append(
            ev(folder, f"{len(files)} file(s) for {gfx}" + (f", e.g. {files[0]}" if files else ""))
        )
        lt_folder, lt_files = kernel_files(ctx, "hipblaslt", gfx)
        if lt_folder:
            evidence.append(ev(lt_folder, f"{len(lt_files)} file(s) for {gfx}"))
        if not files:
            missing.append(gfx)
        elif lt_folder and not lt_files:
            no_lt.append(gfx)
    if missing:
        return result(
            "math-libs-for-gfx",
            Status.FAIL,
            f"rocBLAS has no Tensile kernels for {', '.join(missing)} in {folder}",
            evidence=evidence,
            kb=["rocblas-tensile-missing"],
            fix="Use a ROCm/PyTorch build that includes this gfx, or an HSA_OVERRIDE_GFX_VERSION the gfx table names.",
        )
    if no_lt:
        return result(
            "math-libs-for-gfx",
            Status.WARN,
            f"rocBLAS has {', '.join(no_lt)} kernels; hipBLASLt has none",
            evidence=evidence,
            kb=["hipblaslt-unsupported-arch"],
            fix="If GEMMs fail with a hipBLASLt message, export TORCH_BLAS_PREFER_HIPBLASLT=0.",
        )
    return result(
        "math-libs-for-gfx",
        Status.OK,
        f"rocBLAS kernels for {', '.join(targets)} present",
        evidence=evidence,
        ruled_out=["rocblas-tensile-missing"],
    )


def _tree_size(ctx: Context, path: str, depth: int = 3, budget: list[int] | None = None) -> int:
    budget = budget if budget is not None else [2000]
    total = 0
    for name in ctx.host.listdir(path):
        budget[0] -= 1
        if budget[0] < 0:
            break
        st = ctx.host.stat(f"{path}/{name}")
        if st is None:
            continue
        total += (
            _tree_size(ctx, f"{path}/{name}", depth - 1, budget)
            if st.is_dir and depth > 0
            else st.size
        )
    return total


def _writable(ctx: Context, mode: int, uid: int, gid: int) -> bool:
    host = ctx.host
    return (
        host.uid == 0
        or (uid == host.uid and bool(mode & 0o200))
        or (gid in host.gids and bool(mode & 0o020))
        or bool(mode & 0o002)
    )


@check("miopen-cache", "MIOpen user database and kernel cache")
def check_miopen_cache(ctx: Context) -> CheckResult:
    home = ctx.env("HOME") or ""
    places = {
        "user db": ctx.env("MIOPEN_USER_DB_PATH") or f"{home}/.config/miopen",
        "kernel cache": ctx.env("MIOPEN_CUSTOM_CACHE_DIR") or f"{home}/.cache/miopen",
    }
    evidence, problems = [], []
    for label, path in places.items():
        st = ctx.host.stat(path)
        if st is None:
            evidence.append(ev(f"{label} {path}", "not created yet"))
            continue
        size = _tree_size(ctx, path)
        evidence.append(
            ev(f"{label} {path}", f"{st.permissions} {st.owner}:{st.group}, {human_bytes(size)}")
        )
        if not _writable(ctx, st.mode, st.uid, st.gid):
            problems.append(
                f"{label} {path} is owned by {st.owner} and not writable by {ctx.host.user}"
            )
    if ctx.env("MIOPEN_DISABLE_CACHE") in ("1", "true", "TRUE", "True"):
        evidence.append(ev("MIOPEN_DISABLE_CACHE", ctx.env("MIOPEN_DISABLE_CACHE")))
    if problems:
        return result(
            "miopen-cache",
            Status.FAIL,
            problems[0],
            evidence=evidence,
            kb=["miopen-cache-or-db-error"],
            fix=f"sudo chown -R {ctx.host.user} {places['user db']} {places['kernel cache']}",
        )
    return result(
        "miopen-cache",
        Status.OK,
        "MIOpen caches are writable or not created yet",
        evidence=evidence,
    )


@check("compiler-headers", "C++ headers for hipcc / runtime compilation")
def check_compiler_headers(ctx: Context) -> CheckResult:
    base = "/usr/lib/gcc/x86_64-linux-gnu"
    versions = [v for v in ctx.host.listdir(base) if v.split(".")[0].isdigit()]
    if not versions:
        return result("compiler-headers", Status.SKIP, f"no GCC installation under {base}")
    newest = max(versions, key=lambda v: [int(p) for p in v.split(".") if p.isdigit()])
    headers = f"/usr/include/c++/{newest}"
    has = ctx.host.exists(f"{headers}/cmath") or ctx.host.exists(headers)
    evidence = [ev(base, " ".join(sorted(versions))), ev(headers, "present" if has else "absent")]
    if not has:
        major = newest.split(".")[0]
        return result(
            "compiler-headers",
            Status.WARN,
            f"clang picks GCC {newest}, whose C++ headers are not installed",
            details="hipcc, hiprtc and MIOpen's runtime kernel compile use the newest GCC they find.",
            evidence=evidence,
            kb=["cxx-std-headers-missing"],
            fix=f"sudo apt install libstdc++-{major}-dev",
        )
    return result(
        "compiler-headers",
        Status.OK,
        f"libstdc++ headers for GCC {newest} present",
        evidence=evidence,
        ruled_out=["cxx-std-headers-missing"],
    )
