"""Sourced facts about AMD GPUs, ROCm and PyTorch wheels, packaged as data.

The YAML files in ``rocmfix/data/`` carry their sources and mark what could not
be confirmed (``unverified: true``). This module gives typed, cached access to
them so that every subsystem (matcher, doctor, verify, fixes) reads the same
facts. Unverified values are exposed with their flag: callers must not let an
unverified value drive a fix.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

_GFX_RE = re.compile(r"^gfx[0-9]{1,2}[0-9a-f]{2}$")


def _load(name: str) -> Any:
    import yaml  # noqa: PLC0415 - only when a fact is looked up, not on every start

    text = resources.files("rocmfix.data").joinpath(name).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # noqa: S506 - CSafeLoader/SafeLoader only


@dataclass(frozen=True)
class GfxTarget:
    """One gfx target from ``gfx-targets.yaml``."""

    gfx: str
    """LLVM target name, e.g. ``gfx1031``."""
    family: str
    kind: str
    """discrete | integrated | datacenter."""
    products: tuple[str, ...]
    target_version: int | None
    """KFD ``gfx_target_version`` (major*10000 + minor*100 + stepping)."""
    hsa_override: str | None
    """Community/AMD override value, or None when no override is known to work."""
    override_notes: str
    support: str
    """Latest ROCm Linux status: supported | deprecated | unsupported | never_listed ..."""
    sources: tuple[str, ...]
    first_listed: str | None = None
    """First ROCm release whose Linux support list names the target, when established."""
    first_built: str | None = None
    """An older release that verifiably built PyTorch for the target (ROCm 5.5 for gfx1100,
    which the list names from 6.0): from it on, ROCm does not predate the GPU."""

    @property
    def first_supported(self) -> str | None:
        """The first release that runs the target: ``first_built``, else ``first_listed``."""
        return self.first_built or self.first_listed

    @property
    def integrated(self) -> bool:
        return self.kind == "integrated"


@functools.cache
def gfx_targets() -> dict[str, GfxTarget]:
    """All known gfx targets keyed by name."""
    out: dict[str, GfxTarget] = {}
    for row in _load("gfx-targets.yaml").get("targets", []):
        support = row.get("rocm_linux_support") or {}
        out[row["gfx"]] = GfxTarget(
            gfx=row["gfx"],
            family=str(row.get("family", "")),
            kind=str(row.get("kind", "")),
            products=tuple(row.get("products") or ()),
            target_version=row.get("gfx_target_version"),
            hsa_override=row.get("hsa_override"),
            override_notes=str(row.get("override_notes", "")).strip(),
            support=str(support.get("status_latest", "unknown")),
            sources=tuple(row.get("source") or ()),
            first_listed=str(support["first_listed"]) if support.get("first_listed") else None,
            first_built=str(support["first_built"]) if support.get("first_built") else None,
        )
    return out


@functools.cache
def _seen_targets() -> dict[str, dict[str, Any]]:
    rows = _load("gfx-targets.yaml").get("additional_targets_seen") or []
    return {str(r["gfx"]): r for r in rows if isinstance(r, dict) and r.get("gfx")}


def gfx_kind(gfx: str) -> str | None:
    """discrete | integrated | datacenter for ``gfx`` from the table, or from the targets it
    lists as seen (kernel-known, no support row: gfx1152, gfx1153 ...); None when unknown."""
    info = gfx_info(gfx)
    if info is not None:
        return info.kind or None
    row = _seen_targets().get(gfx.split(":", 1)[0].strip().lower())
    return str(row["kind"]) if row and row.get("kind") else None


def gfx_info(gfx: str) -> GfxTarget | None:
    """Facts for ``gfx`` (feature suffixes like ``:xnack-`` are ignored)."""
    return gfx_targets().get(gfx.split(":", 1)[0].strip().lower())


def version_key(version: str | None) -> tuple[int, ...] | None:
    """``6.4.1`` -> (6, 4, 1); ``6.2`` -> (6, 2, 0); None when it does not start with numbers."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", (version or "").strip())
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def rocm_predates(version: str | None, gfx: str) -> bool | None:
    """Whether ROCm ``version`` is older than the first release that lists ``gfx``:
    True (older), False (it lists it, or a later one does and this is newer), None when
    either the installed version or the target's first release is unknown."""
    info = gfx_info(gfx)
    have, first = version_key(version), version_key(info.first_supported if info else None)
    if have is None or first is None:
        return None
    return have < first


def gfx_from_target_version(value: int) -> str | None:
    """Decode a KFD ``gfx_target_version`` (e.g. 100301 -> ``gfx1031``); 0 -> None."""
    if value <= 0:
        return None
    major, minor, step = value // 10000, (value // 100) % 100, value % 100
    if minor > 15 or step > 15:
        return None
    return f"gfx{major}{minor:x}{step:x}"


# Targets whose community override is documented to do harm: it must never be
# offered as a fix (sources in gfx-targets.yaml: pytorch#179653 for gfx1103 page
# faults and hangs; unsloth#8412 for silently wrong results on gfx1033).
UNSAFE_OVERRIDES: dict[str, str] = {
    "gfx1103": "https://github.com/pytorch/pytorch/pull/179653",
    "gfx1033": "https://github.com/unslothai/unsloth/pull/8412",
}


def override_for_gfx(gfx: str) -> str | None:
    """The HSA_OVERRIDE_GFX_VERSION value for ``gfx``, or None when none is known
    or the known one is documented to cause faults or wrong results."""
    info = gfx_info(gfx)
    if info is None or info.gfx in UNSAFE_OVERRIDES:
        return None
    return info.hsa_override


def override_to_gfx(value: str) -> str | None:
    """``10.3.0`` -> ``gfx1030``; None when the value is malformed (libhsakmt rules)."""
    m = re.fullmatch(r"(\d{1,2})\.(\d{1,3})\.(\d{1,3})", value.strip())
    if not m:
        return None
    major, minor, step = (int(g) for g in m.groups())
    if major > 63 or minor > 255 or step > 255:
        return None
    return gfx_from_target_version(major * 10000 + minor * 100 + step)


def is_gfx_name(text: str) -> bool:
    return bool(_GFX_RE.match(text))


@dataclass(frozen=True)
class GpuPeak:
    """Peak dense throughput of one GPU model, TFLOPS (from ``gpu-peak-tflops.yaml``)."""

    name: str
    vendor: str
    fp32: float | None
    fp16: float | None
    bf16: float | None
    unverified: bool
    note: str


@functools.cache
def gpu_peaks() -> tuple[GpuPeak, ...]:
    rows = _load("gpu-peak-tflops.yaml").get("gpus", [])
    out = []
    for r in rows:
        # ROCm shows each MI250/MI250X die (GCD) as its own device: per device, half the board.
        # (Partitioned MI300-class boards record text here: the default SPX mode is 1 device.)
        per_raw = r.get("rocm_devices_per_board")
        per = float(per_raw) if isinstance(per_raw, (int, float)) and per_raw > 0 else 1.0

        def each(value: object, per: float = per) -> float | None:
            return round(float(value) / per, 1) if isinstance(value, (int, float)) else None

        fp32 = r.get("fp32_matrix_dense") or r.get("fp32_vector")
        out.append(
            GpuPeak(
                name=r["name"],
                vendor=str(r.get("vendor", "")),
                fp32=each(fp32),
                fp16=each(r.get("fp16_matrix_dense")),
                bf16=each(r.get("bf16_matrix_dense")),
                unverified=bool(r.get("unverified", False)),
                note=str(r.get("note", "")),
            )
        )
    return tuple(out)


def _norm_name(name: str) -> str:
    name = re.sub(r"\b(AMD|NVIDIA|Radeon|Instinct|GeForce|Graphics)\b", " ", name, flags=re.I)
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


_FORM = re.compile(r"sxm\d?|pcie|nvl")


def peak_for_device(device_name: str) -> GpuPeak | None:
    """Best peak-table row for a device name as torch reports it, or None.

    Matching is token based: every model token of the table row (``7900``,
    ``xtx``, ``h200``) must appear in the device name; the longest row wins so
    that "RX 7900 XTX" is not taken for "RX 7900 XT". Parenthesised qualifiers
    of a row are not required, and a device that names its form factor (PCIe,
    SXM) never takes a row of another form factor (an H100 PCIe runs at lower
    clocks than the H100 SXM row).
    """
    dev = set(_norm_name(device_name).split())
    dev_forms = {t[:3] for t in dev if _FORM.fullmatch(t)}
    best: GpuPeak | None = None
    best_len = 0
    for peak in gpu_peaks():
        forms = {t[:3] for t in _norm_name(peak.name).split() if _FORM.fullmatch(t)}
        if dev_forms and forms and not dev_forms & forms:
            continue
        words = _norm_name(re.sub(r"\(.*?\)", " ", peak.name)).split()
        tokens = [
            t
            for t in words
            if t != "or" and not _FORM.fullmatch(t) and not re.fullmatch(r"\d+gb|gb|oam", t)
        ]
        if tokens and all(t in dev for t in tokens) and len(tokens) > best_len:
            best, best_len = peak, len(tokens)
    return best


@dataclass(frozen=True)
class WheelRelease:
    """One PyTorch release's ROCm wheel indexes (``pytorch-rocm-wheels.yaml``)."""

    torch: str
    rocm_indexes: tuple[str, ...]
    python: str
    arch: dict[str, tuple[str, ...]]
    """index -> compiled gfx list ('*' key when the list is the same for all indexes)."""
    unverified: bool
    """Part of the row (usually the compiled-arch list) is inferred, not read from a release."""


@functools.cache
def wheel_releases() -> tuple[WheelRelease, ...]:
    out = []
    for r in _load("pytorch-rocm-wheels.yaml").get("releases", []):
        arch_raw = r.get("pytorch_rocm_arch")
        if isinstance(arch_raw, dict):
            arch = {k: tuple(v) for k, v in arch_raw.items()}
        elif isinstance(arch_raw, list):
            arch = {"*": tuple(arch_raw)}
        else:
            arch = {}
        out.append(
            WheelRelease(
                torch=str(r["torch"]),
                rocm_indexes=tuple(r.get("rocm_indexes") or ()),
                python=str(r.get("python", "")),
                arch=arch,
                unverified=bool(r.get("unverified", False)),
            )
        )
    return tuple(out)


def rocm_index_for(rocm_version: str) -> str | None:
    """Newest official wheel index for a system ROCm ``MAJOR.MINOR[.PATCH]``.

    Returns an index name like ``rocm6.2`` only when that index existed for
    some release (from the sourced release table); otherwise the closest older
    index with the same major version, or None.
    """
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", rocm_version.strip())
    if not m:
        return None
    want = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    known: set[tuple[int, int, int]] = set()
    for rel in wheel_releases():
        for idx in rel.rocm_indexes:
            parts = idx.removeprefix("rocm").split(".")
            if all(p.isdigit() for p in parts):
                nums = [int(p) for p in parts] + [0, 0]
                known.add((nums[0], nums[1], nums[2]))
    candidates = sorted(k for k in known if k[0] == want[0] and k <= want)
    if not candidates:
        return None
    major, minor, patch = candidates[-1]
    return f"rocm{major}.{minor}" + (f".{patch}" if patch else "")


def _gfx_key(gfx: str) -> tuple[int, int, int] | None:
    m = re.fullmatch(r"gfx(\d{1,2})([0-9a-f])([0-9a-f])", gfx.split(":", 1)[0].strip().lower())
    return (int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)) if m else None


def gfx_outside_table(gfx: str) -> str | None:
    """Where an unknown gfx sits relative to the gfx table: ``older`` (older than every
    target in it, e.g. gfx701: below anything ROCm supports), ``newer`` (newer than every
    target: the installed software may predate the GPU), ``between`` (a hole, e.g.
    gfx810), or None when the table knows it or the name is not a gfx."""
    if gfx_info(gfx) is not None:
        return None
    key = _gfx_key(gfx)
    keys = sorted(k for k in (_gfx_key(g) for g in gfx_targets()) if k)
    if key is None or not keys:
        return None
    if key < keys[0]:
        return "older"
    if key > keys[-1]:
        return "newer"
    return "between"


@dataclass(frozen=True)
class PciChip:
    """The amdgpu chip behind a PCI device id (``pci-ids.yaml``)."""

    device_id: int
    chip: str
    """amdgpu's CHIP_* name, lower case (``polaris10``)."""
    gfx: str
    name: str
    apu: bool


@functools.cache
def _pci_table() -> dict[int, PciChip]:
    out: dict[int, PciChip] = {}
    for row in _load("pci-ids.yaml").get("chips", []):
        for did in row.get("device_ids") or ():
            value = int(str(did), 16)
            out[value] = PciChip(
                value,
                str(row["chip"]),
                str(row["gfx"]),
                str(row.get("name") or row["chip"].replace("_", " ").title()),
                bool(row.get("apu", False)),
            )
    return out


def chip_for_pci_id(device_id: int) -> PciChip | None:
    """The chip and gfx of an AMD PCI device id (amdgpu's pciidlist), or None when the
    id is not listed (chips probed by IP discovery, Navi 3x and newer, have no row)."""
    return _pci_table().get(device_id)


def chip_by_name(name: str) -> PciChip | None:
    """The chip named the way the kernel prints it (``TAHITI``, ``polaris10``)."""
    want = name.strip().lower()
    return next((c for c in _pci_table().values() if c.chip == want), None)


def gfx_unsupported(gfx: str) -> bool:
    """True when no current ROCm supports the gfx: older than the table, or marked
    unsupported/deprecated/removed in it."""
    info = gfx_info(gfx)
    if info is None:
        return gfx_outside_table(gfx) == "older"
    return info.support in ("unsupported", "deprecated", "removed")
