"""Write the doctor's snapshot fixtures (``rocmfix.snapshot/1``) from compact specs.

Each scenario models a real machine: sysfs property values, rocminfo agent
blocks, device-node modes and torch versions are taken from outputs users
posted upstream (sources listed per scenario and in each fixture's
README.md). Run ``python tests/data/host/build_fixtures.py`` after editing;
the generated directories are committed so ``rocmfix doctor --snapshot``
works on them directly.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from upstream_machines import MACHINES  # noqa: E402 - next to this script

FW = "https://github.com/ROCm/legacy-rocm-build/issues/1180"  # rocminfo layout (RDNA2 thread)

# gfx -> (gfx_target_version, PCI device id, simd_count, marketing name, VRAM bytes)
CARDS = {
    "gfx1100": (110000, 0x744C, 192, "AMD Radeon RX 7900 XTX", 25753026560),
    "gfx1031": (100301, 0x73DF, 80, "AMD Radeon RX 6700 XT", 12868124672),
    "gfx1102": (110002, 0x7480, 64, "AMD Radeon RX 7600", 8573157376),
    "gfx942": (90402, 0x74A1, 1216, "AMD Instinct MI300X", 205822885888),
    "gfx1103": (110003, 0x15BF, 24, "AMD Radeon 780M", 536870912),
    "gfx803": (80003, 0x67DF, 144, "Radeon RX 580 Series", 8589934592),
}
ARCH_25 = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"]
ARCH_23_R60 = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"]
ARCH_26 = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101"]
SITE = "/home/alex/venv/lib/python3.11/site-packages/torch/lib"


def gpu(
    gfx: str, node: int, minor: int, bus: int, link: tuple[str, str, int, int] | None = None
) -> dict:
    return {
        "gfx": gfx,
        "node": node,
        "minor": minor,
        "bus": bus,
        "link": link or ("16.0 GT/s PCIe", "16.0 GT/s PCIe", 16, 16),
    }


def rocm_torch(
    version: str, hip: str, archs: list[str], devices: list[tuple[str, str]], **extra
) -> dict:
    data = {
        "flavour": "rocm",
        "version": version,
        "hip": hip,
        "cuda": None,
        "arch_list": archs,
        "is_available": bool(devices),
        "device_count": len(devices),
        "devices": [{"name": n, "gcnArchName": a, "total_memory": 0} for n, a in devices],
        "python_version": "3.11.9",
        "lib_dir": SITE,
        "loaded_libs": {
            "libamdhip64": f"{SITE}/libamdhip64.so",
            "libhsa-runtime64": f"{SITE}/libhsa-runtime64.so",
        },
        "amdsmi": {"found": False, "error": "ModuleNotFoundError: No module named 'amdsmi'"},
        "triton": {
            "found": True,
            "dist": "pytorch-triton-rocm",
            "version": "3.1.0",
            "amd_backend": True,
        },
    }
    data.update(extra)
    return data


SCENARIOS: dict[str, dict] = {
    "rx7900xtx-healthy": {
        "notes": "RX 7900 XTX (gfx1100), Ubuntu 22.04, ROCm 6.2.0, torch 2.5.1+rocm6.2; user in render and video.",
        "sources": [
            "https://github.com/ROCm/rocm_smi_lib/issues/164",
            FW,
            "https://github.com/astral-sh/uv/issues/14086",
        ],
        "gpus": [gpu("gfx1100", 1, 128, 0x03)],
        "rocm": "6.2.0",
        "torch": rocm_torch(
            "2.5.1+rocm6.2", "6.2.41133-dd7f95766", ARCH_25, [("AMD Radeon RX 7900 XTX", "gfx1100")]
        ),
    },
    "rx6700xt-no-override": {
        "notes": "RX 6700 XT (gfx1031, chip id 0x73df) with the rocm6.2 wheel and no HSA_OVERRIDE_GFX_VERSION.",
        "sources": [
            "https://github.com/ROCm/legacy-rocm-build/issues/1180",
            "https://github.com/astral-sh/uv/issues/14086",
        ],
        "gpus": [gpu("gfx1031", 1, 128, 0x0B)],
        "torch": rocm_torch(
            "2.5.1+rocm6.2", "6.2.41133-dd7f95766", ARCH_25, [("AMD Radeon RX 6700 XT", "gfx1031")]
        ),
    },
    "rx7600-override": {
        "notes": "RX 7600 (gfx1102) with HSA_OVERRIDE_GFX_VERSION=11.0.0 and torch 2.3.1+rocm6.0 (no gfx1102 kernels).",
        "sources": [
            "https://github.com/llvm/llvm-project/pull/170469",
            "https://github.com/astral-sh/uv/issues/14086",
        ],
        "gpus": [gpu("gfx1102", 1, 128, 0x03)],
        "env": {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"},
        "runtime_gfx": {"gfx1102": "gfx1100"},
        "torch": rocm_torch(
            "2.3.1+rocm6.0", "6.0.32830-d62f6a171", ARCH_23_R60, [("AMD Radeon RX 7600", "gfx1100")]
        ),
    },
    "mi300x-healthy": {
        "notes": "8x MI300X (gfx942, gfx_target_version 90402), iommu=pt, ROCm 6.2.4, torch 2.6.0+rocm6.2.4.",
        "sources": [
            "https://github.com/ROCm/rocm-cli/pull/343",
            "https://github.com/ROCm/legacy-rocm-build/issues/4411",
        ],
        "gpus": [
            gpu(
                "gfx942",
                i + 2,
                128 + 8 * i,
                0x05 + 0x10 * i,
                ("32.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16),
            )
            for i in range(8)
        ],
        "cmdline": "BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=/dev/sda2 ro iommu=pt amd_iommu=on",
        "rocm": "6.2.4",
        "user": "root",
        "torch": rocm_torch(
            "2.6.0+rocm6.2.4",
            "6.2.41134-65d174c3e",
            ARCH_26,
            [("AMD Instinct MI300X", "gfx942:sramecc+:xnack-")] * 8,
        ),
    },
    "apu-plus-dgpu": {
        "notes": "Ryzen 7 7840 (Radeon 780M iGPU, gfx1103) beside an RX 7900 XTX; no visibility variable set.",
        "sources": [
            "https://github.com/pytorch/pytorch/pull/179653",
            "https://github.com/ROCm/rocm_smi_lib/issues/164",
        ],
        "gpus": [gpu("gfx1100", 1, 128, 0x03), gpu("gfx1103", 2, 129, 0x74)],
        "torch": rocm_torch(
            "2.5.1+rocm6.2",
            "6.2.41133-dd7f95766",
            ARCH_25,
            [("AMD Radeon RX 7900 XTX", "gfx1100"), ("AMD Radeon Graphics", "gfx1103")],
        ),
    },
    "not-in-render-group": {
        "notes": "RX 7900 XTX; `usermod -aG render,video` was run but the session predates it (rocminfo: Permission denied).",
        "sources": [
            "https://github.com/ROCm/rocminfo/blob/amd-staging/rocminfo.cc",
            "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html",
        ],
        "gpus": [gpu("gfx1100", 1, 128, 0x03)],
        "process_groups": ["alex", "sudo"],
        "rw": False,
        "rocminfo_error": "ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n"
        'alex is not member of "render" group, the default DRM access group. Users must be a '
        'member of the "render" group or another DRM access group in order for ROCm applications '
        "to run successfully.\n",
        "torch": rocm_torch("2.5.1+rocm6.2", "6.2.41133-dd7f95766", ARCH_25, []),
    },
    "docker-no-kfd": {
        "notes": "rocm/pytorch container started without --device=/dev/kfd --device=/dev/dri; default 64 MB /dev/shm.",
        "sources": [
            "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html",
            "https://github.com/ROCm/rocminfo/blob/amd-staging/rocminfo.cc",
        ],
        "gpus": [gpu("gfx1100", 1, 128, 0x03)],
        "docker": True,
        "user": "root",
        "shm": 64 * 1024 * 1024,
        "rocm": "6.2.0",
        "rocminfo_error": "ROCk module is loaded\nUnable to open /dev/kfd read-write: No such file or directory\n"
        "Failed to get user name to check for video group membership\n",
        "torch": rocm_torch("2.5.1+rocm6.2", "6.2.41133-dd7f95766", ARCH_25, []),
    },
    "wsl": {
        "notes": "Ubuntu 22.04 under WSL2 with AMD's WSL runtime: /dev/dxg, no /dev/kfd, no KFD topology.",
        "sources": [
            "https://rocm.docs.amd.com/projects/amdsmi/en/latest/how-to/amdsmi-wsl-mode.html",
            "https://github.com/ROCm/librocdxg",
        ],
        "gpus": [],
        "wsl": True,
        "torch": rocm_torch(
            "2.6.0+rocm6.4.2",
            "6.4.43482-0f2d60242",
            ARCH_26 + ["gfx1200", "gfx1201"],
            [("AMD Radeon RX 7900 XTX", "gfx1100")],
        ),
    },
    "cuda-torch-on-amd": {
        "notes": "RX 7900 XTX with a CUDA wheel from the default PyPI index (torch 2.5.1+cu124).",
        "sources": ["https://github.com/pytorch/pytorch/blob/main/docs/source/notes/hip.rst"],
        "gpus": [gpu("gfx1100", 1, 128, 0x03)],
        "torch": {
            "flavour": "cuda",
            "version": "2.5.1+cu124",
            "hip": None,
            "cuda": "12.4",
            "arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
            "is_available": False,
            "device_count": 0,
            "devices": [],
            "python_version": "3.11.9",
            "lib_dir": SITE,
            "loaded_libs": {},
            "amdsmi": {},
            "triton": {},
        },
    },
    "cpu-torch-on-amd": {
        "notes": "RX 7900 XTX with torch 2.5.1+cpu (installed from the cpu index).",
        "sources": ["https://github.com/pytorch/pytorch/blob/main/docs/source/notes/hip.rst"],
        "gpus": [gpu("gfx1100", 1, 128, 0x03)],
        "torch": {
            "flavour": "cpu",
            "version": "2.5.1+cpu",
            "hip": None,
            "cuda": None,
            "arch_list": [],
            "is_available": False,
            "device_count": 0,
            "devices": [],
            "python_version": "3.11.9",
            "lib_dir": SITE,
            "loaded_libs": {},
            "amdsmi": {},
            "triton": {},
        },
    },
    "rocm62-old-wheel-ldpath": {
        "notes": "System ROCm 6.2.0 with LD_LIBRARY_PATH=/opt/rocm/lib and torch 2.3.1+rocm6.0: the system "
        "libamdhip64.so.6 is loaded instead of the wheel's own.",
        "sources": [
            "https://github.com/astral-sh/uv/issues/14086",
            "https://github.com/ROCm/rocm-core/blob/master/CMakeLists.txt",
        ],
        "gpus": [gpu("gfx1100", 1, 128, 0x03)],
        "rocm": "6.2.0",
        "env": {"LD_LIBRARY_PATH": "/opt/rocm/lib"},
        "torch": rocm_torch(
            "2.3.1+rocm6.0",
            "6.0.32830-d62f6a171",
            ARCH_23_R60,
            [("AMD Radeon RX 7900 XTX", "gfx1100")],
            loaded_libs={
                "libamdhip64": "/opt/rocm-6.2.0/lib/libamdhip64.so.6",
                "libhsa-runtime64": "/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1",
            },
        ),
    },
    "rx580-gfx803": {
        "notes": "RX 580 (Polaris, gfx803, gfx_target_version 80003) with torch 2.3.1+rocm6.0.",
        "sources": [
            "https://github.com/lamikr/rocm_sdk_builder/issues/173",
            "https://github.com/astral-sh/uv/issues/14086",
        ],
        "gpus": [gpu("gfx803", 1, 128, 0x01, ("8.0 GT/s PCIe", "8.0 GT/s PCIe", 16, 16))],
        "torch": rocm_torch(
            "2.3.1+rocm6.0",
            "6.0.32830-d62f6a171",
            ARCH_23_R60,
            [("Radeon RX 580 Series", "gfx803")],
        ),
    },
    "amdgpu-not-loaded": {
        "notes": "RX 7900 XTX on the PCI bus but amdgpu not loaded: no /sys/module/amdgpu, no KFD, no /dev/kfd.",
        "sources": [
            "https://github.com/ROCm/legacy-rocm-build/issues/795",
            "https://github.com/ROCm/rocminfo/blob/amd-staging/rocminfo.cc",
        ],
        "gpus": [],
        "pci_only": ["0000:03:00.0"],
        "no_module": True,
        "rocm": "6.2.0",
        "rocminfo_error": "ROCk module is NOT loaded, possibly no GPU devices\n",
        "torch": rocm_torch(
            "2.5.1+rocm6.2",
            "6.2.41133-dd7f95766",
            ARCH_25,
            [],
            error="RuntimeError: No HIP GPUs are available",
        ),
    },
}


def rocminfo_text(gpus: list[dict], runtime: dict[str, str]) -> str:
    out = [
        "ROCk module is loaded",
        "=====================",
        "HSA System Attributes",
        "=====================",
        "Runtime Version:         1.14",
        "",
        "==========",
        "HSA Agents",
        "==========",
        "*******",
        "Agent 1",
        "*******",
        "  Name:                    AMD Ryzen 9 7950X 16-Core Processor",
        "  Marketing Name:          AMD Ryzen 9 7950X 16-Core Processor",
        "  Vendor Name:             CPU",
        "  Node:                    0",
        "  Device Type:             CPU",
    ]
    for i, g in enumerate(gpus, 2):
        name = CARDS[g["gfx"]][3]
        out += [
            "*******",
            f"Agent {i}",
            "*******",
            f"  Name:                    {runtime.get(g['gfx'], g['gfx'])}",
            "  Uuid:                    GPU-XX",
            f"  Marketing Name:          {name}",
            "  Vendor Name:             AMD",
            f"  Node:                    {g['node']}",
            "  Device Type:             GPU",
            f"  Chip ID:                 {CARDS[g['gfx']][1]}({hex(CARDS[g['gfx']][1])})",
        ]
    return "\n".join(out + ["*** Done ***", ""])


def write(root: Path, path: str, text: str) -> None:
    dest = root / path.lstrip("/")
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")


def build(name: str, sc: dict) -> None:
    out = HERE / name
    shutil.rmtree(out, ignore_errors=True)
    root = out / "root"
    user = sc.get("user", "alex")
    uid = 0 if user == "root" else 1000
    wsl = sc.get("wsl", False)
    kernel = "5.15.167.4-microsoft-standard-WSL2" if wsl else "6.8.0-45-generic"
    write(
        root,
        "/etc/os-release",
        'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nNAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\n',
    )
    write(root, "/proc/sys/kernel/osrelease", kernel + "\n")
    write(root, "/proc/version", f"Linux version {kernel} (gcc 11.4.0) #1 SMP\n")
    write(
        root,
        "/proc/cmdline",
        sc.get("cmdline", f"BOOT_IMAGE=/boot/vmlinuz-{kernel} root=UUID=1f0e ro quiet splash")
        + "\n",
    )
    write(
        root,
        "/etc/group",
        "root:x:0:\nsudo:x:27:alex\nvideo:x:44:alex\nrender:x:110:alex\nalex:x:1000:\n",
    )
    stats, rw, exists, commands = {}, {}, {}, []
    devs = not wsl and not sc.get("docker") and not sc.get("no_module")
    if not sc.get("no_module") and not wsl:
        write(root, "/sys/module/amdgpu/initstate", "live\n")
    if wsl:
        stats["/dev/dxg"] = {
            "mode": "crw-rw-rw-",
            "uid": 0,
            "gid": 0,
            "size": 0,
            "owner": "root",
            "group": "root",
        }
    if sc.get("docker"):
        write(root, "/.dockerenv", "")
    if devs:
        stats["/dev/kfd"] = {
            "mode": "crw-rw----",
            "uid": 0,
            "gid": 110,
            "size": 0,
            "owner": "root",
            "group": "render",
        }
    for g in sc["gpus"]:
        version, device, simd, _, vram = CARDS[g["gfx"]]
        props = (
            f"cpu_cores_count 0\nsimd_count {simd}\nmem_banks_count 1\ngfx_target_version {version}\n"
            f"vendor_id 4098\ndevice_id {device}\nlocation_id {g['bus'] << 8}\ndomain 0\n"
            f"drm_render_minor {g['minor']}\nnum_xcc {8 if g['gfx'] == 'gfx942' else 1}\n"
        )
        write(root, f"/sys/class/kfd/kfd/topology/nodes/{g['node']}/properties", props)
        write(
            root, f"/sys/class/kfd/kfd/topology/nodes/{g['node']}/gpu_id", f"{4660 + g['node']}\n"
        )
        drm = f"/sys/class/drm/renderD{g['minor']}/device"
        write(root, f"{drm}/mem_info_vram_total", f"{vram}\n")
        speed, max_speed, width, max_width = g["link"]
        for key, value in (
            ("current_link_speed", speed),
            ("max_link_speed", max_speed),
            ("current_link_width", width),
            ("max_link_width", max_width),
        ):
            write(root, f"{drm}/{key}", f"{value}\n")
        slot = f"0000:{g['bus']:02x}:00.0"
        write(root, f"/sys/bus/pci/devices/{slot}/vendor", "0x1002\n")
        write(root, f"/sys/bus/pci/devices/{slot}/class", "0x030000\n")
        if devs:
            stats[f"/dev/dri/renderD{g['minor']}"] = {
                "mode": "crw-rw----",
                "uid": 0,
                "gid": 110,
                "size": 0,
                "owner": "root",
                "group": "render",
            }
    if sc["gpus"] or sc.get("no_module"):
        write(
            root,
            "/sys/class/kfd/kfd/topology/nodes/0/properties",
            "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n",
        ) if sc["gpus"] else None
    for slot in sc.get("pci_only", []):
        write(root, f"/sys/bus/pci/devices/{slot}/vendor", "0x1002\n")
        write(root, f"/sys/bus/pci/devices/{slot}/class", "0x030000\n")
    for path in stats:
        if path.startswith("/dev/kfd") or path.startswith("/dev/dri"):
            rw[path] = sc.get("rw", True)
    listdir = {"/dev/dri": [p.rsplit("/", 1)[1] for p in stats if p.startswith("/dev/dri/")]}
    if "/dev/kfd" not in stats:
        exists["/dev/kfd"] = False
    if sc.get("rocm"):
        ver = sc["rocm"]
        base = f"/opt/rocm-{ver}"
        write(root, f"{base}/.info/version", f"{ver}-{ {'6.2.0': 66, '6.2.4': 120}.get(ver, 1) }\n")
        write(root, f"{base}/bin/rocminfo", "")
        major, minor, patch = ver.split(".")
        write(
            root,
            f"{base}/include/rocm-core/rocm_version.h",
            f"#define ROCM_VERSION_MAJOR   {major}\n#define ROCM_VERSION_MINOR   {minor}\n#define ROCM_VERSION_PATCH   {patch}\n",
        )
        write(root, f"{base}/lib/libamdhip64.so.6", "")
        for arch in ("gfx1030", "gfx1100", "gfx1101", "gfx90a", "gfx942"):
            write(root, f"{base}/lib/rocblas/library/TensileLibrary_lazy_{arch}.dat", "")
        links = {"/opt/rocm": base}
        write(root, "/opt/rocm/.info/version", f"{ver}\n")
        write(
            root,
            "/opt/rocm/include/rocm-core/rocm_version.h",
            f"#define ROCM_VERSION_MAJOR   {major}\n#define ROCM_VERSION_MINOR   {minor}\n#define ROCM_VERSION_PATCH   {patch}\n",
        )
        write(root, "/opt/rocm/lib/libamdhip64.so.6", "")
        commands.append(
            {
                "argv": ["ldconfig", "-p"],
                "returncode": 0,
                "stdout": f"\tlibamdhip64.so.6 (libc6,x86-64) => {base}/lib/libamdhip64.so.6\n",
                "stderr": "",
                "timed_out": False,
                "missing": False,
            }
        )
        if devs or sc.get("rocminfo_error"):
            text = sc.get("rocminfo_error") or rocminfo_text(sc["gpus"], sc.get("runtime_gfx", {}))
            commands.append(
                {
                    "argv": ["rocminfo"],
                    "returncode": 1 if sc.get("rocminfo_error") else 0,
                    "stdout": text,
                    "stderr": "",
                    "timed_out": False,
                    "missing": False,
                }
            )
    else:
        links = {}
    torch = dict(sc["torch"], python="/home/alex/venv/bin/python")
    if torch.get("flavour") == "rocm":
        for arch in torch["arch_list"]:
            write(root, f"{SITE}/rocblas/library/TensileLibrary_lazy_{arch.split(':')[0]}.dat", "")
            write(root, f"{SITE}/../share/miopen/db/{arch.split(':')[0]}_{60}.kdb", "")
        write(root, f"{SITE}/libamdhip64.so", "")
    env = {
        "HOME": "/root" if uid == 0 else f"/home/{user}",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "USER": user,
    }
    env.update(sc.get("env", {}))
    groups = ["root"] if uid == 0 else sc.get("process_groups", ["alex", "sudo", "video", "render"])
    gid_of = {"root": 0, "alex": 1000, "sudo": 27, "video": 44, "render": 110}
    data = {
        "schema": "rocmfix.snapshot/1",
        "source": "fixture (tests/data/host/build_fixtures.py)",
        "notes": sc["notes"],
        "sources": sc["sources"],
        "python": "/home/alex/venv/bin/python",
        "user": {"name": user, "uid": uid, "groups": groups, "gids": [gid_of[g] for g in groups]},
        "env": env,
        "commands": commands,
        "stat": stats,
        "exists": exists,
        "listdir": listdir,
        "links": links,
        "rw": rw,
        "disk_total": {"/dev/shm": sc.get("shm", 16 * 1024**3)},
        "memory": {
            "total": 64 * 1024**3,
            "available": 48 * 1024**3,
            "swap_total": 8 * 1024**3,
            "swap_used": 0,
        },
        "processes_holding": {},
        "torch": torch,
    }
    (out / "snapshot.json").write_text(
        json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    lines = [
        f"# {name}",
        "",
        sc["notes"],
        "",
        "Modelled on data users and AMD posted upstream:",
        "",
    ]
    lines += [f"- {url}" for url in sc["sources"]]
    lines += ["", "Generated by build_fixtures.py; edit the spec there, not these files.", ""]
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")


def _stat(group: str, gid: int, mode: str = "crw-rw----") -> dict:
    return {"mode": mode, "uid": 0, "gid": gid, "size": 0, "owner": "root", "group": group}


def _cmd(argv: list[str], rc: int, out: str) -> dict:
    return {
        "argv": argv,
        "returncode": rc,
        "stdout": out,
        "stderr": "",
        "timed_out": False,
        "missing": False,
    }


GIDS = {"root": 0, "adm": 4, "cdrom": 24, "sudo": 27, "dip": 30, "video": 44, "plugdev": 46}


def build_upstream(name: str, sc: dict) -> None:
    """A machine from upstream_machines.MACHINES: only what its post states is recorded."""
    out = HERE / name
    shutil.rmtree(out, ignore_errors=True)
    root = out / "root"
    user = sc.get("user", "alex")
    uid = 0 if user == "root" else 1000
    pretty, os_id, os_version = sc["os"]
    kernel = sc["kernel"]
    write(
        root, "/etc/os-release", f'PRETTY_NAME="{pretty}"\nID={os_id}\nVERSION_ID="{os_version}"\n'
    )
    write(root, "/proc/sys/kernel/osrelease", kernel + "\n")
    write(root, "/proc/version", f"Linux version {kernel} #1 SMP\n")
    if sc.get("cmdline"):
        write(root, "/proc/cmdline", sc["cmdline"] + "\n")
    dev_group, dev_gid = sc.get("device_group", ("render", 110))
    groups = ["root"] if uid == 0 else sc.get("process_groups", [user, "sudo", "video", "render"])
    gid_of = {**GIDS, "render": 110, user: 1000 if uid else 0, dev_group: dev_gid}
    for extra in groups:
        gid_of.setdefault(extra, 2000 + len(gid_of))
    members = {g: [user] for g in groups if g != user and uid != 0}
    lines = [f"{g}:x:{gid}:{','.join(members.get(g, []))}" for g, gid in gid_of.items()]
    write(root, "/etc/group", "\n".join(lines) + "\n")
    stats: dict = {}
    exists: dict = {}
    rw: dict = {}
    rw_errno: dict = {}
    commands: list = []
    links: dict = {}
    wsl = sc.get("wsl", False)
    if wsl:
        stats["/dev/dxg"] = _stat("root", 0, "crw-rw-rw-")
    elif sc.get("no_module"):
        pass  # amdgpu not loaded: no /sys/module/amdgpu
    elif sc.get("amdgpu_builtin"):
        # A built-in driver has /sys/module/amdgpu (parameters, uevent) but no initstate.
        write(root, "/sys/module/amdgpu/uevent", "")
    else:
        write(root, "/sys/module/amdgpu/initstate", "live\n")
    if not wsl and sc.get("module_version"):
        write(root, "/sys/module/amdgpu/version", sc["module_version"] + "\n")
    if sc.get("container") == "docker":
        write(root, "/.dockerenv", "")
    if sc.get("container") == "podman":
        write(root, "/run/.containerenv", "")
    if sc.get("container") == "lxc":
        write(root, "/run/systemd/container", "lxc\n")
    kfd_gpus = sc.get("kfd_gpus", [])
    topo = "/sys/class/kfd/kfd/topology/nodes"
    if kfd_gpus or sc.get("kfd_node_errno") or sc.get("kfd_cpu_only"):
        stats["/dev/kfd"] = _stat(dev_group, dev_gid, sc.get("kfd_mode", "crw-rw----"))
        errno = sc.get("kfd_node_errno") or sc.get("node_errno")
        rw["/dev/kfd"] = errno is None
        if errno:
            rw_errno["/dev/kfd"] = errno
        write(
            root, f"{topo}/0/properties", "cpu_cores_count 4\nsimd_count 0\ngfx_target_version 0\n"
        )
    for g in kfd_gpus:
        props = [
            "cpu_cores_count 0",
            f"simd_count {g['simd']}",
            f"gfx_target_version {g['version']}",
            "vendor_id 4098",
            *([f"device_id {g['device']}"] if g["device"] is not None else []),
            f"location_id {g['bus'] << 8}",
            "domain 0",
            f"drm_render_minor {g['minor']}",
        ]
        write(root, f"{topo}/{g['node']}/properties", "\n".join(props) + "\n")
        write(
            root, f"/sys/class/drm/renderD{g['minor']}/device/mem_info_vram_total", f"{g['vram']}\n"
        )
        slot = f"0000:{g['bus']:02x}:00.0"
        write(root, f"/sys/bus/pci/devices/{slot}/vendor", "0x1002\n")
        write(root, f"/sys/bus/pci/devices/{slot}/class", "0x030000\n")
        if g["device"] is not None:
            write(root, f"/sys/bus/pci/devices/{slot}/device", f"{g['device']:#06x}\n")
        node = f"/dev/dri/renderD{g['minor']}"
        stats[node] = _stat(*sc.get("render_group", (dev_group, dev_gid)))
        errno = sc.get("node_errno")
        rw[node] = errno is None
        if errno:
            rw_errno[node] = errno
    for slot, did in sc.get("pci_only", []):
        write(root, f"/sys/bus/pci/devices/{slot}/vendor", "0x1002\n")
        write(root, f"/sys/bus/pci/devices/{slot}/class", "0x030000\n")
        if did is not None:
            write(root, f"/sys/bus/pci/devices/{slot}/device", f"{did:#06x}\n")
    if "dmesg" in sc:
        commands.append(_cmd(["dmesg"], 0, sc["dmesg"]))
    if "dkms" in sc:
        commands.append(_cmd(["dkms", "status"], 0, sc["dkms"]))
    if "mokutil" in sc:
        commands.append(_cmd(["mokutil", "--sb-state"], 0, sc["mokutil"]))
    if "rocminfo" in sc:
        rc, text = sc["rocminfo"]
        commands.append(_cmd(["rocminfo"], rc, text))
    if sc.get("rocm_dir"):
        write(root, f"{sc['rocm_dir']}/bin/rocminfo", "")
    if sc.get("rocm"):
        ver = sc["rocm"]
        # Arch's packages install ROCm straight into /opt/rocm (no versioned directory).
        base = "/opt/rocm" if sc.get("rocm_flat") else f"/opt/rocm-{ver}"
        major, minor, patch = ver.split(".")
        header = (
            f"#define ROCM_VERSION_MAJOR   {major}\n#define ROCM_VERSION_MINOR   {minor}\n"
            f"#define ROCM_VERSION_PATCH   {patch}\n"
        )
        for where in dict.fromkeys((base, "/opt/rocm")):
            write(root, f"{where}/.info/version", f"{ver}\n")
            write(root, f"{where}/include/rocm-core/rocm_version.h", header)
            write(root, f"{where}/lib/libhsa-runtime64.so.1", "")
        if base != "/opt/rocm":
            links["/opt/rocm"] = base
        commands.append(
            _cmd(
                ["ldconfig", "-p"],
                0,
                f"\tlibamdhip64.so.6 (libc6,x86-64) => {base}/lib/libamdhip64.so.6\n",
            )
        )
    if sc.get("distro_rocm"):
        major, minor, patch = sc["distro_rocm"].split(".")
        hip_so = (
            f"libamdhip64.so.{6 if int(major) < 7 else 7}"  # the HIP soname follows ROCm's major
        )
        write(root, f"/usr/lib64/{hip_so}", "")
        write(root, "/usr/lib64/libhsa-runtime64.so.1", "")
        write(
            root,
            "/usr/include/rocm_version.h",
            f"#define ROCM_VERSION_MAJOR   {major}\n#define ROCM_VERSION_MINOR   {minor}\n"
            f"#define ROCM_VERSION_PATCH   {patch}\n",
        )
        commands.append(
            _cmd(
                ["ldconfig", "-p"],
                0,
                f"\t{hip_so} (libc6,x86-64) => /lib64/{hip_so}\n",
            )
        )
    torch = None
    spec = sc.get("torch")
    python = f"/home/{user}/venv/bin/python" if uid else "/usr/bin/python3"
    if sc.get("torch_raw"):
        torch = {"python": python, **sc["torch_raw"]}  # a probe that died, as recorded
    if spec:
        site = spec["site"]
        torch = {
            "python": python,
            "flavour": spec["flavour"],
            "version": spec["version"],
            "hip": spec["hip"],
            "cuda": None,
            "arch_list": spec["arch_list"],
            "is_available": spec["is_available"],
            "device_count": spec["device_count"],
            "devices": [],
            "python_version": spec["python_version"],
            "lib_dir": site,
            "loaded_libs": {
                "libamdhip64": f"{site}/libamdhip64.so",
                "libhsa-runtime64": f"{site}/libhsa-runtime64.so",
            },
            "amdsmi": {},
            "triton": {},
        }
        write(root, f"{site}/libamdhip64.so", "")
        write(root, f"{site}/libhsa-runtime64.so", "")
    env = {
        "HOME": "/root" if uid == 0 else f"/home/{user}",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "USER": user,
    }
    env.update(sc.get("env", {}))
    data = {
        "schema": "rocmfix.snapshot/1",
        "source": "fixture (tests/data/host/upstream_machines.py)",
        "notes": sc["notes"],
        "sources": sc["sources"],
        "python": python,
        "user": {"name": user, "uid": uid, "groups": groups, "gids": [gid_of[g] for g in groups]},
        "env": env,
        "commands": commands,
        "stat": stats,
        "exists": exists,
        "listdir": {}
        if sc.get("dri_unrecorded")
        else {"/dev/dri": sorted(p.rsplit("/", 1)[1] for p in stats if p.startswith("/dev/dri/"))},
        "links": links,
        "rw": rw,
        "rw_errno": rw_errno,
        "disk_total": {},
        "memory": None,
        "processes_holding": {},
        "torch": torch,
    }
    (out / "snapshot.json").write_text(
        json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    readme = [
        f"# {name}",
        "",
        sc["notes"],
        "",
        "From what users and maintainers posted upstream:",
        "",
    ]
    readme += [f"- {url}" for url in sc["sources"]]
    if sc.get("placeholders"):
        readme += [
            "",
            "Not stated in the post (structural placeholders; no expectation depends on them):",
            "",
        ]
        readme += [f"- {p}" for p in sc["placeholders"]]
    readme += [
        "",
        "Generated by build_fixtures.py from upstream_machines.py; edit the spec there.",
        "",
    ]
    (out / "README.md").write_text("\n".join(readme), encoding="utf-8")


if __name__ == "__main__":
    for scenario_name, spec in SCENARIOS.items():
        build(scenario_name, spec)
    for machine_name, spec in MACHINES.items():
        build_upstream(machine_name, spec)
    print(f"wrote {len(SCENARIOS) + len(MACHINES)} fixtures under {HERE}")
