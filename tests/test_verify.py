"""rocmfix verify against fake interpreters: every way a GPU stack can fail.

The scripts in tests/data/fake_pythons/ stand in for a user's interpreter:
they speak the child protocol up to a stage, then segfault, abort, hang, print
garbage or raise. run_verify must name the stage, the kind, the signal and the
KB ids, and come back promptly whatever the child does.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from rocmfix.errors import InputError
from rocmfix.verify import FailureKind, StageEvent, run_verify

FAKES = Path(__file__).parent / "data" / "fake_pythons"
TAXONOMY = Path("/work/shared/kb-taxonomy.yaml")


@pytest.fixture(autouse=True)
def _fake_interpreters_use_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCMFIX_TEST_PYTHON", sys.executable)


def fake(name: str) -> str:
    return str(FAKES / name)


@pytest.mark.parametrize(
    ("scenario", "stage", "kind", "signal", "kb_ids"),
    [
        ("segv_at_init", "init", FailureKind.CRASH, "SIGSEGV", ("segfault-at-gpu-init",)),
        ("abort_memory_fault", "matmul", FailureKind.CRASH, "SIGABRT", ("memory-access-fault",)),
        ("oom_at_alloc", "alloc", FailureKind.ERROR, None, ("gpu-out-of-memory",)),
        ("no_binary_at_matmul", "matmul", FailureKind.ERROR, None, ("no-binary-for-gpu",)),
        ("quiet_exit_at_copy", "copy", FailureKind.ERROR, None, ()),
        ("garbage", "import", FailureKind.ERROR, None, ()),
    ],
)
def test_a_dying_child_is_reported_with_stage_kind_signal_and_kb_ids(
    scenario: str, stage: str, kind: FailureKind, signal: str | None, kb_ids: tuple[str, ...]
) -> None:
    result = run_verify(fake(scenario), timeout=10)
    assert not result.ok
    assert result.failure is not None
    assert (result.failure.stage, result.failure.kind, result.failure.signal) == (
        stage,
        kind,
        signal,
    )
    assert result.failure.kb_ids == kb_ids


def test_a_crash_keeps_the_last_stderr_lines_for_the_user() -> None:
    result = run_verify(fake("abort_memory_fault"), timeout=10)
    assert result.failure is not None
    assert any("Page not present" in line for line in result.failure.stderr_tail)


def test_a_child_that_prints_garbage_is_called_out_as_not_running_the_child() -> None:
    result = run_verify(fake("garbage"), timeout=10)
    assert result.failure is not None
    assert "did not run the verify child" in result.failure.message
    assert "Python 2.7.18" in result.failure.message


def test_a_hanging_child_is_reported_as_hang_at_its_stage_within_the_timeout() -> None:
    started = time.monotonic()
    result = run_verify(fake("hang_at_perf"), timeout=1.0)
    took = time.monotonic() - started
    assert result.failure is not None
    assert result.failure.kind is FailureKind.HANG
    assert result.failure.stage == "perf"
    assert "GPU 0" in result.failure.message
    assert result.failure.kb_ids == ("gpu-hang-or-reset",)
    assert took < 4.0


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_a_hung_child_and_the_processes_it_started_are_all_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "helper.pid"
    monkeypatch.setenv("FAKE_HELPER_PIDFILE", str(pidfile))
    result = run_verify(fake("hang_with_helper"), timeout=1.0)
    assert result.failure is not None and result.failure.kind is FailureKind.HANG
    helper = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while _running(helper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(helper)


def test_a_passing_run_reports_devices_with_tflops_and_peaks() -> None:
    result = run_verify(fake("ok_h200"), timeout=10)
    assert result.ok and result.failure is None
    (dev,) = result.devices
    assert dev.name == "NVIDIA H200"
    assert dev.tflops["bf16"] == pytest.approx(720.0)
    assert dev.peak_tflops["bf16"] == pytest.approx(989.4)
    assert dev.ratio("bf16") == pytest.approx(720.0 / 989.4)
    assert [s.stage for s in result.stages][:3] == ["import", "init", "enumerate"]


def test_a_gpu_far_below_its_peak_is_reported_as_slow_with_the_dtypes_named() -> None:
    result = run_verify(fake("slow_h200"), timeout=10)
    assert not result.ok
    assert result.failure is not None and result.failure.kind is FailureKind.SLOW
    assert "bf16" in result.failure.message and "fp16" in result.failure.message
    assert "fp32" not in result.failure.message  # 50 of 66.9 is fine
    assert "PCIe" in result.failure.message


def test_a_gpu_missing_from_the_peak_table_passes_with_a_note_saying_so() -> None:
    result = run_verify(fake("unknown_gpu"), timeout=10)
    assert result.ok
    assert result.devices[0].peak_tflops == {}
    assert any("not in the peak table" in n for n in result.notes)


def test_on_stage_is_called_in_order_from_a_worker_thread() -> None:
    seen: list[tuple[str, str]] = []

    def on_stage(event: StageEvent) -> None:
        seen.append((event.stage, threading.current_thread().name))

    box: dict[str, object] = {}
    worker = threading.Thread(
        target=lambda: box.update(result=run_verify(fake("ok"), 10, "0", on_stage)),
        name="verify-worker",
    )
    worker.start()
    worker.join(timeout=20)
    stages = [s for s, _ in seen]
    assert stages == [
        "import",
        "init",
        "enumerate",
        "alloc",
        "copy",
        "matmul",
        "dtypes",
        "perf",
        "conv",
        "train",
        "sync",
    ]
    assert {t for _, t in seen} == {"verify-worker"}
    assert box["result"].ok  # type: ignore[attr-defined]  # set by the worker above


def test_verify_overhead_over_the_childs_own_work_is_under_half_a_second() -> None:
    result = run_verify(fake("ok"), timeout=10)
    assert result.child_elapsed is not None
    assert result.elapsed - result.child_elapsed < 0.5


def test_the_json_object_follows_the_rocmfix_verify_1_schema() -> None:
    data = run_verify(fake("abort_memory_fault"), timeout=10).to_json()
    assert data["schema"] == "rocmfix.verify/1"
    assert data["ok"] is False
    assert {"stage", "kind", "signal", "message", "stderr_tail", "kb_ids"} <= set(data["failure"])
    assert data["failure"]["signal"] == "SIGABRT"
    ok = run_verify(fake("ok_h200"), timeout=10).to_json()
    assert ok["failure"] is None
    assert {"index", "name", "arch", "tflops", "peak_tflops"} <= set(ok["devices"][0])
    assert set(ok["devices"][0]["tflops"]) == {"fp32", "fp16", "bf16"}


@pytest.mark.parametrize("bad", ["/does/not/exist/python", "definitely-not-a-python-xyz"])
def test_a_missing_interpreter_is_an_input_error(bad: str) -> None:
    with pytest.raises(InputError, match="no interpreter"):
        run_verify(bad)


def test_a_non_executable_interpreter_is_an_input_error() -> None:
    with pytest.raises(InputError, match="not executable"):
        run_verify(str(FAKES / "_fake.py"))


@pytest.mark.parametrize(("device", "timeout"), [("gpu0", 5.0), ("0", 0.0), ("0", -3.0)])
def test_bad_device_or_timeout_is_an_input_error(device: str, timeout: float) -> None:
    with pytest.raises(InputError):
        run_verify(fake("ok"), timeout=timeout, device=device)


def test_every_kb_id_verify_can_name_is_in_the_taxonomy() -> None:

    ids = {"memory-access-fault", "no-binary-for-gpu", "gpu-out-of-memory"}
    ids |= {"segfault-at-gpu-init", "gpu-hang-or-reset", "integrated-gpu-selected"}
    ids |= {"cpu-only-build", "cuda-build-on-amd", "kfd-device-missing", "kfd-permission-denied"}
    ids |= {"no-gpu-visible", "distributed-rccl-failure"}
    if not TAXONOMY.exists():
        pytest.skip("shared taxonomy not available")
    known = {row["id"] for row in yaml.safe_load(TAXONOMY.read_text())}
    assert ids <= known


def test_env_changes_reach_the_child_without_touching_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    script = tmp_path / "python"
    script.write_text(
        '#!/bin/sh\necho "override=${HSA_OVERRIDE_GFX_VERSION-unset} old=${OLD_VAR-unset}" >&2\nexit 3\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("OLD_VAR", "1")
    result = run_verify(
        str(script), timeout=10, env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "OLD_VAR": None}
    )
    assert result.failure is not None
    assert "override=10.3.0 old=unset" in "\n".join(result.failure.stderr_tail)
    assert "HSA_OVERRIDE_GFX_VERSION" not in os.environ and os.environ["OLD_VAR"] == "1"
