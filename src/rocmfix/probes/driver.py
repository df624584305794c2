"""Checks of the kernel driver: amdgpu loaded, DKMS build, kernel log errors.

The kernel log is where a GPU hang, a failed firmware load or an unsupported
chip shows first; user space only sees the consequence.
"""

from __future__ import annotations

import re

from rocmfix.probes.base import CheckResult, Context, Status, check, ev, facts, result
from rocmfix.probes.gpus import amd_pci_gpus
from rocmfix.probes.system import is_wsl

# (pattern, what it means, kb id, status)
_KERNEL_PATTERNS: tuple[tuple[re.Pattern[str], str, str, Status], ...] = (
    (
        re.compile(r"ring \S+ timeout", re.I),
        "GPU ring timeout (a hung job)",
        "gpu-hang-or-reset",
        Status.WARN,
    ),
    (
        re.compile(r"GPU reset|amdgpu_device_gpu_recover|GPU recovery", re.I),
        "GPU reset",
        "gpu-hang-or-reset",
        Status.WARN,
    ),
    (
        re.compile(
            r"(?:Direct firmware load|firmware).*failed|failed to load firmware|firmware .*not found",
            re.I,
        ),
        "firmware failed to load",
        "kfd-device-missing",
        Status.FAIL,
    ),
    # The KFD rejections below are printed by drivers/gpu/drm/amd/amdkfd/kfd_device.c
    # (kgd2kfd_probe / kgd2kfd_device_init); they are judged per chip in _kfd_rejection.
    (
        re.compile(r"not supported in kfd", re.I),
        "KFD does not support this GPU",
        "kfd-device-missing",
        Status.FAIL,
    ),
    (
        re.compile(r"DID [0-9a-f]{4} is missing in supported_devices", re.I),
        "this kernel's KFD has no entry for the GPU's device id",
        "kfd-device-missing",
        Status.FAIL,
    ),
    (
        re.compile(r"kgd2kfd_probe failed", re.I),
        "KFD did not take the GPU (kgd2kfd_probe failed)",
        "kfd-device-missing",
        Status.FAIL,
    ),
    (
        re.compile(r"skipped device [0-9a-f]+:[0-9a-f]+, PCI rejects atomics", re.I),
        "KFD skipped the GPU: the PCIe path lacks atomics",
        "kfd-device-missing",
        Status.FAIL,
    ),
    # kfd_process.c kfd_process_device_init_vm: a process could not get its GPU VM
    (
        re.compile(r"Failed to create process VM object", re.I),
        "KFD could not create a process's GPU address space",
        "",
        Status.WARN,
    ),
    (
        re.compile(r"Fatal error during GPU init|amdgpu: probe of .* failed", re.I),
        "amdgpu failed to initialise the GPU",
        "kfd-device-missing",
        Status.FAIL,
    ),
    (
        re.compile(r"Key was rejected by service|module verification failed", re.I),
        "the kernel refused an unsigned amdgpu module (Secure Boot)",
        "amdgpu-dkms-build-failure",
        Status.FAIL,
    ),
    (
        re.compile(r"VM_L2_PROTECTION_FAULT|\[gfxhub\] page fault|page fault \(src_id", re.I),
        "GPU page fault",
        "memory-access-fault",
        Status.WARN,
    ),
)


@check("amdgpu-module", "amdgpu kernel driver")
def check_amdgpu_module(ctx: Context) -> CheckResult:
    host = ctx.host
    if is_wsl(host):
        return result("amdgpu-module", Status.SKIP, "WSL: the GPU driver is the Windows one")
    if not host.exists("/sys/module/amdgpu"):
        pci = amd_pci_gpus(host)
        if not pci and not ctx.gpus():
            return result(
                "amdgpu-module",
                Status.SKIP,
                "amdgpu is not loaded and no AMD GPU is on the PCI bus",
                evidence=[ev("/sys/module/amdgpu", "absent")],
            )
        return result(
            "amdgpu-module",
            Status.FAIL,
            "amdgpu kernel module is not loaded",
            evidence=[ev("/sys/module/amdgpu", "absent"), *[ev("AMD PCI device", s) for s in pci]],
            kb=["kfd-device-missing"],
            fix="sudo modprobe amdgpu; if that fails read `sudo dmesg | grep -i amdgpu` (blacklist, nomodeset, firmware).",
        )
    state = (host.read_text("/sys/module/amdgpu/initstate") or "").strip()
    version = (host.read_text("/sys/module/amdgpu/version") or "").strip()
    evidence = [
        ev("/sys/module/amdgpu/initstate", state or "?"),
        ev("/sys/module/amdgpu/version", version or "absent (inbox kernel driver)"),
    ]
    if state and state != "live":
        return result(
            "amdgpu-module",
            Status.FAIL,
            f"amdgpu is loaded but not live ({state})",
            evidence=evidence,
            kb=["kfd-device-missing"],
            fix="Reboot; if it persists read the kernel log for amdgpu errors.",
        )
    origin = f"amdgpu-dkms {version}" if version else "inbox kernel driver"
    return result(
        "amdgpu-module",
        Status.OK,
        f"amdgpu loaded ({origin})",
        evidence=evidence,
        # The DKMS module loaded and live rules its build out; the inbox driver running proves
        # nothing (a DKMS build that failed for this kernel leaves exactly that).
        ruled_out=["amdgpu-dkms-build-failure"] if version else (),
    )


def _dkms_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("amdgpu")]


@check("dkms-status", "amdgpu-dkms build")
def check_dkms(ctx: Context) -> CheckResult:
    res = ctx.host.run(["dkms", "status"], timeout=ctx.timeout)
    if res.unrecorded:
        return result("dkms-status", Status.SKIP, "`dkms status` was not recorded in this snapshot")
    if res.missing:
        return result("dkms-status", Status.SKIP, "dkms is not installed (inbox driver)")
    if res.timed_out:
        return result(
            "dkms-status", Status.ERROR, f"`dkms status` timed out after {ctx.timeout:g}s"
        )
    lines = _dkms_lines(res.stdout + res.stderr)
    if not lines:
        return result(
            "dkms-status",
            Status.OK,
            "no amdgpu DKMS module registered (inbox driver)",
            evidence=[ev("dkms status", "no amdgpu line")],
            ruled_out=["amdgpu-dkms-build-failure"],
        )
    kernel = (ctx.host.read_text("/proc/sys/kernel/osrelease") or "").strip()
    evidence = [ev("dkms status", line) for line in lines]
    for_kernel = [line for line in lines if kernel and kernel in line]
    if any(line.endswith("installed") for line in for_kernel):
        if not ctx.host.exists("/sys/module/amdgpu") and amd_pci_gpus(ctx.host):
            # Built is not loaded: Secure Boot refuses an unsigned module that built fine.
            return result(
                "dkms-status",
                Status.WARN,
                f"amdgpu-dkms is installed for {kernel}, but amdgpu is not loaded",
                details="A module that built can still be refused at load time (Secure Boot, a "
                "blacklist): see the secure-boot and kernel-log checks.",
                evidence=[*evidence, ev("/sys/module/amdgpu", "absent")],
                kb=["amdgpu-dkms-build-failure"],
                fix="sudo modprobe amdgpu and read the error it prints.",
            )
        return result(
            "dkms-status",
            Status.OK,
            f"amdgpu-dkms installed for {kernel}",
            evidence=evidence,
            ruled_out=["amdgpu-dkms-build-failure"],
        )
    state = for_kernel[0].rsplit(":", 1)[-1].strip() if for_kernel else "not built"
    return result(
        "dkms-status",
        Status.FAIL,
        f"amdgpu-dkms is {state} for the running kernel {kernel or '?'}",
        details="Read /var/lib/dkms/amdgpu/<version>/build/make.log for the compiler error.",
        evidence=evidence,
        kb=["amdgpu-dkms-build-failure"],
        fix=f"Install the headers (linux-headers-{kernel or '$(uname -r)'}) and rerun `sudo dkms autoinstall`, or boot "
        "a kernel the driver supports.",
    )


def _kernel_log(ctx: Context) -> tuple[str | None, str]:
    res = ctx.host.run(["dmesg"], timeout=ctx.timeout)
    if res.ok and res.stdout.strip():
        return res.stdout, "dmesg"
    first = res
    res = ctx.host.run(["journalctl", "-k", "-b", "--no-pager", "-q"], timeout=ctx.timeout)
    if res.ok and res.stdout.strip():
        return res.stdout, "journalctl -k -b"
    if first.unrecorded and res.unrecorded:
        return None, "the kernel log was not recorded in this snapshot"
    return None, "dmesg and journalctl -k are not readable (try sudo)"


_ADD_DGPU = re.compile(r"Topology: Add dGPU node \[0x1002:0x([0-9a-f]{1,4})\]", re.I)
_DID = re.compile(
    r"DID ([0-9a-f]{4}) is missing|skipped device [0-9a-f]+:([0-9a-f]+), PCI rejects", re.I
)
_NAMED = re.compile(r"(?:GC IP ([0-9a-f]{6})|\b([A-Z][A-Z0-9_]+))\s+(?:VF\s+)?not supported in kfd")


def _kfd_rejection(lines: list[str]) -> tuple[list[str], str]:
    """Extra KB ids and a note for KFD rejection lines, judged from the chip they name."""
    for line in lines:
        gfx = None
        m = _DID.search(line)
        if m:
            chip = facts.chip_for_pci_id(int(m.group(1) or m.group(2), 16))
            gfx = chip.gfx if chip else None
        n = _NAMED.search(line)
        if n and n.group(2):
            chip = facts.chip_by_name(n.group(2))
            gfx = chip.gfx if chip else None
        if gfx and facts.gfx_unsupported(gfx):
            return ["unsupported-gpu-architecture"], f"{gfx}: no current ROCm supports it"
        if n and n.group(1):
            return (
                [],
                "the GPU is newer than this kernel's KFD (a newer kernel or amdgpu-dkms adds it)",
            )
    return [], ""


@check("kernel-log", "Kernel log")
def check_kernel_log(ctx: Context) -> CheckResult:
    text, source = _kernel_log(ctx)
    if text is None:
        return result("kernel-log", Status.SKIP, source)
    status, found, kb = Status.OK, [], []
    evidence = []
    lines = text.splitlines()
    rejections: list[str] = []
    for pattern, meaning, kb_id, sev in _KERNEL_PATTERNS:
        hits = [line for line in lines if pattern.search(line)]
        if hits:
            found.append(f"{meaning} ({len(hits)}x)")
            if kb_id:
                kb.append(kb_id)
            evidence.append(ev(source, hits[-1]))
            status = max(status, sev, key=lambda s: s.rank)
            if kb_id == "kfd-device-missing" and "firmware" not in meaning:
                rejections += hits
    # kfd_topology.c prints "Topology: Add dGPU node [0x1002:0x<did>]" per GPU; for a GPU the
    # topology shows as integrated that is the APU mis-registered as a discrete GPU, which
    # TheRock#7952 and ROCm#5433 tie to a regression from amdgpu 6.14 on gfx115x APUs.
    apus = {g.device_id for g in ctx.gpus() if g.integrated and g.device_id is not None}
    as_dgpu = [
        line for line in lines if (m := _ADD_DGPU.search(line)) and int(m.group(1), 16) in apus
    ]
    if as_dgpu:
        found.append("KFD registered the integrated GPU as a discrete one")
        evidence.append(ev(source, as_dgpu[-1]))
        status = max(status, Status.WARN, key=lambda s: s.rank)
    if not found:
        return result(
            "kernel-log",
            Status.OK,
            "no GPU errors in the kernel log",
            evidence=[ev(source, "no matches")],
            ruled_out=["gpu-hang-or-reset"],
        )
    extra, note = _kfd_rejection(rejections)
    fix = "Read the lines above in context: sudo dmesg | grep -iE 'amdgpu|kfd'"
    if any("atomics" in f for f in found):
        fix = (
            "Put the GPU in a CPU-attached slot (not a chipset slot, riser or PCIe switch without "
            "atomics) on a CPU and board with PCIe 3.0 atomics, and check the BIOS; see "
            "https://rocm.docs.amd.com/en/latest/understand/More-about-how-ROCm-uses-PCIe-Atomics.html"
        )
    elif extra:
        fix = "No driver setting makes KFD accept this GPU; use an older ROCm stack that supported it, or another GPU."
    return result(
        "kernel-log",
        status,
        "; ".join(found) + (f" ({note})" if note else ""),
        evidence=evidence,
        kb=[*extra, *kb],
        fix=fix,
    )
