"""Upstream error strings and general facts behind the weakest ids of rounds at..bf, each with a
near-miss that must not be named: the line as the upstream code prints it (or as people retell it),
written here in our own words around the upstream string."""

from __future__ import annotations

import pytest

from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(load_kb(use_cache=False), use_ranker=False)


def _top(matcher: Matcher, text: str) -> tuple[str, bool] | None:
    result = matcher.explain_text(text)
    top = result.top
    return (top.entry.id, top.confident) if top is not None else None


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        # tensorflow-rocm gpu_device.cc: a gfx9/gfx10 card outside the build's arch list
        (
            "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1990] Ignoring visible gpu device (device: 0, "
            "name: AMD Radeon RX 6650 XT, pci bus id: 0000:03:00.0) with AMDGPU version : gfx1032. "
            "The supported AMDGPU versions are gfx900, gfx906, gfx908, gfx90a, gfx1030.",
            "no-binary-for-gpu",
        ),
        # an RDNA3 card whose sibling arch is in the list: the build lacks this one's code objects
        (
            "Ignoring visible gpu device (device: 0, name: AMD Radeon RX 7700 XT) with AMDGPU version : gfx1101. "
            "The supported AMDGPU versions are gfx1030, gfx1100, gfx900, gfx906, gfx908, gfx90a.",
            "no-binary-for-gpu",
        ),
        # LLVM: MFMA builtins need mai-insts (CDNA only)
        (
            "include/ck/warp_gemm.hpp:88:13: error: '__builtin_amdgcn_mfma_f32_16x16x16f16' needs target "
            "feature mai-insts\n1 error generated when compiling for gfx1100.",
            "unsupported-gpu-architecture",
        ),
        # ROCm k8s-device-plugin: nothing advertised, no pod gets /dev/kfd
        ("kubectl describe node worker-2 shows Allocatable: amd.com/gpu: 0 on a node with an MI210", "kfd-device-missing"),
        ("Allocatable:\n  cpu:          64\n  amd.com/gpu:  0\n  memory:       515Gi", "kfd-device-missing"),
        # onnxruntime without the ROCm provider: a CUDA build ...
        (
            "UserWarning: Specified provider 'ROCMExecutionProvider' is not in available provider names."
            "Available providers: 'CUDAExecutionProvider, CPUExecutionProvider'",
            "cuda-build-on-amd",
        ),
        # ... or the plain CPU package
        (
            "UserWarning: Specified provider 'ROCMExecutionProvider' is not in available provider names."
            "Available providers: 'AzureExecutionProvider, CPUExecutionProvider'",
            "cpu-only-build",
        ),
        # an extension built against a CUDA torch, loaded under a ROCm torch
        (
            "torch 2.4.0+rocm6.1\nImportError: libc10_cuda.so: cannot open shared object file: No such file or directory",
            "cuda-build-on-amd",
        ),
        # Paddle's GPU build that found no device, on an AMD machine
        (
            "ROCm 6.2, Radeon PRO W7900\nW1203 init.cc:182] Compiled with WITH_GPU, but no GPU found in runtime.",
            "no-gpu-visible",
        ),
        # PCIe atomics (ROCm docs): cards on x1 risers or a platform without atomics are left out
        ("Two RX 580s on my mining rig, only the one in the x16 slot shows up, the others sit on x1 risers", "no-gpu-visible"),
        ("rocminfo lists only the CPU agent; the board does not support PCIe atomics for the second slot", "no-gpu-visible"),
        # HCC-era libraries (removed with the move to HIP-Clang in ROCm 3.5)
        (
            "ImportError: libmcwamp.so: cannot open shared object file: No such file or directory",
            "rocm-library-version-mismatch",
        ),
        ("ROCm Configuration Error: Cannot find rocm library hip_hcc", "rocm-library-version-mismatch"),
        # Windows HIP SDK: hiprtc named after its SDK version, asked for inside another major's folder
        (
            "Failed to load ZLUDA: Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\hiprtc0507.dll' "
            "(or one of its dependencies).",
            "rocm-library-version-mismatch",
        ),
        # ROCclr's comgrctx.cpp: the code object manager library could not be loaded
        (
            ":1:comgrctx.cpp:66: Failed to load COMGR library.\n"
            ":1:rocdevice.cpp:621: Code object manager initialization failed for HSA device gfx1030",
            "hip-runtime-lib-missing",
        ),
        # told in words
        (
            "the tensorflow-rocm wheels on PyPI seem to require ROCm 3.3 or lower, and I am on 3.5",
            "rocm-library-version-mismatch",
        ),
        (
            "I think these framework wheels are built with specific versions of ROCm, so the new release breaks them",
            "rocm-library-version-mismatch",
        ),
    ],
)
def test_upstream_fact_names_its_cause(matcher: Matcher, text: str, cause: str) -> None:
    assert _top(matcher, text) == (cause, True), matcher.explain_text(text).matches[:3]


@pytest.mark.parametrize(
    ("text", "not_cause"),
    [
        # an RDNA3 card beside a list with no RDNA3 arch at all: the release predates the card
        (
            "Ignoring visible gpu device (device: 0, name: Radeon RX 7900 XTX) with AMDGPU version : gfx1100. "
            "The supported AMDGPU versions are gfx1030, gfx900, gfx906, gfx908, gfx90a.",
            "no-binary-for-gpu",
        ),
        # a gfx8 card: unsupported, not a missing build target
        (
            "Ignoring visible gpu device (device: 0, name: Radeon RX 580) with AMDGPU version : gfx803. "
            "The supported AMDGPU versions are gfx900, gfx906, gfx908.",
            "no-binary-for-gpu",
        ),
        # other target features and a node that does advertise GPUs
        ("error: '__builtin_amdgcn_dot4_i32_i8' needs target feature dot1-insts", "unsupported-gpu-architecture"),
        ("Allocatable: amd.com/gpu: 8", "kfd-device-missing"),
        # onnxruntime with the ROCm provider present
        ("Available providers: 'ROCMExecutionProvider, CPUExecutionProvider'", "cuda-build-on-amd"),
        # a ROCm torch's own library
        ("ImportError: libc10_hip.so: cannot open shared object file", "cuda-build-on-amd"),
        # the Paddle line on a machine that shows only NVIDIA
        ("NVIDIA GeForce RTX 3060\nCompiled with WITH_GPU, but no GPU found in runtime.", "no-gpu-visible"),
        # ROCm versions named without any mismatch
        ("PyTorch wheels are built for ROCm 6.2 and I installed ROCm 6.2, works fine", "rocm-library-version-mismatch"),
        ("requires ROCm 6.0 or newer", "rocm-library-version-mismatch"),
        # ROCclr's line for an enumerated GPU whose link lacks atomics (an eGPU bridge): not a hidden GPU
        ("ROCm 6.3, RX 7900 XTX over USB4\n:3:rocdevice.cpp :2931: Pcie atomics not enabled, hostcall not supported", "no-gpu-visible"),
        # risers on an NVIDIA rig
        ("8x RTX 3070 on x1 risers, all eight detected by nvidia-smi", "no-gpu-visible"),
        # the code object manager loaded and reporting a compile error: no library missing
        (
            ":3:comgrctx.cpp:60: Loaded COMGR library version 3.0.\nerror: comgr failed to compile",
            "hip-runtime-lib-missing",
        ),
        # the SDK's own hiprtc in its own folder: missing, not mismatched
        ("Could not find module 'C:\\Program Files\\AMD\\ROCm\\5.7\\bin\\hiprtc0507.dll'", "rocm-library-version-mismatch"),
    ],
)
def test_near_miss_is_not_named(matcher: Matcher, text: str, not_cause: str) -> None:
    top = _top(matcher, text)
    assert top is None or top != (not_cause, True), matcher.explain_text(text).matches[:3]


@pytest.mark.parametrize(
    ("context", "confident"),
    [
        ("Hygon DCU Z100, DTK 24.04\n", True),
        ("海光 DCU K100 上报错 ", True),
        ("", False),
        ("NVIDIA GeForce RTX 4090\n", False),
    ],
)
def test_a_hygon_dcu_counts_as_a_rocm_machine(matcher: Matcher, context: str, confident: bool) -> None:
    # Hygon DCUs run a ROCm/HIP-derived stack: CUDA-worded messages from its torch mean a ROCm cause
    top = _top(matcher, context + "RuntimeError: No CUDA GPUs are available")
    assert (top == ("no-gpu-visible", True)) is confident
