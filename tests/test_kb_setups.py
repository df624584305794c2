"""Set-up facts that keep an entry from being named on a mention alone (rocmfix.kb.setups).

integrated-gpu-selected means an iGPU enumerated beside a discrete GPU and picked instead of
it; a machine whose only GPU is an APU has nothing to pick (the entry's own caveat). Each
test pairs a text that shows the second GPU with a near miss that does not."""

from __future__ import annotations

import pytest

from rocmfix.kb import setups
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import CONFIDENT, Matcher


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("ROCm picks the iGPU of my 7800X3D instead of the RX7900XTX", True),
        ("Ryzen 7 7840HS w/ Radeon 780M Graphics and an RX 7700S", True),
        ("the iGPU shows up as card1 and rocm-smi writes to it", True),
        ("HIP_VISIBLE_DEVICES=0 hides the integrated GPU", True),
        ("集成显卡和独显同时被 ROCm 识别，程序用了核显", True),
        # near misses: an APU as the machine's only GPU
        ("Vega igpu OpenCL/HIP GPU Hang on ROCm 6, AMD Ryzen 5 5625U with Radeon Graphics", False),
        ("Radeon 890M iGPU (gfx1150): ROCm 7.2 hangs on the first queue", False),
        ("我的笔记本只有核显 780M，ROCm 跑不起来", False),
        # the discrete GPU is NVIDIA's: ROCm sees the AMD iGPU alone, nothing AMD to pick instead
        ("Laptop with dual GPU (AMD iGPU + NVIDIA dGPU, Optimus architecture)", False),
        ("Radeon 780M integrated graphics and a dedicated GeForce RTX 4060", False),
        # near misses: an AMD discrete card beside it, or ROCm itself listing two devices
        ("Radeon 780M iGPU, an RTX 3060 and an RX 7600 in the eGPU dock", True),
        ("RTX 4090 in the other box; here ROCm found 2 ROCm devices, the iGPU first", True),
    ],
)
def test_gpu_choice(text: str, choice: bool) -> None:
    assert setups.gpu_choice(text) is choice


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(load_kb(use_cache=False), use_ranker=False)


def _conf(matcher: Matcher, text: str, eid: str) -> float:
    return next(
        (m.confidence for m in matcher.explain_text(text).matches if m.entry.id == eid), 0.0
    )


def test_an_igpu_beside_a_discrete_card_is_named(matcher: Matcher) -> None:
    text = "ROCm crash when loading a model with the integrated GPU enabled\nGPU: RX 7900 XTX, CPU: 7800X3D"
    assert _conf(matcher, text, setups.IGPU) >= CONFIDENT


def test_an_apu_alone_is_not_named_integrated_gpu_selected(matcher: Matcher) -> None:
    # near miss of the test above: the iGPU is the only GPU, so nothing was picked instead
    text = (
        "ROCm crash when loading a model with the integrated GPU\nCPU: Ryzen 7 8700G, no other card"
    )
    conf = _conf(matcher, text, setups.IGPU)
    assert 0 < conf < CONFIDENT


def test_a_decisive_gfx1036_abort_is_left_alone(matcher: Matcher) -> None:
    # rocBLAS aborting for gfx1036 (a Ryzen 7000 desktop iGPU) is the second device itself
    text = "rocBLAS error: Cannot read TensileLibrary.dat: for GPU arch : gfx1036"
    assert _conf(matcher, text, setups.IGPU) >= CONFIDENT


def test_a_cuda_torch_under_zluda_is_not_named_a_wrong_build(matcher: Matcher) -> None:
    # ZLUDA's PyTorch set-up is a CUDA torch (whl/cu118) with ZLUDA's DLLs copied into
    # torch/lib: "install the ROCm build" would take that set-up apart.
    text = (
        "Windows 11, RX 6800 XT, ComfyUI with ZLUDA\n"
        "RuntimeError: Found no NVIDIA driver on your system.\n"
        "torch 2.3.0+cu118"
    )
    conf = _conf(matcher, text, setups.CUDA_BUILD)
    assert 0 < conf < CONFIDENT
    # near miss: the same report without ZLUDA is a CUDA build on an AMD machine
    assert _conf(matcher, text.replace(" with ZLUDA", ""), setups.CUDA_BUILD) >= CONFIDENT


@pytest.mark.parametrize(
    ("text", "zluda"),
    [
        ("patched with ZLUDA 3.9.5 for HIP SDK 5.7.1", True),
        ("ComfyUI-Zluda fails to start", True),
        ("我用 zluda 在 Windows 上跑 A卡", True),
        # near misses: a word that only contains the letters, no ZLUDA named
        ("zludafoo is not a thing", False),
        ("HIP SDK 6.2 on Windows with an RX 7900 XTX", False),
    ],
)
def test_names_zluda(text: str, zluda: bool) -> None:
    assert setups.names_zluda(text) is zluda


@pytest.mark.parametrize(
    "crash",
    [
        "段错误 (核心已转储)",  # glibc zh_CN + bash zh_CN
        "Speicherzugriffsfehler (Speicherabzug geschrieben)",  # de
        "Ошибка сегментирования (стек памяти сброшен на диск)",  # ru
        "Segmentation error",  # the same, retold
    ],
)
def test_a_localised_segfault_at_first_gpu_use_is_named(matcher: Matcher, crash: str) -> None:
    text = f"RX 6600, torch 2.0.1+rocm5.4.2\n$ python3 inference_video.py\n{crash}"
    assert matcher.explain_text(text).matches[0].entry.id == "segfault-at-gpu-init"


def test_a_segmentation_model_error_is_no_crash(matcher: Matcher) -> None:
    # near miss: image segmentation, not a crash
    text = "RX 6600, torch 2.0.1+rocm5.4.2\nthe segmentation mask has an error in its last row"
    assert _conf(matcher, text, "segfault-at-gpu-init") < CONFIDENT


def test_an_amdgpu_module_only_added_to_dkms_is_a_build_failure(matcher: Matcher) -> None:
    # `dkms status`: "added" is a module never built, so rocminfo finds no KFD
    text = "rocminfo: hsa api call failure ... Call returned 4104\n> dkms status\namdgpu, 1.9-307: added"
    assert matcher.explain_text(text).matches[0].entry.id == "amdgpu-dkms-build-failure"
    # near miss: a module built and installed for the running kernel is no build failure
    ok = text.replace(
        "amdgpu, 1.9-307: added", "amdgpu, 6.8.5, 6.8.0-45-generic, x86_64: installed"
    )
    assert _conf(matcher, ok, "amdgpu-dkms-build-failure") < CONFIDENT


def test_a_rocm_pin_pip_cannot_find_is_a_wheel_mismatch(matcher: Matcher) -> None:
    # pip offers only versions with a wheel whose tags fit this Python and OS
    text = (
        "pip install vllm==0.20.2+rocm721 --extra-index-url https://wheels.vllm.ai/rocm/0.20.2/rocm721\n"
        "ERROR: No matching distribution found for vllm==0.20.2+rocm721"
    )
    assert matcher.explain_text(text).matches[0].entry.id == "python-or-wheel-incompatible"
    # near miss: a package pip found and installed names no mismatch
    ok = "Successfully installed vllm-0.20.2+rocm721"
    assert _conf(matcher, ok, "python-or-wheel-incompatible") < CONFIDENT


# Causes that need a ROCm machine, in a report that names nothing of AMD or ROCm: the lines
# they fire on (glibc's segfault, NCCL's errors) are printed
# on any machine, and their fixes are for a machine the report never shows.
_NEEDS_ROCM_CASES = [
    (
        "distributed-rccl-failure",
        "I launch torch.distributed on two nodes and it fails at start-up every time.\n"
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:784, unhandled system error",
    ),
    (
        "segfault-at-gpu-init",
        "The testing command always dies right after loading the checkpoint, no traceback.\n"
        "Segmentation fault (core dumped)",
    ),
]


@pytest.mark.parametrize(("eid", "text"), _NEEDS_ROCM_CASES)
def test_a_report_naming_nothing_of_amd_is_not_blamed_on_rocm(
    matcher: Matcher, eid: str, text: str
) -> None:
    assert 0 < _conf(matcher, text, eid) < CONFIDENT


@pytest.mark.parametrize(("eid", "text"), _NEEDS_ROCM_CASES)
def test_the_same_report_on_an_amd_gpu_is_named(matcher: Matcher, eid: str, text: str) -> None:
    # near miss of the test above: one word of the machine (a Radeon card, ROCm) is enough
    on_amd = text.replace("\n", "\nRX 7900 XTX, torch 2.4.1+rocm6.1\n", 1)
    assert _conf(matcher, on_amd, eid) >= CONFIDENT


@pytest.mark.parametrize(
    "line",
    [
        "AssertionError: Torch not compiled with CUDA enabled",
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:784, unhandled system error",
    ],
)
def test_a_bare_log_line_is_still_named(matcher: Matcher, line: str) -> None:
    # a log pasted alone is the user's question about the machine rocmfix runs on
    top = matcher.explain_text(line).matches[0]
    assert top.confident


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I updated the app yesterday and now it refuses to start at all.", True),
        ("更新之后程序就启动不了了，请问这个错误怎么解决啊", True),
        # code in a traceback reads like words but quotes an error token
        ('    raise AssertionError("Torch not compiled with CUDA enabled")', False),
        ("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>", False),
    ],
)
def test_told_in_words(text: str, words: bool) -> None:
    assert setups.told_in_words(text) is words


# A wrong torch build named on a machine whose own accelerator is another vendor's: the
# fix ("install the ROCm wheel") is for an AMD card the report never shows.
_OTHER_VENDOR_CASES = [
    "I just updated the app and it will not start any more. I have an Nvidia GPU.\n"
    "AssertionError: Torch not compiled with CUDA enabled",
    "On Windows 11 with a GeForce RTX 4070 I get this as soon as I type a prompt:\n"
    "AssertionError: Torch not compiled with CUDA enabled",
    "在昇腾NPU上运行训练任务时报错：Torch not compiled with CUDA enabled",
]


@pytest.mark.parametrize("text", _OTHER_VENDOR_CASES)
def test_a_wrong_build_on_another_vendors_gpu_is_held(matcher: Matcher, text: str) -> None:
    assert 0 < _conf(matcher, text, "cpu-only-build") < CONFIDENT


@pytest.mark.parametrize("text", _OTHER_VENDOR_CASES)
def test_the_same_wrong_build_beside_an_amd_card_is_named(matcher: Matcher, text: str) -> None:
    # near miss: the machine also has an AMD card (or the user asks about one)
    on_amd = text.replace("\n", "\nMy second machine has a Radeon RX 7900 XTX.\n", 1)
    if on_amd == text:
        on_amd = "Radeon RX 7900 XTX。" + text
    assert _conf(matcher, on_amd, "cpu-only-build") >= CONFIDENT


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("Yes; I have a Nvidia GPU.", True),
        ("Windows 11 with RTX GPU", True),
        ("GTX 1080 Ti, driver 535", True),
        ("import torch_npu", True),
        # torch's own message, printed on any machine, and an AMD machine looking for NVIDIA
        ("RuntimeError: Found no NVIDIA driver on your system.", False),
        ("the app keeps looking for an Nvidia GPU on my RX 6800", False),
    ],
)
def test_other_vendor_only(text: str, other: bool) -> None:
    assert setups.other_vendor_only(text) is other


@pytest.mark.parametrize(
    ("text", "context"),
    [
        ("vllm on GPU L40x2 uses 45G per GPU and hits a GPU OOM on long prompts", "nvidia"),
        ("training on H100x8 nodes gets a GPU OOM after step 200", "nvidia"),
        # near miss: AMD's Instinct parts with the same "x" are not NVIDIA's
        ("training on 8x MI300X nodes gets a GPU OOM after step 200", "amd"),
    ],
)
def test_an_nvidia_datacenter_count_is_an_nvidia_machine(
    matcher: Matcher, text: str, context: str
) -> None:
    assert matcher.explain_text(text).context == context
