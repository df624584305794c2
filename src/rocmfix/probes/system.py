"""Checks about the platform: OS, WSL, containers, kernel parameters, Secure Boot.

``container_kind`` and ``is_wsl`` are also used by the fix actions, which
refuse host-level changes (groups, boot parameters) inside a container or WSL.
"""

from __future__ import annotations

from rocmfix.host import Host
from rocmfix.probes.base import CheckResult, Context, Status, check, ev, human_bytes, result

_SB_VAR = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e398a7c5ecec"
_SHM_MIN = 1024**3


def os_release(host: Host) -> dict[str, str]:
    """``/etc/os-release`` as a dict (empty when unreadable)."""
    text = host.read_text("/etc/os-release") or host.read_text("/usr/lib/os-release") or ""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip().strip('"').strip("'")
    return out


def kernel_release(host: Host) -> str:
    return (host.read_text("/proc/sys/kernel/osrelease") or "").strip()


def is_wsl(host: Host) -> bool:
    """True under Windows Subsystem for Linux (kernel string or /dev/dxg)."""
    version = (host.read_text("/proc/version") or "") + kernel_release(host)
    return "microsoft" in version.lower() or host.exists("/dev/dxg")


def container_kind(host: Host) -> str | None:
    """docker | podman | kubernetes | lxc | container, or None on a plain host."""
    if host.env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if host.exists("/run/.containerenv"):
        return "podman"
    if host.exists("/.dockerenv"):
        return "docker"
    # systemd writes the container manager it detected here (lxc, lxc-libvirt,
    # systemd-nspawn, docker, podman ...); under cgroup v2 /proc/1/cgroup is only "0::/".
    detected = (host.read_text("/run/systemd/container") or "").strip()
    if detected:
        return "lxc" if detected.startswith("lxc") else detected
    cgroup = host.read_text("/proc/1/cgroup") or ""
    for needle, kind in (
        ("kubepods", "kubernetes"),
        ("libpod", "podman"),
        ("docker", "docker"),
        ("lxc", "lxc"),
    ):
        if needle in cgroup:
            return kind
    if host.env.get("container"):
        return host.env["container"]
    return None


@check("os-info", "Operating system")
def check_os(ctx: Context) -> CheckResult:
    rel = os_release(ctx.host)
    kernel = kernel_release(ctx.host)
    evidence = [
        ev("/etc/os-release PRETTY_NAME", rel.get("PRETTY_NAME", "?")),
        ev("kernel release", kernel or "?"),
    ]
    if not rel and not kernel:
        return result("os-info", Status.SKIP, "cannot read /etc/os-release or the kernel release")
    name = rel.get("PRETTY_NAME") or rel.get("NAME") or "unknown distribution"
    return result("os-info", Status.OK, f"{name}, kernel {kernel or '?'}", evidence=evidence)


@check("wsl", "Windows Subsystem for Linux")
def check_wsl(ctx: Context) -> CheckResult:
    host = ctx.host
    if not is_wsl(host):
        return result("wsl", Status.OK, "not running under WSL", ruled_out=["wsl-limitations"])
    evidence = [
        ev("/proc/version", (host.read_text("/proc/version") or "").strip()),
        ev("/dev/dxg", host.exists("/dev/dxg")),
    ]
    if not host.exists("/dev/dxg"):
        return result(
            "wsl",
            Status.FAIL,
            "WSL without /dev/dxg: the Windows GPU is not passed into this distribution",
            evidence=evidence,
            kb=["wsl-limitations"],
            fix="Update WSL and the AMD Windows driver, then install AMD's WSL ROCm runtime.",
        )
    return result(
        "wsl",
        Status.WARN,
        "WSL: the GPU is reached through /dev/dxg; /dev/kfd is absent by design",
        details="ROCm on WSL needs AMD's WSL runtime (librocdxg) and a supported Radeon; rocminfo and "
        "rocm-smi behave differently and HSA_OVERRIDE_GFX_VERSION does not apply to the Windows driver.",
        evidence=evidence,
        kb=["wsl-limitations"],
        fix="Use AMD's WSL ROCm runtime and a ROCm PyTorch wheel; ignore missing /dev/kfd.",
    )


@check("container", "Container")
def check_container(ctx: Context) -> CheckResult:
    host = ctx.host
    kind = container_kind(host)
    if kind is None:
        return result("container", Status.OK, "not inside a container")
    kfd = host.exists("/dev/kfd")
    renders = [n for n in host.listdir("/dev/dri") if n.startswith("renderD")]
    shm = host.disk_total("/dev/shm")
    evidence = [
        ev("container", kind),
        ev("/dev/kfd", "present" if kfd else "missing"),
        ev("/dev/dri", " ".join(renders) or "no render nodes"),
        ev("/dev/shm size", human_bytes(shm) if shm else "?"),
    ]
    from rocmfix.probes.access import container_run_fix

    if not kfd and not renders and not ctx.gpus() and not _amd_pci(host):
        return result(
            "container",
            Status.SKIP,
            f"{kind} container; the host shows no AMD GPU either",
            evidence=evidence,
        )
    if not kfd or not renders:
        missing = " and ".join(
            x for x, ok in (("/dev/kfd", kfd), ("/dev/dri render nodes", renders)) if not ok
        )
        return result(
            "container",
            Status.FAIL,
            f"{kind} container started without {missing}",
            evidence=evidence,
            kb=["kfd-device-missing"],
            fix=container_run_fix(host),
        )
    from rocmfix.probes.access import kfd_open

    opens = {"/dev/kfd": kfd_open(ctx)}
    opens.update({f"/dev/dri/{n}": host.open_rw(f"/dev/dri/{n}") for n in renders})
    evidence += [ev(f"open {p} rw", r.describe()) for p, r in opens.items()]
    closed = [p for p, r in opens.items() if not r.ok and r.known]
    if closed:
        from rocmfix.probes.access import NO_DEVICE_ERRNOS

        first = opens[closed[0]]
        perm = first.permission or (first.errno is None and not _in_group(host, closed[0]))
        no_device = first.errno in NO_DEVICE_ERRNOS
        return result(
            "container",
            Status.FAIL,
            f"{kind} container has {', '.join(closed)} but cannot open {'it' if len(closed) == 1 else 'them'}"
            f" ({first.errno or 'refused'})",
            details="The devices were passed in, but the process lacks the host's device group (or the "
            "container's device cgroup refuses them)."
            if perm
            else "The host's KFD has no usable GPU behind /dev/kfd; fix the host first."
            if no_device
            else f"The kernel refused the open with {first.errno}: neither a group nor a missing "
            "device; compare with `rocminfo` on the host.",
            evidence=evidence,
            kb=["kfd-permission-denied"] if perm else ["kfd-device-missing"] if no_device else [],
            ruled_out=[] if perm else ["kfd-permission-denied"],
            fix=container_run_fix(host) if perm else "Run `rocmfix doctor` on the host.",
        )
    if not all(r.known for r in opens.values()):
        return result(
            "container",
            Status.SKIP,
            f"{kind} container with /dev/kfd and {len(renders)} render node(s); whether they open was not recorded",
            evidence=evidence,
            ruled_out=["kfd-device-missing"],
        )
    if shm is not None and shm < _SHM_MIN:
        return result(
            "container",
            Status.WARN,
            f"{kind} container with GPU devices, but /dev/shm is only {human_bytes(shm)}",
            evidence=evidence,
            kb=["shared-memory-too-small"],
            fix="Restart it with --ipc=host or --shm-size 8G.",
        )
    return result(
        "container",
        Status.OK,
        f"{kind} container with /dev/kfd and {len(renders)} render node(s) that open read-write",
        evidence=evidence,
        ruled_out=["kfd-device-missing", "kfd-permission-denied"],
    )


@check("kernel-params", "Kernel boot parameters")
def check_kernel_params(ctx: Context) -> CheckResult:
    cmdline = ctx.host.read_text("/proc/cmdline")
    if cmdline is None:
        return result("kernel-params", Status.SKIP, "cannot read /proc/cmdline")
    words = cmdline.split()
    relevant = [
        w
        for w in words
        if w.startswith(("amdgpu.", "iommu", "amd_iommu", "modprobe.blacklist", "nomodeset"))
    ]
    evidence = [ev("/proc/cmdline", " ".join(relevant) or "(no amdgpu/iommu parameters)")]
    blocked = [
        w
        for w in words
        if w == "nomodeset" or (w.startswith("modprobe.blacklist=") and "amdgpu" in w)
    ]
    blocked += [w for w in words if w in ("amdgpu.modeset=0",)]
    if blocked:
        return result(
            "kernel-params",
            Status.FAIL,
            f"{' '.join(blocked)} keeps amdgpu from loading",
            evidence=evidence,
            kb=["kfd-device-missing"],
            fix="Remove it from GRUB_CMDLINE_LINUX_DEFAULT, run update-grub and reboot.",
        )
    gpus = [g for g in ctx.gpus() if not g.integrated]
    if (
        len(gpus) > 1
        and "iommu=pt" not in words
        and not any(w.startswith("amd_iommu=off") for w in words)
    ):
        return result(
            "kernel-params",
            Status.WARN,
            f"{len(gpus)} GPUs without iommu=pt (AMD: multi-GPU may hang without it)",
            evidence=evidence,
            kb=["gpu-hang-or-reset"],
            fix="Add iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT, run update-grub and reboot.",
        )
    return result(
        "kernel-params",
        Status.OK,
        " ".join(relevant) or "no amdgpu or iommu overrides",
        evidence=evidence,
    )


def secure_boot_state(ctx: Context) -> tuple[bool | None, str]:
    """(enabled, how it was read); enabled is None when it cannot be told."""
    res = ctx.host.run(["mokutil", "--sb-state"], timeout=ctx.timeout)
    text = (res.stdout + res.stderr).strip()
    if res.ok and "SecureBoot" in text:
        return "enabled" in text.lower(), f"mokutil --sb-state: {text.splitlines()[0]}"
    raw = ctx.host.read_text(_SB_VAR)
    if raw:
        return raw[-1] == "\x01", f"{_SB_VAR}: {ord(raw[-1])}"
    knows = getattr(ctx.host, "knows", None)
    if knows is not None and not knows("/sys/firmware/efi"):
        # A snapshot that never looked at /sys/firmware/efi says nothing about the boot mode.
        return None, "/sys/firmware/efi was not recorded in this snapshot"
    if not ctx.host.exists("/sys/firmware/efi"):
        return False, "/sys/firmware/efi absent (legacy BIOS boot)"
    return None, text or "mokutil unavailable and efivars unreadable"


def _dkms_built_for_kernel(ctx: Context) -> str | None:
    """The `dkms status` line of an amdgpu module installed for the running kernel, if any."""
    res = ctx.host.run(["dkms", "status"], timeout=ctx.timeout)
    kernel = kernel_release(ctx.host)
    if not res.ok or not kernel:
        return None
    return next(
        (
            line.strip()
            for line in res.stdout.splitlines()
            if line.strip().startswith("amdgpu")
            and kernel in line
            and line.strip().endswith("installed")
        ),
        None,
    )


@check("secure-boot", "Secure Boot")
def check_secure_boot(ctx: Context) -> CheckResult:
    enabled, how = secure_boot_state(ctx)
    evidence = [ev("secure boot", how)]
    if enabled is None:
        return result(
            "secure-boot", Status.SKIP, "Secure Boot state cannot be read", evidence=evidence
        )
    if not enabled:
        return result("secure-boot", Status.OK, "Secure Boot is off", evidence=evidence)
    dkms = ctx.host.exists("/sys/module/amdgpu/version")
    loaded = ctx.host.exists("/sys/module/amdgpu")
    built = _dkms_built_for_kernel(ctx)
    if not loaded and built and _amd_pci(ctx.host):
        return result(
            "secure-boot",
            Status.FAIL,
            "Secure Boot is on and amdgpu is not loaded although amdgpu-dkms is built for this "
            "kernel: the unsigned module is refused",
            evidence=[*evidence, ev("dkms status", built), ev("/sys/module/amdgpu", "absent")],
            kb=["amdgpu-dkms-build-failure"],
            fix="Enroll the DKMS signing key (sudo mokutil --import /var/lib/dkms/mok.pub, reboot, "
            "confirm the enrollment) or turn Secure Boot off in the firmware settings.",
        )
    state = (ctx.host.read_text("/sys/module/amdgpu/initstate") or "").strip()
    if dkms and state == "live":
        # Loaded and live under Secure Boot: the module was signed with an enrolled key.
        return result(
            "secure-boot",
            Status.OK,
            "Secure Boot is on and the amdgpu-dkms module is loaded (signed with an enrolled key)",
            evidence=[*evidence, ev("/sys/module/amdgpu/initstate", state)],
        )
    if dkms or not loaded:
        return result(
            "secure-boot",
            Status.WARN,
            "Secure Boot is on: an out-of-tree amdgpu-dkms module must be signed",
            evidence=evidence,
            kb=["amdgpu-dkms-build-failure"],
            fix="Enroll the DKMS signing key (mokutil --import) or use the distribution's inbox amdgpu driver.",
        )
    return result(
        "secure-boot",
        Status.OK,
        "Secure Boot is on; the inbox amdgpu driver is signed",
        evidence=evidence,
    )


@check("shm-size", "Shared memory (/dev/shm)")
def check_shm(ctx: Context) -> CheckResult:
    size = ctx.host.disk_total("/dev/shm")
    if size is None:
        return result("shm-size", Status.SKIP, "cannot read the size of /dev/shm")
    evidence = [ev("statvfs /dev/shm", human_bytes(size))]
    if size < _SHM_MIN:
        return result(
            "shm-size",
            Status.WARN,
            f"/dev/shm is {human_bytes(size)}: DataLoader workers may die with a bus error",
            evidence=evidence,
            kb=["shared-memory-too-small"],
            fix="In docker use --ipc=host or --shm-size 8G; or DataLoader(num_workers=0).",
        )
    return result(
        "shm-size",
        Status.OK,
        f"/dev/shm is {human_bytes(size)}",
        evidence=evidence,
        ruled_out=["shared-memory-too-small"],
    )


@check("gpu-manager", "Ubuntu gpu-manager")
def check_gpu_manager(ctx: Context) -> CheckResult:
    if os_release(ctx.host).get("ID") != "ubuntu":
        return result("gpu-manager", Status.SKIP, "not Ubuntu", ruled_out=["gpu-manager-conflict"])
    res = ctx.host.run(["systemctl", "is-enabled", "gpu-manager"], timeout=ctx.timeout)
    state = (res.stdout.strip() or res.stderr.strip() or "?").splitlines()[0]
    evidence = [ev("systemctl is-enabled gpu-manager", state)]
    if res.missing or res.timed_out or "System has not been booted" in res.stderr:
        return result(
            "gpu-manager", Status.SKIP, "systemd is not available here", evidence=evidence
        )
    if state in ("enabled", "static", "enabled-runtime") and ctx.gpus():
        # The unit is WantedBy=display-manager.service (canonical/ubuntu-drivers-common,
        # share/hybrid/gpu-manager.service), so it is enabled on every Ubuntu desktop: being
        # enabled is no evidence of a conflict, and the KB's own caveat asks for a rewrite seen
        # in the text. Name the state, confirm nothing, rule nothing out.
        return result(
            "gpu-manager",
            Status.OK,
            f"gpu-manager is {state} (Ubuntu's default with a display manager); it matters only "
            "if your amdgpu set-up is undone at every boot",
            evidence=evidence,
        )
    return result(
        "gpu-manager",
        Status.OK,
        f"gpu-manager is {state}",
        evidence=evidence,
        ruled_out=["gpu-manager-conflict"],
    )


@check("memory", "Memory and swap")
def check_memory(ctx: Context) -> CheckResult:
    mem = ctx.host.memory()
    if mem is None:
        return result("memory", Status.SKIP, "memory information is not available")
    evidence = [
        ev("RAM total / available", f"{human_bytes(mem.total)} / {human_bytes(mem.available)}"),
        ev("swap total / used", f"{human_bytes(mem.swap_total)} / {human_bytes(mem.swap_used)}"),
    ]
    summary = f"RAM {human_bytes(mem.total)} ({human_bytes(mem.available)} free), swap {human_bytes(mem.swap_total)}"
    igpus = [g for g in ctx.gpus() if g.integrated]
    for gpu in igpus:
        gtt = _int(
            ctx.host.read_text(
                f"/sys/class/drm/renderD{gpu.render_minor}/device/mem_info_gtt_total"
            )
        )
        if gtt:
            evidence.append(ev(f"{gpu.gfx} GTT pool", human_bytes(gtt)))
            summary += f"; {gpu.gfx} iGPU: {human_bytes(gpu.vram_bytes or 0)} carve-out + {human_bytes(gtt)} GTT"
    if igpus and not [g for g in ctx.gpus() if not g.integrated]:
        return result(
            "memory",
            Status.WARN,
            summary,
            evidence=evidence,
            kb=["apu-gtt-memory-limit"],
            details="On an APU, PyTorch allocations come from the carve-out and the GTT pool, not all RAM.",
            fix="Raise the UMA frame buffer in the BIOS or the amdgpu/ttm GTT size if you run out of memory.",
        )
    status = Status.WARN if mem.available < 2 * 1024**3 else Status.OK
    return result("memory", status, summary, evidence=evidence)


def _in_group(host: Host, path: str) -> bool:
    st = host.stat(path)
    return st is not None and st.gid != 0 and st.gid in host.gids


def _amd_pci(host: Host) -> tuple[str, ...]:
    from rocmfix.probes.gpus import amd_pci_gpus

    return amd_pci_gpus(host)


def _int(text: str | None) -> int | None:
    try:
        return int((text or "").strip(), 0)
    except ValueError:
        return None
