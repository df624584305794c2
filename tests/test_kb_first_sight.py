"""Failure modes that rounds eb-ej and the older late rounds missed at first sight (issue 11,
wkb12): each the kind of line upstream code prints, written here in our own words around the
upstream string, with a near miss that must not be named."""

from __future__ import annotations

import pytest

from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(load_kb(use_cache=False), use_ranker=False)


def _top(matcher: Matcher, text: str) -> str | None:
    top = matcher.explain_text(text).top
    return top.entry.id if top is not None else None


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        # an extension built against another torch/ROCm: torch's c10::hip namespace symbol is missing
        (
            "WARNING [rocm.py:31] Failed to import from myext._C with ImportError('/opt/venv/lib/python3.12/"
            "site-packages/myext/_C.abi3.so: undefined symbol: _ZN3c103hip19getCurrentHIPStreamEa')",
            "rocm-library-version-mismatch",
        ),
        # at::hip, const member
        (
            "ImportError: /home/u/.local/lib/python3.10/site-packages/fa_ext.so: undefined symbol: "
            "_ZNK2at3hip9HIPStream6streamEv",
            "rocm-library-version-mismatch",
        ),
        # bitsandbytes' CUDA setup inside a ROCm torch process (AMD named): the CUDA build of the companion
        (
            "Running on a Radeon RX 6800 with ROCm 5.6\nAttributeError: python3: undefined symbol: cudaRuntimeGetVersion",
            "cuda-build-on-amd",
        ),
        # an app's HIP backend DLL that is present but cannot be loaded: the HIP SDK runtime is not found
        (
            "[EXTPROCESS] Can not load shared library: C:\\apps\\sdgui\\stable-diffusion_hipblas.dll\n"
            "The dll is present at that path. Radeon RX 6700 XT, Windows 11.",
            "hip-runtime-lib-missing",
        ),
        (
            "error: failed to load library ggml-rocm.dll (AMD Radeon RX 7600)",
            "hip-runtime-lib-missing",
        ),
        # the override told as the cure: the build had no code objects for the card's own gfx
        (
            "On Linux my RX 7900 XTX only works when ComfyUI is started as HSA_OVERRIDE_GFX_VERSION=11.0.0 python main.py",
            "no-binary-for-gpu",
        ),
        (
            "RX 6650 XT (gfx1032): setting HSA_OVERRIDE_GFX_VERSION=10.3.0 in the service fixed it",
            "no-binary-for-gpu",
        ),
        # the Raphael iGPU's target as people space it, beside the discrete card meant
        (
            "AMD Radeon RX 7900 XT gives a RocBlas error for gfx 1036 instead of gfx 1100",
            "integrated-gpu-selected",
        ),
        # the GPU unused for want of the group permissions ROCR needs on /dev/kfd and the render node
        (
            "[Bug] Inference does not use the AMD iGPU on my Ryzen AI Max+ 395 without appropriate permissions",
            "kfd-permission-denied",
        ),
        (
            "Inside the container the GPUs are not visible due to lack of permissions on /dev/kfd",
            "kfd-permission-denied",
        ),
        # a GPU page fault on an APU whose report describes its UMA memory: the fault, not the GTT cap
        (
            "Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f00. Reason: Page not present or "
            "supervisor privilege.\nThis is an APU (UMA) system, the iGPU has no dedicated VRAM, all memory is shared\n"
            "GPU: Radeon 890M, gfx1150",
            "memory-access-fault",
        ),
    ],
)
def test_first_sight_failure_mode_names_its_cause(matcher: Matcher, text: str, cause: str) -> None:
    assert _top(matcher, text) == cause


@pytest.mark.parametrize(
    ("text", "not_cause"),
    [
        # a generic c10 symbol (not torch's HIP namespace) is no ROCm evidence by itself
        (
            "ImportError: /venv/lib/python3.11/site-packages/myext/_C.so: undefined symbol: "
            "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs",
            "rocm-library-version-mismatch",
        ),
        # the same CUDA runtime symbol on an NVIDIA box is not ours
        (
            "GeForce RTX 3090, CUDA 12.1\nAttributeError: python3: undefined symbol: cudaRuntimeGetVersion",
            "cuda-build-on-amd",
        ),
        # permissions that are not the GPU's (a file the script writes)
        (
            "Radeon RX 7900 XT: saving the output fails without appropriate permissions on the output folder",
            "kfd-permission-denied",
        ),
        (
            "the installer cannot write to C:\\Program Files due to lack of permissions",
            "kfd-permission-denied",
        ),
        # a number that only looks like the target
        (
            "Radeon RX 6800 XT: the job ran for 1036 seconds, then gfx clocks dropped",
            "integrated-gpu-selected",
        ),
        # a library that is not a HIP/ROCm backend
        (
            "Can not load shared library: C:\\apps\\plugins\\libcasadi_nlpsol_ipopt.dll on my Radeon machine",
            "hip-runtime-lib-missing",
        ),
        # an APU whose allocation fails under the GTT cap stays apu-gtt-memory-limit (no page fault)
        (
            "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "512.00 MiB\nRyzen 7 7840U, Radeon 780M, UMA frame buffer size 512M in the BIOS",
            "memory-access-fault",
        ),
    ],
)
def test_first_sight_near_miss_is_not_named(matcher: Matcher, text: str, not_cause: str) -> None:
    assert _top(matcher, text) != not_cause


def test_an_apu_oom_under_the_gtt_cap_is_still_named() -> None:
    m = Matcher(load_kb(use_cache=False), use_ranker=False)
    text = (
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "512.00 MiB\nRyzen 7 7840U, Radeon 780M, UMA frame buffer size 512M in the BIOS"
    )
    assert _top(m, text) == "apu-gtt-memory-limit"


@pytest.mark.parametrize(
    "line",
    [
        "adding HSA_OVERRIDE_GFX_VERSION=10.3.0 does not fix the issue, it still crashes",
        "HSA_OVERRIDE_GFX_VERSION=10.3.0 didn't help, nothing fixed it",
        "HSA_OVERRIDE_GFX_VERSION=11.0.0 never fixed the crash",
    ],
)
def test_an_override_tried_in_vain_is_not_read_as_the_cure(matcher: Matcher, line: str) -> None:
    # (a short line alone is also matched by the entry's typed symptoms; only the signature is asked here)
    result = matcher.explain_text(line)
    weights = [
        e.weight for m in result.matches if m.entry.id == "no-binary-for-gpu" for e in m.evidence
    ]
    assert weights and max(weights) < 0.5


def test_a_windows_access_violation_alone_names_no_cause(matcher: Matcher) -> None:
    # where the runner died, not why (its bundled rocBLAS, an iGPU, a DLL of another release ...)
    text = "Radeon 780M, Windows 11\nError: llama runner process has terminated: exit status 0xc0000005"
    assert _top(matcher, text) is None
    # a crash told with its own cause-free words and nothing else still reads as the crash on Linux
    assert (
        _top(matcher, "import torch on my RX 6800: Segmentation fault (core dumped)")
        == "segfault-at-gpu-init"
    )


@pytest.mark.parametrize(
    ("text", "state"),
    [
        # ROCm's LLVM and Mesa's in one backtrace (ROCm/ROCm-CompilerSupport#52)
        (
            "Blender Cycles with HIP on a Radeon RX 9070 XT crashes:\n"
            "/nix/store/abc-llvm-22.0.0-rocm-lib/lib/libLLVM.so.22.0(+0x2d57423) [0x746e93757423]\n"
            "/nix/store/def-llvm-21.1.8-lib/lib/libLLVM.so.21.1(_ZN4llvm15AnalysisManager+0x4ea) [0x74705a]",
            "mismatch",
        ),
        (
            "#4 in ?? () from /usr/lib/llvm/14/lib64/libLLVM-14.so\n#9 in ?? () from /opt/rocm/llvm/lib/libLLVM.so.17git",
            "mismatch",
        ),
        # near miss: two LLVMs in a process that names nothing of AMD (Julia's and Mesa's on an Intel laptop)
        ("julia crashed in libLLVM-11jl.so beside /usr/lib/libLLVM-15.so from iris_dri.so", None),
        # near misses: one LLVM named, however often; a library that is not LLVM's
        ("libLLVM.so.19.1(+0x12) [0x1]\nlibLLVM.so.19.1(+0x34) [0x2]", None),
        ("libLLVM-11jl.so: cannot open shared object file: No such file or directory", None),
        ("libLLVMSupport.a libLLVMCore.a built with clang 17 and 18", None),
    ],
)
def test_two_llvm_majors_in_one_process_are_a_library_mismatch(
    text: str, state: str | None
) -> None:
    from rocmfix.kb import family  # noqa: PLC0415

    assert family.lib_state(text) == state


def test_a_backtrace_with_two_llvms_names_the_mismatch() -> None:
    m = Matcher(load_kb(use_cache=False))
    text = (
        "Blender crashes with HIP enabled on my RX 9070 XT, Cycles render\n"
        "/nix/store/abc-llvm-22.0.0-rocm-lib/lib/libLLVM.so.22.0(+0x2d57423) [0x746e93757423]\n"
        "/nix/store/def-llvm-19.1.7-lib/lib/libLLVM.so.19.1(_ZN4llvm15AnalysisManager+0x4ea) [0x74705a]\n"
    )
    top = m.explain_text(text).top
    assert top is not None and top.entry.id == "rocm-library-version-mismatch"
    # near miss: the same crash with one LLVM in the backtrace names no mismatch
    one = text.replace("libLLVM.so.19.1", "libLLVM.so.22.0")
    top = m.explain_text(one).top
    assert top is None or top.entry.id != "rocm-library-version-mismatch"
    # LLVM's own refusal of a second copy's options, on a ROCm machine
    reg = "clinfo on ROCm 6.1 with radeonsi\nmesa: CommandLine Error: Option 'h' registered more than once!\nLLVM ERROR: inconsistency in registered CommandLine options"
    top = m.explain_text(reg).top
    assert top is not None and top.entry.id == "rocm-library-version-mismatch"


def test_no_gpu_seen_on_a_gcn4_or_older_card_is_the_unsupported_gpu() -> None:
    from rocmfix.kb import family  # noqa: PLC0415

    text = "No HIP GPUs are available\nUbuntu 22.04 with [AMD/ATI] Lexa PRO [Radeon 540/540X/550/550X / RX 540X/550/550X]"
    facts = family.read(text)
    assert facts[2] == "old" and facts[5:] == ("gcn",)
    out = family.reorder({"no-gpu-visible": 0.85, "unsupported-gpu-architecture": 0.1}, facts)
    assert out == {"no-gpu-visible": 0.1, "unsupported-gpu-architecture": 0.85}
    m = Matcher(load_kb(use_cache=False))
    top = m.explain_text(text).top
    assert top is not None and top.entry.id == "unsupported-gpu-architecture"
    # near misses: a gfx9 card that is "old" (MI25, gfx900) keeps the zero-device reading, as does
    # a text naming no GPU
    mi25 = "No HIP GPUs are available\nproduct: Vega 10 [Radeon Instinct MI25 MxGPU] (gfx900)"
    facts = family.read(mi25)
    assert facts[2] == "old" and facts[5:] == ()
    assert family.reorder({"no-gpu-visible": 0.85}, facts)["no-gpu-visible"] == 0.85
    assert family.read("RuntimeError: No HIP GPUs are available")[5:] == ()
