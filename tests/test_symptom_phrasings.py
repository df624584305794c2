"""General prose phrasings of causes (kb/errors.yaml ``symptoms:``), each group with a report
told in other words that names its cause and a near miss (the same words about something
else) that must stay unnamed; and the rule that a phrasing naming AMD's stack names nothing
in a text that names none of it."""

from __future__ import annotations

import pytest

from rocmfix.kb import symptoms
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(load_kb([]), use_ranker=False)


@pytest.fixture(scope="module")
def index() -> symptoms.SymptomIndex:
    return symptoms.SymptomIndex(load_kb([]).entries)


# (phrasing group, a report in other words, its cause, a near miss)
GROUPS = [
    (
        "root needed for the GPU",
        "I have to use sudo to run rocminfo, otherwise it shows no GPU",
        "kfd-permission-denied",
        "I need sudo to run apt install rocm on Ubuntu",
    ),
    (
        "/dev/kfd refused to a plain user",
        "普通用户没有权限访问 /dev/kfd，怎么办",
        "kfd-permission-denied",
        "/dev/kfd permissions look fine to me",
    ),
    (
        "the whole machine freezes",
        "the PC freezes completely and I have to hard reboot when I run stable diffusion on my AMD GPU",
        "gpu-hang-or-reset",
        "my NAS froze and I had to hard reboot it",
    ),
    (
        "死机 / 黑屏 told in Chinese",
        "用 AMD 显卡跑模型的时候电脑死机，只能强制重启",
        "gpu-hang-or-reset",
        "玩游戏的时候电脑死机，只能强制重启",
    ),
    (
        "is my card supported",
        "does ROCm support my Radeon RX 6700 card",
        "no-binary-for-gpu",
        "does ROCm support Ubuntu 24.04",
    ),
    (
        "an old card dropped",
        "my old Radeon card is no longer supported by ROCm",
        "unsupported-gpu-architecture",
        "my old Radeon card still works with ROCm",
    ),
    (
        "bus error from shared memory",
        "the DataLoader crashes with bus error, insufficient shared memory (shm) in docker",
        "shared-memory-too-small",
        "I have insufficient memory on my laptop",
    ),
    (
        "the driver will not build for a new kernel",
        "cannot install ROCm on the new kernel 6.8, going back to the old kernel fixed it",
        "amdgpu-dkms-build-failure",
        "I updated the kernel and the new kernel boots fine",
    ),
    (
        "a ROCm update broke it",
        "after upgrading ROCm the app stopped working on my AMD GPU",
        "rocm-library-version-mismatch",
        "更新 Windows 之后就不能用了",
    ),
    (
        "a segfault after an upgrade",
        "clinfo segfaults after I upgraded ROCm",
        "segfault-at-gpu-init",
        "rocminfo runs fine after I upgraded ROCm",
    ),
    (
        "the first run slower than the CPU",
        "AMD 显卡用 ROCm 第一次跑比 CPU 还慢，第二次就快了",
        "miopen-slow-first-run",
        "ROCm is slower than CUDA on the same model",
    ),
    (
        "WSL",
        "ROCm cannot see my Radeon GPU under WSL2 on Windows 11",
        "wsl-limitations",
        "ROCm cannot see my Radeon GPU on Ubuntu 22.04",
    ),
    (
        "the iGPU picked",
        "the program picks my Ryzen integrated graphics instead of the Radeon RX 7900 card",
        "integrated-gpu-selected",
        "the program picks my discrete Radeon card as expected",
    ),
    (
        "a container without the GPU",
        "ROCm does not find the GPU in an LXC container on Proxmox",
        "kfd-device-missing",
        "ROCm finds the GPU on the Proxmox host",
    ),
    (
        "显存爆了 (VRAM ran out, as CSDN says it)",
        "用 ROCm 跑 SDXL 的时候显存爆了，RX 7800 XT 16G",
        "gpu-out-of-memory",
        "内存爆了，电脑只有 8G 内存",
    ),
    (
        "WSL2 下 ROCm 用不了",
        "WSL2 下面 ROCm 用不了我的 AMD 显卡",
        "wsl-limitations",
        "WSL2 下面 docker 用不了",
    ),
    (
        "torch 检测不到 AMD 显卡",
        "装了 ROCm 6.2 以后 torch 还是检测不到 AMD 显卡",
        "no-gpu-visible",
        "torch 检测到了 AMD 显卡，一切正常",
    ),
    (
        "no ROCm torch for this Python, in Chinese",
        "pip 安装 ROCm 版的 torch 时提示找不到对应版本",
        "python-or-wheel-incompatible",
        "pip 安装 numpy 找不到对应版本",
    ),
    (
        "段错误（核心已转储） at import",
        "一 import torch 就段错误（核心已转储），显卡是 AMD 的",
        "segfault-at-gpu-init",
        "编译 C 程序的时候段错误（核心已转储）",
    ),
    (
        "驱动崩溃 黑屏 重启",
        "AMD 显卡跑着跑着驱动崩溃，黑屏然后重启",
        "gpu-hang-or-reset",
        "游戏玩着玩着黑屏然后重启",
    ),
    (
        "multi-GPU hangs, one GPU works",
        "多卡训练在 AMD GPU 上卡住，单卡正常",
        "distributed-rccl-failure",
        "单卡训练正常，速度也很快",
    ),
]


@pytest.mark.parametrize(("group", "text", "cause", "near"), GROUPS, ids=[g[0] for g in GROUPS])
def test_a_phrasing_group_names_its_cause(
    matcher: Matcher, group: str, text: str, cause: str, near: str
) -> None:
    result = matcher.explain_text(text)
    assert result.top is not None and result.top.entry.id == cause, (group, result.matches[:3])


@pytest.mark.parametrize(("group", "text", "cause", "near"), GROUPS, ids=[g[0] for g in GROUPS])
def test_its_near_miss_stays_unnamed(
    matcher: Matcher, group: str, text: str, cause: str, near: str
) -> None:
    result = matcher.explain_text(near)
    assert result.top is None, (group, result.matches[:3])


def test_a_phrasing_that_names_amd_names_nothing_where_the_text_names_none_of_it(
    index: symptoms.SymptomIndex,
) -> None:
    # the same freeze, with and without AMD's GPU in the text
    amd = index.scores("用 AMD 显卡跑模型的时候电脑死机，只能强制重启")
    plain = index.scores("玩游戏的时候电脑死机，只能强制重启")
    assert amd["gpu-hang-or-reset"] > symptoms.AMD_CAP >= plain["gpu-hang-or-reset"]
    # a phrasing without AMD words keeps its score anywhere (shared memory is no AMD matter)
    shm = index.scores("DataLoader worker is killed by signal: Bus error")
    assert shm["shared-memory-too-small"] > symptoms.AMD_CAP


def test_lowering_the_leader_names_no_runner_up() -> None:
    """Where an AMD-worded symptom led the field, or tied it, every entry stays a hint:
    lowering the leader alone would name a runner-up that had stood below it unnamed."""
    from types import SimpleNamespace

    entries = [
        SimpleNamespace(id="amd-worded", symptoms=("the screen goes black on my Radeon",)),
        SimpleNamespace(id="plain", symptoms=("the screen goes black",)),
    ]
    index = symptoms.SymptomIndex(entries)  # type: ignore[arg-type]
    text = "the screen goes black while I play"
    named = lambda scores: [e for e, c in symptoms.confidences(scores).items() if c >= 0.5]  # noqa: E731
    # the AMD-worded symptom leads (95 against 84) in a text without AMD: lowering it
    # alone would name the runner-up; nothing is named
    assert named({"amd-worded": symptoms.AMD_CAP, "plain": 84.0}) == ["plain"]
    assert named(index._by_entry(text, [95.0, 84.0])) == []
    # the plain one leads clearly: it stays named, the AMD-worded one is a hint
    got = index._by_entry(text, [84.0, 95.0])
    assert named(got) == ["plain"] and got["amd-worded"] <= symptoms.AMD_CAP
    # in a text naming AMD's stack nothing changes
    assert index._by_entry("the screen goes black on my RX 6800", [95.0, 84.0]) == {
        "amd-worded": 95.0,
        "plain": 84.0,
    }


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("the AMD GPU is detected fine inside the docker container", "kfd-device-missing"),
        ("a ROCm-capable device is detected on my RX 7900", "no-gpu-visible"),
        ("my RX 6600 is supported by ROCm now and works", "no-binary-for-gpu"),
    ],
)
def test_the_opposite_of_a_negated_symptom_names_nothing(
    matcher: Matcher, text: str, cause: str
) -> None:
    result = matcher.explain_text(text)
    assert result.top is None, result.matches[:3]
    # told as the trouble it is, the same words name it
    troubled = {
        "kfd-device-missing": "the AMD GPU is not detected inside the docker container",
        "no-gpu-visible": "no ROCm-capable device is detected on my RX 7900",
        "no-binary-for-gpu": "RX 6600 does not work with pytorch rocm",
    }[cause]
    told = matcher.explain_text(troubled)
    assert told.top is not None and told.top.entry.id == cause, told.matches[:3]
