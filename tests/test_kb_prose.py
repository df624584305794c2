"""Causes told in prose as people write them (Chinese as on CSDN/zhihu, app set-ups),
matched by the KB's own signatures, with look-alikes that must stay unnamed."""

from __future__ import annotations

import pytest

from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(load_kb(), use_ranker=False)


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        (
            "Ubuntu 22.04 装好 ROCm 6.1 以后，rocminfo 需要 sudo 才能运行，不加 sudo 就报错",
            "kfd-permission-denied",
        ),
        ("用 root 就可以识别 RX 7900 XTX，普通用户无法使用显卡", "kfd-permission-denied"),
        ("打开 /dev/kfd 的时候提示权限不够", "kfd-permission-denied"),
        ("docker 容器里 /dev/kfd 不存在，pytorch 识别不到 AMD 显卡", "kfd-device-missing"),
        ("启动容器时没有映射 /dev/kfd，ROCm 看不到 GPU", "kfd-device-missing"),
        ("我的 AMD 显卡装成了 CUDA 版的 torch，用不了 GPU", "cuda-build-on-amd"),
        (
            "Radeon RX 7900 XTX, ROCm 6.2. UserWarning: The installed version of bitsandbytes "
            "was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU "
            "quantization are unavailable.",
            "cuda-build-on-amd",
        ),
        # a GPU tool reachable only as root, told in words
        ("ROCm 6.2 on Ubuntu: I have to use sudo to run rocminfo, otherwise it fails", "kfd-permission-denied"),
        ("I need sudo to use the GPU on my RX 7900 XTX with PyTorch", "kfd-permission-denied"),
        ("I have to run python with sudo or torch.cuda.is_available() is False on my RX 6800", "kfd-permission-denied"),
        ("ROCm 装好了但是 rocminfo 提示没有权限，需要把用户加入 render 组吗", "kfd-permission-denied"),
        # containers and NAS apps that never hand /dev/kfd over
        (
            "TrueNAS app for Ollama on my AMD RX 6800 runs on CPU, the GPU is not passed to the container",
            "kfd-device-missing",
        ),
        (
            "rocm-smi on my Radeon box: ERROR:root:Driver not initialized (amdgpu not found in modules)",
            "kfd-device-missing",
        ),
        # an installer or a companion package that brings a CUDA build
        ("InvokeAI installer picked the CUDA version of torch on my AMD card", "cuda-build-on-amd"),
        (
            "pip install flash-attn fails on my AMD MI300X: OSError: CUDA_HOME environment variable is not set",
            "cuda-build-on-amd",
        ),
        ("AMD 显卡跑 stable diffusion 只能用 CPU，装的 torch 是 CUDA 版本", "cuda-build-on-amd"),
        # running out of the card's memory, its size and maker told in the same breath
        ("I keep running out of memory with my 16gb AMD card on the i2v model", "gpu-out-of-memory"),
        ("OOM on my 8 GB RX 6600 when upscaling", "gpu-out-of-memory"),
        # a hang only the power button ends, on a machine named as AMD's
        (
            "Running the detector on the Radeon 760M, the box stops answering and I have to hold the power button",
            "gpu-hang-or-reset",
        ),
    ],
)
def test_prose_names_its_cause(matcher: Matcher, text: str, cause: str) -> None:
    result = matcher.explain_text(text)
    assert result.top is not None and result.top.entry.id == cause, result.matches[:3]


@pytest.mark.parametrize(
    "text",
    [
        # bitsandbytes on a machine with no AMD GPU in sight: not ours to name
        "UserWarning: The installed version of bitsandbytes was compiled without GPU support. "
        "8-bit optimizers and GPU quantization are unavailable.",
        # sudo for an unrelated reason
        "安装 ROCm 的时候需要 sudo 权限运行 apt，这是正常的吗",
        "I need sudo to run apt install rocm-hip-sdk, is that expected?",
        # the CPU-instead-of-GPU wording is a weak hint, never a cause by itself
        "Local AI using CPU instead of GPU on my RTX 3060",
        "I have an RX 6800 XT but the program only recognizes CPU",
        # NVIDIA / Intel / Mac machines named the way people type them
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:784, unhandled system error, on 8 Nvidia 2080ti GPUs",
        "AssertionError: Torch not compiled with CUDA enabled on MacOS",
        "The UI is only utilizing the CPU and the integrated graphics, 0 utilization on my Intel Arc GPU",
        # the same W&B monitor line on a machine that shows no AMD GPU
        "ERROR:root:Driver not initialized (amdgpu not found in modules)",
        # the machine's RAM running out is not the card's memory
        "The installer runs out of memory on my 16 GB RAM laptop with a Ryzen CPU",
        # the same words with nothing of AMD's GPU stack: not ours to name
        "My NAS stopped answering over SSH and I had to pull the power plug",
    ],
)
def test_look_alikes_stay_unnamed(matcher: Matcher, text: str) -> None:
    result = matcher.explain_text(text)
    assert result.top is None or not result.top.confident, result.matches[:3]
