"""Facts read from a report that decide between members of one family of causes.

Several KB entries share their symptoms and differ only in a fact the text often
states outright: which build of torch is installed (``+cu121`` / ``+cpu`` /
``+rocm6.2``, collect_env's "CUDA used to build PyTorch" / "ROCM used to build
PyTorch"), or whether ``/dev/kfd`` is absent or present but denied. Signatures
and the ranker find the family; this layer reorders its members by the
taxonomy's own definitions (tests/data/kb-taxonomy.yaml "means"), never by the
wording of any one report.

Sources of the facts:

* PyTorch wheels carry a PEP 440 local version label naming their build:
  ``+cu121``, ``+rocm6.2``, ``+cpu`` (https://pytorch.org/get-started/locally/,
  https://download.pytorch.org/whl/ index names ``cu121``, ``rocm6.2``, ``cpu``;
  PEP 440 local version identifiers, https://peps.python.org/pep-0440/#local-version-identifiers).
* ``python -m torch.utils.collect_env`` prints "CUDA used to build PyTorch: X" and
  "ROCM used to build PyTorch: Y", "N/A"/"None" where the build has no such backend
  (https://github.com/pytorch/pytorch/blob/main/torch/utils/collect_env.py).
* ``torch.version.hip`` is None on every build but ROCm's; ``torch.version.cuda`` is
  None on ROCm and CPU builds (https://pytorch.org/docs/stable/notes/hip.html).
* ROCR opens ``/dev/kfd`` read-write; a missing node fails with ENOENT ("No such file
  or directory"), a node the user may not open with EACCES ("Permission denied");
  access is granted through the render/video groups
  (https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html#setting-permissions-for-groups,
  https://github.com/ROCm/ROCR-Runtime/blob/amd-staging/runtime/hsa-runtime/core/os/linux/os_linux.cpp).

* Each gfx target's ROCm support status and first listing come from the packaged
  table (rocmfix/data/gfx-targets.yaml, sourced per row from the ROCm compatibility
  matrices); ``rocmfix.facts.gfx_unsupported`` and ``rocm_predates`` read it.
  unsupported-gpu-architecture means a GPU older than any current ROCm supports;
  rocm-too-old-for-gpu a GPU newer than the ROCm in use.
  no-binary-for-gpu (the taxonomy: the build lacks the GPU's code objects; a build that
  targets it or an override to a compatible ISA) is read from two facts: the build's own
  target list as the text states it (AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, clang's
  --offload-arch, torch's get_arch_list(), "supported targets: ...") holding targets of the
  GPU's generation but not the GPU, and a GPU ROCm never listed whose ISA a listed target
  covers (the table's ``hsa_override``, e.g. gfx1031/gfx1032 -> 10.3.0; overrides documented
  to do harm excluded). A ROCm whose support list names the GPU (``first_listed``) rules
  rocm-too-old-for-gpu out. For targets the matrices do not date, PyTorch's own build gives the
  oldest ROCm it compiles them with (``wheel_min_rocm`` in pytorch-rocm-wheels.yaml: gfx1150 and
  gfx1151 only with ROCm >= 7.0 until pytorch/pytorch#167299). A generation named instead of a
  card ("RDNA3", "RDNA 4") is dated by the earliest release supporting any of its targets.

* The taxonomy's rocm-library-version-mismatch names "version `hip_x.y' not found" and
  "undefined symbol": libraries of two ROCm releases meeting. :func:`lib_state` reads the
  loader's own words for that (see there: symbol versions, undefined symbols, Windows'
  missing entry point, a soname of one major wanted where another is present or where the
  text's ROCm is of another major). A bare "cannot open shared object file" stays
  hip-runtime-lib-missing. A companion built for a ROCm torch (torchaudio, torchvision) that
  cannot open torch's ``libtorch_hip.so`` beside a CUDA or CPU torch is the taxonomy's
  "torch/torchvision/torchaudio from different index URLs" too (pytorch/audio#1749, #2525),
  and outranks the build members there: the companion's import is what broke.

* Apps that ship their own ROCm state their build's targets too: ollama's "supported types",
  llama.cpp's per-target Windows HIP releases, ROCmLibs' per-target rocBLAS packs, ollama's
  empty "compatible gpu libraries", Blender Cycles' "HIP binary kernel ... not found" (sources
  at each pattern). GPUs are read as users write them (workstation and AI PRO cards, names
  inside Chinese text, APU codenames and Ryzen models through the gfx table's rows).

* Where a fact is itself a member's definition in the taxonomy (the build's target list
  lacking the GPU: no-binary-for-gpu; libraries of two releases meeting:
  rocm-library-version-mismatch; a CUDA build on a machine naming AMD's GPU stack and no NVIDIA
  card: cuda-build-on-amd), that member, once the signatures, symptoms or ranker found it at
  all, is raised to the naming bar (:data:`LIFT_TO`); a GPU's age alone is shared by other
  causes and raises nothing.

* A GPU of GCN 1-4 (gfx8 and older, the gfx table's rows: no binary-compatible newer ISA, no
  override helps, no PyTorch wheel builds it) makes "the runtime sees no GPU" (no-gpu-visible)
  the consequence of unsupported-gpu-architecture, which then comes first; two LLVM majors in
  one text beside AMD's stack (ROCm's LLVM and Mesa's, see :data:`_LLVM_SONAME`) are the
  library mismatch.

Only the fact that is unambiguous in the text is used: a report that names two
torch builds (one tried, one installed) decides nothing.
"""

from __future__ import annotations

from rocmfix import _rx
from rocmfix._record import replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import ModuleType

    from rocmfix.kb.matcher import Match
    from rocmfix.kb.model import Entry

CUDA_BUILD = "cuda-build-on-amd"
CPU_BUILD = "cpu-only-build"
KFD_MISSING = "kfd-device-missing"
KFD_DENIED = "kfd-permission-denied"
NO_BINARY = "no-binary-for-gpu"
TOO_OLD_GPU = "unsupported-gpu-architecture"
ROCM_TOO_OLD = "rocm-too-old-for-gpu"
LIB_MISSING = "hip-runtime-lib-missing"
LIB_MISMATCH = "rocm-library-version-mismatch"
NO_GPU = "no-gpu-visible"

# A torch version with its local label: "torch 2.3.1+cu121", "torch==2.5.0+rocm6.2", "2.1.0+cpu".
_TORCH_TAG = _rx.compile(
    r"(?i:\b(?:py)?torch\b)[^\n]{0,24}?\b\d\.\d{1,2}(?:\.\d{1,2})?(?:a0|\.dev\d+)?\+(cu\d{2,3}|rocm\d[\d.]*|cpu)\b"
)
# A wheel index the text installs from or points at.
_INDEX = _rx.compile(r"download\.pytorch\.org/whl/(?:nightly/)?(cu\d{2,3}|rocm\d[\d.]*|cpu)\b")
# torch's (and torchaudio's, which follows it) version as torch.__version__ prints it, with no
# package name beside it: "2.8.0+cu128" (a 1.x or 2.x release with a build label).
_BARE_TAG = _rx.compile(
    r"(?<![\w.+-])[12]\.\d{1,2}\.\d{1,2}(?:a0|\.dev\d+)?\+(cu\d{2,3}|rocm\d[\d.]*|cpu)\b(?![.-]\w)"
)
# The CUDA libraries torch's CUDA wheels on PyPI depend on ("nvidia-cublas-cu12",
# "nvidia_nvjitlink_cu12-12.6.68-...whl", torch's Requires-Dist, https://pypi.org/project/torch/):
# pip installing them is pip installing a CUDA build.
_CUDA_DEPS = _rx.compile(
    r"(?i:\bnvidia[-_](?:cuda[-_](?:runtime|nvrtc|cupti)|cublas|cudnn|cufft|curand|cusolver|"
    r"cusparse(?:lt)?|nccl|nvtx|nvjitlink|cufile)[-_]cu1[1-3]\b)"
)
# collect_env's two build lines.
_ENV_CUDA = _rx.compile(r"CUDA used to build PyTorch: ?(\S+)")
_ENV_ROCM = _rx.compile(r"ROCM used to build PyTorch: ?(\S+)")
_ENV_HIP = _rx.compile(r"\bHIP runtime version: ?(\d\S*)")
# What torch itself says about its build (torch/cuda/__init__.py): "Torch not compiled with CUDA
# enabled" is _lazy_init's AssertionError where torch._C has no _cuda_getDeviceCount, i.e. a
# build with neither CUDA nor HIP (ROCm builds serve torch.cuda through HIP); "Found no NVIDIA
# driver on your system" and "The NVIDIA driver on your system is too old" are _check_driver's,
# which only a CUDA build runs (https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py).
# torch.version.cuda / torch.version.hip printed with a number name the build outright.
# Users name the CPU build the same way the index does ("the cpu version of torch", "torch
# cpu-only build", "CPU版本的pytorch"): https://pytorch.org/get-started/locally/ offers
# "Compute Platform: CPU" beside CUDA and ROCm.
_SAYS_CPU = _rx.compile(
    r"\bTorch not compiled with CUDA enabled\b|"
    r"(?i:\b(?:the |a )?cpu[- ]?(?:only )?(?:version|build|wheel)s? of (?:py)?torch\b|"
    r"\b(?:py)?torch(?: for)? cpu[- ]?(?:only )?(?:version|build|wheel)\b|\bcpu[- ]only (?:py)?torch\b|"
    r"CPU ?版(?:本)?的? ?(?:py)?torch|(?:py)?torch ?的? ?CPU ?版)"
)
_SAYS_CUDA = _rx.compile(
    r"\bFound no NVIDIA driver on your system\b|\bThe NVIDIA driver on your system is too old\b|"
    r"\btorch\.version\.cuda\b[^\n\w]{0,6}\n?[^\n\w]{0,4}1[0-3]\.\d"
)
_NO_NV_DRIVER = _rx.compile(r"\bFound no NVIDIA driver on your system\b")
_SAYS_ROCM = _rx.compile(r"\btorch\.version\.hip\b[^\n\w]{0,6}\n?[^\n\w]{0,4}[4-9]\.\d")


def _flavour(tag: str) -> str:
    tag = tag.lower()
    if tag.startswith("cu"):
        return "cuda"
    if tag.startswith("rocm"):
        return "rocm"
    return "cpu"


def torch_builds(text: str) -> frozenset[str]:
    """Every torch build flavour the text names: a subset of {"cuda", "rocm", "cpu"}."""
    seen: set[str] = set()
    for m in _TORCH_TAG.finditer(text):
        seen.add(_flavour(m.group(1)))
    for m in _INDEX.finditer(text):
        seen.add(_flavour(m.group(1)))
    for m in _BARE_TAG.finditer(text):
        seen.add(_flavour(m.group(1)))
    if _CUDA_DEPS.search(text):
        seen.add("cuda")
    cuda = [m.group(1) for m in _ENV_CUDA.finditer(text)]
    rocm = [m.group(1) for m in _ENV_ROCM.finditer(text)]
    for c, r in zip(cuda, rocm, strict=False):
        c_set = c[:1].isdigit()
        r_set = r[:1].isdigit()
        if c_set and not r_set:
            seen.add("cuda")
        elif r_set:
            seen.add("rocm")
        elif c in ("None", "N/A") and r in ("None", "N/A"):
            seen.add("cpu")
    if _ENV_HIP.search(text) or _SAYS_ROCM.search(text):
        seen.add("rocm")
    if not seen:
        # what torch or the user says of the build counts where no version tag, index or
        # collect_env line names it (those name the installed build itself)
        if _SAYS_CPU.search(text):
            seen.add("cpu")
        if _SAYS_CUDA.search(text):
            seen.add("cuda")
    return frozenset(seen)


def torch_build(text: str) -> str | None:
    """The one torch build flavour the text names, or None (none named, or several)."""
    seen = torch_builds(text)
    return next(iter(seen)) if len(seen) == 1 else None


# What the tools print right after the node's name (ls/stat/ROCR/docker), or a plain statement.
_KFD_MISSING = _rx.compile(
    r"/dev/kfd[`'\"]?:? ?(?::\s*(?i:no such file or directory)|(?:does not|doesn't) exist|(?:is )?(?:missing|absent|not present))|"
    r"(?i:\bthere(?:'s| is) no /dev/kfd\b|\bno /dev/kfd (?:device|node|file)\b)|"
    # A container started without the node: docker/podman pass a host device only when asked
    # (--device /dev/kfd, compose "devices:"), so the node is absent inside.
    r"(?i:/dev/kfd (?:(?:and|or|&) /dev/dri )?(?:(?:is|are) )?(?:not (?:visible|passed|mounted|present|available|found)|"
    r"isn't (?:visible|there|passed)|aren't (?:visible|passed))|"
    r"\bwithout (?:the )?(?:--device[= ]?)/dev/kfd\b|\bno /dev/kfd (?:in|inside) the container\b)|"
    # rocminfo when the amdgpu module (and with it KFD) is not loaded
    r"ROCk module is NOT loaded|"
    # ENOENT as glibc's zh_CN and de catalogues word it (po/zh_CN.po, po/de.po of
    # https://sourceware.org/git/?p=glibc.git;a=tree;f=po), and Chinese prose
    r"/dev/kfd[`'\"’]?\s?[:：]\s*(?:没有那个文件或目录|Datei oder Verzeichnis nicht gefunden)|"
    r"/dev/kfd\s?(?:不存在|找不到)|没有\s?/dev/kfd(?!\S*\s?的?\s?(?:访问|读写|打开)?权限)"
)
_KFD_DENIED = _rx.compile(
    r"/dev/(?:kfd|dri/renderD\d+)[`'\"]?(?: read-write)?[`'\"]?:? ?:\s*(?i:permission denied)|"
    r"(?i:\b(?:only )?works (?:with|under|as) (?:sudo|root)\b|\bwith sudo it works\b|\bworks when run as root\b|"
    r"\bneeds? (?:sudo|root) to (?:use|see|access) the gpu\b|"
    # "need to use sudo to run clinfo", "`rocminfo` fails and `sudo rocminfo` works", "only as root"
    r"\bneed(?:s|ed)? to (?:use|run (?:it|them|\S+) (?:with|as|under)) (?:sudo|root)\b|"
    r"\bsudo [\w./-]+`? (?:which )?(?:works|runs fine|executes correctly|succeeds|is fine)\b|"
    r"\bonly (?:works|runs) (?:with|as|under|when run as|when run with) (?:sudo|root)\b|"
    # the cure named: not a member of the render/video group (ROCm's prerequisites)
    r"\b(?:not|wasn't|isn't|am not|is not) (?:a )?(?:member of|in) the (?:render|video) group|"
    # the same told of both groups, or EACCES named before the node ("Permission denied for /dev/kfd")
    r"\bnot (?:a )?members? of (?:the )?(?:video|render) (?:and|or|&) (?:video|render) groups?\b|"
    r"\bpermission denied (?:for|on|to|when opening|opening) (?:the )?[`'\"]?/dev/(?:kfd|dri)\b)|"
    # EACCES in glibc's zh_CN and de catalogues; "only with sudo" in Chinese prose
    r"/dev/(?:kfd|dri/renderD\d+)[`'\"’]?(?: read-write)?\s?[:：]\s*(?:权限不够|Keine Berechtigung)|"
    r"(?:需要|要用|必须用?|只有用?|加上?)\s?sudo\s?(?:才能|才可以|才行|运行才)|"
    r"没有\s?/dev/(?:kfd|dri)\S*\s?的?\s?(?:访问|读写|打开)?权限"
)


def kfd_state(text: str) -> str | None:
    """ "missing" or "denied" when the text says which of the two /dev/kfd failures it is."""
    missing = bool(_KFD_MISSING.search(text))
    denied = bool(_KFD_DENIED.search(text))
    if missing == denied:
        return None
    return "missing" if missing else "denied"


# "ROCm 6.2", "ROCm6.2.4", "rocm6.3 wheel", "ROCm v6.1".
_ROCM_VERSION = _rx.compile(r"(?<![\w/.-])(?i:ROCm)[ -]?v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\b")
# Windows' HIP SDK carries the ROCm release number it ships ("HIP SDK 6.2.4" is ROCm 6.2.4 for
# Windows, https://rocm.docs.amd.com/projects/install-on-windows/en/latest/). Its GPU support
# list is its own (the Windows matrix listed the RX 7600 from 6.0, which no Linux matrix of 6.x
# or 7.x lists: gfx-targets.yaml gfx1102), so it is not read against the Linux first listings;
# it dates only the HIP runtime DLL's major (lib_state).
_HIP_SDK_VERSION = _rx.compile(
    r"(?<![\w/.-])(?i:HIP[ -]SDK(?: for Windows)?)[ -]?v?(\d{1,2})\.\d|"
    # its install folder, C:\Program Files\AMD\ROCm\6.2\bin
    r"(?i:\bAMD[\\/]+ROCm[\\/]+)(\d{1,2})\.\d"
)
# A release named by its major alone: "ROCm 7", "ROCm-6" (not "ROCm 7.1", not "ROCm 7x").
# A separator is required: llama.cpp names its devices ROCm0, ROCm1 ("ROCm0 compute buffer").
_ROCM_MAJOR = _rx.compile(r"(?<![\w/.-])(?i:ROCm)[ -]v?([1-9]\d?)(?![\w]|\.\d)")


_ROCM_TAG = _rx.compile(r"(?:\+|whl/(?:nightly/)?)rocm(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\b")
_GFX_WORD = _rx.compile(r"(?i:\bgfx\d{3,4}[0-9a-f]?\b)")
# A GPU named by its product name, mapped to its gfx by the products the sourced gfx table
# lists (compat.gpu_from_name): "RX 7600XT", "Radeon VII", "MI50", "Vega 64".
# Names are bounded by ASCII letters and digits only, so that Chinese text around them does not
# hide them ("我的RX6600显卡", "7900xtx显卡": Unicode \b sees no boundary between 0 and 显).
_PRODUCT = _rx.compile(
    r"(?i:(?<![A-Za-z0-9_])(RX) ?(\d{3,4})(?: ?(XTX|XT|GRE))?(?![A-Za-z0-9_])|"
    r"\b(Radeon (?:Pro )?VII)\b|\b(Vega) ?(56|64)\b|"
    # "MI50", "MI300X", and the plural users write for several cards ("2 x Mi50s")
    r"(?<![A-Za-z0-9])(MI\d{2,3})([AXL])?s?(?![A-Za-z0-9])|"
    # "Radeon 7800 XT", a bare "7900 XTX" / "6700xt" (the suffix makes it a card), "Radeon 780M",
    # "Radeon 8060S" and the bare iGPU names of the APU rows (780M, 760M, 680M, 890M ...).
    r"\b(Radeon) (\d{3,4}[MS]?)(?: ?(XTX|XT|GRE))?\b|"
    r"(?<![A-Za-z0-9_.])([5-9]\d{2}0) ?(XTX|XT|GRE)(?![A-Za-z0-9_])|"
    r"(?<![A-Za-z0-9_.])((?:[678][468]0|8[89]0)M|80[4-6][05]S)(?![A-Za-z0-9_])|"
    # a bare model number the Chinese word for graphics card follows ("6600显卡", "7900 显卡")
    r"(?<![A-Za-z0-9_.])([5-9]\d{2}0)(?= ?(?:显卡|顯卡))|"
    # the Radeon Pro WX and W workstation cards ("Radeon (TM) Pro WX 5100 Graphics", "Radeon PRO
    # W7900", "W6800") and the Radeon AI PRO R9700 (the gfx table's product rows)
    r"\b(WX) ?(\d{4})\b|\b(W[5-9]\d{3})\b|\b(R9[67]00[SD]?)\b)"
)


# A GPU named by its chip's codename, as lspci and forum posts name it: "Ellesmere [Radeon RX
# 470/480/570/580/590]", "Lexa PRO", "Polaris 10", "Hawaii", "Navi 22". The kernel's chip names
# map to a gfx in rocmfix/data/pci-ids.yaml (amdgpu's pciidlist + LLVM's processor table);
# pci.ids (https://github.com/pciutils/pciids/blob/master/pci.ids) names the Polaris chips
# Ellesmere (Polaris 10), Baffin (Polaris 11) and Lexa (Polaris 12), and LLVM's AMDGPUUsage
# gives Navi 21/22/23/24 as gfx1030/1031/1032/1034.
# The APUs go by their codenames as much as by their graphics ("Strix Halo", "Hawk Point",
# "Rembrandt"); the gfx table's ``family`` of each integrated target names them (gfx1151
# "RDNA3.5 (Strix Halo / Gorgon Halo APU)", gfx1103 "RDNA3 (Phoenix / Hawk Point APU)"), and a
# codename two rows share decides nothing ("Gorgon Point" is gfx1150, gfx1152 and gfx1153:
# left out, as is Krackan Point, whose gfx1152 the table holds no support row for).
_CODENAME = _rx.compile(
    r"(?i:\b(Ellesmere|Baffin|Lexa|Polaris ?1[012]|Polaris|Fiji|Tonga|Hawaii|Tahiti|Pitcairn|"
    r"Bonaire|Vega ?1[02]|Vega ?20|Navi ?1[024]|Navi ?2[1-4]|Navi ?3[1-3]|Navi ?4[48]|"
    r"Strix ?Halo|Strix ?Point|Gorgon ?Halo|Hawk ?Point|"
    r"Phoenix(?= (?:APU|iGPU)\b)|Rembrandt|Renoir|Cezanne|Lucienne|Van ?Gogh|Mendocino|"
    r"Granite ?Ridge)\b)"
)
_CODENAME_CHIP = {
    "ellesmere": "polaris10",
    "baffin": "polaris11",
    "lexa": "polaris12",
    "polaris": "polaris10",
}
_NAVI_GFX = {"navi21": "gfx1030", "navi22": "gfx1031", "navi23": "gfx1032", "navi24": "gfx1034"}
# Navi 31/32/33 and Navi 44/48 by the gfx table's family of each target (gfx-targets.yaml:
# gfx1100 "RDNA3 (Navi 31)" ... gfx1201 "RDNA4 (Navi 48)").
_NAVI_GFX |= {
    "navi31": "gfx1100",
    "navi32": "gfx1101",
    "navi33": "gfx1102",
    "navi44": "gfx1200",
    "navi48": "gfx1201",
}


def _facts() -> ModuleType:
    from rocmfix import facts  # noqa: PLC0415 - tables load only when a family needs them

    return facts


def _codename_gfx(name: str) -> str | None:
    from rocmfix import facts  # noqa: PLC0415 - tables load only when a family needs them

    key = name.lower().replace(" ", "")
    if key in _NAVI_GFX:
        return _NAVI_GFX[key]
    chip = facts.chip_by_name(_CODENAME_CHIP.get(key, key))
    if chip is not None:
        return chip.gfx
    # an APU codename: the one integrated target whose family names it
    hits = {
        t.gfx
        for t in facts.gfx_targets().values()
        if t.kind == "integrated" and key in t.family.lower().replace(" ", "")
    }
    return hits.pop() if len(hits) == 1 else None


# A laptop or desktop APU named by its Ryzen model, whose graphics the gfx table's product rows
# name: "Ryzen AI 9 HX 370" and "Ryzen AI Max+ 395" by number (gfx1150 "Radeon 890M (Ryzen AI 9
# HX 370/375 ...)", gfx1151 "Radeon 8060S (Ryzen AI Max+ 395 ...)"), the mobile Ryzen 7040/8040
# (Phoenix, Hawk Point: "Ryzen 7 8840U", "8845HS") and 6000 series by their series (gfx1103
# "(Ryzen 7040 / 8040 ...)", gfx1035 "Ryzen 6000-series mobile graphics"), the desktop G models
# by name (gfx90c "Ryzen 7 4700G"). Read only where the text names no GPU itself: a laptop's
# CPU says nothing of its discrete card.
_RYZEN = _rx.compile(
    r"(?i:\bRyzen ?(?:AI ?(?:Max ?\+?|[579]) (?:PRO )?(?:HX )?(\d{3})\b|"
    r"[3579] (?:PRO )?(\d{4})(U|HS|H|GE|G)\b))"
)


def _ryzen_gfx(m: object) -> str | None:
    from rocmfix import compat, facts  # noqa: PLC0415 - tables load only when a family needs them

    ai, model, suffix = m.group(1), m.group(2), (m.group(3) or "").upper()  # type: ignore[attr-defined]
    rows = facts.gfx_targets().values()
    if ai:
        hits = {
            t.gfx
            for t in rows
            for p in t.products
            if "Ryzen AI" in p and ai in _rx.compile(r"\d{3}").findall(p)
        }
        return hits.pop() if len(hits) == 1 else None
    if suffix in ("G", "GE"):
        gpu = compat.gpu_from_name(m.group(0))  # type: ignore[attr-defined]
        return gpu.bare if gpu is not None else None
    for series in (model[0] + "0" + model[2] + "0", model[0] + "000"):
        hits = {
            t.gfx
            for t in rows
            for p in t.products
            # a U/H/HS model is a laptop's: the desktop rows ("Ryzen 7000 / 9000 desktop
            # CPU") do not hold it (a Ryzen 7 7735HS is Rembrandt's 680M, not gfx1036)
            if "Ryzen" in p and "desktop" not in p and _rx.compile(rf"\b{series}\b").search(p)
        }
        if len(hits) == 1:
            return hits.pop()
    return None


# A build's own target list as build files, tools and apps state it: "supported targets: gfx1030,
# gfx1100", "built for gfx1031", AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH (the CMake
# and PyTorch variables that choose the targets a ROCm build compiles,
# https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html,
# https://github.com/pytorch/pytorch/blob/main/setup.py), clang's --offload-arch / -mcpu, torch's
# get_arch_list(), tensorflow-rocm's "The supported AMDGPU versions are ..." (gpu_device.cc),
# ollama's "amdgpu is not supported (supported types:[gfx1030 gfx1100 ...])" (the targets its
# bundled rocBLAS carries, discover/amd_linux.go and amd_windows.go of
# https://github.com/ollama/ollama). Kernels exist for those targets only.
_BUILD_LIST = _rx.compile(
    r"(?i:(?:\bsupported (?:gpu )?targets?|\bsupported types|\bsupported AMDGPU versions are|"
    r"\b(?:built|compiled) (?:only )?for|\bcode objects? (?:only )?for|"
    r"\b(?:AMDGPU|GPU|HIP)_TARGETS|\bPYTORCH_ROCM_ARCH|\bHCC_AMDGPU_TARGETS?|--?offload-arch|-mcpu|"
    r"\bget_arch_list\(\)|\barch list)"
    r"[^\n\w]{0,6}(?:(?:is|are|only|of|to)\s*){0,2}[=:]?\s*[\"'`\[(]?)"
    r"(gfx[0-9a-f]{3,4}(?:[\"'`\])]?\s*(?:[,;/|]|\s|\band\b|\bor\b)\s*[\"'`\[(]?gfx[0-9a-f]{3,4}\b)*)"
)


# A build made for one target, named by its file: llama.cpp's Windows HIP releases
# ("llama-b4730-bin-win-hip-x64-gfx1030.zip", one archive per target,
# https://github.com/ggml-org/llama.cpp/releases) and the per-target rocBLAS packs that
# ROCmLibs publishes for the HIP SDK ("rocm.gfx1103.AMD.780M.phoenix.V5.0.for.hip.sdk.6.2.4.7z",
# https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/releases). A GPU of another
# target has no kernels in it, whatever its generation: the taxonomy's no-binary-for-gpu.
_PACK = _rx.compile(
    r"(?i:\bbin-win-hip-x64-(gfx[0-9a-f]{3,4})\b|\brocm\.(gfx[0-9a-f]{3,4})\.(?:[\w-]+\.){0,6}for\.hip\b)"
)
# ollama found the GPU and its library (rocm) but ships no runner for it: llm/server.go logs
# slog.Debug("compatible gpu libraries", "compatible", compatible) with an empty list
# (https://github.com/ollama/ollama/blob/main/llm/server.go). The build lacks the GPU's code.
# Blender Cycles found no HIP kernel of the card's compute capability in its shipped fatbins
# (intern/cycles/device/hip/device_impl.cpp: "HIP binary kernel for this graphics card compute
# capability (%d.%d) not found.", https://projects.blender.org/blender/blender): the app's build
# lacks the GPU's code.
_APP_LACKS = _rx.compile(
    r"\bHIP binary kernel for this graphics card compute capability \(\d+\.\d+\) not found"
)
_NO_LIBRARY = _rx.compile(r"\bmsg=\"?compatible gpu libraries\"? compatible=\[\]")


# Cards older than every target the gfx table holds, named by their series: the Radeon HD
# 2000-8000 cards (TeraScale, then GCN 1/2) and the R5/R7/R9 200/300 series (GCN 1-3: gfx6xx,
# gfx7xx, gfx801/802 in LLVM's processor table, https://llvm.org/docs/AMDGPUUsage.html#processors;
# the table's oldest target is gfx803). No current ROCm supports any of them.
_LEGACY = _rx.compile(r"(?i:\bRadeon HD ?[2-8]\d{3}[A-Z]?\b|\bR[579] (?:M ?)?[2-4]\d{2}X?\b)")
# "gfx 1032": a target written with a space.
_GFX_SPACED = _rx.compile(r"(?i:\bgfx ([0-9]{1,2}[0-9a-f]{2})\b)")


def _named_gpus(text: str) -> list[str]:
    """The gfx targets of the GPUs ``text`` names: gfx words, and the products and chip
    codenames the sourced tables map to a gfx."""
    from rocmfix import compat  # noqa: PLC0415 - tables load only when a family needs them

    gpus = [g.bare for g in compat.gpus_from_text(text)]
    for m in _GFX_SPACED.finditer(text):
        gfx = "gfx" + m.group(1).lower()
        if _facts().is_gfx_name(gfx) and _facts().gfx_info(gfx) is not None and gfx not in gpus:
            gpus.append(gfx)
    for m in _PRODUCT.finditer(text):
        name = " ".join(p for p in m.groups() if p)
        gpu = compat.gpu_from_name(name)
        if gpu is not None and gpu.bare not in gpus:
            gpus.append(gpu.bare)
    for m in _CODENAME.finditer(text):
        gfx = _codename_gfx(m.group(1))
        if gfx is not None and gfx not in gpus:
            gpus.append(gfx)
    if not gpus and not _PRODUCT_LIKE.search(text):
        for m in _RYZEN.finditer(text):
            gfx = _ryzen_gfx(m)
            if gfx is not None and gfx not in gpus:
                gpus.append(gfx)
    return gpus


def _generation(gfx: str) -> str:
    """The gfx major the ISA generation goes by: gfx9 (gfx906, gfx90a), gfx10, gfx11, gfx12."""
    return gfx.lower().removeprefix("gfx")[:-2]


def _build_lacks(text: str) -> bool | None:
    """True when the text states a build's target list that holds targets of the named GPU's
    generation but not the GPU's own; False when the GPU is in the list; None when the text
    states no list, names no other GPU, or the list has nothing of that generation (then the
    build may predate the GPU's whole generation, which is rocm-too-old-for-gpu's case)."""
    spans = [m.span(1) for m in _BUILD_LIST.finditer(text)]
    packs = [(m.span(), (m.group(1) or m.group(2)).lower()) for m in _PACK.finditer(text)]
    if not spans and not packs:
        return None
    listed = {g.lower() for a, b in spans for g in _GFX_WORD.findall(text[a:b])}
    rest, at = [], 0
    for a, b in sorted(spans + [span for span, _ in packs]):
        if a < at:
            continue
        rest.append(text[at:a])
        at = b
    rest.append(text[at:])
    device = set(_named_gpus("\n".join(rest)))
    if not device:
        return None
    packed = {gfx for _, gfx in packs}
    if not device.isdisjoint(listed | packed):
        return False
    if packed:
        return True
    generations = {_generation(g) for g in listed}
    return True if all(_generation(g) in generations for g in device) else None


# A GPU named by its generation only: "RDNA3 card", "RDNA 4". The gfx table gives each target's
# family (RDNA3: gfx1100/1101/1102/1103; RDNA3.5 is its own; RDNA4: gfx1200/1201).
_GENERATION = _rx.compile(r"(?i:\bRDNA ?([34])\b(?!\.\d))")


def _generation_predates(version: str, gen: str) -> bool:
    """Whether ROCm ``version`` is older than the first release that supports each target of
    the RDNA generation ``gen`` that has one (the earliest for RDNA3 is gfx1100's)."""
    from rocmfix import facts  # noqa: PLC0415 - tables load only when a family needs them

    have = facts.version_key(version)
    firsts = [
        facts.version_key(t.first_supported)
        for t in facts.gfx_targets().values()
        if t.first_supported and t.family.startswith(f"RDNA{gen} (")
    ]
    return have is not None and bool(firsts) and all(have < f for f in firsts if f)


def _listed(facts: ModuleType, version: str, gfx: str) -> bool:
    """Whether ROCm ``version`` is at or after the first release whose support list names
    ``gfx`` (the list itself, not an older release that merely built PyTorch for it)."""
    info = facts.gfx_info(gfx)
    have = facts.version_key(version)
    first = facts.version_key(info.first_listed if info else None)
    return have is not None and first is not None and have >= first


def gfx_age(text: str) -> str | None:
    """How the GPUs the text names stand against ROCm and the build, when they all agree.

    The GPUs are the gfx targets the text names and the products it names that the
    gfx table lists.

    * "newer": the one ROCm version the text names predates a named GPU's first listing
      (or, for targets ROCm's matrices do not date, the oldest ROCm PyTorch's wheels build
      them with), or every listing of the RDNA generation the text names;
    * "old": every one is older than any current ROCm supports (gfx803, gfx900 ...);
    * "unbuilt": the text states the build's target list and the GPU is not in it;
    * "borrows": every one is a target ROCm never listed whose ISA a listed target covers
      (gfx1031, gfx1032 ... with their 10.3.0 override): no build carries its own kernels;
    * "listed": every ROCm version the text names is one whose support list names every
      named GPU (``first_listed``; a release that only built PyTorch for it does not count).

    None otherwise. (A current target is not thereby "not unsupported": the KB also
    names unsupported-gpu-architecture for an instruction its ISA lacks, e.g. MFMA on RDNA.)
    """
    if not (
        _GFX_WORD.search(text)
        or _PRODUCT.search(text)
        or _CODENAME.search(text)
        or _GENERATION.search(text)
        or _RYZEN.search(text)
        or _NO_LIBRARY.search(text)
        or _APP_LACKS.search(text)
        or _LEGACY.search(text)
        or _GFX_SPACED.search(text)
    ):
        return None  # no GPU named: the tables (and their imports) stay off the cold path
    from rocmfix import facts  # noqa: PLC0415 - tables load only when a family needs them

    if _NO_LIBRARY.search(text) or _APP_LACKS.search(text):
        return "unbuilt"
    gpus = _named_gpus(text)
    versions = {m.group(1) for m in _ROCM_VERSION.finditer(text)}
    # a ROCm build of torch carries the ROCm it was built with in its tag or index name
    versions |= {m.group(1) for m in _ROCM_TAG.finditer(text)}
    # "5.5" and "5.5.0" name one release
    versions = set({facts.version_key(v): v for v in sorted(versions)}.values())
    majors = {m.group(1) for m in _ROCM_MAJOR.finditer(text)} if not versions else set()
    if len(majors) == 1:
        # "ROCm 7" alone: older than a target's first release only when every 7.x is
        # (its last minor, 7.99, predates it); listing it only when 7.0 already does
        (major,) = majors
        if any(
            facts.rocm_predates(f"{major}.99", g) or facts.rocm_predates_wheels(f"{major}.99", g)
            for g in gpus
        ) or any(
            _generation_predates(f"{major}.99", m.group(1)) for m in _GENERATION.finditer(text)
        ):
            return "newer"
        versions = {f"{major}.0"}
    elif versions:
        # every ROCm the text names predates the GPU (one release, or "5.7, then 6.2" both
        # before gfx1101's first listing): whichever is in use is older than the GPU

        # "ROCm 6.4" names the 6.4 series: older than a GPU only when its last patch would be
        latest = {v if v.count(".") >= 2 else f"{v}.99" for v in versions}

        def predates(g: str) -> bool:
            return all(
                facts.rocm_predates(v, g) or facts.rocm_predates_wheels(v, g) for v in latest
            )

        if any(predates(g) for g in gpus) or any(
            all(_generation_predates(v, m.group(1)) for v in latest)
            for m in _GENERATION.finditer(text)
        ):
            return "newer"
    legacy = bool(_LEGACY.search(text))
    if not gpus and not legacy:
        # a line naming three targets or more is read as a list, not devices: the one GPU
        # may sit beside the build's list on that line
        return "unbuilt" if _build_lacks(text) else None
    if all(facts.gfx_unsupported(g) or facts.gfx_below_supported(g) for g in gpus):
        return "old"
    if _build_lacks(text):
        return "unbuilt"
    if all(facts.gfx_borrows_isa(g) for g in gpus):
        return "borrows"
    if versions and all(_listed(facts, v, g) for v in versions for g in gpus):
        return "listed"
    return None


_HIP_SYMVER = _rx.compile(r"version `hip_\d+\.\d+' not found")
# ROCm's shared libraries by the stem of their file name.
_ROCM_LIB = (
    r"(?:amdhip64|hsa-runtime64|hiprtc|amd_comgr|rocblas|hipblas(?:lt)?|rocsolver|hipsolver|"
    r"rocsparse|hipsparse(?:lt)?|rocfft|hipfft|rocrand|hiprand|MIOpen|rccl|roctx64|roctracer64|"
    r"rocprofiler\w*|rocm_smi64|amd_smi|torch_hip|c10_hip)"
)
# The loader found the library but not a symbol it was linked against: glibc's
# "undefined symbol: X" naming a ROCm library or a HIP/HSA/rocBLAS/MIOpen/RCCL symbol, and
# Windows' STATUS_ENTRYPOINT_NOT_FOUND (0xC0000139, "The procedure entry point X could not be
# located in the dynamic link library Y",
# https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55)
# naming a ROCm DLL. Either means a library from another ROCm release than the caller's.
_UNDEF_SYMBOL = _rx.compile(
    r"(?i:\blib" + _ROCM_LIB + r"[\w.-]*\.so[\d.]*: undefined symbol\b)|"
    r"undefined symbol: (?:_Z\w{0,6}?)?(?:hip(?:blas(?:Lt)?|sparse|solver|fft|rand|rtc)?[A-Z_]|hsa_|"
    r"rocblas_|miopen[A-Z]|rccl|rsmi_|amdsmi_)|"
    r"(?i:entry point \S{1,80} could not be (?:located|found) in the dynamic link library [^\n]{0,160}?"
    r"\b(?:amdhip64|hip\w*|rocblas|rocsolver|hipblas\w*|miopen|rccl|hiprt\w*)[\w.-]*\.dll)|"
    # Python's face of the same: ERROR_PROC_NOT_FOUND, "[WinError 127] The specified procedure
    # could not be found" (https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499-)
    # loading a ROCm DLL or torch's HIP parts
    r"(?i:\[WinError 127\][^\n]{0,200}?\b(?:amdhip64|hip\w*|rocblas|rocsolver|hipblas\w*|miopen|rccl|"
    r"torch_hip|c10_hip)[\w.-]*\.dll)|"
    # a HIP function missing from whatever DLL imports it (ZLUDA's nvcuda.dll forwarding to an
    # older HIP SDK's amdhip64): the HIP runtime found is of another release than the caller's
    r"\bentry point hip[A-Z]\w{0,60} could not be (?:located|found) in the dynamic link library|"
    # hashcat's dlsym check of the HIP runtime it loaded ("hipFuncSetSharedMemConfig is missing
    # from HIP shared library.", HC_LOAD_FUNC in hashcat's include/ext_hip.h)
    r"\bhip\w+ is missing from (?:HIP|HIPRTC|hiprtc|amdhip64)\S* shared library|"
    # torch's check of the DNN library it was built against (torch/backends/cudnn/__init__.py:
    # "cuDNN version incompatibility: PyTorch was compiled against X but linked against Y"); on
    # ROCm builds that library is MIOpen, whose majors are 2 (ROCm 5-6) and 3 (ROCm 7)
    r"\bPyTorch was compiled\s+against \([23], \d+, \d+\) but (?:linked against|found runtime version)"
    r" \([23], \d+, \d+\)"
)
# A ROCm library named by a versioned soname: "librocm_smi64.so.6".
_SONAME = _rx.compile(r"\blib(" + _ROCM_LIB + r")\.so\.(\d+)\b")
_WANTED = _rx.compile(
    r"\blib(" + _ROCM_LIB + r")\.so\.(\d+)(?::? (?:cannot open shared object file|"
    r"无法打开共享对象文件|Kann die Shared-Object-Datei nicht öffnen)|"
    r"[^\n]{0,40}\b(?i:not found|is missing|required by))|"
    r"(?i:\b(?:requires?|needs?|wants?|link(?:s|ed)? against|looks? for)) [`'\"]?lib("
    + _ROCM_LIB
    + r")\.so\.(\d+)\b"
)


# The HIP runtime DLL of Windows' HIP SDK carries its major in the file name (amdhip64_6.dll for
# HIP SDK 6.x, amdhip64_7.dll for 7.x; 5.x shipped amdhip64.dll: ROCm/TheRock's Windows build
# notes and ZLUDA's nvcuda.dll import table, which names one of them); wanted and not found.
# hiprtc's DLL carries major and minor (hiprtc0602.dll for HIP SDK 6.2; ZLUDA asking for
# hiprtc0507.dll wants 5.7's).
_HIP_DLL_WANTED = _rx.compile(
    r"(?i:\b(?:amdhip64_|hiprtc0?)(\d{1,2})(?:\d\d)?\.dll\b[`'\"]?[^\n]{0,20}?\b(?:was not found|not found|is missing|missing)\b|"
    r"\b(?:could not find (?:module )?|cannot find |can't find |unable to load |failed to load )[^\n]{0,80}?"
    r"\b(?:amdhip64_|hiprtc0?)(\d{1,2})(?:\d\d)?\.dll\b)"
)


# torch's own HIP libraries: a ROCm build of torch ships torch/lib/libtorch_hip.so and
# libc10_hip.so, a CUDA or CPU build never does (its GPU half is libtorch_cuda.so /
# libc10_cuda.so, or none). A companion package's extension (torchaudio's _torchaudio.so,
# torchvision's _C.so) is linked against the torch it was built for, so one built for ROCm
# asks for libtorch_hip.so and the loader cannot open it beside a CUDA or CPU torch: the
# packages came from different indexes (pytorch/audio#1749 and #2525, pyannote-audio#1029:
# pip took "torchaudio 0.10.x+rocm4.1" from torch_stable.html beside "torch ...+cu111").
_TORCH_HIP_GONE = _rx.compile(
    r"\blib(?:torch_hip|c10_hip)\.so(?:\.\d+)*: cannot open shared object file"
)
# A companion named: the package whose extension failed to load.
_COMPANION = _rx.compile(r"\btorch(?:audio|vision|text)\b")
# torch's own import in the traceback ("site-packages/torch/__init__.py", line 237, where torch
# loads torch/lib/libtorch_hip.so through _C): the failing load is torch's, not a companion's.
_TORCH_INIT = _rx.compile(r"\btorch[/\\\\]__init__\.py\b")


# ZLUDA runs on the HIP runtime the Windows display driver installs (amdhip64*.dll ships with
# Adrenalin, vosen/ZLUDA#144), and each ZLUDA release is built against the runtime of its day:
# a driver update blamed for breaking it, or a rollback of the driver that mends it, is that
# runtime changing under ZLUDA (Adrenalin 25.5.1: vosen/ZLUDA#366, lshqqytiger/ZLUDA#106).
_ZLUDA = _rx.compile(r"(?i:\bzluda\b)")
_DRIVER_BLAMED = _rx.compile(
    r"(?i:\bdriver\b[^\n]{0,60}?\b(?:breaks?|broke|broken|(?:is )?(?:not |in)compatible with)\b[^\n]{0,40}?\bZLUDA\b|"
    r"\bdriver update\b[^\n]{0,60}?\bis the culprit\b|"
    # a rollback told as the cure ("rolling back the driver fixed it"), not as a try that failed
    r"\b(?:roll(?:ing|ed)? ?back|revert(?:ing|ed)?|downgrad(?:e|ed|ing))\b[^\n]{0,12}?"
    r"\b(?:the |my )?(?:AMD |Adrenalin |Radeon |graphics )?drivers?\b"
    r"(?![^\n]{0,60}?\b(?:didn'?t|did not|doesn'?t|does not|won'?t|no luck|not help|still)\b)"
    r"[^\n]{0,80}?\b(?:fixe[sd]|solved|resolved|works?|worked|working|in use again|back to normal)\b)"
)


# LLVM's shared library carries its major in the soname ("libLLVM.so.22.0", "libLLVM.so.23.0git",
# "libLLVM-14.so", Julia's "libLLVM-11jl.so"). ROCm's comgr/HIP compile through ROCm's own LLVM while
# Mesa's radeonsi (a GL window, Blender's viewport) loads the distribution's: two LLVM majors in one
# process share unversioned C++ symbols and option registries, and the process aborts or segfaults
# inside LLVM (ROCm/ROCm-CompilerSupport#52 "comgr ... causes crash if loaded alongside mesa",
# ROCm/ROCm-OpenCL-Runtime#153, ROCm/legacy-rocm-build#6511 "Symbol collision between ROCm-provided
# llvm and LLVM of other libraries"; JuliaLang/julia#19606 for the mechanism). A backtrace naming both
# is two toolchains' libraries meeting, the taxonomy's library mismatch; the cure is one LLVM in the
# process (preloading ROCm's comgr, a Mesa built against the same LLVM).
_LLVM_SONAME = _rx.compile(r"\blibLLVM(?:\.so\.|-)(\d{1,2})(?=[.\s(:)'\"]|jl\b|git\b|$)")


def _llvm_majors(text: str) -> set[str]:
    if "libLLVM" not in text:
        return set()
    return {m.group(1) for m in _LLVM_SONAME.finditer(text)}


def lib_state(text: str) -> str | None:
    """ "mismatch" when the text shows ROCm libraries of two releases meeting.

    * the HIP runtime lacks the symbol version asked for (``version `hip_6.2' not found``);
    * a ROCm library lacks a symbol its caller was linked against (``undefined symbol``,
      Windows' "entry point ... could not be located");
    * a ROCm library is wanted by one soname and the text shows the same library under
      another major ("needs librocm_smi64.so.6", ``ls`` lists ``librocm_smi64.so.7``): the
      dynamic loader looks a library up by the exact soname its caller recorded (DT_NEEDED,
      ld.so(8), https://man7.org/linux/man-pages/man8/ld.so.8.html), and a library's soname
      major changes only when its ABI breaks, so the caller was built against another release;
    * ``libamdhip64.so.N`` is wanted while every ROCm release the text names (``ROCm 7.1``,
      ``+rocm7.0``) is of another major: the HIP runtime's soname major follows the ROCm major
      (packages libamdhip64-5 for ROCm 5.x, https://packages.debian.org/sid/libamdhip64-5;
      libamdhip64.so.6 in rocm-hip 6.4.1,
      https://packages.fedoraproject.org/pkgs/rocclr/rocm-hip/; libamdhip64-7 for ROCm 7.1,
      https://packages.ubuntu.com/resolute/libamdhip64-7).

    "companion" when a companion package built for a ROCm torch meets a torch that is not one:
    ``libtorch_hip.so`` / ``libc10_hip.so`` cannot be opened while the text names a CUDA or CPU
    torch, or torchaudio/torchvision/torchtext (see :data:`_TORCH_HIP_GONE`): the taxonomy's
    "torch/torchvision/torchaudio from different index URLs".

    "mismatch" too where the text names ZLUDA and blames the display driver's update for it (or
    mends it by rolling the driver back): the driver's HIP runtime changed under ZLUDA
    (:data:`_DRIVER_BLAMED`).

    "mismatch" too where the text names libLLVM of two majors (:data:`_LLVM_SONAME`) and names
    AMD's GPU stack: ROCm's LLVM and another in one process.

    None otherwise: a plain "cannot open shared object file" with nothing else is the library
    missing, not two releases meeting.
    """
    if _HIP_SYMVER.search(text) or _UNDEF_SYMBOL.search(text):
        return "mismatch"
    if _ZLUDA.search(text) and _DRIVER_BLAMED.search(text):
        return "mismatch"
    if len(_llvm_majors(text)) > 1 and names_amd(text):
        # (two LLVMs meet in Julia-plus-Mesa or Mesa-plus-app crashes on any vendor's machine too:
        # only beside ROCm, HIP or an AMD GPU is one of them ROCm's)
        return "mismatch"
    if _TORCH_HIP_GONE.search(text) and (
        torch_builds(text) & {"cuda", "cpu"}
        or (_COMPANION.search(text) and not _TORCH_INIT.search(text))
    ):
        # (torch itself missing its own libtorch_hip.so is a broken install, not this: a
        # companion or a non-ROCm torch must be named beside it)
        return "companion"
    if "amdhip64_" in text or "hiprtc" in text:
        dll = {str(int(m.group(1) or m.group(2))) for m in _HIP_DLL_WANTED.finditer(text)}
        if len(dll) == 1:
            majors = {m.group(1).split(".")[0] for m in _ROCM_VERSION.finditer(text)}
            majors |= {m.group(1) or m.group(2) for m in _HIP_SDK_VERSION.finditer(text)}
            if majors and dll.isdisjoint(majors):
                return "mismatch"
    if ".so." not in text:
        return None
    wanted = {
        ((m.group(1) or m.group(3)).lower(), m.group(2) or m.group(4))
        for m in _WANTED.finditer(text)
    }
    if not wanted:
        return None
    named: dict[str, set[str]] = {}
    for m in _SONAME.finditer(text):
        named.setdefault(m.group(1).lower(), set()).add(m.group(2))
    if any(len(named.get(lib, ())) > 1 for lib, _ in wanted):
        return "mismatch"
    hip = {major for lib, major in wanted if lib == "amdhip64"}
    if len(hip) == 1:
        majors = {m.group(1).split(".")[0] for m in _ROCM_VERSION.finditer(text)}
        majors |= {m.group(1).split(".")[0] for m in _ROCM_TAG.finditer(text)}
        if majors and hip.isdisjoint(majors):
            return "mismatch"
    return None


def names_amd(text: str) -> bool:
    """Whether the text names anything of AMD's GPU stack (the matcher's AMD context words;
    collect_env's "ROCM used to build PyTorch: N/A" and an AMD CPU do not count)."""
    from rocmfix.kb.matcher import _AMD_CONTEXT, _NOT_AMD  # noqa: PLC0415 - matcher imports us

    return bool(_AMD_CONTEXT.search(_NOT_AMD.sub("", _NOT_AMD_TOO.sub("", text))))


# collect_env pads its labels to a column ("ROCM used to build PyTorch   : N/A", torch >= 2.6's
# layout of torch/utils/collect_env.py), and a Ryzen is AMD's CPU, not its GPU stack.
_NOT_AMD_TOO = _rx.compile(
    r"(?:ROCM used to build PyTorch|HIP runtime version|MIOpen runtime version) *: N/A|"
    r"HIP\(ROCm\) version: (?:Not available|Unable to query)|"
    r"\bAMD Ryzen\b"
)
# An NVIDIA GPU named as a device (collect_env's "GPU 0: NVIDIA GeForce RTX 5090", nvidia-smi,
# neofetch's "GPU: NVIDIA GeForce RTX 3060 Ti").
_NVIDIA_GPU = _rx.compile(
    r"(?i:\bNVIDIA (?:GeForce|RTX|Quadro|Tesla|TITAN|A\d{2,3}|H\d{2,3}|L\d{1,2})\b|\bGeForce (?:RTX|GTX)\b)"
)


def amd_machine(text: str) -> bool | str:
    """True when the text names AMD's GPU stack and no NVIDIA GPU; "nvidia" when it names both
    (a CUDA torch there may be the NVIDIA card's own); False when it names nothing of AMD's."""
    if not names_amd(text):
        return False
    return "nvidia" if _NVIDIA_GPU.search(text) else True


Facts = tuple  # (torch build, /dev/kfd state, GPU age, AMD machine, HIP library state[, "gcn"])


def _before_gfx9(text: str) -> bool:
    """Whether every GPU the text names is of GCN 1-4 (gfx6, gfx7, gfx8: Tahiti ... Polaris, Fiji),
    or only a legacy Radeon name: targets for which no newer ISA is binary-compatible and no
    override makes current ROCm libraries work (the gfx table's gfx803 row), and which PyTorch's
    ROCm wheels do not build (their arch lists start at gfx900). Asked only of an "old" text."""
    gpus = _named_gpus(text)
    if not gpus:
        return bool(_LEGACY.search(text))
    return all(_generation(g) in ("6", "7", "8") for g in gpus)


def read(text: str) -> Facts:
    """The facts of ``text`` this layer uses (see :data:`Facts`); a sixth, "gcn", only where the
    GPUs are "old" and all of GCN 1-4 (:func:`_before_gfx9`)."""
    build = torch_build(text)
    amd = amd_machine(text) if build == "cuda" else None
    if amd is False and _NO_NV_DRIVER.search(text):
        # no AMD word, but no NVIDIA driver either: not known to be an NVIDIA machine
        amd = None
    age = gfx_age(text)
    facts = (build, kfd_state(text), age, amd, lib_state(text))
    if age == "old" and _before_gfx9(text):
        facts += ("gcn",)
    return facts


def _swap(conf: dict[str, float], want: str, other: str, bring_in: bool = True) -> None:
    """Where ``other`` outranks ``want``, the two trade confidences (nothing else moves);
    a ``want`` nothing had scored takes ``other``'s place and ``other`` drops to 0.3 at most
    (unless :func:`reorder` was told not to bring members in)."""
    o = conf.get(other)
    w = conf.get(want)
    if o is None or (w is not None and w >= o) or (w is None and not bring_in):
        return
    conf[want] = o
    conf[other] = w if w is not None else min(o, 0.3)


def reorder(
    conf: Mapping[str, float], facts: Facts | None, *, bring_in: bool = True
) -> dict[str, float]:
    """``conf`` (entry id -> confidence) with family members reordered by ``facts``;
    ``bring_in=False``: only members ``conf`` already holds trade places."""
    out = dict(conf)
    if not facts:
        return out

    def swap(want: str, other: str) -> None:
        _swap(out, want, other, bring_in)

    build, kfd, age = facts[:3]
    amd = facts[3] if len(facts) > 3 else None
    if len(facts) > 4 and facts[4] in ("mismatch", "companion"):
        swap(LIB_MISMATCH, LIB_MISSING)
    if len(facts) > 4 and facts[4] == "companion":
        # the failing import is the companion's, not torch's: the installed torch's own build
        # is not what broke (the CUDA torch may be right for the machine)
        swap(LIB_MISMATCH, CUDA_BUILD)
        swap(LIB_MISMATCH, CPU_BUILD)
    if build == "cuda" and amd is False:
        # A CUDA torch in a text with no sign of an AMD GPU: an NVIDIA (or no-GPU) machine,
        # where neither build cause is ours to name (the taxonomy: "on an AMD machine").
        for e in (CUDA_BUILD, CPU_BUILD):
            if e in out:
                out[e] = min(out[e], 0.45)
    elif build == "cuda":
        swap(CUDA_BUILD, CPU_BUILD)
    elif build == "cpu":
        swap(CPU_BUILD, CUDA_BUILD)
    if kfd == "missing":
        swap(KFD_MISSING, KFD_DENIED)
    elif kfd == "denied":
        swap(KFD_DENIED, KFD_MISSING)
    if age == "old":
        swap(TOO_OLD_GPU, NO_BINARY)
        swap(TOO_OLD_GPU, ROCM_TOO_OLD)
        if len(facts) > 5 and facts[5] == "gcn":
            # a runtime that finds no GPU ("No HIP GPUs are available", "no ROCm-capable device is
            # detected") where every GPU named is of GCN 1-4 (gfx8 and older): the zero devices are
            # the consequence, the cure the unsupported GPU's (an older stack or another device).
            # (gfx9 cards such as the MI25 or MI50 are "old" too, but torch's wheels still build
            # gfx900/gfx906, so a GPU none sees there has other causes: not swapped.)
            swap(TOO_OLD_GPU, NO_GPU)
    elif age == "newer":
        swap(ROCM_TOO_OLD, NO_BINARY)
        swap(ROCM_TOO_OLD, TOO_OLD_GPU)
    elif age in ("unbuilt", "borrows"):
        # the build lacks the GPU's kernels while ROCm's ISA covers it: the taxonomy's
        # no-binary-for-gpu (a build that targets it, or an override to a compatible ISA)
        swap(NO_BINARY, ROCM_TOO_OLD)
        swap(NO_BINARY, TOO_OLD_GPU)
    elif age == "listed" and ROCM_TOO_OLD in out:
        # the ROCm the text names lists the GPU, so the GPU is not newer than it
        out[ROCM_TOO_OLD] = min(out[ROCM_TOO_OLD], 0.45)
    if bring_in:
        for want in _defined(facts):
            if want in out and out[want] >= LIFT_FLOOR:
                out[want] = max(out[want], LIFT_TO)
    return out


# A member the text's facts define outright (see :func:`_defined`) that the signatures, symptoms
# or ranker found at all (LIFT_FLOOR) is named: raised to the naming bar, never past a cause
# named with more confidence.
LIFT_FLOOR = 0.0
LIFT_TO = 0.5


def _defined(facts: Facts) -> tuple[str, ...]:
    """The members whose taxonomy definition is itself a fact of the text: the build's own
    target list, or an app's build for one target, lacking the GPU ("unbuilt":
    no-binary-for-gpu), and ROCm libraries of two releases meeting (rocm-library-version-mismatch).
    The GPU's age alone ("old", "newer", "borrows") defines nothing: other causes share it."""
    out = []
    if facts[0] == "cuda" and len(facts) > 3 and facts[3] is True:
        out.append(CUDA_BUILD)
    if facts[2] == "unbuilt":
        out.append(NO_BINARY)
    if len(facts) > 4 and facts[4] in ("mismatch", "companion"):
        out.append(LIB_MISMATCH)
    return tuple(out)


FAMILY_IDS = frozenset(
    {
        LIB_MISSING,
        LIB_MISMATCH,
        CUDA_BUILD,
        CPU_BUILD,
        KFD_MISSING,
        KFD_DENIED,
        NO_BINARY,
        TOO_OLD_GPU,
        ROCM_TOO_OLD,
        NO_GPU,
    }
)


def decide(
    scored: Sequence[Match],
    facts: Facts | None,
    entries: Mapping[str, Entry],
    *,
    bring_in: bool = True,
) -> list[Match]:
    """``scored`` with the members of each family reordered by ``facts`` (see :func:`reorder`).

    ``bring_in=False`` reorders only the members already scored: before the learned ranker,
    a member the facts bring in would reach it as a weak signature score, which the ranker
    reads as evidence against that member (it brings the member in itself where the text
    resembles it, and the pass after it brings in what is still missing)."""
    if not facts or not any(m.entry.id in FAMILY_IDS for m in scored):
        return list(scored)
    before = {m.entry.id: m.confidence for m in scored if not m.entry.benign}
    after = reorder(before, facts, bring_in=bring_in)
    out = []
    for m in scored:
        if m.entry.id in before and after[m.entry.id] != m.confidence:
            out.append(replace(m, confidence=after[m.entry.id]))
        else:
            out.append(m)
    new = [e for e in after if e not in before and e in entries]
    if new:
        from rocmfix.kb.matcher import Match  # noqa: PLC0415 - matcher imports this module

        out.extend(
            Match(entry=entries[e], confidence=after[e], evidence=(), via="facts") for e in new
        )
    return out


# Anything written like a Radeon or Instinct product: a name here that :data:`_PRODUCT` and
# the tables do not resolve means the text names a GPU whose gfx is not known.
_PRODUCT_LIKE = _rx.compile(
    r"(?i:\b(?:RX|Radeon(?: Pro| RX)?) ?[A-Z]?\d{3,4}[A-Z]{0,3}\b|\bMI\d{2,3}[A-Z]?\b)"
)


def named_gpus(text: str) -> list[tuple[str, str]]:
    """The GPUs the text names by product or chip codename, as ``(name as written, gfx)``,
    one per distinct gfx, in order of first mention ("RX 6600" -> gfx1032, "Navi 22" ->
    gfx1031). Only names the sourced tables list; a gfx target written out is not here
    (``compat.gpus_from_text`` reads those).

    No name pattern matches across a line break, so the text is read line by line and each
    line's reading is remembered: an explanation asks this of the same candidate lines once
    per matched entry, and the product patterns cost ~5 ms per 16 KB of text in ``re``."""
    found: list[tuple[int, int, str, str]] = []
    for n, line in enumerate(text.split("\n")):
        names = _LINE_NAMES.get(line)
        if names is None:
            names = _line_names(line)
            if len(line) <= _MEMO_LINE:  # bounded: at most 4,096 lines of at most 512 characters
                if len(_LINE_NAMES) >= 4096:
                    _LINE_NAMES.clear()
                _LINE_NAMES[line] = names
        if names is _UNKNOWN:
            return []  # a card the tables do not resolve ("RX 7600S"): the GPUs are not known
        found.extend((n, pos, name, gfx) for pos, name, gfx in names)
    out: list[tuple[str, str]] = []
    for _, _, name, gfx in sorted(found):
        if all(gfx != g for _, g in out):
            out.append((name, gfx))
    return out


_UNKNOWN: tuple[tuple[int, str, str], ...] = ((-1, "", ""),)
"""A line naming a Radeon or Instinct product the tables do not resolve."""
_LINE_NAMES: dict[str, tuple[tuple[int, str, str], ...]] = {}
_MEMO_LINE = 512


def _line_names(line: str) -> tuple[tuple[int, str, str], ...]:
    """``(position, name as written, gfx)`` for each GPU one line names, or :data:`_UNKNOWN`."""
    if not (_PRODUCT.search(line) or _CODENAME.search(line)):
        # no name the tables know: the tables (and their imports) stay off the cold path;
        # but a product-like name here ("RX 7600S") still makes every GPU unknown
        return _UNKNOWN if _PRODUCT_LIKE.search(line) else ()
    from rocmfix import compat  # noqa: PLC0415 - tables load only when a name is there

    found: list[tuple[int, str, str]] = []
    spans: list[tuple[int, int]] = []
    for m in _PRODUCT.finditer(line):
        gpu = compat.gpu_from_name(" ".join(p for p in m.groups() if p))
        if gpu is not None:
            found.append((m.start(), m.group(0), gpu.bare))
            spans.append(m.span())
    for m in _PRODUCT_LIKE.finditer(line):
        if not any(m.start() < b and a < m.end() for a, b in spans):
            return _UNKNOWN
    for m in _CODENAME.finditer(line):
        gfx = _codename_gfx(m.group(1))
        if gfx is not None:
            found.append((m.start(), m.group(0), gfx))
    return tuple(found)
