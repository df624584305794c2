"""Which KB entries verify names for a failure, from facts and decisive stderr lines."""

from __future__ import annotations

import pytest

from rocmfix.verify.classify import build_failure, no_gpu_kb_ids, signal_name, text_kb_ids
from rocmfix.verify.model import DeviceResult, FailureKind


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        ({"flavour": "cpu", "kfd": "missing"}, ("cpu-only-build",)),
        ({"flavour": "cuda", "pci_vendors": ["0x1002"], "kfd": "ok"}, ("cuda-build-on-amd",)),
        ({"flavour": "cuda", "kfd": "ok"}, ("cuda-build-on-amd",)),
        ({"flavour": "cuda", "pci_vendors": ["0x10de"], "kfd": "missing"}, ()),
        ({"flavour": "rocm", "kfd": "missing"}, ("kfd-device-missing",)),
        ({"flavour": "rocm", "kfd": "no-access"}, ("kfd-permission-denied",)),
        (
            {"flavour": "rocm", "kfd": "ok", "visible": {"HIP_VISIBLE_DEVICES": ""}},
            ("no-gpu-visible",),
        ),
        ({"flavour": "rocm", "kfd": "ok"}, ("no-gpu-visible",)),
        (
            {
                "flavour": "cuda",
                "pci_vendors": ["0x10de"],
                "visible": {"CUDA_VISIBLE_DEVICES": "-1"},
            },
            ("no-gpu-visible",),
        ),
    ],
)
def test_no_gpu_is_explained_from_the_build_flavour_devices_and_environment(
    facts: dict[str, object], expected: tuple[str, ...]
) -> None:
    assert no_gpu_kb_ids(facts) == expected


@pytest.mark.parametrize(
    ("line", "kb_id"),
    [
        (
            "Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x0.",
            "memory-access-fault",
        ),
        (
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
            "no-binary-for-gpu",
        ),
        ("RuntimeError: HIP error: invalid device function", "no-binary-for-gpu"),
        (
            "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB",
            "gpu-out-of-memory",
        ),
        ("HW Exception by GPU node-1 (Agent handle: 0x5) reason :GPU Hang", "gpu-hang-or-reset"),
        ("RuntimeError: No HIP GPUs are available", "no-gpu-visible"),
        ("Found no NVIDIA driver on your system.", "cuda-build-on-amd"),
        ("AssertionError: Torch not compiled with CUDA enabled", "cpu-only-build"),
        ("Unable to open /dev/kfd read-write: Permission denied", "kfd-permission-denied"),
        ("RuntimeError: HIP error: invalid device ordinal", "invalid-device-ordinal"),
        (
            "OSError: libamdhip64.so.6: cannot open shared object file: No such file or directory",
            "hip-runtime-lib-missing",
        ),
        (
            "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat",
            "rocblas-tensile-missing",
        ),
        (
            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1",
            "distributed-rccl-failure",
        ),
    ],
)
def test_a_decisive_stderr_line_names_its_kb_entry(line: str, kb_id: str) -> None:
    # verify runs on the machine itself: the child reports an AMD GPU on the PCI bus
    assert text_kb_ids(["some noise", line], amd_machine=True)[0] == kb_id


def test_ordinary_warnings_name_no_kb_entry() -> None:
    noise = [
        "UserWarning: TypedStorage is deprecated",
        "MIOpen(HIP): Warning [SQLiteBase] Missing system database file",
    ]
    assert text_kb_ids(noise) == ()


def test_signal_names_come_from_negative_return_codes() -> None:
    assert (signal_name(-11), signal_name(-6), signal_name(0), signal_name(1)) == (
        "SIGSEGV",
        "SIGABRT",
        None,
        None,
    )


def test_a_segfault_with_a_memory_fault_line_puts_the_specific_entry_first() -> None:
    failure = build_failure(
        stage="matmul",
        kind=FailureKind.CRASH,
        sig="SIGSEGV",
        message="died",
        stderr_lines=["Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x2."],
    )
    assert failure.kb_ids == ("memory-access-fault", "segfault-at-gpu-init")


def test_a_hang_in_the_all_reduce_points_at_rccl_before_a_gpu_hang() -> None:
    failure = build_failure(
        stage="allreduce", kind=FailureKind.HANG, message="no progress", stderr_lines=[]
    )
    assert failure.kb_ids == ("distributed-rccl-failure", "gpu-hang-or-reset")


def test_a_stall_while_importing_torch_is_not_called_a_gpu_hang() -> None:
    failure = build_failure(
        stage="import", kind=FailureKind.HANG, message="no progress", stderr_lines=[]
    )
    assert "gpu-hang-or-reset" not in failure.kb_ids
    later = build_failure(stage="init", kind=FailureKind.HANG, message="no progress", stderr_lines=[])
    assert "gpu-hang-or-reset" in later.kb_ids


def test_a_crash_on_an_integrated_gpu_names_the_igpu_entry() -> None:
    igpu = DeviceResult(index=0, name="AMD Radeon 780M", arch="gfx1103")
    failure = build_failure(
        stage="init",
        kind=FailureKind.CRASH,
        sig="SIGSEGV",
        message="died",
        stderr_lines=[],
        devices=[igpu],
    )
    assert failure.kb_ids == ("segfault-at-gpu-init", "integrated-gpu-selected")


def test_the_stderr_tail_keeps_the_last_non_blank_lines_only() -> None:
    lines = [f"line {i}" for i in range(40)] + ["", "   "]
    failure = build_failure(
        stage="init", kind=FailureKind.ERROR, message="x", stderr_lines=lines, tail=5
    )
    assert failure.stderr_tail == ("line 35", "line 36", "line 37", "line 38", "line 39")


def test_a_cuda_worded_line_names_a_rocm_cause_only_when_the_child_saw_an_amd_gpu() -> None:
    line = "RuntimeError: Found no NVIDIA driver on your system."
    assert text_kb_ids([line], amd_machine=True) == ("cuda-build-on-amd",)
    assert text_kb_ids([line], amd_machine=False) == ()
