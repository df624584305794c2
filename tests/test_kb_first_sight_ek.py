"""Failure modes that rounds ek-et's tune side missed at first sight (issue 11, wkb13): each the kind
of line upstream code prints (or the way people tell it), written here in our own words around the
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


def _named(matcher: Matcher, text: str) -> set[str]:
    return {m.entry.id for m in matcher.explain_text(text).matches if m.confident}


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        # Hygon DTK's HIP runtime not on the loader path
        (
            '  File "/opt/py310/lib/python3.10/site-packages/torch/__init__.py", line 237, in <module>\n'
            "ImportError: libgalaxyhip.so.5: cannot open shared object file: No such file or directory",
            "hip-runtime-lib-missing",
        ),
        # ZLUDA's nvcuda.dll whose HIP dependencies Windows cannot find
        (
            "Failed to load ZLUDA: Could not find module 'D:\\sd\\.zluda\\nvcuda.dll' (or one of its dependencies). "
            "Try using the full path with constructor syntax.",
            "hip-runtime-lib-missing",
        ),
        # clang reading another LLVM's device-library bitcode; the log wraps the Producer/Reader pair
        (
            "fatal error: cannot open file '/spack/opt/llvm-amdgpu-6.3.1-abc/amdgcn/bitcode/ockl.bc': Invalid record "
            "(Producer: 'LLVM19.0.0git' R\n   eader: 'LLVM 17.0.0git')\n1 error generated when compiling for gfx942.",
            "rocm-library-version-mismatch",
        ),
        # a CUDA-only companion's setup.py on a ROCm torch
        (
            "RuntimeError: flash_attn was requested, but nvcc was not found.  Are you sure your environment has nvcc "
            "available?\n      torch.__version__  = 2.3.0+rocm6.0",
            "cuda-build-on-amd",
        ),
        # onnxruntime's CUDA build behind an app's provider choices, on an AMD card
        (
            "Radeon RX 6700 XT, Windows 11\nrun.py: error: argument --execution-provider: invalid choice: 'dml' "
            "(choose from 'tensorrt', 'cuda', 'cpu')",
            "cuda-build-on-amd",
        ),
        # onnxruntime's CPU build: the CPU provider alone
        (
            "AMD RX 7800 XT\nrun.py: error: argument --execution-provider: invalid choice: 'dml' (choose from 'cpu')",
            "cpu-only-build",
        ),
        # a sandbox's private /dev without the KFD node
        (
            "RX 6800, firejail with private-dev: hashcat prints No devices found/left.",
            "kfd-device-missing",
        ),
        (
            "ollama.service has PrivateDevices=yes, so the Radeon is never seen by ROCm",
            "kfd-device-missing",
        ),
        # DirectML's device removal (a reset) on an AMD card
        (
            "GPU: RX 6600\nF dml_command_recorder.cc:366] Check failed: (((HRESULT)((dml_device_->GetDeviceRemovedReason()))) >= 0)",
            "gpu-hang-or-reset",
        ),
        # VRAM told in words at a GPU stage of an image pipeline
        (
            "RX 7900 XT with ZLUDA: it runs out of memory in the VAE decode step every time",
            "gpu-out-of-memory",
        ),
        # an extension built against another torch than the one imported, on a ROCm machine
        (
            "ROCm 6.2, torch 2.4.0+rocm6.1\nOSError: /opt/conda/lib/python3.12/site-packages/torch_cluster/_grid_cpu.so: "
            "undefined symbol: _ZN3c1017RegisterOperatorsD1Ev",
            "rocm-library-version-mismatch",
        ),
        # the companion told as the reason a ROCm run crashes
        ("Forge crashes on startup on ROCm, caused by bitsandbytes I think", "cuda-build-on-amd"),
        # DirectML's default adapter 0 being the iGPU
        (
            "Radeon RX 6500M laptop: torch-directml always uses device 0, the integrated Intel UHD, and I cannot pick the Radeon",
            "integrated-gpu-selected",
        ),
        # a container runner that loses the --device flags
        (
            "The compose runner ignores the device flags on ROCm, so vLLM finds no platform",
            "kfd-device-missing",
        ),
        # the soname the binary wants, told in words
        (
            "import torch keeps searching for libamdhip64.so.5 and my system has ROCm 6.1 only",
            "hip-runtime-lib-missing",
        ),
        # an iGPU no official build targets, not used
        (
            "[Issue]: PyTorch doesn't use GPU on my Radeon 780M (gfx1103), everything runs on the CPU",
            "no-binary-for-gpu",
        ),
        # the same card where the report is about the card: still named
        (
            "My RX 580 is no longer supported by ROCm 6, hipErrorNoBinaryForGpu",
            "unsupported-gpu-architecture",
        ),
        (
            "ollama 在 Radeon 680M 上无法调用GPU",
            "no-binary-for-gpu",
        ),
    ],
)
def test_first_sight_line_names_its_cause(matcher: Matcher, text: str, cause: str) -> None:
    assert _top(matcher, text) == cause


@pytest.mark.parametrize(
    ("text", "not_cause"),
    [
        # a missing device-library file is not two LLVMs
        (
            "fatal error: cannot open file '/opt/rocm/amdgcn/bitcode/ocml.bc': No such file or directory",
            "rocm-library-version-mismatch",
        ),
        # a CUDA torch without the CUDA toolkit (no AMD anywhere)
        (
            "RuntimeError: flash_attn was requested, but nvcc was not found.\ntorch 2.3.0+cu121, RTX 4090",
            "cuda-build-on-amd",
        ),
        # 'directml' is no provider name: a typo, whatever onnxruntime is installed
        (
            "I have an AMD card\nrun.py: error: argument --execution-provider: invalid choice: 'directml' "
            "(choose from 'tensorrt', 'cuda', 'cpu')",
            "cuda-build-on-amd",
        ),
        # a ZLUDA folder whose other DLL is missing by name is not read by the nvcuda.dll line
        (
            "Could not find module 'C:\\app\\nvcuda.dll' (or one of its dependencies), RTX 3060",
            "hip-runtime-lib-missing",
        ),
        # firejail's private-bin is another option
        (
            "RX 6800: with private-bin hashcat says /usr/local/bin/OpenCL/: No such file or directory",
            "kfd-device-missing",
        ),
        # DirectML device removal on an NVIDIA adapter
        (
            "GeForce RTX 3070\nCheck failed: (((HRESULT)((dml_device_->GetDeviceRemovedReason()))) >= 0) == true",
            "gpu-hang-or-reset",
        ),
        # host memory of a compile, not VRAM
        (
            "Building rocblas the clang process runs out of memory and swap on my 16 GB box",
            "gpu-out-of-memory",
        ),
        # the iGPU working is no failure
        (
            "Radeon 780M (gfx1103) works fine with HSA_OVERRIDE_GFX_VERSION=11.0.0",
            "no-binary-for-gpu",
        ),
        # Windows on ARM has no ROCm: pip's "no matching distribution" there is not an AMD wheel problem
        (
            '"platform_machine": "ARM64",\nERROR: Could not find a version that satisfies the requirement torch '
            "(from versions: none)\nERROR: No matching distribution found for torch",
            "python-or-wheel-incompatible",
        ),
        # the same extension/torch mismatch on an NVIDIA machine is not ours
        (
            "RTX 4090, torch 2.4.0+cu121\nOSError: /venv/site-packages/torch_scatter/_scatter_cpu.so: undefined symbol: "
            "_ZN5torch3jit17parseSchemaOrNameERKSs",
            "rocm-library-version-mismatch",
        ),
        # a crash told with another reason, the companion named beside it
        (
            "WebUI crashes on ROCm due to a MES timeout; bitsandbytes itself loads fine",
            "cuda-build-on-amd",
        ),
        # naming the device index that works is no wrong pick
        (
            "DirectML: creating device on adapter 0 (AMD Radeon RX 7900 XTX) and it runs fine",
            "integrated-gpu-selected",
        ),
        # device flags passed, the failure elsewhere
        (
            "Passed the device flags on ROCm (--device /dev/kfd) and it still segfaults in rocBLAS",
            "kfd-device-missing",
        ),
        # an interpreter without torch fails before any GPU code, whatever card is named
        (
            "AMD RX 580 8GB, in the ROCm docker image: ModuleNotFoundError: No module named 'torch'",
            "unsupported-gpu-architecture",
        ),
        # the build host's RAM exhausted while compiling the stack, an old card named beside it
        (
            "Possible memory leak building rocblas: clang eats all the ram and swap. My GPU is an RX 590.",
            "unsupported-gpu-architecture",
        ),
        # a distribution's build-from-source bug of the rccl package is no collective failure
        (
            "Source: rccl\nTags: ftbfs\nDuring a test rebuild, rccl failed to rebuild.",
            "distributed-rccl-failure",
        ),
    ],
)
def test_first_sight_near_miss_is_not_named(matcher: Matcher, text: str, not_cause: str) -> None:
    assert not_cause not in _named(matcher, text)
