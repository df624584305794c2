"""Machines users posted upstream, rebuilt as ``rocmfix.snapshot/1`` fixtures.

Each spec holds only what the post states or what follows from it (a PCI slot a
``BDFID`` names, the chip a PCI device id names in amdgpu's pciidlist, the gfx a
rocminfo agent reports). Where the snapshot format needs a value the post does
not give (a PCI slot, a render minor, a user name), the spec says so in
``placeholders`` and the fixture README repeats it; no expectation depends on
such a value. ``python tests/data/host/build_fixtures.py`` writes them with the
other fixtures.
"""

from __future__ import annotations

ROCMINFO_GPU = """*******
Agent {n}
*******
  Name:                    {gfx}
  Marketing Name:          {name}
  Vendor Name:             AMD
  Node:                    {node}
  Device Type:             GPU
  Chip ID:                 {chip}({chip:#x})
"""
ROCMINFO_HEAD = """ROCk module is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.1

==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    {cpu}
  Marketing Name:          {cpu}
  Vendor Name:             CPU
  Node:                    0
  Device Type:             CPU
"""


def rocminfo(cpu: str, gpus: list[tuple[str, str, int, int]]) -> str:
    """rocminfo text: the CPU agent and GPU agents (gfx, marketing name, node, chip id)."""
    out = ROCMINFO_HEAD.format(cpu=cpu)
    for i, (gfx, name, node, chip) in enumerate(gpus, 2):
        out += ROCMINFO_GPU.format(n=i, gfx=gfx, name=name, node=node, chip=chip)
    return out + "*** Done ***\n"


def kfd_gpu(
    node: int, version: int, device: int | None, simd: int, bus: int, minor: int, vram: int
) -> dict:
    return {
        "node": node,
        "version": version,
        "device": device,
        "simd": simd,
        "bus": bus,
        "minor": minor,
        "vram": vram,
    }


OOR = (
    "hsa api call failure at: /src/rocminfo/rocminfo.cc:1142\n"
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
    "resources. This error may also occur when the core runtime library needs to spawn threads or "
    "create internal OS-specific events.\n"
)

MACHINES: dict[str, dict] = {
    "navi14-dkms-not-built-for-kernel": {
        "notes": "RX 5500 (Navi 14, 1002:7340) on Ubuntu 20.04, kernel 5.4.0-54-generic, while amdgpu-dkms "
        "3.10-27 is installed only for 5.4.0-53: the inbox 5.4 KFD has no Navi 14 entry, /dev/kfd answers "
        "ENOMEM. The maintainer's fix was rebuilding the DKMS module for the running kernel.",
        "sources": ["https://github.com/ROCm/ROCm/issues/1318"],
        "placeholders": ["user name", "/dev/kfd owner group"],
        "os": ("Ubuntu 20.04 LTS", "ubuntu", "20.04"),
        "kernel": "5.4.0-54-generic",
        "pci_only": [("0000:2f:00.0", 0x7340)],
        "kfd_node_errno": "ENOMEM",
        "dkms": "amdgpu, 3.10-27, 5.4.0-53-generic, x86_64: installed\n",
        "dmesg": "[    2.244241] kfd kfd: DID 7340 is missing in supported_devices\n"
        "[    2.244243] kfd kfd: kgd2kfd_probe failed\n",
        "rocminfo": (
            1,
            "ROCk module is loaded\nUnable to open /dev/kfd read-write: Cannot allocate memory\n"
            "Failed to get user name to check for render group membership\n" + OOR,
        ),
        "rocm_dir": "/opt/rocm",
        "expect": {
            "fail": {"dkms-status", "kernel-log", "gpu-list", "device-nodes", "rocminfo"},
            "first": "amdgpu-dkms-build-failure",
            "top3": {"kfd-device-missing"},
            "not_ranked": {"kfd-permission-denied"},
        },
    },
    "raven-2400g-kernel-4.18": {
        "notes": "Ryzen 5 2400G (Raven Ridge APU, 1002:15dd) on Ubuntu 18.10, kernel 4.18.0-10-generic: "
        "the maintainer answered that Raven support reached the upstream KFD only in 4.19.",
        "sources": ["https://github.com/ROCm/ROCm/issues/692"],
        "placeholders": ["PCI slot 0000:0a:00.0", "user name"],
        "os": ("Ubuntu 18.10", "ubuntu", "18.10"),
        "kernel": "4.18.0-10-generic",
        "pci_only": [("0000:0a:00.0", 0x15DD)],
        "dmesg": "[    1.238024] kfd kfd: Initialized module\n"
        "[    1.239801] kfd kfd: DID 15dd is missing in supported_devices\n"
        "[    1.239803] kfd kfd: kgd2kfd_probe failed\n",
        "expect": {
            "fail": {"kernel-log", "gpu-list"},
            "first": "kfd-device-missing",
            "not_ranked": {"kfd-permission-denied", "unsupported-gpu-architecture"},
        },
    },
    "raven-2400g-iommu-v2-module": {
        "notes": "Ryzen 5 2400G on a self-built 5.18.12 kernel with AMD IOMMUv2 as a module: KFD prints "
        "'GC IP 090100 not supported in kfd' and adds no device; built in, the same kernel adds 1002:15dd.",
        "sources": ["https://lore.kernel.org/lkml/KONJHR.T3DS4EBAXDVX1@att.net/"],
        "placeholders": ["PCI slot 0000:0a:00.0", "distribution", "user name"],
        "os": ("Custom Linux", "linux", ""),
        "kernel": "5.18.12",
        "pci_only": [("0000:0a:00.0", 0x15DD)],
        "dmesg": "amdgpu: CRAT table disabled by module option\namdgpu: Topology: Add CPU node\n"
        "amdgpu: Virtual CRAT table created for CPU\nAMD-Vi: AMD IOMMUv2 loaded and initialized\n"
        "kfd kfd: amdgpu: GC IP 090100 not supported in kfd\n",
        "expect": {
            "fail": {"kernel-log", "gpu-list"},
            "first": "kfd-device-missing",
            "not_ranked": {"unsupported-gpu-architecture", "rocm-too-old-for-gpu"},
        },
    },
    "rx580-2048sp-old-kfd-4104": {
        "notes": "RX 580 2048SP (Polaris 10, 1002:6fdf) on Ubuntu 18.04, kernel 4.15.0-45-generic with "
        "amdgpu-dkms 2.1-96 (driver 19.10.7.418); KFD has no entry for the id and rocminfo says only "
        "'Call returned 4104'. The user is in video but not render. gfx803 is outside current ROCm.",
        "sources": ["https://github.com/ROCm/ROCm/issues/719"],
        "placeholders": [],
        "user": "tu6ge",
        "process_groups": [
            "tu6ge",
            "adm",
            "cdrom",
            "sudo",
            "dip",
            "video",
            "plugdev",
            "lpadmin",
            "sambashare",
        ],
        "os": ("Ubuntu 18.04.2 LTS", "ubuntu", "18.04"),
        "kernel": "4.15.0-45-generic",
        "module_version": "19.10.7.418",
        "pci_only": [("0000:01:00.0", 0x6FDF)],
        "dkms": "amdgpu, 2.1-96, 4.15.0-45-generic, x86_64: installed\n",
        "dmesg": "[    1.130512] kfd kfd: DID 6fdf is missing in supported_devices\n"
        "[    1.130513] kfd kfd: kgd2kfd_probe failed\n"
        "[    1.128410] [drm] amdgpu version: 19.10.7.418\n"
        "[    1.391539] [drm] Initialized amdgpu 3.27.0 20150101 for 0000:01:00.0 on minor 0\n",
        "rocminfo": (
            1,
            "hsa api call failure at line 900, file: /data/jenkins_workspace/compute-rocm-rel-2.1/rocminfo/"
            "rocminfo.cc. Call returned 4104\n",
        ),
        "rocm_dir": "/opt/rocm",
        "expect": {
            "fail": {"kernel-log", "gpu-list"},
            "warn": {"rocminfo"},
            "first": "unsupported-gpu-architecture",
            "top3": {"kfd-device-missing"},
            "not_ranked": {"gpu-out-of-memory", "rocm-too-old-for-gpu"},
        },
    },
    "oland-hd8790m-fedora36": {
        "notes": "Laptop with a Radeon HD 8790M (Oland, GCN1) beside Intel graphics, Fedora 36, kernel "
        "5.19.6-200, amdgpu.si_support=1, Fedora's rocm-opencl 5.2.3: 'OLAND not supported in kfd'. "
        "A maintainer-side answer: GCN1 was never supported by ROCm.",
        "sources": ["https://github.com/ROCm/ROCm/issues/1804"],
        "placeholders": [
            "PCI device id 0x6600 (an Oland id of amdgpu's pciidlist; the post names the chip only)",
            "user name",
        ],
        "os": ("Fedora Linux 36 (Workstation Edition)", "fedora", "36"),
        "kernel": "5.19.6-200.fc36.x86_64",
        "cmdline": "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-5.19.6-200.fc36.x86_64 ro rhgb quiet radeon.si_support=0 amdgpu.si_support=1",
        "pci_only": [("0000:01:00.0", 0x6600)],
        "dmesg": "kernel: amdgpu 0000:01:00.0: enabling device (0000 -> 0003)\n"
        "kernel: kfd kfd: amdgpu: OLAND  not supported in kfd\n"
        "kernel: [drm] Initialized amdgpu 3.47.0 20150101 for 0000:01:00.0 on minor 0\n",
        "expect": {
            "fail": {"kernel-log", "gpu-list"},
            "first": "unsupported-gpu-architecture",
            "not_ranked": {"kfd-permission-denied", "rocm-too-old-for-gpu"},
        },
    },
    "hawaii-r9-290-gfx701": {
        "notes": "Radeon R9 290/390 (Hawaii PRO, chip id 0x67b1) with ROCm 2.9 on Ubuntu 18.04 beside an "
        "NVIDIA card: KFD registers it as gfx701 (rocminfo lists the agent), /dev/kfd opens; no current "
        "ROCm or PyTorch build has gfx701 code.",
        "sources": ["https://github.com/ROCm/ROCm/issues/913"],
        "placeholders": ["kernel release", "render minor", "user groups beyond video"],
        "user": "vladi",
        "os": ("Ubuntu 18.04.3 LTS", "ubuntu", "18.04"),
        "kernel": "4.15.0-65-generic",
        "kfd_gpus": [kfd_gpu(1, 70001, 0x67B1, 160, 0x01, 128, 4294967296)],
        "rocminfo": (
            0,
            rocminfo(
                "Intel(R) Celeron(R) CPU G3930 @ 2.90GHz",
                [("gfx701", "Hawaii PRO [Radeon R9 290/390]", 1, 0x67B1)],
            ),
        ),
        "rocm_dir": "/opt/rocm",
        "expect": {
            "fail": {"gpu-list"},
            "first": "unsupported-gpu-architecture",
            "not_ranked": {"rocm-too-old-for-gpu", "kfd-permission-denied", "kfd-device-missing"},
        },
    },
    "rx5500xt-second-slot-no-atomics": {
        "notes": "Two RX 5500 XT (Navi 14) on Arch Linux: the card in the main slot is KFD node 1 (gfx1012, "
        "PCI 0000:0c:00.0); the one in the second, chipset-attached PCIe 4.0 x4 slot is skipped by KFD "
        "('PCI rejects atomics'). The maintainer pointed at the board's slot.",
        "sources": ["https://github.com/ROCm/ROCm/issues/1416"],
        "placeholders": ["second card's PCI slot 0000:0d:00.0", "render minors", "user name"],
        "os": ("Arch Linux", "arch", ""),
        "kernel": "5.11.8-arch1-1",
        "kfd_gpus": [kfd_gpu(1, 100102, 0x7340, 44, 0x0C, 128, 8573157376)],
        "pci_only": [("0000:0d:00.0", 0x7340)],
        "dmesg": "[    1.101433] kfd kfd: skipped device 1002:7340, PCI rejects atomics\n",
        "expect": {
            "fail": {"kernel-log"},
            "warn": {"gpu-list"},
            "first": "kfd-device-missing",
            "not_ranked": {"unsupported-gpu-architecture", "kfd-permission-denied"},
        },
    },
    "rx480-kvm-guest-no-atomics": {
        "notes": "KVM/QEMU guest (q35, OVMF) with an RX 480 (1002:67df) passed through by vfio-pci; the guest "
        "kernel 4.9.0-kfd skips it: 'PCI rejects atomics' (the host runs ROCm fine). gfx803 is also "
        "outside current ROCm.",
        "sources": ["https://github.com/ROCm/amdgpu/issues/26"],
        "placeholders": ["guest PCI slot 0000:01:00.0", "user name"],
        "os": ("Ubuntu 16.04.2 LTS", "ubuntu", "16.04"),
        "kernel": "4.9.0-kfd-compute-rocm-rel-1.6-77",
        "pci_only": [("0000:01:00.0", 0x67DF)],
        "dmesg": "kfd kfd: skipped device 1002:67df, PCI rejects atomics\n",
        "expect": {
            "fail": {"kernel-log", "gpu-list"},
            "first": "unsupported-gpu-architecture",
            "top3": {"kfd-device-missing"},
        },
    },
    "phoenix-gc-11.0.4-kernel-6.1": {
        "notes": "A GC 11.0.4 APU (Phoenix family) on kernel 6.1.20: 'GC IP 0b0004 not supported in kfd'; "
        "AMD asked for the KFD support commits from 6.2 to be backported to 6.1.y.",
        "sources": ["https://lore.kernel.org/stable/ZCLsHCq46XBG1ZW3@kroah.com/"],
        "placeholders": ["PCI slot and device id (not in the post)", "distribution", "user name"],
        "os": ("Linux", "linux", ""),
        "kernel": "6.1.20",
        "pci_only": [("0000:c4:00.0", None)],
        "dmesg": "kfd kfd: amdgpu: GC IP 0b0004  not supported in kfd\n",
        "expect": {
            "fail": {"kernel-log", "gpu-list"},
            "first": "kfd-device-missing",
            "not_ranked": {"unsupported-gpu-architecture"},
        },
    },
    "wsl-rx7900xtx-bundled-runtime": {
        "notes": "WSL2 (kernel 5.15.153.1-microsoft-standard-WSL2, Ubuntu 22.04) with AMD's WSL ROCm 6.1.3: "
        "rocminfo lists the RX 7900 XTX (gfx1100), but torch 2.1.2+rocm6.1.3 says is_available() False. "
        "The fix given in the thread is AMD's: replace the wheel's libhsa-runtime64 with the WSL one.",
        "sources": [
            "https://github.com/ROCm/ROCm/issues/3470",
            "https://rocm.docs.amd.com/projects/radeon/en/docs-6.3/docs/install/wsl/install-pytorch.html",
        ],
        "placeholders": ["user name"],
        "user": "drigo",
        "wsl": True,
        "os": ("Ubuntu 22.04.3 LTS", "ubuntu", "22.04"),
        "kernel": "5.15.153.1-microsoft-standard-WSL2",
        "rocm": "6.1.3",
        "rocminfo": (0, rocminfo("CPU", [("gfx1100", "AMD Radeon RX 7900 XTX", 1, 0x744C)])),
        "torch": {
            "flavour": "rocm",
            "version": "2.1.2+rocm6.1.3",
            "hip": "6.1.40093-bd86f1708",
            "arch_list": ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"],
            "is_available": False,
            "device_count": 0,
            "python_version": "3.10.12",
            "site": "/home/drigo/.local/lib/python3.10/site-packages/torch/lib",
        },
        "expect": {
            "fail": {"torch-build", "rocm-libraries", "torch-rocm-vs-system"},
            "warn": {"wsl"},
            "first": "wsl-limitations",
            "not_ranked": {"no-gpu-visible", "rocm-library-version-mismatch"},
        },
    },
    "docker-4x-mi100-permission": {
        "notes": "rocm/rocm-terminal on a 4x MI100 host, started with --device=/dev/kfd --device=/dev/dri "
        "--group-add video: rocminfo says 'Unable to open /dev/kfd read-write: Permission denied'; the "
        "user in the image is in video only. The nodes belong to render (gid 109 in AMD's images, "
        "ROCm-docker#93); the fix is on the docker run line.",
        "sources": [
            "https://github.com/ROCm/ROCm-docker/issues/116",
            "https://github.com/ROCm/ROCm-docker/pull/93",
        ],
        "placeholders": ["render minors", "PCI slots", "kernel release", "image OS release"],
        "user": "rocm-user",
        "process_groups": ["rocm-user", "sudo", "video"],
        "container": "docker",
        "device_group": ("render", 109),
        "os": ("Ubuntu 22.04.3 LTS", "ubuntu", "22.04"),
        "kernel": "5.15.0-86-generic",
        "kfd_gpus": [
            kfd_gpu(n, 90008, 0x738C, 480, 0x03 + n, 127 + n, 34342961152) for n in (1, 2, 3, 4)
        ],
        "node_errno": "EACCES",
        "rocminfo": (
            1,
            "ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n"
            "Failed to get user name to check for video group membership\n",
        ),
        "expect": {
            "fail": {"container", "device-nodes", "user-groups", "rocminfo"},
            "first": "kfd-permission-denied",
            "not_ranked": {"kfd-device-missing"},
            "fix_has": {"device-nodes": "--group-add 109", "container": "--group-add 109"},
            "fix_lacks": {"device-nodes": "usermod", "user-groups": "usermod"},
        },
    },
    "podman-rootless-nogroup": {
        "notes": "Rootless podman with --device=/dev/kfd --device=/dev/dri --group-add=video: inside, the "
        "devices' host group is unmapped and shows as nogroup; rocminfo: Permission denied, 'root is "
        'not member of "nogroup" group\'.',
        "sources": ["https://github.com/Firstbober/rocm-pytorch-gfx803-docker/issues/4"],
        "placeholders": [
            "GPU (the image targets gfx803: an RX 580)",
            "render minor",
            "kernel release",
            "image OS release",
        ],
        "user": "root",
        "container": "podman",
        "device_group": ("nogroup", 65534),
        "os": ("Ubuntu 20.04.5 LTS", "ubuntu", "20.04"),
        "kernel": "6.2.10-arch1-1",
        "kfd_gpus": [kfd_gpu(1, 80003, 0x67DF, 144, 0x03, 128, 8589934592)],
        "node_errno": "EACCES",
        "rocminfo": (
            1,
            "ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n"
            'root is not member of "nogroup" group, the default DRM access group. Users must be a member '
            'of the "nogroup" group or another DRM access group in order for ROCm applications to run '
            "successfully.\n",
        ),
        "expect": {
            "fail": {"container", "device-nodes", "rocminfo"},
            "first": "kfd-permission-denied",
            "fix_has": {"container": "keep-groups"},
        },
    },
    "docker-rootless-rx7900xtx": {
        "notes": "ollama in rootless docker on a host with ROCm 6.2 and an RX 7900 XTX: 'ROCk module version "
        "6.8.5 is loaded / Unable to open /dev/kfd read-write: Permission denied' although the host user is "
        "in video and render.",
        "sources": ["https://github.com/ollama/ollama/issues/6685"],
        "placeholders": [
            "render minor",
            "PCI slot",
            "kernel release",
            "image OS release",
            "device group inside (a rootless container shows an unmapped group as nogroup)",
        ],
        "user": "root",
        "container": "docker",
        "device_group": ("nogroup", 65534),
        "os": ("Ubuntu 22.04.4 LTS", "ubuntu", "22.04"),
        "kernel": "6.8.0-40-generic",
        "kfd_gpus": [kfd_gpu(1, 110000, 0x744C, 192, 0x03, 128, 25753026560)],
        "node_errno": "EACCES",
        "rocminfo": (
            1,
            "ROCk module version 6.8.5 is loaded\nUnable to open /dev/kfd read-write: Permission denied\n",
        ),
        "expect": {
            "fail": {"container", "device-nodes", "rocminfo"},
            "first": "kfd-permission-denied",
            "not_ranked": {"kfd-device-missing"},
        },
    },
    "fedora40-distro-rocm-no-torch": {
        "notes": "Fedora 40 with the distribution's ROCm 6 packages (libamdhip64.so.6 and libhsa-runtime64.so.1 "
        "in /usr/lib64, rocm_version.h in /usr/include) and a gfx900 card; collected with --no-torch.",
        "sources": [
            "https://github.com/ollama/ollama/issues/3877",
            "https://github.com/pytorch/pytorch/issues/149805",
        ],
        "placeholders": ["ROCm patch release 6.0.0", "PCI slot", "render minor", "user name"],
        "os": ("Fedora Linux 40 (Workstation Edition)", "fedora", "40"),
        "kernel": "6.8.7-300.fc40.x86_64",
        "kfd_gpus": [kfd_gpu(1, 90000, None, 256, 0x03, 128, 17163091968)],
        "distro_rocm": "6.0.0",
        "env": {"HSA_OVERRIDE_GFX_VERSION": "9.0.0"},
        "torch": None,
        "expect": {
            "fail": set(),
            "warn": {"env-hsa-override"},
            "skip": {"torch-build", "gpu-arch-vs-torch", "torch-rocm-vs-system"},
            "first": None,
            "summary_has": {"rocm-install": "distribution"},
        },
    },
    "rx580-cluster-node-no-atomics": {
        "notes": "Node of a 50+ RX 580 cluster (1002:67df at 01:00.0) on Ubuntu Server 18.04.1, kernel "
        "4.15.0-45-generic: 'skipped device 1002:67df, PCI rejects atomics' and rocminfo 'Call returned "
        "4104'; the maintainer pointed at the CPU's missing PCIe atomics.",
        "sources": ["https://github.com/ROCm/ROCm/issues/722"],
        "placeholders": ["user name"],
        "os": ("Ubuntu 18.04.1 LTS", "ubuntu", "18.04"),
        "kernel": "4.15.0-45-generic",
        "pci_only": [("0000:01:00.0", 0x67DF)],
        "dmesg": "[    5.737933] kfd kfd: skipped device 1002:67df, PCI rejects atomics\n",
        "rocminfo": (
            1,
            "hsa api call failure at line 900, file: /data/jenkins_workspace/compute-rocm-rel-2.1/rocminfo/"
            "rocminfo.cc. Call returned 4104\n",
        ),
        "rocm_dir": "/opt/rocm",
        "expect": {
            "fail": {"kernel-log", "gpu-list"},
            "warn": {"rocminfo"},
            "first": "unsupported-gpu-architecture",
            "top3": {"kfd-device-missing"},
            "not_ranked": {"gpu-out-of-memory", "kfd-permission-denied"},
        },
    },
}

WSL_OOR = (
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
    "resources. This error may also occur when the core runtime library needs to spawn threads or "
    "create internal OS-specific events.\n"
)

MACHINES.update(
    {
        "wsl-rx7800xt-rocm61-unsupported-gpu": {
            "notes": "WSL2 (kernel 5.15.167.4-microsoft-standard-WSL2) with ROCm 6.1.0 and an RX 7800 XT "
            "(gfx1101) beside a Ryzen 7500F: the WSL rocminfo stops at 'ROCR: unsupported GPU'. The card "
            "was not on that WSL runtime's list; the thread asks when it will be.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/4068"],
            "placeholders": ["distribution release (the post gives the kernel only)", "user name"],
            "wsl": True,
            "os": ("Ubuntu 22.04 LTS", "ubuntu", "22.04"),
            "kernel": "5.15.167.4-microsoft-standard-WSL2",
            "rocm": "6.1.0",
            "rocminfo": (
                1,
                "ROCR: unsupported GPU\nhsa api call failure at: ./sources/wsl/tools/rocminfo/"
                "rocminfo.cc:1087\n" + WSL_OOR,
            ),
            "expect": {
                "fail": {"rocminfo"},
                "warn": {"wsl"},
                "skip": {"device-nodes", "gpu-list", "amdgpu-module"},
                "first": "wsl-limitations",
                "not_ranked": {"kfd-permission-denied", "kfd-device-missing", "no-gpu-visible"},
            },
        },
        "wsl-rx7700xt-rocm623-unsupported-gpu": {
            "notes": "WSL2 on Windows 11 (Adrenalin 24.12.1), Ubuntu 22.04.5, ROCm 6.2.3 from AMD's WSL "
            "guide, RX 7700 XT (gfx1101): 'WSL environment detected. ROCR: unsupported GPU'. A second "
            "user reports the same with an RX 6800S.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/4215"],
            "placeholders": ["WSL kernel release (the post does not give it)", "user name"],
            "wsl": True,
            "os": ("Ubuntu 22.04.5 LTS", "ubuntu", "22.04"),
            "kernel": "5.15.167.4-microsoft-standard-WSL2",
            "rocm": "6.2.3",
            "rocminfo": (
                1,
                "WSL environment detected.\nROCR: unsupported GPU\nhsa api call failure at: "
                "/long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n"
                + WSL_OOR,
            ),
            "expect": {
                "fail": {"rocminfo"},
                "warn": {"wsl"},
                "first": "wsl-limitations",
                "not_ranked": {"kfd-permission-denied", "kfd-device-missing", "no-gpu-visible"},
                "summary_has": {"rocminfo": "ROCm 6.2.3"},
            },
        },
        "strix-halo-gfx1151-unrecognized-id-not-in-render": {
            "notes": "Strix Halo laptop (KFD node 1 gfx_target_version 110501 = gfx1151): rocminfo says "
            "'Agent creation failed. The GPU node has an unrecognized id.' A helper guessed an old ROCm "
            "user space on new silicon; the user found the real cause: the account was not in render, "
            "which blocked /dev/kfd.",
            "sources": ["https://github.com/ultralytics/ultralytics/pull/24137"],
            "placeholders": [
                "PCI slot, render minor, SIMD count and VRAM of the APU",
                "groups beyond render (only 'not in render' is stated)",
                "distribution, kernel and ROCm release (not in the post)",
                "rocminfo exit status",
            ],
            "user": "ultralytics",
            "process_groups": ["ultralytics", "sudo", "video"],
            "os": ("Ubuntu 24.04.3 LTS", "ubuntu", "24.04"),
            "kernel": "6.14.0-29-generic",
            "kfd_gpus": [kfd_gpu(1, 110501, None, 80, 0xC5, 128, 536870912)],
            "node_errno": "EACCES",
            "rocminfo": (
                1,
                "Warning: Agent creation failed.\nThe GPU node has an unrecognized id.\n",
            ),
            "expect": {
                "fail": {"device-nodes", "user-groups"},
                "warn": {"rocminfo"},
                "first": "kfd-permission-denied",
                "not_ranked": {"rocm-too-old-for-gpu", "kfd-device-missing"},
            },
        },
        "rx9070xt-aocc-env-unrecognized-id": {
            "notes": "RX 9070 XT (gfx1201) with ROCm 7.2.1 on Ubuntu 24.04.4 (ROCk module 6.16.13): after "
            "sourcing AMD's AOCC 5.1.0 setenv_AOCC.sh, rocminfo says 'The GPU node has an unrecognized "
            "id' and fails; without it rocminfo works. ROCm 7.2.1 lists gfx1201, so the release is not "
            "too old: the compiler environment's libraries are.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/6233"],
            "placeholders": [
                "LD_LIBRARY_PATH value: setenv_AOCC.sh puts the AOCC lib directory first; the post "
                "names the script, not the exact list",
                "PCI slot, render minor, SIMD count and VRAM",
                "kernel release",
                "user name",
            ],
            "os": ("Ubuntu 24.04.4 LTS", "ubuntu", "24.04"),
            "kernel": "6.17.0-14-generic",
            "module_version": "6.16.13",
            "kfd_gpus": [kfd_gpu(1, 120001, None, 128, 0x03, 128, 17095983104)],
            "rocm": "7.2.1",
            "env": {"LD_LIBRARY_PATH": "/opt/AMD/aocc-compiler-5.1.0/lib"},
            "rocminfo": (
                1,
                "ROCk module version 6.16.13 is loaded\nWarning: Agent creation failed.\n"
                "The GPU node has an unrecognized id.\n\nhsa api call failure at: /longer_pathname_so_"
                "that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/rocm-systems/"
                "projects/rocminfo/rocminfo.cc:299\nCall returned HSA_STATUS_ERROR_INVALID_ARGUMENT: "
                "One of the actual arguments does not meet a precondition stated in the documentation "
                "of the corresponding formal argument.\n",
            ),
            "expect": {
                "fail": {"rocminfo"},
                "first": "rocm-library-version-mismatch",
                "not_ranked": {
                    "rocm-too-old-for-gpu",
                    "kfd-permission-denied",
                    "kfd-device-missing",
                },
                "summary_has": {"rocminfo": "ROCm 7.2.1 lists gfx1201"},
            },
        },
        "docker-2x-gfx90a-render-gid-healthy": {
            "notes": "AMD's ROCm dev image run as uid 1000 with --device=/dev/kfd --device=/dev/dri "
            "--group-add video --group-add render: /dev/kfd and renderD128/129 are root:render, the image "
            "has render at gid 109, and rocminfo lists two gfx90a agents. A working container.",
            "sources": ["https://github.com/ROCm/ROCm-docker/pull/93"],
            "placeholders": [
                "user name (the shell says 'I have no name!')",
                "marketing name, SIMD count, VRAM and PCI slots of the gfx90a devices",
                "host kernel release and image OS release",
                "torch (the post shows rocminfo only; recorded as collect --no-torch)",
            ],
            "user": "uid1000",
            "process_groups": ["root", "video", "render"],
            "container": "docker",
            "device_group": ("render", 109),
            "os": ("Ubuntu 20.04.4 LTS", "ubuntu", "20.04"),
            "kernel": "5.15.0-46-generic",
            "kfd_gpus": [
                kfd_gpu(1, 90010, 0x740F, 416, 0x03, 128, 68702699520),
                kfd_gpu(2, 90010, 0x740F, 416, 0x83, 129, 68702699520),
            ],
            "rocminfo": (
                0,
                rocminfo(
                    "AMD EPYC 7713 64-Core Processor",
                    [
                        ("gfx90a", "AMD Instinct MI210", 1, 0x740F),
                        ("gfx90a", "AMD Instinct MI210", 2, 0x740F),
                    ],
                ),
            ),
            "expect": {
                "fail": set(),
                "first": None,
                "summary_has": {"container": "docker", "device-nodes": "open read-write"},
            },
        },
        "hd8750m-gcn1-ubuntu2404-rocm62": {
            "notes": "Laptop with an Intel i5-4200U and a Radeon HD 8750M (Mars, GCN1, a CHIP_OLAND id), "
            "Ubuntu 24.04.1, ROCm 6.2.0 with amdgpu-dkms ('ROCk module version 6.8.5 is loaded'): "
            "rocminfo lists only the CPU agent. No ROCm release supports GCN1.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/3897"],
            "placeholders": [
                "PCI slot 0000:01:00.0",
                "/dev/dri (not in the post: recorded as unknown)",
                "PCI device id 0x6600 (lspci names it 'Mars [Radeon HD 8670A/8670M/8750M]'; the post "
                "gives the product only)",
                "kernel release",
                "user name",
            ],
            "os": ("Ubuntu 24.04.1 LTS", "ubuntu", "24.04"),
            "kernel": "6.8.0-45-generic",
            "module_version": "6.8.5",
            "kfd_cpu_only": True,
            "dri_unrecorded": True,
            "pci_only": [("0000:01:00.0", 0x6600)],
            "rocm": "6.2.0",
            "rocminfo": (0, rocminfo("Intel(R) Core(TM) i5-4200U CPU @ 1.60GHz", [])),
            "expect": {
                "fail": {"gpu-list", "rocminfo"},
                "first": "unsupported-gpu-architecture",
                "not_ranked": {"rocm-too-old-for-gpu", "kfd-permission-denied"},
            },
        },
        "gfx1152-krackan-rocm10-hsa-generic-error": {
            "notes": "Ryzen AI 5 340 laptop (Radeon 840M; KFD gfx_target_version 110502 = gfx1152, "
            "device_id 0x1114, render minor 128), Linux Mint 22.3, kernel 7.0.0-31-generic with amdgpu "
            "built in, ROCm 10.0.0: rocminfo (and torch) fail at HSA start with 'HSA_STATUS_ERROR: A "
            "generic error has occurred', and the kernel log says 'Topology: Add dGPU node "
            "[0x1002:0x1114]' for the APU on every kernel tried. The thread ties it to an amdgpu "
            "regression between 6.12.12 and 6.14.14 (ROCm#5433); still open.",
            "sources": ["https://github.com/ROCm/TheRock/issues/7952"],
            "placeholders": [
                "PCI slot, SIMD count and VRAM of the APU",
                "the rocminfo lines before the quoted error",
                "the prefix of the kernel log line (the post quotes 'Add dGPU node [0x1002:0x1114]')",
                "user name",
            ],
            "os": ("Linux Mint 22.3", "linuxmint", "22.3"),
            "kernel": "7.0.0-31-generic",
            "amdgpu_builtin": True,
            "kfd_gpus": [kfd_gpu(1, 110502, 0x1114, 16, 0xC4, 128, 536870912)],
            "dmesg": "amdgpu: Topology: Add dGPU node [0x1002:0x1114]\n",
            "rocm": "10.0.0",
            "rocminfo": (
                1,
                "ROCk module is loaded\nhsa api call failure at: rocminfo.cc\n"
                "Call returned HSA_STATUS_ERROR: A generic error has occurred.\n",
            ),
            "expect": {
                "fail": {"rocminfo"},
                "warn": {"kernel-log"},
                "summary_has": {"kernel-log": "integrated GPU as a discrete one"},
                "first": "no-gpu-visible",
                "not_ranked": {
                    "rocm-too-old-for-gpu",
                    "unsupported-gpu-architecture",
                    "kfd-permission-denied",
                    "kfd-device-missing",
                },
            },
        },
    }
)

MACHINES.update(
    {
        "mi210-beside-rx6600-stale-override": {
            "notes": "An Instinct MI210 (KFD node 2, chip 0x740f, BDFID 17152 = 43:00.0, 104 CUs) beside an "
            "RX 6600 (node 1) with a leftover HSA_OVERRIDE_GFX_VERSION for gfx1030: rocminfo lists the "
            "MI210 as gfx1030 and work on it ends in 'Memory access fault by GPU node-2 ... Reason: "
            "unknown'. The maintainer spotted gfx1030 for a gfx90a card; unsetting the variable fixed it.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/5238"],
            "placeholders": [
                "RX 6600 PCI slot 0000:03:00.0 and its device id 0x73ff (Navi 23 / gfx1032, the chip "
                "of an RX 6600)",
                "render minors, VRAM sizes",
                "distribution, kernel and ROCm release (not in the excerpt)",
                "user name",
                "torch (not in the post; recorded as collect --no-torch)",
            ],
            "os": ("Ubuntu 24.04.2 LTS", "ubuntu", "24.04"),
            "kernel": "6.11.0-26-generic",
            "kfd_gpus": [
                kfd_gpu(1, 100302, 0x73FF, 56, 0x03, 128, 8573157376),
                kfd_gpu(2, 90010, 0x740F, 416, 0x43, 129, 68702699520),
            ],
            "env": {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
            "rocminfo": (
                0,
                rocminfo(
                    "AMD Ryzen 9 7950X 16-Core Processor",
                    [
                        ("gfx1030", "AMD Radeon RX 6600", 1, 0x73FF),
                        ("gfx1030", "AMD Instinct MI210", 2, 0x740F),
                    ],
                ),
            ),
            "expect": {
                "fail": {"env-hsa-override", "rocminfo"},
                "first": "memory-access-fault",
                "not_ranked": {"integrated-gpu-selected", "kfd-permission-denied"},
                "fix_has": {"env-hsa-override": "HSA_OVERRIDE_GFX_VERSION_1=10.3.0"},
                "summary_has": {"rocminfo": "gfx90a"},
            },
        },
    }
)

MACHINES.update(
    {
        "secure-boot-refuses-amdgpu-dkms-ubuntu2410": {
            "notes": "Ubuntu 24.10, kernel 6.11.0-14-generic, ROCm 6.3.2 installed with amdgpu-dkms: the "
            "module loaded right after installation, but after a reboot amdgpu would not load and "
            "rocminfo said the ROCk module is not loaded. The cause the user found: Secure Boot refused "
            "the module; turning it off fixed it.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/4328"],
            "placeholders": [
                "the GPU (not named in the post): PCI slot 0000:03:00.0, device id not recorded",
                "the amdgpu-dkms version in the dkms status line (6.10.5 is ROCm 6.3's driver "
                "series; the post says only that the module built and loaded)",
                "user name",
            ],
            "os": ("Ubuntu 24.10", "ubuntu", "24.10"),
            "kernel": "6.11.0-14-generic",
            "no_module": True,
            "pci_only": [("0000:03:00.0", None)],
            "dkms": "amdgpu/6.10.5-2109964.24.04, 6.11.0-14-generic, x86_64: installed\n",
            "mokutil": "SecureBoot enabled\n",
            "rocm": "6.3.2",
            "rocminfo": (1, "ROCk module is NOT loaded, possibly no GPU devices\n"),
            "expect": {
                "fail": {"secure-boot", "amdgpu-module", "gpu-list", "rocminfo"},
                "warn": {"dkms-status"},
                "first": "amdgpu-dkms-build-failure",
                "top3": {"kfd-device-missing"},
                "not_ranked": {"kfd-permission-denied", "unsupported-gpu-architecture"},
                "fix_has": {"secure-boot": "mokutil --import"},
            },
        },
    }
)

MACHINES.update(
    {
        "rx9070xt-healthy-ubuntu2404-nightly-rocm64": {
            "notes": "A stock Ubuntu 24.04.2 install with an RX 9070 XT and torch 2.9.0.dev20250705+rocm6.4: "
            "torch names the device (gcnArchName gfx1201, 16304 MB, PCI bus 9) and a training benchmark "
            "runs to the end. A working machine: doctor must not invent a cause.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/5040"],
            "placeholders": [
                "kernel release, render minor, SIMD count",
                "torch's HIP version string and arch list (the rocm6.4 list of the 2.9 release in "
                "rocmfix's wheel table; the post shows gfx1201 code running) and the Python version",
                "user name (no system ROCm recorded: the wheel brings its own)",
            ],
            "os": ("Ubuntu 24.04.2 LTS", "ubuntu", "24.04"),
            "kernel": "6.11.0-29-generic",
            "kfd_gpus": [kfd_gpu(1, 120001, None, 128, 0x09, 128, 17095983104)],
            "torch": {
                "flavour": "rocm",
                "version": "2.9.0.dev20250705+rocm6.4",
                "hip": "6.4.43482-0f2d60242",
                "arch_list": [
                    "gfx900",
                    "gfx906",
                    "gfx908",
                    "gfx90a",
                    "gfx942",
                    "gfx1030",
                    "gfx1100",
                    "gfx1101",
                    "gfx1102",
                    "gfx1200",
                    "gfx1201",
                ],
                "is_available": True,
                "device_count": 1,
                "python_version": "3.12.3",
                "site": "/home/alex/venv/lib/python3.12/site-packages/torch/lib",
            },
            "expect": {
                "fail": set(),
                "first": None,
                "summary_has": {"gpu-list": "gfx1201"},
            },
        },
    }
)

MACHINES.update(
    {
        "fedora44-distro-rocm711-rx6900xt-comgr-segfault": {
            "notes": "RX 6900 XT (gfx1030, 16368 MiB) on Fedora 44, kernel 7.1.8-200.fc44, with Fedora's own "
            "ROCm 7.1.1 packages (rocm-hip 7.1.1): llama.cpp finds the device, then libamd_comgr "
            "segfaults while compiling device code. Open upstream: a compiler bug, not a setup fault, so "
            "doctor must name no cause and must read the distribution's ROCm in /usr.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/6619"],
            "placeholders": [
                "PCI slot, render minor and SIMD count",
                "Fedora 44's release string in /etc/os-release",
                "user name",
                "torch (the post uses llama.cpp; recorded as collect --no-torch)",
            ],
            "os": ("Fedora Linux 44 (Workstation Edition)", "fedora", "44"),
            "kernel": "7.1.8-200.fc44.x86_64",
            "kfd_gpus": [kfd_gpu(1, 100300, None, 160, 0x03, 128, 17163091968)],
            "distro_rocm": "7.1.1",
            "expect": {
                "fail": set(),
                "first": None,
                "summary_has": {"rocm-install": "7.1.1 from the distribution"},
            },
        },
    }
)

MACHINES.update(
    {
        "arch-rx9070xt-kfd-einval": {
            "notes": "Arch Linux, kernel 6.19.12-arch1-1, Arch's ROCm 7.2.2 packages (in /opt/rocm), RX 9070 "
            "XT (Navi 48 at 03:00.0): rocminfo stops at 'Unable to open /dev/kfd read-write: Invalid "
            "argument' although /dev/kfd is 0666 root:render (gid 989) and the user is in render. "
            "EINVAL is neither a group problem nor a missing device; the thread does not establish the "
            "cause, so doctor must flag the open and name none.",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/6166"],
            "placeholders": [
                "KFD node properties of the RX 9070 XT (gfx1201 follows from Navi 48), render minor "
                "and its node's mode",
                "gids of the user's groups other than render",
            ],
            "user": "x1unix",
            "process_groups": [
                "x1unix",
                "sys",
                "lock",
                "vboxusers",
                "wireshark",
                "libvirt",
                "docker",
                "systemd-journal",
                "video",
                "uucp",
                "render",
                "kvm",
                "input",
                "disk",
                "wheel",
                "adm",
                "plugdev",
            ],
            "device_group": ("render", 989),
            "kfd_mode": "crw-rw-rw-",
            "os": ("Arch Linux", "arch", ""),
            "kernel": "6.19.12-arch1-1",
            "kfd_gpus": [kfd_gpu(1, 120001, None, 128, 0x03, 128, 17095983104)],
            "kfd_node_errno": "EINVAL",
            "rocm": "7.2.2",
            "rocm_flat": True,
            "rocminfo": (
                1,
                "ROCk module is loaded\nUnable to open /dev/kfd read-write: Invalid argument\n"
                "x1unix is member of render group\n",
            ),
            "expect": {
                "fail": {"device-nodes", "rocminfo"},
                "first": None,
                "not_ranked": {
                    "kfd-permission-denied",
                    "kfd-device-missing",
                    "rocm-too-old-for-gpu",
                },
                "fix_lacks": {"device-nodes": "usermod"},
            },
        },
        "proxmox-lxc-rx9070xt-kfd-einval": {
            "notes": "Unprivileged LXC container under Proxmox (Ubuntu 24.04 inside, ROCm 7.0.1) with an RX "
            "9070 XT passed through: /dev/kfd is 0666 root:render, renderD128/129 are root:video, root is "
            "in video and render, and rocminfo says 'Unable to open /dev/kfd read-write: Invalid "
            "argument'. Not resolved in the thread: doctor must see the LXC container, flag the open "
            "and not call it a group or a missing device.",
            "sources": [
                "https://github.com/ROCm/legacy-rocm-build/issues/5379",
                "https://github.com/community-scripts/ProxmoxVE/pull/15401",
            ],
            "placeholders": [
                "KFD topology as the container sees it (the host's sysfs; one gfx1201 node recorded)",
                "gids of render and video inside the container",
                "kernel release (the Proxmox host's)",
            ],
            "user": "root",
            "container": "lxc",
            "device_group": ("render", 993),
            "render_group": ("video", 44),
            "kfd_mode": "crw-rw-rw-",
            "os": ("Ubuntu 24.04 LTS", "ubuntu", "24.04"),
            "kernel": "6.14.11-2-pve",
            "kfd_gpus": [kfd_gpu(1, 120001, None, 128, 0x03, 128, 17095983104)],
            "kfd_node_errno": "EINVAL",
            "rocm": "7.0.1",
            "rocminfo": (
                1,
                "ROCk module is loaded\nUnable to open /dev/kfd read-write: Invalid argument\n"
                "root is member of render group\n",
            ),
            "expect": {
                "fail": {"container", "device-nodes", "rocminfo"},
                "first": None,
                "not_ranked": {"kfd-permission-denied", "kfd-device-missing"},
                "summary_has": {"container": "lxc container"},
            },
        },
    }
)

MACHINES.update(
    {
        "gfx1150-apu-amdgpu61414-regression": {
            "notes": "Ryzen AI 9 HX PRO 370 (Radeon 890M, gfx1150, PCI 1002:150e) on Ubuntu 24.04.3, kernel "
            "6.14.0-29-generic, Secure Boot on with the MOK enrolled, ROCm 7.0.1 with amdgpu-dkms 6.14.14: "
            "rocminfo fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES, rocm-smi shows the device; the same "
            "machine works with amdgpu 6.12.12. A driver regression (the kernel log registers the APU as "
            "a dGPU, per TheRock#7952), for which the KB has no entry: doctor flags both signs and blames "
            "neither Secure Boot nor groups.",
            "sources": [
                "https://github.com/ROCm/legacy-rocm-build/issues/5433",
                "https://github.com/ROCm/TheRock/issues/7952",
            ],
            "placeholders": [
                "PCI slot, render minor, SIMD count and VRAM of the APU",
                "the dkms status line's package revision",
                "the prefix of the kernel log line",
                "user name",
            ],
            "os": ("Ubuntu 24.04.3 LTS", "ubuntu", "24.04"),
            "kernel": "6.14.0-29-generic",
            "module_version": "6.14.14",
            "kfd_gpus": [kfd_gpu(1, 110500, 0x150E, 32, 0xC5, 128, 536870912)],
            "dkms": "amdgpu/6.14.14-2212064.24.04, 6.14.0-29-generic, x86_64: installed\n",
            "mokutil": "SecureBoot enabled\n",
            "dmesg": "amdgpu: Topology: Add dGPU node [0x1002:0x150e]\n",
            "rocm": "7.0.1",
            "rocminfo": (
                1,
                "ROCk module is loaded\nhsa api call failure at: rocminfo.cc:1304\n" + OOR,
            ),
            "expect": {
                "fail": set(),
                "warn": {"kernel-log", "rocminfo"},
                "first": None,
                "not_ranked": {
                    "amdgpu-dkms-build-failure",
                    "kfd-permission-denied",
                    "rocm-too-old-for-gpu",
                    "unsupported-gpu-architecture",
                },
                "summary_has": {"secure-boot": "signed with an enrolled key"},
            },
        },
    }
)

MACHINES.update(
    {
        "docker-gfx90c-apu-no-binary-abort": {
            "notes": "rocm/pytorch:latest (2022) on a Vega APU (gfx90c): `torch.cuda.is_available()` aborts "
            "with 'hipErrorNoBinaryForGpu: Unable to find code object for all current devices!'; with "
            "HSA_OVERRIDE_GFX_VERSION=9.0.0 it returns True. torch has no gfx90c code (rocmfix does "
            "not plan that override: gfx900's kernels are gone from current wheels).",
            "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/1743"],
            "placeholders": [
                "the APU's KFD node properties (gfx90c stated), render minor, VRAM carve-out",
                "host kernel release and image OS release",
                "torch version (the probe died before reporting it)",
            ],
            "user": "root",
            "container": "docker",
            "os": ("Ubuntu 20.04.4 LTS", "ubuntu", "20.04"),
            "kernel": "5.15.0-41-generic",
            "kfd_gpus": [kfd_gpu(1, 90012, None, 28, 0x05, 128, 536870912)],
            "torch_raw": {
                "flavour": "unknown",
                "error": 'probe killed by SIGABRT at init: "hipErrorNoBinaryForGpu: Unable to find '
                'code object for all current devices!"',
                "stage": "init",
                "signal": "SIGABRT",
            },
            "expect": {
                "fail": {"torch-build"},
                "first": "no-binary-for-gpu",
                "not_ranked": {"kfd-permission-denied", "kfd-device-missing"},
            },
        },
    }
)

# A card newer than the installed ROCm: the RX 7900 XTX (gfx1100) weeks after launch, with the
# ROCm 5.4.1 that Arch Linux packaged then.
MACHINES.update(
    {
        "arch-rx7900xtx-rocm541-too-old": {
            "notes": "RX 7900 XTX 24GB on Arch Linux, kernel 6.1.1, with Arch's ROCm 5.4.1 packages "
            "(December 2022): a tensorflow-rocm toy example aborts inside hsa-rocr; another user in "
            "the thread got the same abort, an assertion in GpuAgent::AssembleShader ('Code buffer "
            "allocation failed'), from clinfo alone on ROCm 5.3.3, and says the workaround proposed "
            "there rests on ROCr changes between 5.4.1 and 5.4.2. The runtime gets as far as building "
            "a GPU agent, so /dev/kfd opened and KFD lists the card; its gfx (gfx1100) follows from "
            "the product. AMD's Linux system requirements list gfx1100 from ROCm 6.0.0.",
            "sources": [
                "https://github.com/ROCm/ROCm/issues/1880",
                "https://github.com/ROCm/tensorflow-upstream/issues/1956",
            ],
            "placeholders": [
                "kernel release suffix (-arch1-1; the post says 6.1.1)",
                "KFD node values other than gfx_target_version (SIMD count, PCI slot, render "
                "minor; no device id recorded)",
                "VRAM bytes (24 GiB from the stated 24GB)",
                "user name and groups",
                "rocminfo and dmesg (not posted: none recorded)",
            ],
            "os": ("Arch Linux", "arch", ""),
            "kernel": "6.1.1-arch1-1",
            "kfd_gpus": [kfd_gpu(1, 110000, None, 192, 0x03, 128, 24 * 1024**3)],
            "rocm": "5.4.1",
            "rocm_flat": True,
            "torch": None,
            "expect": {
                "fail": set(),
                "warn": {"rocm-install"},
                "first": "rocm-too-old-for-gpu",
                "not_ranked": {
                    "kfd-permission-denied",
                    "kfd-device-missing",
                    "unsupported-gpu-architecture",
                },
                "summary_has": {"rocm-install": "5.4.1"},
                "fix_has": {"rocm-install": "Install ROCm 6.0.0 or newer"},
                "fix_lacks": {"rocm-install": "HSA_OVERRIDE_GFX_VERSION"},
            },
        },
    }
)
