"""Turn what the verify child did (or how it died) into a failure and KB ids.

The child's stderr is explained by the knowledge base's own matcher (the
same as `rocmfix explain`); the kind of failure adds what it says by itself (a
SIGSEGV, a hang, no GPU seen by a CPU-only build).
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rocmfix.verify.model import DTYPES, DeviceResult, Failure, FailureKind

SLOW_RATIO = 0.30
"""Below this fraction of the dense peak, a correct GPU is reported as slow."""

_AMD_VENDOR = "0x1002"
_VISIBLE_VARS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")


def _unique(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def text_kb_ids(
    lines: Iterable[str], amd_machine: bool = False, stage: str | None = None
) -> tuple[str, ...]:
    """KB ids the knowledge base names with confidence for the child's stderr.

    The same matcher as `rocmfix explain`, so verify and explain always agree.
    ``amd_machine`` says what the child saw of the hardware (an AMD PCI device,
    /dev/kfd): CUDA-worded lines that ROCm prints too then weigh as on AMD.
    A broken built-in KB costs the ids, never the verify report.
    """
    from rocmfix.errors import KbError
    from rocmfix.kb.loader import load_kb
    from rocmfix.kb.matcher import matcher_for

    text = "\n".join(line for line in lines if line)
    if not text.strip():
        return ()
    if amd_machine:
        text = "[rocmfix verify] AMD GPU present (PCI vendor 0x1002)\n" + text
    try:
        result = matcher_for(load_kb()).explain_text(text)
    except KbError:
        return ()
    # Only the conv stage runs convolutions: elsewhere MIOpen's first-run search is never the cause.
    skip = () if stage in ("conv", "train") else _NOT_VERIFY
    return tuple(m.entry.id for m in result.matches if m.confident and m.entry.id not in skip)


_NOT_VERIFY = frozenset({"miopen-slow-first-run"})


def signal_name(returncode: int) -> str | None:
    """``-11`` -> ``SIGSEGV``; None for a normal exit."""
    if returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _hides_devices(visible: Mapping[str, str]) -> bool:
    return any(name in visible for name in _VISIBLE_VARS)


def _on_amd(facts: Mapping[str, Any]) -> bool:
    vendors = facts.get("pci_vendors")
    vendors = vendors if isinstance(vendors, (list, tuple)) else ()
    return _AMD_VENDOR in vendors or facts.get("kfd") in ("ok", "no-access")


def no_gpu_kb_ids(facts: Mapping[str, Any]) -> tuple[str, ...]:
    """Explain "torch sees no GPU" from the facts the child collected."""
    flavour = facts.get("flavour")
    visible = facts.get("visible")
    visible = visible if isinstance(visible, dict) else {}
    amd = _on_amd(facts)
    ids: list[str] = []
    if flavour == "cpu":
        ids.append("cpu-only-build")
    elif flavour == "cuda" and amd:
        ids.append("cuda-build-on-amd")
    elif flavour == "rocm":
        if facts.get("kfd") == "missing":
            ids.append("kfd-device-missing")
        elif facts.get("kfd") == "no-access":
            ids.append("kfd-permission-denied")
    if _hides_devices(visible) or (flavour == "rocm" and not ids):
        ids.append("no-gpu-visible")
    return tuple(ids)


def kind_kb_ids(kind: FailureKind, stage: str, sig: str | None) -> tuple[str, ...]:
    """What the kind of failure (and where it happened) says by itself."""
    ids: list[str] = []
    if stage in ("allreduce", "pg") and kind in (FailureKind.ERROR, FailureKind.HANG):
        ids.append("distributed-rccl-failure")
    if stage == "compile" and kind in (FailureKind.ERROR, FailureKind.HANG, FailureKind.CRASH):
        ids.append("triton-or-compile-failure")
    if stage == "conv" and kind is FailureKind.HANG:
        ids.append("miopen-slow-first-run")  # MIOpen's first search can outlast the timeout
    if kind is FailureKind.CRASH and sig == "SIGSEGV":
        ids.append("segfault-at-gpu-init")
    if kind is FailureKind.HANG and stage != "import":
        # `import torch` does not touch the GPU: torch.cuda (HIP on ROCm) "is lazily
        # initialized, so you can always import it" (torch/cuda/__init__.py docstring;
        # https://docs.pytorch.org/docs/stable/generated/torch.cuda.init.html: state is
        # initialized on demand), so a stall there (a slow or network file system, a
        # stuck import) is no GPU hang.
        ids.append("gpu-hang-or-reset")
    return tuple(ids)


def integrated_gpu_ids(devices: Sequence[DeviceResult]) -> tuple[str, ...]:
    """``integrated-gpu-selected`` when an iGPU was among the devices under test."""
    from rocmfix import facts

    for dev in devices:
        info = facts.gfx_info(dev.arch) if dev.arch.startswith("gfx") else None
        if info is not None and info.integrated:
            return ("integrated-gpu-selected",)
    return ()


def build_failure(
    *,
    stage: str,
    kind: FailureKind,
    message: str,
    stderr_lines: Sequence[str],
    tail: int = 15,
    sig: str | None = None,
    facts: Mapping[str, Any] | None = None,
    devices: Sequence[DeviceResult] = (),
) -> Failure:
    """Assemble a Failure with its KB ids, best explanation first.

    Order: ids decided by facts the child collected (no-gpu), then decisive
    strings in stderr and the message, then what the kind itself implies.
    """
    if stage == "import" and "No module named 'torch'" in message:
        # The traceback is rocmfix's own child script, not the user's: say what to do.
        message += (
            " (this interpreter has no PyTorch: point rocmfix at your training"
            " environment with --python PATH, or press p on the Verify screen)"
        )
        stderr_lines = ()
    ids: list[str] = []
    if kind is FailureKind.NO_GPU:
        ids += no_gpu_kb_ids(facts or {})
    ids += text_kb_ids([*stderr_lines, message], amd_machine=_on_amd(facts or {}), stage=stage)
    ids += kind_kb_ids(kind, stage, sig)
    if kind is not FailureKind.NO_GPU:
        ids += integrated_gpu_ids(devices)
    shown = [line[:300] for line in stderr_lines if line.strip()][-tail:]
    return Failure(
        stage=stage,
        kind=kind,
        message=message,
        signal=sig,
        stderr_tail=tuple(shown),
        kb_ids=_unique(ids),
    )


def slow_failure(devices: Sequence[DeviceResult], ratio: float = SLOW_RATIO) -> Failure | None:
    """A ``slow`` failure when a device reaches less than ``ratio`` of a known peak."""
    slow: list[str] = []
    for dev in devices:
        for dtype in DTYPES:
            got = dev.ratio(dtype)
            if got is not None and got < ratio:
                slow.append(
                    f"GPU {dev.index} {dtype} {dev.tflops[dtype]:.1f} of "
                    f"{dev.peak_tflops[dtype]:g} TFLOPS ({got:.0%})"
                )
    if not slow:
        return None
    message = (
        f"runs, but far below peak (< {ratio:.0%}): "
        + "; ".join(slow)
        + ". Check the PCIe link, clocks and power caps, and that this is the GPU you meant."
    )
    return Failure(stage="perf", kind=FailureKind.SLOW, message=message)
