"""Facts stated in a report decide between members of one family of causes (rocmfix.kb.family).

Each fact has its upstream source in the module's docstring; each test pairs a text that
states the fact with a near miss that must not fire (so no reorder happens)."""

from __future__ import annotations

import pytest

from rocmfix.kb import family
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher


@pytest.mark.parametrize(
    ("text", "build"),
    [
        ("torch 2.3.1+cu121 on my RX 7900 XTX", "cuda"),
        ("Successfully installed torch-2.5.0+rocm6.2 torchvision-0.20.0+rocm6.2", "rocm"),
        ("torch==2.1.0+cpu", "cpu"),
        ("PyTorch 2.1.0+cu121", "cuda"),
        ("pip install torch --index-url https://download.pytorch.org/whl/cu118", "cuda"),
        # collect_env: a CUDA build prints its CUDA version and N/A for ROCm
        ("CUDA used to build PyTorch: 12.1\nROCM used to build PyTorch: N/A", "cuda"),
        (
            "CUDA used to build PyTorch: N/A\nROCM used to build PyTorch: 6.2.41133-dd7f95766",
            "rocm",
        ),
        ("CUDA used to build PyTorch: None\nROCM used to build PyTorch: N/A", "cpu"),
        # near misses: two builds named (one tried, one installed) decide nothing ...
        (
            "had torch 2.2.0+cu121, then installed from https://download.pytorch.org/whl/rocm6.0",
            None,
        ),
        # ... nor a CUDA version that is not torch's, nor a bare version
        ("CUDA 12.1 toolkit installed, torch 2.3.1", None),
        ("HIP runtime version: N/A", None),
    ],
)
def test_torch_build(text: str, build: str | None) -> None:
    assert family.torch_build(text) == build


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("hsa api call failure: Unable to open /dev/kfd read-write: Permission denied", "denied"),
        ("open /dev/dri/renderD128: permission denied", "denied"),
        ("rocminfo only works with sudo", "denied"),
        ("ls: cannot access '/dev/kfd': No such file or directory", "missing"),
        (
            "docker: Error response from daemon: error gathering device information while adding"
            ' custom device "/dev/kfd": no such file or directory.',
            "missing",
        ),
        ("/dev/kfd does not exist on the host", "missing"),
        # told in prose: sudo needed, the group the prerequisites name, rocminfo's module line
        ("Need to use sudo to run clinfo. Is this normal?", "denied"),
        ("rocminfo fails but sudo rocminfo works", "denied"),
        ("I am not a member of the render group", "denied"),
        # EACCES named before the node, and both groups in one breath
        ("rocminfo in the pod: Permission denied for /dev/kfd", "denied"),
        ("the service user is not member of video and render group", "denied"),
        ("ROCk module is NOT loaded, possibly no GPU devices", "missing"),
        # glibc's Chinese and German wording of ENOENT / EACCES, Chinese prose
        ("ls: 无法访问 '/dev/kfd': 没有那个文件或目录", "missing"),
        ("Unable to open /dev/kfd read-write: Keine Berechtigung", "denied"),
        ("rocminfo 需要 sudo 才能运行", "denied"),
        # the node named with the right to open it missing is EACCES, not ENOENT
        ("普通用户没有 /dev/kfd 的访问权限", "denied"),
        ("容器里没有 /dev/kfd", "missing"),
        # a container started without the device nodes
        (
            "the container only passes --ipc host, so /dev/kfd and /dev/dri are not visible",
            "missing",
        ),
        ("started the image without --device=/dev/kfd", "missing"),
        # near misses: a node named beside an unrelated error, or both states told
        ("checked /dev/kfd, then the model load failed: Permission denied on ~/.cache", None),
        ("/dev/kfd: No such file or directory, and /dev/dri/renderD128: Permission denied", None),
        ("sudo apt install rocm works", None),
        ("added myself to the render group as the guide says; the model still fails", None),
        ("Permission denied for /home/me/.cache/huggingface", None),
        ("not a member of the docker and wheel groups", None),
    ],
)
def test_kfd_state(text: str, state: str | None) -> None:
    assert family.kfd_state(text) == state


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("Radeon RX 580 (gfx803) on ROCm 6.1", "old"),
        ("rocminfo: Name: gfx1201 ... ROCm 6.2.4", "newer"),  # RDNA4 first listed in ROCm 6.4
        ("Radeon VII on ROCm 6.2", "old"),  # a product name the gfx table lists (gfx906)
        ("RX 9070 XT, ROCm 6.2.4", "newer"),
        # a current GPU under a ROCm that lists it: not newer than that ROCm
        ("Name: gfx1100 with ROCm 6.4.1", "listed"),
        ("GPU: AMD Radeon RX 9070 XT\nROCm Version: ROCm 7.2.1", "listed"),
        ("RX 9070 XT, tried ROCm 7.2.1 and ROCm 6.2", None),  # one of them predates it
        # ROCm 5.6 built PyTorch for gfx1100 but its support list did not name it yet: neither
        # newer than that ROCm nor listed by it
        ("Name: gfx1100 with ROCm 5.6", None),
        ("ROCm 5.4 on an RX 7900 XTX; rocminfo says ROCm 5.4.0", "newer"),  # one release, twice
        # a generation named instead of a card: RDNA3 runs from gfx1100's first release (5.5.0)
        ("Torch unable to use RDNA3 Card ... --extra-index-url .../whl/rocm5.2", "newer"),
        ("an RDNA 4 card with ROCm 6.3", "newer"),
        ("RDNA3 card on ROCm 6.2", None),  # RDNA3 cards run from 5.5.0
        ("RDNA3.5 laptop on ROCm 6.2", None),  # not RDNA3
        # product names as users write them: no "RX", no space before the suffix, an iGPU
        ("My RX 590 stopped working after updating to ROCm 6.0", "old"),  # Polaris, 67df
        ("7900XTX on ROCm 5.4.2", "newer"),  # gfx1100, in the system requirements from ROCm 6.0
        ("RX9070XT, ROCm 6.3", "newer"),  # gfx1201, first listed in ROCm 6.4.1
        ("a 780M laptop on ROCm 6.4", None),
        # the ROCm a torch wheel was built with, from its tag
        ("torch 2.5.1+rocm6.2 on an RX 9070 XT", "newer"),
        ("torch 2.5.1+rocm6.2 from whl/rocm6.4 on an RX 9070 XT", None),  # two ROCm named
        # a chip codename as lspci prints it
        ("[AMD/ATI] Lexa PRO [Radeon 540/540X/550/550X / RX 540X/550/550X], ROCm 6.2", "old"),
        ("my Hawaii card (R9 290X) and ROCm 5.7", "old"),
        ("Navi 48 card, the app bundles ROCm 6.2 libraries", "newer"),  # gfx1201, listed from 6.4.1
        # a Polaris workstation card (pci.ids 67c7, amdgpu's Polaris10)
        ("2x AMD Radeon (TM) Pro WX 5100 Graphics", "old"),
        ("Radeon Pro WX 9100", None),  # a WX the table does not list stays unread
        # Strix Halo under a ROCm older than any PyTorch wheel builds gfx1151 with (7.0, #167299)
        ("AMD RYZEN AI MAX+ 395 w/ Radeon 8060S\n### ROCm Version\nrocm6.4", "newer"),
        ("Radeon 8060S on ROCm 7.1", None),
        # a build's own target list that lacks the GPU the text names
        (
            '"No ROCm GPUs detected of supported targets: gfx1030, gfx1100, gfx1101, gfx1102"'
            " on a Ryzen AI 9 HX 370 (gfx1150)",
            "unbuilt",
        ),
        ("the packaged kernels are built for gfx1031 only; my card is gfx1030", "unbuilt"),
        ("torch.cuda.get_arch_list(): ['gfx900', 'gfx906', 'gfx1030']\nName: gfx1032", "unbuilt"),
        ("PYTORCH_ROCM_ARCH=gfx1100 python setup.py develop on an RX 7900 XTX", None),  # in it
        # tensorflow-rocm's list: gfx1032 beside gfx1030 is a target the build left out ...
        (
            "with AMDGPU version : gfx1032. The supported AMDGPU versions are gfx900, gfx906, gfx1030.",
            "unbuilt",
        ),
        # ... while a list with nothing of the GPU's generation may predate it: not decided here
        (
            "with AMDGPU version : gfx1100. The supported AMDGPU versions are gfx1030, gfx900, gfx906.",
            None,
        ),
        # a target ROCm never listed whose ISA gfx1030's covers (the 10.3.0 override)
        ("RX 6600 XT (gfx1032): hipErrorNoBinaryForGpu", "borrows"),
        ("RX 6700 XT, HIP error: invalid device function", "borrows"),
        ("Steam Deck (gfx1033)", None),  # its override is documented to give wrong results
        # a gfx the table has no row for, older than every target ROCm supports (Raven's gfx902)
        ("Unable to run the HIP square example on gfx902 (Ryzen Embedded V1000)", "old"),
        ("gfx909 on ROCm 6.1", None),  # newer than gfx908: not below every supported target
        # near misses: no GPU named, or GPUs that disagree
        ("ROCm 6.1 on my machine", None),
        ("gfx1032 and gfx1100 in one box", None),
        ("gfx803 and gfx1100 in one box", None),
    ],
)
def test_gfx_age(text: str, age: str | None) -> None:
    assert family.gfx_age(text) == age


def test_reorder_swaps_only_the_family_pair() -> None:
    conf = {"cpu-only-build": 0.9, "cuda-build-on-amd": 0.4, "gpu-hang-or-reset": 0.95}
    out = family.reorder(conf, ("cuda", None, None))
    assert out == {"cpu-only-build": 0.4, "cuda-build-on-amd": 0.9, "gpu-hang-or-reset": 0.95}
    # already in order, or no fact: unchanged
    assert family.reorder(out, ("cuda", None, None)) == out
    assert family.reorder(conf, (None, None, None)) == conf


def test_reorder_brings_in_the_member_the_fact_names() -> None:
    out = family.reorder({"no-binary-for-gpu": 0.8}, (None, None, "old"))
    assert out == {"unsupported-gpu-architecture": 0.8, "no-binary-for-gpu": 0.3}
    # before the learned ranker nothing is brought in (it would reach the ranker as a weak
    # signature score, read as evidence against that member); scored members still trade
    assert family.reorder({"no-binary-for-gpu": 0.8}, (None, None, "old"), bring_in=False) == {
        "no-binary-for-gpu": 0.8
    }
    conf = {"no-binary-for-gpu": 0.8, "unsupported-gpu-architecture": 0.2}
    assert family.reorder(conf, (None, None, "old"), bring_in=False) == {
        "no-binary-for-gpu": 0.2,
        "unsupported-gpu-architecture": 0.8,
    }


def test_reorder_by_the_build_and_by_a_rocm_that_lists_the_gpu() -> None:
    conf = {"rocm-too-old-for-gpu": 0.9, "no-binary-for-gpu": 0.5, "gpu-hang-or-reset": 0.2}
    for age in ("unbuilt", "borrows"):
        assert family.reorder(conf, (None, None, age)) == {
            "rocm-too-old-for-gpu": 0.5,
            "no-binary-for-gpu": 0.9,
            "gpu-hang-or-reset": 0.2,
        }
    # a ROCm that lists the GPU: rocm-too-old is no longer named, nothing else moves
    assert family.reorder(conf, (None, None, "listed")) == {
        "rocm-too-old-for-gpu": 0.45,
        "no-binary-for-gpu": 0.5,
        "gpu-hang-or-reset": 0.2,
    }
    assert family.reorder({"no-binary-for-gpu": 0.9}, (None, None, "listed")) == {
        "no-binary-for-gpu": 0.9
    }


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(load_kb(use_cache=False), use_ranker=False)


def _order(matcher: Matcher, text: str) -> list[str]:
    return [m.entry.id for m in matcher.explain_text(text).matches]


def test_matcher_names_the_cuda_build_its_tag_states(matcher: Matcher) -> None:
    # "Torch not compiled with CUDA enabled" alone reads as a CPU build; the +cu121 tag says
    # the installed torch is a CUDA build (its error on a machine without NVIDIA's driver).
    text = "Torch not compiled with CUDA enabled\ntorch 2.3.1+cu121 RX 7900 XTX"
    order = _order(matcher, text)
    assert order.index("cuda-build-on-amd") < order.index("cpu-only-build")
    # near miss: the same line with a CPU build's tag stays a CPU build
    order = _order(matcher, text.replace("+cu121", "+cpu"))
    assert order[0] == "cpu-only-build"


def test_matcher_names_rocm_too_old_for_a_gpu_newer_than_it(matcher: Matcher) -> None:
    # gfx1201 (RX 9070) is first listed by ROCm 6.4 (gfx-targets.yaml): under 6.2.4 the
    # runtime predates the GPU, which is rocm-too-old-for-gpu, not a build lacking its arch.
    text = (
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
        "rocminfo: Name: gfx1201 on ROCm 6.2.4"
    )
    assert _order(matcher, text)[0] == "rocm-too-old-for-gpu"
    # near miss: a ROCm that lists the GPU leaves the signature's answer alone
    assert _order(matcher, text.replace("6.2.4", "6.4.1"))[0] == "no-binary-for-gpu"


def test_a_cuda_torch_with_no_amd_word_is_not_a_build_cause() -> None:
    # The taxonomy's cuda-build-on-amd is "a CUDA build on an AMD machine": a text whose torch
    # is +cu121 and that names nothing of AMD's stack is an NVIDIA (or GPU-less) machine.
    text = "Python 3.9\nCUDA 12.1 toolkit\nPyTorch 2.1.0+cu121\nbitsandbytes 0.43.1"
    facts = family.read(text)
    assert facts == ("cuda", None, None, False, None)
    assert family.reorder({"cuda-build-on-amd": 0.9}, facts) == {"cuda-build-on-amd": 0.45}
    # near miss: the same torch on a Radeon is the build cause, untouched
    facts = family.read(text + "\nGPU: Radeon RX 7900 XTX")
    assert facts[3] is True
    assert family.reorder({"cuda-build-on-amd": 0.9}, facts) == {"cuda-build-on-amd": 0.9}
    # an AMD CPU says nothing of the GPU
    assert family.read(text + "\nAMD CPUs and an RTX 4090")[3] is False


def test_a_missing_hip_symbol_version_is_a_version_mismatch() -> None:
    text = (
        "ImportError: /opt/rocm/lib/libamdhip64.so: version `hip_6.2' not found "
        "(required by .../site-packages/torch/lib/libc10_hip.so)"
    )
    facts = family.read(text)
    assert facts[4] == "mismatch"
    conf = {"hip-runtime-lib-missing": 0.9, "rocm-library-version-mismatch": 0.6}
    assert family.reorder(conf, facts) == {
        "hip-runtime-lib-missing": 0.6,
        "rocm-library-version-mismatch": 0.9,
    }
    # near misses: a soname of the same major as the ROCm in use, or with no ROCm named, is
    # the library missing, not two releases meeting
    same = "torch 2.5.1+rocm6.2\nImportError: libamdhip64.so.6: cannot open shared object file"
    assert family.read(same)[4] is None
    assert family.read("OSError: libamdhip64.so.6: cannot open shared object file")[4] is None


@pytest.mark.parametrize(
    ("text", "state"),
    [
        # glibc: the library loaded, a symbol its caller was linked against is not in it
        (
            "ImportError: /opt/rocm/lib/libMIOpen.so.1: undefined symbol: "
            "_ZN5miopen10HipBuildOnC2Ev",
            "mismatch",
        ),
        ("flash_attn_2_cuda.so: undefined symbol: hipGetDevicePropertiesR0600", "mismatch"),
        # Windows: STATUS_ENTRYPOINT_NOT_FOUND naming a ROCm DLL
        (
            "The procedure entry point rocblas_gemm_ex3 could not be located in the dynamic"
            " link library C:\\ollama\\lib\\hipblas.dll",
            "mismatch",
        ),
        # one soname wanted, another major of the same library present
        (
            "Jax requires `librocm_smi64.so.6` but rocm 6.2.4 installs\n"
            "librocm_smi64.so\nlibrocm_smi64.so.7\nlibrocm_smi64.so.7.3.60204",
            "mismatch",
        ),
        # the HIP runtime of ROCm 6 wanted on a ROCm 7 system
        (
            "ROCm 7.0.2 installed\nImportError: libamdhip64.so.6: cannot open shared object file",
            "mismatch",
        ),
        # near misses: a symbol of another project, a symbol merely containing "hip",
        # one soname of one library, a DLL that is not ROCm's
        ("libtorchvision.so: undefined symbol: _ZN3c1017RegisterOperators", None),
        ("module.so: undefined symbol: ownership_table", None),
        ("librocm_smi64.so.7: cannot open shared object file; ROCm 7.1", None),
        (
            "The procedure entry point inflateReset2 could not be located in the dynamic link"
            " library zlib1.dll",
            None,
        ),
    ],
)
def test_lib_state(text: str, state: str | None) -> None:
    assert family.lib_state(text) == state


def test_matcher_names_a_mismatch_where_the_soname_is_of_another_rocm(matcher: Matcher) -> None:
    # libamdhip64.so.6 is ROCm 6's HIP runtime: on a ROCm 7 system the caller was built for
    # another release, which the KB calls a version mismatch rather than a missing library.
    missing = (
        "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory"
    )
    assert _order(matcher, "ROCm 7.1 is installed in /opt/rocm\n" + missing)[0] == (
        "rocm-library-version-mismatch"
    )
    # near misses: nothing says which ROCm is installed, or it is ROCm 6 itself
    assert _order(matcher, missing)[0] == "hip-runtime-lib-missing"
    assert _order(matcher, "ROCm 6.2 is installed\n" + missing)[0] == "hip-runtime-lib-missing"


@pytest.mark.parametrize(
    ("text", "first"),
    [
        # EACCES told before the node (the order rocminfo does not use), with no sudo or group line
        (
            "Inside the container rocminfo prints Permission denied for /dev/kfd and /dev/dri,"
            " torch falls back to the CPU",
            "kfd-permission-denied",
        ),
        (
            "ollama runs as a system user that is not a member of the video or render groups, so"
            " the GPU is not used",
            "kfd-permission-denied",
        ),
        ("容器里 torch 只能用 CPU，日志显示没有权限访问 /dev/kfd", "kfd-permission-denied"),
        ("不加 sudo 的话 torch 只能用 CPU，sudo python 可以用 GPU", "kfd-permission-denied"),
        ("普通用户没有 /dev/kfd 的访问权限", "kfd-permission-denied"),
        (
            "torch.cuda.is_available() is False from my account; as root it is True",
            "kfd-permission-denied",
        ),
        ("I have to use sudo for rocminfo to show the card at all", "kfd-permission-denied"),
    ],
)
def test_matcher_names_a_denied_node_told_in_other_words(
    matcher: Matcher, text: str, first: str
) -> None:
    # inside a report (past the typed-symptom length), so a signature has to name it
    report = _REPORT_HEAD + text + "\n"
    assert len(report) > 400
    top = matcher.explain_text(report).top
    assert top is not None and top.entry.id == first and top.confident


_REPORT_HEAD = (
    "### Describe the bug\nThe app starts but generation is slow.\n### Environment\n"
    "OS: Ubuntu 24.04, kernel 6.8.0-45-generic\nApp version 1.9.2, Python 3.11.9\n"
    "Installed with the one-line installer, models in ~/models, port 8080.\n"
    "Config: context 8192, batch 512, threads 16, flash attention off, mmap on.\n"
    "Loading model llama-3-8b-q4_k_m.gguf ... done in 4.2 s\nServer listening on 0.0.0.0:8080\n"
    "### Logs\n"
)


def test_a_denied_path_that_is_no_gpu_node_is_not_a_permission_cause(matcher: Matcher) -> None:
    # near misses: EACCES on a cache folder, a video-decode stack's render node (the entry's excludes)
    for text in (
        "PermissionError: Permission denied for /home/me/.cache/torch/kernels",
        "I ran the installer with sudo and the script returns True for the check",
        "sudo apt install 可以装上，但是模型加载很慢",
        "ffmpeg -hwaccel vaapi: Permission denied when opening /dev/dri/renderD128",
    ):
        top = matcher.explain_text(text).top
        assert top is None or top.entry.id != "kfd-permission-denied" or not top.confident


def test_a_hip_dll_of_another_release_is_a_mismatch_and_a_missing_one_is_not(
    matcher: Matcher,
) -> None:
    # The HIP SDK renames its runtime per major (amdhip64_6.dll replaces amdhip64.dll,
    # ROCm/rocm-install-on-windows docs/index.rst); a copy found but of an older release is two
    # releases meeting, a DLL not found at all is the library missing.
    older = (
        "llama-server uses C:\\Windows\\System32\\amdhip64_6.dll, which is an older version than"
        " the one in the HIP SDK 6.4 folder; no GPU is found"
    )
    assert _order(matcher, older)[0] == "rocm-library-version-mismatch"
    stale = (
        "The installer drops a stale copy of amdhip64_7.dll next to the exe and the backend fails"
    )
    assert _order(matcher, stale)[0] == "rocm-library-version-mismatch"
    newer = "The Adrenalin driver ships a newer HIP runtime than the one bundled with the app"
    assert _order(matcher, newer)[0] == "rocm-library-version-mismatch"
    # near misses: the DLL is simply absent, or "old" is about something else on the line
    absent = "error while loading: amdhip64_6.dll not found, the HIP SDK is not installed"
    assert _order(matcher, absent)[0] == "hip-runtime-lib-missing"
    other = "copied amdhip64_6.dll to the app folder; my old GPU driver config is kept"
    assert "rocm-library-version-mismatch" not in _order(matcher, other)[:1]


def test_a_zluda_torch_dll_failing_to_load_is_a_missing_hip_library(matcher: Matcher) -> None:
    # ZLUDA replaces torch's nvrtc DLL with its own, which loads the HIP SDK's libraries: WinError
    # 126 for caffe2_nvrtc.dll on an AMD set-up is a library of that chain not found.
    text = (
        "OSError: [WinError 126] The specified module could not be found. Error loading"
        ' "D:\\zluda-ui\\venv\\lib\\site-packages\\torch\\lib\\caffe2_nvrtc.dll" or one of its'
        " dependencies.\nRadeon RX 6800 with ZLUDA"
    )
    assert _order(matcher, text)[0] == "hip-runtime-lib-missing"
    # near miss: the same line on an NVIDIA machine is a CUDA install problem, not a confident ROCm cause
    nvidia = text.replace("Radeon RX 6800 with ZLUDA", "GeForce RTX 3060, CUDA 12.1")
    top = matcher.explain_text(nvidia).top
    assert top is None or not top.confident


def test_nodes_said_not_visible_in_a_container_are_the_node_missing(matcher: Matcher) -> None:
    text = _REPORT_HEAD + (
        "The CI job starts the image with only --network host, so /dev/kfd and /dev/dri are not"
        " visible in it and rocminfo fails.\n"
    )
    top = matcher.explain_text(text).top
    assert top is not None and top.entry.id == "kfd-device-missing" and top.confident
    # near miss: the nodes said to be visible name no missing node
    seen = text.replace(
        "are not visible in it and rocminfo fails", "are visible in it, rocminfo lists the GPU"
    )
    top = matcher.explain_text(seen).top
    assert top is None or top.entry.id != "kfd-device-missing" or not top.confident


def test_the_quoted_invalid_device_function_error_is_no_binary_for_gpu(matcher: Matcher) -> None:
    # hipGetErrorString(hipErrorInvalidDeviceFunction) is "invalid device function" (ROCm/clr):
    # a report quoting it as what the run fails with names the build lacking the GPU's kernels.
    text = _REPORT_HEAD + 'Warm-up of the model fails with "invalid device function" on gfx1151.\n'
    top = matcher.explain_text(text).top
    assert top is not None and top.entry.id == "no-binary-for-gpu" and top.confident
    # near miss: the words unquoted in a sentence about docs stay a weak hint
    plain = (
        _REPORT_HEAD + "The FAQ has a section on invalid device function errors, unrelated here.\n"
    )
    top = matcher.explain_text(plain).top
    assert top is None or top.entry.id != "no-binary-for-gpu" or not top.confident


def test_device_libraries_from_another_rocm_llvm_are_a_mismatch(matcher: Matcher) -> None:
    # LLVM's bitcode reader names the writer and itself; two ROCm ("...git") LLVM majors mean a
    # compiler reading the device libraries of another ROCm release.
    line = (
        "error: cannot open file '/opt/rocm-6.1.0/amdgcn/bitcode/ockl.bc': Unknown attribute kind (91)"
        " (Producer: 'LLVM19.0.0git' Reader: 'LLVM 17.0.0git')\n1 error generated when compiling for gfx90a.\n"
    )
    top = matcher.explain_text(_REPORT_HEAD + line).top
    assert top is not None and top.entry.id == "rocm-library-version-mismatch" and top.confident
    # near misses: one LLVM on both ends (a corrupt file), and a Rust toolchain against Apple's linker
    same = line.replace("'LLVM 17.0.0git'", "'LLVM 19.0.0git'")
    rust = (
        "ld: could not parse bitcode object file: Unknown attribute kind (102)"
        " (Producer: 'LLVM22.1.2-rust-1.96.0-stable' Reader: 'LLVM APPLE_1_1700.0.13.5_0')\n"
    )
    for text in (same, rust):
        ids = _order(matcher, _REPORT_HEAD + text)
        assert "rocm-library-version-mismatch" not in ids[:1]


# --- GPUs, releases and builds as users state them (session 11) ---------------------------


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        # product names as written in issues and forums (the gfx table's product rows)
        ("AMD Radeon RX 6750 XT Support", ["gfx1031"]),
        ("my 6700xt", ["gfx1031"]),
        ("Radeon 890M", ["gfx1150"]),
        ("Radeon 680M laptop", ["gfx1035"]),
        ("Vega 64", ["gfx900"]),
        ("RX 580 8GB", ["gfx803"]),
        ("Radeon PRO W7900 48GB", ["gfx1100"]),
        ("W6800", ["gfx1030"]),
        ("Radeon AI PRO R9700", ["gfx1201"]),
        ("Radeon Pro VII", ["gfx906"]),
        # several cards of one model: "2 x Mi50s" (ggml-org/llama.cpp#17086's title wording)
        ("Vega VII + 2 x Mi50s", ["gfx906"]),
        # inside Chinese text, where Unicode \b sees no boundary (CSDN/zhihu wording)
        ("我的6600显卡跑不了", ["gfx1032"]),
        ("用RX6600显卡", ["gfx1032"]),
        ("7900xtx显卡", ["gfx1100"]),
        ("用780M跑模型", ["gfx1103"]),
        # APU codenames, by the gfx table's families
        ("Strix Halo box", ["gfx1151"]),
        ("a Hawk Point laptop", ["gfx1103"]),
        ("Rembrandt APU", ["gfx1035"]),
        # Ryzen APU models, by the product rows' numbers and series
        ("AMD Ryzen 7 8840U w/ Radeon 780M Graphics", ["gfx1103"]),
        ("Ryzen 9 8945HS", ["gfx1103"]),
        ("Ryzen 7 7840HS", ["gfx1103"]),
        ("Ryzen AI 9 HX 370", ["gfx1150"]),
        ("AMD RYZEN AI MAX+ 395", ["gfx1151"]),
        ("Ryzen 7 6800H", ["gfx1035"]),
        ("Ryzen 7 4700G", ["gfx90c"]),
        # near misses: a model no row holds (Rembrandt-R 7735HS, Dragon Range 7945HX: laptop
        # models whose series the rows do not name), a codename two rows share, a laptop CPU
        # beside a card the tables do not resolve, a desktop CPU, a number that is no card
        ("Ryzen 7 7735HS", []),
        ("Ryzen 9 7945HX", []),
        ("Gorgon Point", []),
        ("Ryzen 7 8845HS and RX 7600S", []),
        ("Ryzen 9 7950X", []),
        ("Phoenix framework app", []),
        ("第6600步显存不足", []),
    ],
)
def test_named_gpus_as_users_write_them(text: str, gpus: list[str]) -> None:
    assert family._named_gpus(text) == gpus


@pytest.mark.parametrize(
    ("text", "age"),
    [
        # ollama's own warning: its bundled rocBLAS carries the listed targets only
        # (discover/amd_linux.go: "amdgpu is not supported (supported types:%s)")
        (
            'level=WARN source=amd_linux.go:378 msg="amdgpu is not supported (supported types:'
            '[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942])"'
            " gpu_type=gfx1032 gpu=0",
            "unbuilt",
        ),
        # ollama found the GPU but ships no runner for it (llm/server.go's debug line)
        (
            'level=DEBUG source=server.go:284 msg="compatible gpu libraries" compatible=[]',
            "unbuilt",
        ),
        # llama.cpp's per-target Windows HIP release on another target's GPU, any generation
        ("llama-b4730-bin-win-hip-x64-gfx1030.zip on a Radeon 780M", "unbuilt"),
        ("llama-b4730-bin-win-hip-x64-gfx1100.zip on an RX 7900 XTX", None),  # its own target
        # a ROCmLibs rocBLAS pack for another target than the card
        (
            "copied rocblas.dll from rocm.gfx1103.AMD.780M.phoenix.V5.0.for.hip.sdk.6.2.4.7z; RX 6600",
            "unbuilt",
        ),
        # a ROCm named by its major alone: older than a GPU only when every minor of it is
        ("RX 9070 XT on ROCm 5", "newer"),
        ("RX 9070 XT on ROCm 6", None),  # 6.4.1 lists it
        ("RX 7900 XTX on ROCm 6", "listed"),  # 6.0.0 lists it
        # Windows' HIP SDK has its own support list: not read against Linux's first listings
        ("RX 9070 XT, HIP SDK 6.2", None),
    ],
)
def test_gfx_age_from_app_builds_and_releases(text: str, age: str | None) -> None:
    assert family.gfx_age(text) == age


@pytest.mark.parametrize(
    ("text", "build"),
    [
        # torch's own assertions (torch/cuda/__init__.py): _lazy_init on a build without CUDA or
        # HIP, _check_driver on a CUDA build
        ("AssertionError: Torch not compiled with CUDA enabled", "cpu"),
        (
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
            "cuda",
        ),
        ("The NVIDIA driver on your system is too old (found version 0)", "cuda"),
        # the version attributes printed with a value
        (">>> torch.version.cuda\n'12.1'", "cuda"),
        ("torch.version.hip: 6.2.41133-dd7f95766", "rocm"),
        # the CPU build told in words, English and Chinese
        ("I think it installs the torch cpu version", "cpu"),
        ("pip gave me the CPU version of PyTorch", "cpu"),
        ("装的是CPU版本的pytorch", "cpu"),
        # near misses: a version tag names the installed build and outranks the words; a CUDA
        # toolkit is not torch's build; torch.version.hip None names nothing
        ("Torch not compiled with CUDA enabled\ntorch 2.3.1+cu121", "cuda"),
        ("CUDA 12.1 installed, the CPU is a Ryzen", None),
        ("torch.version.hip: None", None),
    ],
)
def test_torch_build_from_what_torch_and_users_say(text: str, build: str | None) -> None:
    assert family.torch_build(text) == build


@pytest.mark.parametrize(
    ("text", "state"),
    [
        # "link against" a soname of one major while the other is what the text shows
        (
            "the wheels link against `librocm_smi64.so.6`; my ROCm has librocm_smi64.so.7",
            "mismatch",
        ),
        # the HIP SDK DLL of one major wanted under a HIP SDK of another
        (
            "The code execution cannot proceed because amdhip64_6.dll was not found. I installed"
            " HIP SDK 7.1.",
            "mismatch",
        ),
        ("Could not find module 'amdhip64_7.dll'. HIP SDK 6.2.4 is installed", "mismatch"),
        # near misses: the DLL of the installed major (simply missing), no release named
        ("amdhip64_6.dll was not found. HIP SDK 6.2.4 is installed", None),
        ("amdhip64_6.dll was not found", None),
    ],
)
def test_lib_state_in_more_words(text: str, state: str | None) -> None:
    assert family.lib_state(text) == state


def test_a_member_the_facts_define_is_named_once_found() -> None:
    # the build lacking the GPU is no-binary-for-gpu by the taxonomy's definition: found at
    # all, it reaches the naming bar (0.5), and never passes a cause named more confidently
    out = family.reorder(
        {"no-binary-for-gpu": 0.1, "integrated-gpu-selected": 0.3}, (None, None, "unbuilt")
    )
    assert out == {"no-binary-for-gpu": 0.5, "integrated-gpu-selected": 0.3}
    out = family.reorder(
        {"rocm-library-version-mismatch": 0.25, "rocblas-tensile-missing": 0.9},
        (None, None, None, None, "mismatch"),
    )
    assert out == {"rocm-library-version-mismatch": 0.5, "rocblas-tensile-missing": 0.9}
    # near misses: not found at all (nothing brought in), before the ranker (no lift), and a
    # GPU's age alone, which other causes share
    assert family.reorder({"gpu-hang-or-reset": 0.3}, (None, None, "unbuilt")) == {
        "gpu-hang-or-reset": 0.3
    }
    assert family.reorder({"no-binary-for-gpu": 0.1}, (None, None, "unbuilt"), bring_in=False) == {
        "no-binary-for-gpu": 0.1
    }
    assert family.reorder({"no-binary-for-gpu": 0.1}, (None, None, "borrows")) == {
        "no-binary-for-gpu": 0.1
    }


def test_matcher_names_a_per_target_build_on_another_gpu(matcher: Matcher) -> None:
    text = (
        "Does llama.cpp not support gfx1103 (780M iGPU)? I use llama-b4730-bin-win-hip-x64-gfx1030"
        " and with --n-gpu-layers 100 it does not work.\n"
    )
    top = matcher.explain_text(text).top
    assert top is not None and top.entry.id == "no-binary-for-gpu" and top.confident
    # near miss: the release built for the GPU's own target decides nothing
    top = matcher.explain_text(text.replace("x64-gfx1030", "x64-gfx1103")).top
    assert top is None or top.entry.id != "no-binary-for-gpu" or not top.confident


@pytest.mark.parametrize(
    ("text", "build"),
    [
        # torch.__version__ printed alone, and the CUDA libraries pip pulls in for a CUDA wheel
        (">>> print(torch.__version__)\n2.8.0+cu128", "cuda"),
        ("Using cached nvidia_nvjitlink_cu12-12.6.68-py3-none-manylinux2014_x86_64.whl", "cuda"),
        ("Successfully installed nvidia-cublas-cu12-12.1.3.1 nvidia-cudnn-cu12-8.9.2.26", "cuda"),
        # near misses: other packages' build labels (xformers 0.x, flash-attn's compound label)
        ("xformers 0.0.28.post1+cu124", None),
        ("flash_attn-2.6.3+cu123torch2.4cxx11abiFALSE-cp310-cp310-linux_x86_64.whl", None),
    ],
)
def test_torch_build_from_bare_versions_and_cuda_deps(text: str, build: str | None) -> None:
    assert family.torch_build(text) == build


def test_a_cuda_torch_on_a_machine_that_names_an_nvidia_gpu_is_not_lifted() -> None:
    # collect_env as torch >= 2.6 pads it: the N/A ROCm line and an AMD Ryzen CPU are no AMD GPU
    nvidia = (
        "PyTorch version              : 2.7.0+cu128\nROCM used to build PyTorch   : N/A\n"
        "CPU: AMD Ryzen 5 5600X\nGPU models and configuration : GPU 0: NVIDIA GeForce RTX 5090 D"
    )
    assert family.read(nvidia)[3] is False
    # AMD words beside an NVIDIA card: the CUDA build still outranks the CPU build, but is
    # not raised to the naming bar (it may be the NVIDIA card's own)
    both = nvidia + "\nalso tried my Radeon RX 6800"
    facts = family.read(both)
    assert facts[3] == "nvidia"
    assert family.reorder({"cuda-build-on-amd": 0.1, "cpu-only-build": 0.2}, facts) == {
        "cuda-build-on-amd": 0.2,
        "cpu-only-build": 0.1,
    }
    # a CUDA torch on an AMD machine is the taxonomy's cuda-build-on-amd: named once found
    amd = "2.8.0+cu128\nno cuda device\nGPU: AMD Radeon RX 7900 XTX"
    facts = family.read(amd)
    assert facts[0] == "cuda" and facts[3] is True
    assert family.reorder({"cuda-build-on-amd": 0.04}, facts) == {"cuda-build-on-amd": 0.5}


@pytest.mark.parametrize(
    ("text", "state"),
    [
        # ERROR_PROC_NOT_FOUND as Python raises it, loading torch's HIP part on Windows
        (
            "OSError: [WinError 127] The specified procedure could not be found. Error loading"
            ' "C:\\venv\\Lib\\site-packages\\torch\\lib\\torch_hip.dll" or one of its dependencies.',
            "mismatch",
        ),
        # near miss: the same error on a CUDA library is not ROCm's
        (
            "OSError: [WinError 127] The specified procedure could not be found. Error loading"
            ' "torch\\lib\\cudnn_cnn64_9.dll"',
            None,
        ),
    ],
)
def test_lib_state_on_windows_proc_not_found(text: str, state: str | None) -> None:
    assert family.lib_state(text) == state


def test_no_nvidia_driver_is_no_sign_of_an_nvidia_machine() -> None:
    # torch's "Found no NVIDIA driver" names a CUDA build, but a machine without NVIDIA's
    # driver is not thereby NVIDIA's: the build cause is not held under the bar
    text = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU"
    facts = family.read(text)
    assert facts[0] == "cuda" and facts[3] is None
    assert family.reorder({"cuda-build-on-amd": 0.9}, facts) == {"cuda-build-on-amd": 0.9}
    # near miss: a driver too old is a driver there, on a machine with nothing of AMD's
    facts = family.read("The NVIDIA driver on your system is too old (found version 11040)")
    assert facts[0] == "cuda" and facts[3] is False


@pytest.mark.parametrize(
    ("text", "age"),
    [
        # Blender Cycles' own message: its shipped HIP fatbins lack the card
        (
            '"HIP binary kernel for this graphics card compute capability (11.0) not found."'
            " on a Radeon 7800 XT",
            "unbuilt",
        ),
        # near miss: Cycles compiling kernels (hipcc) is no statement of the shipped build
        ("HIP hipcc compiler not found. Install the HIP SDK", None),
    ],
)
def test_gfx_age_from_blender_cycles(text: str, age: str | None) -> None:
    assert family.gfx_age(text) == age


@pytest.mark.parametrize(
    ("text", "age"),
    [
        # series older than every target the table holds (LLVM: gfx6xx, gfx7xx, gfx801/802)
        ("GPU: Radeon HD 8830M / R7 M465X", "old"),
        ("Sun XT [Radeon HD 8670A/8670M/8690M / R5 M330]", "old"),
        ("my R9 290X on ROCm 5.7", "old"),
        ("R9 290X beside an RX 7900 XTX", None),  # GPUs that disagree
        ("Ryzen 7 5800X3D", None),  # a CPU, not an R7 card
        # a target written with a space, and a bare Strix Halo graphics name
        ("compiling for amd gfx 1032", "borrows"),
        # llama.cpp's device names are no ROCm release: "ROCm0" is not ROCm 0
        (
            "AMD APU 8050S\nROCm0 compute buffer size = 299.75 MiB\nROCm error: invalid device function",
            None,
        ),
    ],
)
def test_gfx_age_from_legacy_series_and_spellings(text: str, age: str | None) -> None:
    assert family.gfx_age(text) == age


@pytest.mark.parametrize(
    ("text", "state"),
    [
        # ZLUDA asking for hiprtc of 5.7 from a HIP SDK 6.2 folder
        (
            "Failed to load ZLUDA: Could not find module"
            " 'C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\hiprtc0507.dll' (or one of its dependencies).",
            "mismatch",
        ),
        # a HIP function missing from the DLL that imports it (ZLUDA's nvcuda.dll)
        (
            "The procedure entry point hipDeviceSetLimit could not be found in the dynamic link"
            " library D:\\Apps\\ZLUDA\\nvcuda.dll",
            "mismatch",
        ),
        # an extension built against another hipBLAS
        ("ImportError: exllama_ext.so: undefined symbol: hipblasGetStream", "mismatch"),
        # torch's DNN-library check on a ROCm build: MIOpen 2.x against 2.y
        (
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (2, 15, 0)"
            " but linked against (2, 16, 0)",
            "mismatch",
        ),
        # near misses: hiprtc of the installed release simply missing; cuDNN's own majors
        ("Could not find module C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\hiprtc0602.dll", None),
        (
            "cuDNN version incompatibility: PyTorch was compiled against (8, 9, 2) but linked"
            " against (8, 7, 0)",
            None,
        ),
    ],
)
def test_lib_state_from_zluda_extensions_and_miopen(text: str, state: str | None) -> None:
    assert family.lib_state(text) == state


# --- session 12 (wkb10): newest tune-side misses ------------------------------------------


@pytest.mark.parametrize(
    ("text", "state"),
    [
        # a ROCm torchaudio's extension asking for torch's HIP library beside a CUDA torch
        (
            "torch==1.10.1+cu111\ntorchaudio==0.10.1+rocm4.1\n"
            "OSError: libtorch_hip.so: cannot open shared object file: No such file or directory",
            "companion",
        ),
        # torchvision's import failing on it, no build tag written
        (
            'File "site-packages/torchvision/extension.py", line 5\n'
            "ImportError: libc10_hip.so: cannot open shared object file: No such file or directory",
            "companion",
        ),
        # near misses: the line alone (torch's own install may be broken), and a ROCm torch
        # missing its own library with nothing else named
        ("ImportError: libtorch_hip.so: cannot open shared object file", None),
        (
            "torch 2.4.0+rocm6.1\n"
            'File "site-packages/torch/__init__.py", line 237, in <module>\n'
            "ImportError: libtorch_hip.so: cannot open shared object file",
            None,
        ),
        # ... even where the import began in a companion (torchvision imports torch first)
        (
            'File "app.py", line 1, in <module>\n    import torchvision\n'
            'File "site-packages/torch/__init__.py", line 237, in <module>\n'
            "ImportError: libtorch_hip.so: cannot open shared object file",
            None,
        ),
    ],
)
def test_lib_state_from_a_rocm_companion_beside_another_torch(text: str, state: str | None) -> None:
    assert family.lib_state(text) == state


def test_a_rocm_companion_beside_a_cuda_torch_is_a_mismatch_not_a_cuda_build(
    matcher: Matcher,
) -> None:
    # collect_env of a CUDA torch on an AMD-named report, torchaudio from the ROCm index: the
    # failing import is torchaudio's, and the packages do not belong together.
    text = (
        _REPORT_HEAD
        + "    from torchaudio import _torchaudio\n"
        + "ImportError: libtorch_hip.so: cannot open shared object file: No such file or directory\n"
        + "PyTorch version: 1.9.0+cu111\nCUDA used to build PyTorch: 11.1\n"
        + "ROCM used to build PyTorch: N/A\n[pip3] torch==1.9.0+cu111\n"
        + "[pip3] torchaudio==0.10.0+rocm4.1\n"
    )
    top = matcher.explain_text(text).top
    assert top is not None and top.entry.id == "rocm-library-version-mismatch" and top.confident
    # near miss: CUDA's own library missing beside the same CUDA torch is not a ROCm mismatch
    cuda = text.replace("libtorch_hip.so", "libtorch_cuda.so").replace("+rocm4.1", "+cu111")
    assert "rocm-library-version-mismatch" not in _order(matcher, cuda)[:1]


def test_rocm_bitcode_read_by_julias_llvm_is_a_mismatch(matcher: Matcher) -> None:
    # AMDGPU.jl: Julia's LLVM ("12.0.1jl") reading ROCm's device libraries of LLVM 14
    line = "ROCm 5.0\nerror: Invalid value (Producer: 'LLVM14.0.0git' Reader: 'LLVM 12.0.1jl')\n"
    top = matcher.explain_text(_REPORT_HEAD + line).top
    assert top is not None and top.entry.id == "rocm-library-version-mismatch" and top.confident
    # near miss: the same major on both ends is no two toolchains meeting
    same = line.replace("'LLVM 12.0.1jl'", "'LLVM 14.0.6jl'")
    assert "rocm-library-version-mismatch" not in _order(matcher, _REPORT_HEAD + same)[:1]


def test_composable_kernel_built_for_a_target_it_lacks(matcher: Matcher) -> None:
    # ck.hpp defines CK_BUFFER_RESOURCE_3RD_DWORD only for the targets CK supports
    line = (
        "cmake -D GPU_TARGETS=gfx1010 ..\n"
        "include/ck/utility/amd_buffer_addressing.hpp:32:48: error: use of undeclared identifier"
        " 'CK_BUFFER_RESOURCE_3RD_DWORD'\n"
    )
    top = matcher.explain_text(_REPORT_HEAD + line).top
    assert top is not None and top.entry.id == "unsupported-gpu-architecture" and top.confident
    # near miss: another undeclared identifier in the same build is a plain compile error
    other = line.replace("CK_BUFFER_RESOURCE_3RD_DWORD", "CK_TILE_FLOAT_TO_BFLOAT16_DEFAULT")
    assert "unsupported-gpu-architecture" not in _order(matcher, _REPORT_HEAD + other)[:1]


def test_hip7_hiprtc_type_traits_moved_out_of_std_is_a_release_mismatch(matcher: Matcher) -> None:
    # HIP 7 moved hipRTC's std type traits to __hip_internal (ROCm/pytorch#2312): kernels an app
    # compiles at run time for HIP 6 fail on HIP 7 with clang's suggestion
    line = (
        "HIP platform error: Error compiling program: /tmp/comgr-1a2b3c/input/CompileSource:42:10:"
        " error: no template named 'is_same' in namespace 'std'; did you mean"
        " '__hip_internal::is_same'?\n"
    )
    top = matcher.explain_text(_REPORT_HEAD + line).top
    assert top is not None and top.entry.id == "rocm-library-version-mismatch" and top.confident
    # near miss: a host compile missing the C++ headers names no __hip_internal
    host = "error: no template named 'is_same' in namespace 'std'\n"
    assert "rocm-library-version-mismatch" not in _order(matcher, _REPORT_HEAD + host)[:1]


def test_a_gpu_reset_told_in_words_is_a_hang_or_reset(matcher: Matcher) -> None:
    text = (
        "[BUG] amdgpu GPU reset (gfxhub page fault) on RX 6800 XT after a kernel update\n"
        "The desktop froze while a game was installing and then came back.\n"
    )
    top = matcher.explain_text(text).top
    assert top is not None and top.entry.id == "gpu-hang-or-reset" and top.confident
    # near miss: nvidia-smi's reset option on an NVIDIA box
    nv = "sudo nvidia-smi --gpu-reset -i 0 on my RTX 4090 says the GPU is busy\n"
    top = matcher.explain_text(nv).top
    assert top is None or top.entry.id != "gpu-hang-or-reset" or not top.confident


def test_an_apps_unsupported_arch_follows_the_gpus_age(matcher: Matcher) -> None:
    # tinygrad's AMD backend refusing the card's gfx: gfx906 is a target ROCm dropped
    old = "Error processing prompt: Unsupported arch: gfx906\n"
    assert _order(matcher, _REPORT_HEAD + old)[0] == "unsupported-gpu-architecture"
    # a card whose ISA a listed target covers: the app's build lacks it
    borrows = old.replace("gfx906", "gfx1032")
    assert _order(matcher, _REPORT_HEAD + borrows)[0] == "no-binary-for-gpu"
    # near miss: a CPU architecture refused by a build script is nothing of the GPU
    cpu = "RuntimeError: Unsupported arch: aarch64\n"
    top = matcher.explain_text(_REPORT_HEAD + cpu).top
    assert top is None or not top.confident


def test_an_env_report_line_naming_rocm_as_not_available_is_no_amd_word(matcher: Matcher) -> None:
    # Liger-Kernel's env report prints "HIP(ROCm) version: Not available" on CUDA machines
    from rocmfix.kb.matcher import amd_named

    report = "PyTorch version: 2.5.1+cu121\nCUDA version: 12.1\nHIP(ROCm) version: Not available\n"
    assert not amd_named(report)
    assert not family.names_amd(report)
    top = matcher.explain_text("result of the loss is always 0\n" + report).top
    assert top is None or top.entry.id != "cuda-build-on-amd" or not top.confident
    # near miss: the same line with a HIP version is a ROCm build on an AMD machine
    assert amd_named(report.replace("Not available", "6.2.41133-dd7f95766"))


def test_hiprtc_that_cannot_load_the_hip_runtime_is_a_missing_library(matcher: Matcher) -> None:
    # clr's RTCProgram::findIsa dlopens libamdhip64 and, failing, writes these two lines
    log = (
        "MIOpen(HIP): Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6), source file: MIOpenPooling.cpp\n"
        "MIOpen(HIP): Warning [BuildHip] hip runtime failed to load.\n"
        "Error: Please provide architecture for which code is to be generated.\n"
    )
    assert _order(matcher, _REPORT_HEAD + log)[0] == "hip-runtime-lib-missing"
    # near miss: the compile failing on its own source is no missing library
    plain = log.splitlines()[0] + "\nerror: use of undeclared identifier 'foo'\n"
    assert "hip-runtime-lib-missing" not in _order(matcher, _REPORT_HEAD + plain)[:1]


def test_an_rccl_error_told_after_its_words_is_an_rccl_failure(matcher: Matcher) -> None:
    text = "Split across 2 GPUs with ROCm 5.7, I get an unhandled cuda error from rccl.\n"
    top = matcher.explain_text(text).top
    assert top is not None and top.entry.id == "distributed-rccl-failure" and top.confident
    # near miss: an error from some other library named after the same words
    other = "Split across 2 GPUs with ROCm 5.7, I get an internal error from rocBLAS.\n"
    assert "distributed-rccl-failure" not in _order(matcher, other)[:1]


def test_missing_code_objects_for_a_gfx_told_in_words_is_no_binary(matcher: Matcher) -> None:
    text = "Missing `gfx1030` code objects: the packaged rocBLAS is built for gfx1031 only\n"
    assert _order(matcher, _REPORT_HEAD + text)[0] == "no-binary-for-gpu"
    # near miss: code objects named without anything missing
    plain = "The package ships gfx1030 code objects and gfx1031 kernels\n"
    top = matcher.explain_text(_REPORT_HEAD + plain).top
    assert top is None or top.entry.id != "no-binary-for-gpu" or not top.confident


def test_a_hip_function_missing_from_the_loaded_runtime_is_a_mismatch(matcher: Matcher) -> None:
    # hashcat's HC_LOAD_FUNC: the HIP runtime it dlopened lacks a function it was written against
    line = "hipFuncSetSharedMemConfig is missing from HIP shared library.\n"
    assert family.lib_state(line) == "mismatch"
    assert _order(matcher, _REPORT_HEAD + line)[0] == "rocm-library-version-mismatch"
    # near miss: an OpenCL function missing from OpenCL's library is nothing of two ROCm releases
    other = "clGetKernelSubGroupInfo is missing from OpenCL shared library.\n"
    assert family.lib_state(other) is None


def test_an_older_libstdcxx_in_front_of_rocm_is_a_library_that_cannot_load(matcher: Matcher) -> None:
    # Julia's (or a conda env's) own libstdc++ loaded before the system one: the ROCm library
    # cannot load, and no second ROCm release is involved
    line = (
        "could not load library \"/opt/rocm/hsa/lib/libhsa-runtime64.so\"\n"
        "/opt/julia-1.4.1/lib/julia/libstdc++.so.6: version `GLIBCXX_3.4.26' not found"
        " (required by /opt/rocm/hsa/lib/libhsa-runtime64.so)\n"
    )
    assert _order(matcher, _REPORT_HEAD + line)[0] == "hip-runtime-lib-missing"
    # near miss: a HIP symbol version not found is two ROCm releases meeting
    hip = (
        "/opt/rocm/lib/libamdhip64.so.6: version `hip_6.2' not found"
        " (required by /venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so)\n"
    )
    assert _order(matcher, _REPORT_HEAD + hip)[0] == "rocm-library-version-mismatch"


def test_a_display_driver_update_that_breaks_zluda_is_a_mismatch(matcher: Matcher) -> None:
    # Windows' HIP runtime comes with the Adrenalin driver and ZLUDA is built against one: a
    # driver update blamed for breaking ZLUDA (or a rollback that mends it) is that runtime
    # changing under ZLUDA
    told = (
        "Windows 11, RX 7800 XT, SD.Next with ZLUDA.\n"
        "Since the new Adrenalin driver torch.cuda.is_available() returns False.\n"
        "Rolling back the driver to the previous release fixed it.\n"
    )
    assert family.lib_state(told) == "mismatch"
    result = matcher.explain_text(told)
    assert result.matches[0].entry.id == "rocm-library-version-mismatch"
    assert result.matches[0].confident
    one_line = "Adrenalin driver 26.1.1 breaks ZLUDA: no CUDA device found any more\n"
    assert _order(matcher, one_line)[0] == "rocm-library-version-mismatch"
    assert matcher.explain_text(one_line).matches[0].confident
    # near misses: a rollback that cured a hang on ROCm, no ZLUDA; a ZLUDA set-up that only
    # mentions its driver
    hang = (
        "ROCm 6.2 on Ubuntu, RX 6800: the screen froze during training.\n"
        "Rolling back the driver to the previous release fixed it.\n"
    )
    assert family.lib_state(hang) is None
    assert all(
        m.entry.id != "rocm-library-version-mismatch" or not m.confident
        for m in matcher.explain_text(hang).matches
    )
    updated = "I updated the Adrenalin driver to the latest version and installed ZLUDA 3.9.5.\n"
    assert family.lib_state(updated) is None
    tried = "ZLUDA finds no GPU. Rolling back the driver to 25.3.1 did not help, still no device.\n"
    assert family.lib_state(tried) is None


def test_a_rocm_backend_module_windows_cannot_load_is_a_missing_hip_library(matcher: Matcher) -> None:
    # ERROR_MOD_NOT_FOUND for an app's ROCm backend module that is there: a DLL it links
    # against (the HIP runtime, rocBLAS) is not found
    line = (
        "Failed to load LLM engine from path: C:\\Apps\\llm\\backends\\engine-win-x64-rocm-2.1.0"
        "\\llm_engine_rocm.node. The specified module could not be found.\n"
    )
    result = matcher.explain_text(line)
    assert result.matches[0].entry.id == "hip-runtime-lib-missing"
    assert result.matches[0].confident
    # near miss: the same loader error for torch's own CPU-side DLL names no ROCm library
    other = (
        'OSError: [WinError 126] The specified module could not be found. Error loading '
        '"C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.\n'
    )
    assert not any(m.confident for m in matcher.explain_text(other).matches)
