"""Checks of the ROCm user space: installs, rocminfo, libraries, math-library kernels.

PyTorch wheels bundle their own ROCm libraries, so a system ROCm is optional;
what matters is which copy of each library the process actually loads and
whether rocBLAS/hipBLASLt ship kernels for the GPU's gfx target.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from rocmfix.host import CommandResult, Host
from rocmfix.probes.base import CheckResult, Context, Status, check, ev, facts, result

_VERSION_H = re.compile(r"#define\s+ROCM_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)")
LIBS = ("libamdhip64.so", "libhsa-runtime64.so", "librocblas.so", "libMIOpen.so")


@dataclass(frozen=True)
class RocmInstall:
    """One ROCm install directory and the versions it records."""

    path: str
    versions: tuple[tuple[str, str], ...]
    """(where, version) for every place that records one."""

    @property
    def version(self) -> str | None:
        return self.versions[0][1] if self.versions else None


def _install_versions(host: Host, root: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    info = (host.read_text(f"{root}/.info/version") or "").strip()
    if info:
        found.append((f"{root}/.info/version", info.split("-")[0]))
    # AMD's packages keep rocm_version.h in include/rocm-core/; Fedora and openSUSE ship it as
    # /usr/include/rocm_version.h (rocm-core-devel; pytorch/pytorch#149805).
    for header_path in (
        f"{root}/include/rocm-core/rocm_version.h",
        f"{root}/include/rocm_version.h",
    ):
        parts = dict(_VERSION_H.findall(host.read_text(header_path) or ""))
        if len(parts) == 3:
            found.append((header_path, f"{parts['MAJOR']}.{parts['MINOR']}.{parts['PATCH']}"))
            break
    m = re.search(r"rocm-(\d+\.\d+(?:\.\d+)?)$", root)
    if m:
        found.append((f"{root} (directory name)", m.group(1)))
    return tuple(found)


# Where distributions install the HIP runtime when ROCm comes from their own packages
# (Fedora rocm-hip: /usr/lib64/libamdhip64.so.6, ollama/ollama#3877; Debian/Ubuntu
# libamdhip64-5: /usr/lib/x86_64-linux-gnu).
DISTRO_LIB_DIRS = ("/usr/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib")


def distro_hip(host: Host) -> str | None:
    """Path of a distribution-packaged libamdhip64 under /usr, or None."""
    for folder in DISTRO_LIB_DIRS:
        hits = sorted(n for n in host.listdir(folder) if n.startswith("libamdhip64.so"))
        if hits:
            return f"{folder}/{hits[0]}"
    return None


def rocm_installs(host: Host) -> tuple[RocmInstall, ...]:
    """ROCM_PATH, /opt/rocm, every /opt/rocm-* install and a distribution's ROCm in /usr."""
    roots = [host.env.get("ROCM_PATH") or "", "/opt/rocm"]
    roots += [f"/opt/{n}" for n in host.listdir("/opt") if re.fullmatch(r"rocm-\d[\w.]*", n)]
    out: list[RocmInstall] = []
    for root in dict.fromkeys(r.rstrip("/") for r in roots if r):
        if root != "/usr" and host.exists(root):
            out.append(RocmInstall(root, _install_versions(host, root)))
    if distro_hip(host) and not any(i.path == "/usr" for i in out):
        out.append(RocmInstall("/usr", _install_versions(host, "/usr")))
    return tuple(out)


def active_install(host: Host) -> RocmInstall | None:
    """The install ROCM_PATH (else /opt/rocm) names, or the only one present."""
    installs = rocm_installs(host)
    want = (host.env.get("ROCM_PATH") or "/opt/rocm").rstrip("/")
    for inst in installs:
        if inst.path == want and inst.versions:
            return inst
    if len(installs) == 1:
        return installs[0]
    # /opt/rocm absent or without a version: a distribution's ROCm in /usr is the one in use
    distro = [i for i in installs if i.path == "/usr"]
    return distro[0] if distro and not host.env.get("ROCM_PATH") else None


def system_rocm_version(host: Host) -> str | None:
    inst = active_install(host)
    return inst.version if inst else None


@check("rocm-install", "ROCm installation")
def check_rocm_install(ctx: Context) -> CheckResult:
    host = ctx.host
    installs = rocm_installs(host)
    knows = getattr(host, "knows", None)
    if not installs and knows is not None and not knows("/opt/rocm"):
        # A snapshot that never looked at /opt/rocm says nothing about a system ROCm.
        return result("rocm-install", Status.SKIP, "the ROCm install directories were not recorded")
    if not installs:
        return result(
            "rocm-install",
            Status.OK,
            "no system ROCm (fine: ROCm PyTorch wheels bundle their libraries)",
            evidence=[ev("/opt/rocm", "absent")],
        )
    evidence = [ev(where, version) for inst in installs for where, version in inst.versions]
    link = host.readlink("/opt/rocm")
    if link:
        evidence.append(ev("/opt/rocm ->", link))
    active = active_install(host)
    active_versions = {v for _, v in active.versions} if active else set()
    real = [i for i in installs if re.search(r"rocm-\d", i.path) or i.path == "/usr"]
    if len(active_versions) > 1:
        return result(
            "rocm-install",
            Status.WARN,
            f"{active.path} records different versions: "  # type: ignore[union-attr]
            f"{', '.join(sorted(active_versions))}",
            evidence=evidence,
            kb=["rocm-library-version-mismatch"],
            fix="Reinstall ROCm cleanly (amdgpu-install --uninstall, then install one version).",
        )
    version = (active.version if active else None) or "(version not recorded)"
    if len(real) > 1:
        names = ", ".join(os.path.basename(i.path) for i in real)
        return result(
            "rocm-install",
            Status.WARN,
            f"{len(real)} ROCm installs side by side ({names}); /opt/rocm is {version}",
            evidence=evidence,
            details="Tools, LD_LIBRARY_PATH entries and builds can pick different copies.",
            kb=["rocm-library-version-mismatch"],
            fix="Keep one, or make sure ROCM_PATH, PATH and LD_LIBRARY_PATH all name the same one.",
        )
    where = active.path if active else installs[0].path
    if where == "/usr":
        evidence.append(ev("distribution HIP runtime", distro_hip(host) or "?"))
        return result(
            "rocm-install",
            Status.OK,
            f"ROCm {version} from the distribution's packages (/usr)",
            evidence=evidence,
        )
    if not (active and active.version):
        return result(
            "rocm-install",
            Status.WARN,
            f"ROCm at {where}, but no version file records which release it is",
            details=f"Neither {where}/.info/version nor rocm_version.h is there: a partial install or "
            "leftovers of a removed one.",
            evidence=evidence or [ev(where, "present, no version file")],
            fix="Reinstall ROCm (or remove the leftovers) so that one release is installed completely.",
        )
    older = _predates_gpus(ctx, active.version)
    if older:
        return older
    return result(
        "rocm-install",
        Status.OK,
        f"ROCm {version} at {where}",
        evidence=evidence,
    )


def _predates_gpus(ctx: Context, version: str) -> CheckResult | None:
    """The system ROCm against the first release that supports each KFD GPU's gfx.

    Older than that is a possible cause only while nothing shows the GPU working: a ROCm
    PyTorch wheel brings its own runtime, so a torch that sees the GPU makes the old system
    release beside the point (it is then named, not blamed).
    """
    old = [g for g in ctx.gpus() if facts.rocm_predates(version, g.gfx)]
    if not old:
        return None
    first = {g.gfx: facts.gfx_info(g.gfx).first_supported for g in old}  # type: ignore[union-attr]
    listed = {g.gfx: facts.gfx_info(g.gfx).first_listed or first[g.gfx] for g in old}  # type: ignore[union-attr]
    named = ", ".join(f"{g.gfx} (node {g.node}, supported from ROCm {first[g.gfx]})" for g in old)
    evidence = [ev("system ROCm", version)] + [
        ev(f"KFD node {g.node}", f"{g.gfx}, first supported in ROCm {first[g.gfx]}") for g in old
    ]
    probe = ctx.torch()
    if probe is not None and probe.is_available and probe.device_count:
        return result(
            "rocm-install",
            Status.OK,
            f"ROCm {version} is older than {named}; torch uses its own runtime and sees the GPU",
            evidence=[*evidence, ev("torch.cuda.is_available()", True)],
        )
    return result(
        "rocm-install",
        Status.WARN,
        f"ROCm {version} is older than the first release that supports {named}",
        details="A runtime older than the GPU may not know it. Tools and builds that use the system "
        "ROCm (rocminfo, compiled extensions) are affected; a ROCm PyTorch wheel brings its own.",
        evidence=evidence,
        kb=["rocm-too-old-for-gpu"],
        # the release AMD's support list names: the one a user should install
        fix=f"Install ROCm {max(listed.values(), key=facts.version_key)} or newer.",
    )


def run_rocminfo(ctx: Context) -> CommandResult:
    res = ctx.host.run(["rocminfo"], timeout=ctx.timeout)
    if res.missing:
        inst = active_install(ctx.host)
        for root in ([inst.path] if inst else []) + ["/opt/rocm"]:
            if ctx.host.exists(f"{root}/bin/rocminfo"):
                return ctx.host.run([f"{root}/bin/rocminfo"], timeout=ctx.timeout)
    return res


@dataclass(frozen=True)
class Agent:
    """One agent block of rocminfo."""

    name: str
    marketing_name: str
    device_type: str
    node: int | None


def parse_rocminfo(text: str) -> tuple[Agent, ...]:
    """Agents of a rocminfo output; the first ``Name:`` of a block is the agent's."""
    agents = []
    for block in re.split(r"\*{7,}\s*\n\s*Agent \d+\s*\n\s*\*{7,}", text)[1:]:
        fields: dict[str, str] = {}
        for line in block.splitlines():
            key, sep, value = line.strip().partition(":")
            if sep and key and key not in fields:
                fields[key] = value.strip()
        node = fields.get("Node", "")
        agents.append(
            Agent(
                fields.get("Name", ""),
                fields.get("Marketing Name", ""),
                fields.get("Device Type", ""),
                int(node) if node.isdigit() else None,
            )
        )
    return tuple(agents)


def gpu_agents(ctx: Context) -> tuple[Agent, ...]:
    res = ctx.rocminfo()
    return tuple(a for a in parse_rocminfo(res.stdout) if a.device_type == "GPU")


# rocminfo.cc CheckInitialState prints "Unable to open /dev/kfd read-write: <strerror(errno)>":
# the errno names the cause (EACCES: groups; ENOENT: no node; ENOMEM/ENODEV: KFD has no device).
_KFD_OPEN = re.compile(r"Unable to open /dev/kfd read-write: ([^\n]+)")
_KFD_OPEN_CAUSES = (
    ("Permission denied", "permission denied", "kfd-permission-denied"),
    ("Operation not permitted", "operation not permitted", "kfd-permission-denied"),
    ("No such file or directory", "no /dev/kfd node", "kfd-device-missing"),
    ("Cannot allocate memory", "KFD has no device for the GPU (ENOMEM)", "kfd-device-missing"),
    ("No such device", "KFD has no device for the GPU (ENODEV)", "kfd-device-missing"),
    # kfd_open -> kfd_create_process refuses the process itself (EINVAL): not groups, not a
    # missing device; reported without naming a cause.
    ("Invalid argument", "the kernel refused the open (EINVAL)", ""),
)
_ROCMINFO_FAILURES = (
    (
        "ROCk module is NOT",
        "rocminfo: the amdgpu (ROCk) module is not loaded or not live",
        "kfd-device-missing",
    ),
    ("is invalid", "rocminfo rejects HSA_OVERRIDE_GFX_VERSION", "no-gpu-visible"),
)
# ROCr's Runtime::Acquire turns any failed start (KFD not opened, no agent) into
# HSA_STATUS_ERROR_OUT_OF_RESOURCES, printed by name or as its number 4104 by old
# rocminfo builds ("Call returned 4104"): a hint that HSA did not start, never a cause.
_OUT_OF_RESOURCES = re.compile(r"HSA_STATUS_ERROR_OUT_OF_RESOURCES|Call returned 4104\b")


def _rocminfo_failure(text: str) -> CheckResult | None:
    m = _KFD_OPEN.search(text)
    if m:
        reason = m.group(1).strip()
        for needle, what, kb in _KFD_OPEN_CAUSES:
            if needle in reason:
                return result(
                    "rocminfo",
                    Status.FAIL,
                    f"rocminfo cannot open /dev/kfd: {what}",
                    evidence=[ev("rocminfo", m.group(0))],
                    kb=[kb] if kb else [],
                    ruled_out=["kfd-permission-denied"] if kb != "kfd-permission-denied" else [],
                )
    for needle, summary, kb in _ROCMINFO_FAILURES:
        if needle in text:
            hits = [line.strip() for line in text.splitlines() if needle in line]
            return result(
                "rocminfo", Status.FAIL, summary, evidence=[ev("rocminfo", hits[0])], kb=[kb]
            )
    hit = _OUT_OF_RESOURCES.search(text)
    if hit:
        line = next(ln.strip() for ln in text.splitlines() if _OUT_OF_RESOURCES.search(ln))
        return result(
            "rocminfo",
            Status.WARN,
            "rocminfo: the HSA runtime did not start (HSA_STATUS_ERROR_OUT_OF_RESOURCES)",
            details="ROCr reports OUT_OF_RESOURCES (4104) for any failed start, usually /dev/kfd not "
            "opening or no usable GPU; it is not about memory. The device-nodes and kernel-log checks "
            "say which.",
            evidence=[ev("rocminfo", line)],
        )
    return None


@check("rocminfo", "rocminfo")
def check_rocminfo(ctx: Context) -> CheckResult:
    res = ctx.rocminfo()
    if res.unrecorded:
        return result("rocminfo", Status.SKIP, "rocminfo was not recorded in this snapshot")
    if res.missing:
        return result(
            "rocminfo", Status.SKIP, "rocminfo is not installed (not needed by pip wheels)"
        )
    if res.timed_out:
        return result(
            "rocminfo",
            Status.FAIL,
            f"rocminfo hung for {ctx.timeout:g}s (a wedged GPU does this)",
            kb=["gpu-hang-or-reset"],
            fix="Check the kernel log for a GPU reset; reboot to clear a hung GPU.",
        )
    text = res.stdout + res.stderr
    agents = gpu_agents(ctx)
    evidence = [ev("rocminfo", line.strip()) for line in text.splitlines()[:3] if line.strip()]
    evidence += [
        ev("rocminfo GPU agent", f"{a.name} {a.marketing_name} node {a.node}") for a in agents
    ]
    unknown_node = _unrecognized(ctx, text, agents, evidence)
    if unknown_node is not None:
        return unknown_node
    if agents:
        names = ", ".join(f"{a.name} ({a.marketing_name})" for a in agents)
        relabelled = _relabelled(ctx, agents)
        if relabelled:
            return relabelled
        missing = _kfd_nodes_not_listed(ctx, agents)
        if missing:
            return result(
                "rocminfo",
                Status.WARN,
                f"{len(agents)} GPU agent(s): {names}; KFD node(s) "
                + ", ".join(f"{g.node} ({g.gfx})" for g in missing)
                + " are not among them",
                details="No visibility variable hides them, so the runtime skipped them: see the "
                "kernel-log and env-hsa-override checks.",
                evidence=evidence + [ev(f"KFD node {g.node}", g.gfx) for g in missing],
                ruled_out=["kfd-permission-denied"],
            )
        return result(
            "rocminfo",
            Status.OK,
            f"{len(agents)} GPU agent(s): {names}",
            evidence=evidence,
            ruled_out=["kfd-permission-denied", "no-gpu-visible"],
        )
    if "ROCR: unsupported GPU" in text and (_wsl(ctx) or "WSL environment detected" in text):
        version = system_rocm_version(ctx.host)
        hit = next(ln.strip() for ln in text.splitlines() if "ROCR: unsupported GPU" in ln)
        return result(
            "rocminfo",
            Status.FAIL,
            f"the WSL runtime of ROCm {version or '(version not recorded)'} does not support this GPU"
            " (ROCR: unsupported GPU)",
            details="Under WSL the runtime accepts only the Radeon cards on AMD's WSL support list for "
            "that ROCm release and Windows driver; /dev/kfd is absent by design.",
            evidence=[ev("rocminfo", hit), ev("system ROCm", version or "not recorded")],
            kb=["wsl-limitations"],
            ruled_out=["kfd-permission-denied", "kfd-device-missing"],
            fix="Check AMD's WSL compatibility list (rocm.docs.amd.com/projects/radeon-ryzen) for this "
            "card and Windows driver, and install a ROCm WSL release that lists it.",
        )
    if "WSL environment detected" in text:
        return result(
            "rocminfo",
            Status.WARN,
            "rocminfo under WSL lists no GPU agent",
            evidence=evidence,
            kb=["wsl-limitations"],
        )
    failure = _rocminfo_failure(text)
    if failure is not None:
        return failure
    return result(
        "rocminfo",
        Status.FAIL,
        f"rocminfo lists no GPU agent (exit {res.returncode})",
        evidence=evidence,
        kb=["no-gpu-visible"],
    )


# ROCr (amd_topology / the KFD driver layer) prints these when it finds a KFD GPU node whose
# gfx_target_version it has no ISA for, and skips the node.
_UNRECOGNIZED = "The GPU node has an unrecognized id"


def _visible_filter(ctx: Context) -> bool:
    return any(ctx.env(k) is not None for k in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"))


def _kfd_nodes_not_listed(ctx: Context, agents: tuple[Agent, ...]) -> list:
    """KFD GPU nodes rocminfo does not list, when no visibility variable explains it."""
    if _visible_filter(ctx) or any(a.node is None for a in agents):
        return []
    listed = {a.node for a in agents}
    return [g for g in ctx.gpus() if g.node not in listed]


def _nodes_blocked(ctx: Context) -> list[str]:
    """Device nodes that were tried and did not open (unknown reads as not blocked)."""
    from rocmfix.probes.access import KFD, kfd_open

    host = ctx.host
    blocked = []
    if host.stat(KFD) is not None:
        res = kfd_open(ctx)
        if res.known and not res.ok:
            blocked.append(KFD)
    for name in host.listdir("/dev/dri"):
        if name.startswith("renderD"):
            res = host.open_rw(f"/dev/dri/{name}")
            if res.known and not res.ok:
                blocked.append(f"/dev/dri/{name}")
    return blocked


def _unrecognized(
    ctx: Context, text: str, agents: tuple[Agent, ...], evidence: list
) -> CheckResult | None:
    """rocminfo's "The GPU node has an unrecognized id": the runtime skipped a KFD GPU node.

    The same words come from a runtime older than the GPU, from an override naming an ISA
    the runtime lacks, from device nodes the runtime cannot open, and from foreign libraries
    loaded in place of ROCm's (ROCm/ROCm#6233); each GPU is judged on what was read.
    """
    if _UNRECOGNIZED not in text:
        return None
    host = ctx.host
    hit = ev("rocminfo", _UNRECOGNIZED)
    listed = {a.node for a in agents}
    skipped = [g for g in ctx.gpus() if g.node not in listed] or list(ctx.gpus())
    named = ", ".join(f"{g.gfx} (node {g.node})" for g in skipped) or "a GPU node"
    overrides = {k: v for k, v in host.env.items() if k.startswith("HSA_OVERRIDE_GFX_VERSION")}
    if overrides:
        k, v = next(iter(overrides.items()))
        return result(
            "rocminfo",
            Status.WARN,
            f"the runtime does not recognise {named} while {k}={v} is set",
            details="An override naming an ISA this runtime has no code for gives the same message.",
            evidence=[hit, ev(k, v), *evidence],
            fix=f"Run once with {k} unset to see whether the runtime knows the GPU itself.",
        )
    blocked = _nodes_blocked(ctx)
    if blocked:
        return result(
            "rocminfo",
            Status.WARN,
            f"the runtime could not create an agent for {named}; {', '.join(blocked)} do not open",
            details="With the device nodes closed to this user the runtime cannot query the GPU, "
            "so the message says nothing about the ROCm release (see device-nodes).",
            evidence=[hit, *evidence],
            fix="See the device-nodes check.",
        )
    version = system_rocm_version(host)
    ev_version = ev("system ROCm", version or "not recorded")
    old = [g for g in skipped if facts.rocm_predates(version, g.gfx)]
    if old:
        first = {g.gfx: facts.gfx_info(g.gfx).first_supported for g in old}  # type: ignore[union-attr]
        listed = {g.gfx: facts.gfx_info(g.gfx).first_listed or first[g.gfx] for g in old}  # type: ignore[union-attr]
        g = old[0]
        return result(
            "rocminfo",
            Status.FAIL,
            f"ROCm {version} does not recognise {', '.join(f'{x.gfx} (node {x.node})' for x in old)};"
            f" {g.gfx} is supported from ROCm {first[g.gfx]}",
            details="The runtime skips a KFD GPU node whose ISA it has no code for: this ROCm "
            "release predates the GPU. An override borrowing an older ISA is no fix.",
            evidence=[hit, ev_version]
            + [
                ev(f"KFD node {x.node}", f"{x.gfx}, first supported in ROCm {first[x.gfx]}")
                for x in old
            ],
            kb=["rocm-too-old-for-gpu"],
            fix=f"Install ROCm {max(listed.values(), key=facts.version_key)} or newer, with a PyTorch "
            "wheel built for it.",
        )
    lists = [g for g in skipped if facts.rocm_predates(version, g.gfx) is False]
    if skipped and len(lists) == len(skipped):
        foreign = [
            d
            for d in (ctx.env("LD_LIBRARY_PATH") or "").split(":")
            if d.strip() and "rocm" not in d.lower()
        ]
        why = (
            f"; LD_LIBRARY_PATH puts {foreign[0]} ahead of ROCm's own libraries" if foreign else ""
        )
        return result(
            "rocminfo",
            Status.FAIL if foreign else Status.WARN,
            f"ROCm {version} lists {named}, yet its runtime does not recognise it{why}",
            details="A release that lists the GPU knows its ISA: something replaced the runtime's "
            "own libraries or environment (a compiler environment script is a known case).",
            evidence=[hit, ev_version]
            + ([ev("LD_LIBRARY_PATH", ctx.env("LD_LIBRARY_PATH"))] if foreign else []),
            kb=["rocm-library-version-mismatch"] if foreign else [],
            ruled_out=["rocm-too-old-for-gpu"],
            fix="Run rocminfo in a clean shell (env -u LD_LIBRARY_PATH rocminfo); remove what your "
            "shell start-up files source."
            if foreign
            else "Run rocminfo in a clean shell (env -i PATH=/usr/bin:/bin rocminfo).",
        )
    return result(
        "rocminfo",
        Status.WARN,
        f"the runtime does not recognise {named}"
        + (f" (ROCm {version})" if version else " (ROCm release not recorded)")
        + ": it may predate the GPU",
        details="Which ROCm release first supports this GPU is not in rocmfix's table, or the "
        "installed release is not recorded, so this stays a possibility.",
        evidence=[hit, ev_version, *evidence],
        kb=["rocm-too-old-for-gpu"],
        fix="Compare the ROCm release with AMD's compatibility matrix for this GPU.",
    )


def _relabelled(ctx: Context, agents: tuple[Agent, ...]) -> CheckResult | None:
    """rocminfo's gfx for a node against the KFD's physical gfx for the same node.

    They differ only under HSA_OVERRIDE_GFX_VERSION[_<node>]; across GPU families
    (an MI210 listed as gfx1030) the GPU runs code built for another ISA.
    """
    from rocmfix.probes.compat_view import major

    physical = {g.node: g for g in ctx.gpus()}
    for a in agents:
        gpu = physical.get(a.node) if a.node is not None else None
        shown = a.name.split(":", 1)[0].strip().lower()
        if gpu is None or not shown.startswith("gfx") or shown == gpu.gfx:
            continue
        if major(shown) != major(gpu.gfx):
            return result(
                "rocminfo",
                Status.FAIL,
                f"rocminfo lists node {a.node} ({a.marketing_name}) as {shown}, but the KFD"
                f" reports {gpu.gfx}: an override relabels it as another GPU family",
                evidence=[
                    ev("rocminfo GPU agent", f"{a.name} {a.marketing_name} node {a.node}"),
                    ev(f"KFD node {gpu.node}", gpu.gfx),
                ],
                kb=["memory-access-fault"],
                ruled_out=["kfd-permission-denied", "no-gpu-visible"],
                fix="See env-hsa-override: unset the global HSA_OVERRIDE_GFX_VERSION and set"
                " HSA_OVERRIDE_GFX_VERSION_<node> only for the GPU that needs it.",
            )
    return None


def _wsl(ctx: Context) -> bool:
    from rocmfix.probes.system import is_wsl

    return is_wsl(ctx.host)


def resolve_libraries(host: Host) -> dict[str, list[str]]:
    """Library -> candidate paths, LD_LIBRARY_PATH entries first, then ldconfig's cache."""
    found: dict[str, list[str]] = {lib: [] for lib in LIBS}
    for folder in (host.env.get("LD_LIBRARY_PATH") or "").split(":"):
        if not folder:
            continue
        names = host.listdir(folder)
        for lib in LIBS:
            hit = sorted(n for n in names if n.startswith(lib))
            if hit:
                found[lib].append(f"{folder.rstrip('/')}/{hit[0]} (LD_LIBRARY_PATH)")
    ldconfig = host.run(["ldconfig", "-p"], timeout=5)
    if not ldconfig.ok:
        ldconfig = host.run(["/sbin/ldconfig", "-p"], timeout=5)
    for line in ldconfig.stdout.splitlines():
        name, _, path = line.strip().partition(" => ")
        for lib in LIBS:
            if name.startswith(lib) and path:
                found[lib].append(f"{path.strip()} (ldconfig)")
    return found


@check("rocm-libraries", "ROCm library resolution")
def check_rocm_libraries(ctx: Context) -> CheckResult:
    found = resolve_libraries(ctx.host)
    probe = ctx.torch()
    evidence = [ev(lib, paths[0]) for lib, paths in found.items() if paths]
    loaded = probe.loaded_libs if probe else {}
    evidence += [ev(f"loaded by torch: {lib}", path) for lib, path in loaded.items()]
    if probe is None or probe.flavour != "rocm" or not probe.lib_dir:
        first = found["libamdhip64.so"]
        if not first:
            why = "torch not probed" if probe is None else f"torch is a {probe.flavour} build"
            return result(
                "rocm-libraries",
                Status.SKIP,
                f"no libamdhip64 on the library path ({why}; ROCm wheels bring their own)",
                evidence=evidence or [ev("LD_LIBRARY_PATH, ldconfig -p", "no libamdhip64")],
            )
        return result(
            "rocm-libraries", Status.OK, f"libamdhip64 resolves to {first[0]}", evidence=evidence
        )
    bundled = ctx.host.listdir(probe.lib_dir)
    foreign = {
        lib: path
        for lib, path in loaded.items()
        if not path.startswith(probe.lib_dir) and any(n.startswith(lib) for n in bundled)
    }
    if probe.flavour == "rocm" and not probe.is_available and _wsl(ctx):
        from rocmfix.probes.torch_build import WSL_RUNTIME_FIX, wsl_bundled_runtime

        bundled_hsa = wsl_bundled_runtime(probe)
        if bundled_hsa:
            return result(
                "rocm-libraries",
                Status.FAIL,
                f"under WSL torch uses its bundled {os.path.basename(bundled_hsa)}, not AMD's WSL runtime",
                details="The runtime inside a generic ROCm wheel talks to /dev/kfd, which WSL does not have.",
                evidence=evidence,
                kb=["wsl-limitations"],
                fix=WSL_RUNTIME_FIX,
            )
    if foreign:
        lib, path = next(iter(foreign.items()))
        return result(
            "rocm-libraries",
            Status.FAIL,
            f"torch loaded {lib} from {path}, not its own copy in {probe.lib_dir}",
            details="LD_LIBRARY_PATH or LD_PRELOAD puts a system ROCm ahead of the libraries torch was built with.",
            evidence=evidence,
            kb=["rocm-library-version-mismatch"],
            fix="Unset LD_LIBRARY_PATH (or remove the ROCm entry) when running PyTorch wheels.",
        )
    missing = [lib for lib in ("libamdhip64", "libhsa-runtime64") if lib not in loaded]
    if probe.error and missing and not bundled:
        return result(
            "rocm-libraries",
            Status.FAIL,
            f"{missing[0]} could not be loaded",
            evidence=evidence,
            kb=["hip-runtime-lib-missing"],
        )
    return result(
        "rocm-libraries",
        Status.OK,
        "torch uses its own bundled ROCm libraries",
        evidence=evidence,
        ruled_out=["rocm-library-version-mismatch", "hip-runtime-lib-missing"],
    )
