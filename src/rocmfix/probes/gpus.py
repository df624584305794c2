"""The GPUs the kernel knows about: KFD topology, PCI, and their links.

KFD topology in sysfs needs no permissions and no ROCm user space, and it
keeps showing the physical gfx target even when HSA_OVERRIDE_GFX_VERSION is
set, which makes it the ground truth the other checks compare against.
``read_gpus`` is also used by the fix actions (``hide-igpu``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rocmfix import compat
from rocmfix.host import Host
from rocmfix.probes.base import CheckResult, Context, Status, check, ev, facts, human_bytes, result

TOPOLOGY = "/sys/class/kfd/kfd/topology/nodes"
PCI = "/sys/bus/pci/devices"
_IGPU_VRAM_LIMIT = 1024**3


@dataclass(frozen=True)
class Gpu:
    """One GPU node of the KFD topology."""

    node: int
    """KFD node index (rocminfo's ``Node:``)."""
    gfx: str
    """Physical gfx target decoded from ``gfx_target_version`` (``gfx1031``)."""
    name: str
    """Product name(s) from the packaged gfx table, or the gfx when unknown."""
    integrated: bool
    vram_bytes: int | None
    render_minor: int | None
    """N of /dev/dri/renderD<N>."""
    pci_slot: str | None
    """``0000:03:00.0``."""
    device_id: int | None = None
    target_version: int = 0

    @property
    def render_node(self) -> str | None:
        return f"/dev/dri/renderD{self.render_minor}" if self.render_minor is not None else None

    @property
    def drm_device(self) -> str | None:
        return (
            f"/sys/class/drm/renderD{self.render_minor}/device"
            if self.render_minor is not None
            else None
        )

    def label(self) -> str:
        kind = "iGPU" if self.integrated else "GPU"
        return f"{kind} {self.gfx} ({self.name})"


def parse_properties(text: str) -> dict[str, int]:
    """KFD ``properties`` file (``key value`` lines) -> dict of ints."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        try:
            out[key] = int(value.strip())
        except ValueError:
            continue
    return out


def _pci_slot(props: dict[str, int]) -> str | None:
    loc = props.get("location_id")
    if not loc:
        return None
    bus, devfn = loc >> 8, loc & 0xFF
    return f"{props.get('domain', 0):04x}:{bus:02x}:{devfn >> 3:02x}.{devfn & 7}"


def _int(text: str | None) -> int | None:
    try:
        return int((text or "").strip(), 0)
    except ValueError:
        return None


def read_gpus(host: Host) -> tuple[Gpu, ...]:
    """Every GPU node in the KFD topology, in node order (CPU nodes skipped)."""
    nodes = sorted((n for n in host.listdir(TOPOLOGY) if n.isdigit()), key=int)
    gpus: list[Gpu] = []
    for node in nodes:
        props = parse_properties(host.read_text(f"{TOPOLOGY}/{node}/properties") or "")
        if props.get("simd_count", 0) <= 0:
            continue
        version = props.get("gfx_target_version", 0)
        gfx = facts.gfx_from_target_version(version) or f"unknown({version})"
        info = facts.gfx_info(gfx)
        minor = props.get("drm_render_minor")
        drm = f"/sys/class/drm/renderD{minor}/device" if minor is not None else None
        vram = _int(host.read_text(f"{drm}/mem_info_vram_total")) if drm else None
        if vram is None:
            bank = parse_properties(
                host.read_text(f"{TOPOLOGY}/{node}/mem_banks/0/properties") or ""
            )
            vram = bank.get("size_in_bytes")
        kind = facts.gfx_kind(gfx)
        integrated = (
            kind == "integrated" if kind else (vram is not None and vram < _IGPU_VRAM_LIMIT)
        )
        name = " / ".join(info.products[:3]) if info and info.products else gfx
        gpus.append(
            Gpu(
                int(node),
                gfx,
                name,
                integrated,
                vram,
                minor,
                _pci_slot(props),
                props.get("device_id"),
                version,
            )
        )
    return tuple(gpus)


def amd_pci_gpus(host: Host) -> tuple[str, ...]:
    """PCI slots of AMD display/accelerator devices, whatever the driver state."""
    out = []
    for slot in host.listdir(PCI):
        vendor = (host.read_text(f"{PCI}/{slot}/vendor") or "").strip()
        cls = (host.read_text(f"{PCI}/{slot}/class") or "").strip()
        if vendor == "0x1002" and cls.startswith(("0x03", "0x12")):
            out.append(slot)
    return tuple(out)


def pci_chip(host: Host, slot: str) -> tuple[int | None, facts.PciChip | None]:
    """(PCI device id, the chip amdgpu's pciidlist names for it) of an AMD PCI device."""
    did = _int(host.read_text(f"{PCI}/{slot}/device"))
    return did, facts.chip_for_pci_id(did) if did is not None else None


def pci_without_kfd(host: Host, gpus: tuple[Gpu, ...]) -> tuple[str, ...]:
    """AMD PCI GPUs that KFD did not register (no topology node carries their slot)."""
    if not gpus:
        return amd_pci_gpus(host)
    slots = {g.pci_slot for g in gpus if g.pci_slot}
    if not slots:
        return ()
    return tuple(s for s in amd_pci_gpus(host) if s not in slots)


@check("gpu-list", "AMD GPUs")
def check_gpu_list(ctx: Context) -> CheckResult:
    from rocmfix.probes.system import is_wsl

    if is_wsl(ctx.host):
        return result(
            "gpu-list", Status.SKIP, "WSL: GPUs are not listed in sysfs (see the wsl check)"
        )
    gpus = ctx.gpus()
    pci = amd_pci_gpus(ctx.host)
    evidence = [
        ev(f"{TOPOLOGY}/{g.node}/properties", f"gfx_target_version {g.target_version} -> {g.gfx}")
        for g in gpus
    ]
    chips = {slot: pci_chip(ctx.host, slot) for slot in pci}
    evidence += [
        ev(
            f"{PCI}/{slot}",
            "vendor 0x1002 (AMD), display class"
            + (f", device {chip[0]:#06x}" if chip[0] is not None else "")
            + (f" -> {chip[1].name} ({chip[1].gfx})" if chip[1] else ""),
        )
        for slot, chip in chips.items()
    ]
    if not gpus and pci:
        known = [(slot, c[1]) for slot, c in chips.items() if c[1] is not None]
        old = [(slot, c) for slot, c in known if facts.gfx_unsupported(c.gfx)]
        if old:
            listing = "; ".join(
                f"AMD GPU at {slot} is {chip.name} ({chip.gfx})" for slot, chip in old
            )
            return result(
                "gpu-list",
                Status.FAIL,
                f"{listing}, which no current ROCm supports; KFD did not register "
                + ("it" if len(old) == 1 else "them"),
                details="The PCI device id names the chip (amdgpu's pciidlist) and its gfx target; "
                "current ROCm and PyTorch builds have no code for it.",
                evidence=evidence,
                kb=["unsupported-gpu-architecture", "kfd-device-missing"],
                fix="No driver setting or override makes this GPU work with current ROCm; use an older "
                "ROCm stack that supported it, or another GPU.",
            )
        listing = ", ".join(
            f"{chips[slot][1].name} ({chips[slot][1].gfx}) at {slot}"  # type: ignore[union-attr]
            if chips[slot][1]
            else f"AMD GPU at {slot}"
            for slot in pci
        )
        return result(
            "gpu-list",
            Status.FAIL,
            f"{listing} on the PCI bus but no KFD compute node",
            details="The kernel sees the card but the amdgpu/KFD driver did not register it for compute.",
            evidence=evidence,
            kb=["kfd-device-missing"],
            fix="See the amdgpu-module and kernel-log checks.",
        )
    if not gpus:
        return result(
            "gpu-list",
            Status.FAIL,
            "no AMD GPU found (no KFD GPU node, no AMD display device on PCI)",
            evidence=evidence or [ev(TOPOLOGY, "absent or no GPU nodes")],
            fix="rocmfix diagnoses AMD GPUs; run it on the machine (or in the container) that has one.",
        )
    unknown = [g for g in gpus if facts.gfx_info(g.gfx) is None]
    lines = [
        f"node {g.node}: {g.label()}, VRAM {human_bytes(g.vram_bytes) if g.vram_bytes else '?'}, "
        f"PCI {g.pci_slot or '?'}, render node {g.render_node or '?'}"
        for g in gpus
    ]
    summary = ", ".join(f"{g.gfx}{' (iGPU)' if g.integrated else ''}" for g in gpus)
    left_out = pci_without_kfd(ctx.host, gpus)
    if left_out:
        left_chips = [chips.get(slot, (None, None))[1] for slot in left_out]
        listing = ", ".join(
            f"the {c.name} ({c.gfx}) at {slot}" if c else f"the AMD GPU at {slot}"
            for slot, c in zip(left_out, left_chips, strict=True)
        )
        old_ones = [c for c in left_chips if c and facts.gfx_unsupported(c.gfx)]
        return result(
            "gpu-list",
            Status.WARN,
            f"{summary}; {listing} "
            + ("has" if len(left_out) == 1 else "have")
            + " no KFD node (KFD left it out)",
            details="\n".join(lines),
            evidence=evidence,
            kb=(["unsupported-gpu-architecture"] if old_ones else [])
            + (["kfd-device-missing"] if len(old_ones) < len(left_out) else []),
            fix="See the kernel-log check for why KFD skipped it.",
        )
    if unknown:
        places = {g.gfx: facts.gfx_outside_table(g.gfx) for g in unknown}
        older = [gfx for gfx, where in places.items() if where == "older"]
        where = "older" if older else facts.gfx_outside_table(unknown[0].gfx)
        if where == "older":
            return result(
                "gpu-list",
                Status.FAIL,
                f"{summary}: {', '.join(older)} "
                + ("is" if len(older) == 1 else "are")
                + " older than any GPU ROCm supports",
                details="\n".join(lines),
                evidence=evidence,
                kb=["unsupported-gpu-architecture"],
                ruled_out=["kfd-device-missing"] if ctx.host.exists("/dev/kfd") else [],
                fix="Current ROCm and PyTorch builds have no code for this GPU; use an older ROCm stack "
                "that supported it, or another GPU.",
            )
        newer = [gfx for gfx, w in places.items() if w == "newer"]
        return result(
            "gpu-list",
            Status.WARN,
            f"{summary}: {', '.join(places)} "
            + ("is" if len(places) == 1 else "are")
            + " not in the gfx table"
            + (f" ({', '.join(newer)} newer than any GPU it lists)" if newer else ""),
            details="\n".join(lines),
            evidence=evidence,
            kb=["rocm-too-old-for-gpu"] if newer else [],
            ruled_out=["kfd-device-missing"] if ctx.host.exists("/dev/kfd") else [],
        )
    retired = _retired(gpus)
    if retired:
        names = sorted({g.gfx for g in retired})
        infos = [facts.gfx_info(gfx) for gfx in names]
        return result(
            "gpu-list",
            Status.WARN,
            f"{summary}: current ROCm lists {', '.join(names)} as unsupported and no PyTorch ROCm "
            "wheel rocmfix knows of targets " + ("it" if len(names) == 1 else "them"),
            details="\n".join(
                [
                    *lines,
                    "Sources: " + ", ".join(compat.urls(s for i in infos if i for s in i.sources)),
                ]
            ),
            evidence=evidence
            + [
                ev(f"gfx table {i.gfx}", f"ROCm Linux support: {i.support}; verified wheels: none")
                for i in infos
                if i
            ],
            kb=["unsupported-gpu-architecture"],
            ruled_out=["kfd-device-missing"] if ctx.host.exists("/dev/kfd") else [],
            fix="Current ROCm and PyTorch wheels have no code for this GPU; only an older ROCm stack "
            "or a self-built PyTorch can use it (see gpu-arch-vs-torch when torch is probed).",
        )
    return result(
        "gpu-list",
        Status.OK,
        f"{len(gpus)} GPU(s): {summary}",
        details="\n".join(lines),
        evidence=evidence,
        # KFD registered the GPUs; /dev/kfd itself may still be absent (a container started
        # without --device /dev/kfd sees the host's sysfs), so only its presence rules it out.
        ruled_out=["kfd-device-missing"] if ctx.host.exists("/dev/kfd") else [],
    )


def _retired(gpus: tuple[Gpu, ...]) -> list[Gpu]:
    """KFD GPUs whose gfx the table marks unsupported in current ROCm and that no verified
    PyTorch ROCm wheel targets (gfx803 Polaris; not gfx900/gfx906, which older wheels have)."""
    return [g for g in gpus if facts.gfx_unsupported(g.gfx) and not compat.native_offers(g.gfx)]


@check("integrated-gpu", "Integrated GPU beside a discrete one")
def check_integrated(ctx: Context) -> CheckResult:
    gpus = ctx.gpus()
    igpus = [g for g in gpus if g.integrated]
    dgpus = [g for g in gpus if not g.integrated]
    if not gpus:
        return result("integrated-gpu", Status.SKIP, "no GPU")
    if not igpus or not dgpus:
        kind = "only integrated" if igpus else "only discrete"
        return result(
            "integrated-gpu", Status.OK, f"{kind} GPU(s)", ruled_out=["integrated-gpu-selected"]
        )
    evidence = [ev(f"KFD node {g.node}", g.label()) for g in gpus]
    visible = {
        k: ctx.env(k)
        for k in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")
        if ctx.env(k) is not None
    }
    evidence += [ev(k, v) for k, v in visible.items()]
    order = [g for g in gpus]
    dgpu_idx = ",".join(str(order.index(g)) for g in dgpus)
    igpu_idx = {str(order.index(g)) for g in igpus}
    if visible and not any(set(v.replace(" ", "").split(",")) & igpu_idx for v in visible.values()):
        return result(
            "integrated-gpu",
            Status.OK,
            f"iGPU {', '.join(g.gfx for g in igpus)} present but hidden by {', '.join(visible)}",
            evidence=evidence,
        )
    return result(
        "integrated-gpu",
        Status.WARN,
        f"iGPU {', '.join(g.gfx for g in igpus)} is enumerated beside the discrete"
        f" {', '.join(g.gfx for g in dgpus)} and is not hidden",
        details="ROCm may pick the iGPU or fail to initialise on it; HSA_OVERRIDE_GFX_VERSION also applies to it.",
        evidence=evidence,
        kb=["integrated-gpu-selected"],
        fix=f"export ROCR_VISIBLE_DEVICES={dgpu_idx} (or disable the iGPU in the BIOS).",
    )


def _speed(text: str | None) -> float | None:
    try:
        return float((text or "").split()[0])
    except (ValueError, IndexError):
        return None


@check("pcie-link", "PCIe link")
def check_pcie(ctx: Context) -> CheckResult:
    gpus = [g for g in ctx.gpus() if not g.integrated and g.drm_device]
    if not gpus:
        return result("pcie-link", Status.SKIP, "no discrete GPU with a PCI device in sysfs")
    worst, lines, evidence = Status.OK, [], []
    for g in gpus:
        read = {
            k: (ctx.host.read_text(f"{g.drm_device}/{k}") or "").strip()
            for k in (
                "current_link_speed",
                "max_link_speed",
                "current_link_width",
                "max_link_width",
            )
        }
        if not read["current_link_width"]:
            continue
        evidence.append(
            ev(
                f"{g.drm_device}",
                f"speed {read['current_link_speed']} of {read['max_link_speed']}, "
                f"width x{read['current_link_width']} of x{read['max_link_width']}",
            )
        )
        width, max_width = _int(read["current_link_width"]), _int(read["max_link_width"])
        speed = _speed(read["current_link_speed"])
        if width == 1 and speed is not None and speed <= 2.5 and (max_width or 1) > 1:
            worst = Status.FAIL
            lines.append(f"{g.gfx} at {g.pci_slot}: Gen1 x1 link (riser or slot problem)")
        elif width and max_width and width < max_width:
            worst = max(worst, Status.WARN, key=lambda s: s.rank)
            lines.append(f"{g.gfx} at {g.pci_slot}: x{width} of x{max_width} lanes")
    if not evidence:
        return result("pcie-link", Status.SKIP, "link speed and width are not readable")
    if worst is Status.OK:
        return result(
            "pcie-link",
            Status.OK,
            "full-width links (speed may drop at idle; that is power saving)",
            evidence=evidence,
        )
    return result(
        "pcie-link",
        worst,
        "; ".join(lines),
        evidence=evidence,
        fix="Reseat the card in a CPU-attached x16 slot; avoid x1 mining risers; check BIOS PCIe settings.",
    )
