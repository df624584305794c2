"""The real verify child, run with this machine's CPU-only torch.

No GPU here, so this proves three things users rely on: a CPU-only build gets
a clear no-GPU result; every stage's checks really run (a CPU rehearsal, and a
torch whose matmul is broken on purpose is caught as a wrong result); and the
child stays runnable in an interpreter without rocmfix.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.verify import FailureKind, run_verify
from rocmfix.verify.runner import CHILD

FAKES = Path(__file__).parent / "data" / "fake_pythons"


@pytest.fixture(autouse=True)
def _wrappers_use_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCMFIX_TEST_PYTHON", sys.executable)


@pytest.fixture(scope="module")
def cpu_torch() -> None:
    """Skip unless this interpreter has torch (looked up, not imported: torch is slow to load)."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed in this interpreter")


def test_a_cpu_only_torch_gets_a_no_gpu_result_naming_the_cpu_build(cpu_torch: None) -> None:
    result = run_verify(sys.executable, timeout=60)
    assert not result.ok
    assert result.torch.flavour == "cpu"
    assert result.failure is not None
    assert (result.failure.stage, result.failure.kind) == ("init", FailureKind.NO_GPU)
    assert result.failure.kb_ids[0] == "cpu-only-build"
    assert [s.stage for s in result.stages] == ["import", "init"]


def test_a_cpu_rehearsal_runs_every_stage_including_a_gloo_all_reduce(cpu_torch: None) -> None:
    result = run_verify(sys.executable, timeout=60, device="cpu", ranks=2)
    assert result.ok, result.failure
    stages = [s.stage for s in result.stages]
    assert stages == [
        "import",
        "enumerate",
        "alloc",
        "copy",
        "matmul",
        "dtypes",
        "perf",
        "conv",
        "train",
        "sync",
        "allreduce",
    ]
    conv = next(s for s in result.stages if s.stage == "conv")
    assert set(conv.data["dtypes"]) == {"fp32", "fp16", "bf16"}
    assert all(row["error"] < 1e-1 for row in conv.data["dtypes"].values())
    train = next(s for s in result.stages if s.stage == "train")
    assert train.data["losses"][-1] < 0.7 * train.data["losses"][0]
    assert set(result.devices[0].tflops) == {"fp32", "fp16", "bf16"}
    assert all(v > 0 for v in result.devices[0].tflops.values())
    assert "2 ranks, gloo" in result.stages[-1].detail


def _child_module() -> object:
    spec = importlib.util.spec_from_file_location("verify_child_under_test", CHILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_recorded_environment_keeps_gpu_knobs_and_leaves_out_secrets() -> None:
    child = _child_module()
    env = child.behaviour_env(  # type: ignore[attr-defined]
        {
            "MIOPEN_FIND_MODE": "FAST",
            "HSA_OVERRIDE_GFX_VERSION": "11.0.0",
            "PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True",
            "HIP_API_KEY": "sk-live-123",
            "NCCL_AUTH_TOKEN": "hunter2",
            "HOME": "/home/alex",
            "AWS_SECRET_ACCESS_KEY": "x",
        }
    )
    assert env == {
        "HSA_OVERRIDE_GFX_VERSION": "11.0.0",
        "MIOPEN_FIND_MODE": "FAST",
        "PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True",
    }


def test_miopen_paths_follow_the_variables_and_say_whether_they_are_writable(
    tmp_path: Path,
) -> None:
    child = _child_module()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        got = child.miopen_paths(  # type: ignore[attr-defined]
            {"MIOPEN_CUSTOM_CACHE_DIR": str(ro / "cache"), "MIOPEN_USER_DB_PATH": str(tmp_path)}
        )
    finally:
        ro.chmod(0o755)
    assert got["cache_dir"] == str(ro / "cache") and got["user_db"] == str(tmp_path)
    assert got["user_db_writable"] is True
    if os.geteuid() != 0:  # root may write anywhere
        assert got["cache_dir_writable"] is False


@pytest.mark.parametrize(
    ("wrapper", "stage", "words"),
    [
        ("wrong_nan", "matmul", "NaN"),
        ("wrong_inf", "matmul", "inf"),
        ("wrong_zeros", "matmul", "all zeros"),
        ("wrong_bf16_off", "dtypes", "bf16 matmul differs"),
    ],
)
def test_a_matmul_that_returns_wrong_numbers_is_caught(
    cpu_torch: None, wrapper: str, stage: str, words: str
) -> None:
    result = run_verify(str(FAKES / wrapper), timeout=60, device="cpu")
    assert result.failure is not None
    assert (result.failure.kind, result.failure.stage) == (FailureKind.WRONG_RESULT, stage)
    assert words in result.failure.message


def test_the_child_imports_only_the_standard_library_and_torch() -> None:
    tree = ast.parse(CHILD.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    # triton is imported only inside a try, to report which Triton torch.compile would use
    assert names - set(sys.stdlib_module_names) == {"torch", "triton"}


def test_the_child_parses_as_python_3_8() -> None:
    ast.parse(CHILD.read_text(), feature_version=(3, 8))


def test_the_child_runs_as_a_lone_file_without_rocmfix(tmp_path: Path) -> None:
    lone = tmp_path / "child.py"
    lone.write_text(CHILD.read_text())
    proc = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            f"import sys, runpy; sys.modules['rocmfix'] = None; "
            f"sys.argv = [{str(lone)!r}, '--help']; runpy.run_path({str(lone)!r}, run_name='__main__')",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert "--device" in proc.stdout
