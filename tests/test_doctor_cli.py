"""`rocmfix doctor` on this machine (no GPU, CPU torch) and its usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.cli import main

FIX = Path(__file__).parent / "data" / "host"


def test_doctor_here_reports_no_gpu_and_the_cpu_build_and_exits_1() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rocmfix", "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    checks = {c["id"]: c for c in data["checks"]}
    assert checks["gpu-list"]["status"] == "fail" and "no AMD GPU" in checks["gpu-list"]["summary"]
    # No AMD GPU here: a CPU torch is no fault of this machine, and no ROCm reinstall is advised.
    assert "cpu-only-build" not in checks["torch-build"]["kb_ids"]
    assert checks["torch-build"]["status"] == "skip"
    assert "no AMD GPU on this machine" in checks["torch-build"]["summary"]
    assert "--index-url" not in checks["torch-build"]["fix"]
    assert "--snapshot" in checks["torch-build"]["fix"]


def test_human_output_is_a_checklist_with_marks_and_a_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["doctor", "--snapshot", str(FIX / "rx6700xt-no-override")])
    out = capsys.readouterr().out
    assert code == 1
    assert "✗ GPU gfx vs torch" in out and "✓ AMD GPUs" in out
    assert "Most likely root causes:" in out and "1. no-binary-for-gpu" in out
    assert "Next: rocmfix fix no-binary-for-gpu" in out
    assert all(len(line) <= 100 for line in out.splitlines())


def test_verbose_output_shows_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor", "-v", "--snapshot", str(FIX / "rx6700xt-no-override"), "--check", "gpu-list"])
    out = " ".join(capsys.readouterr().out.split())
    assert "gfx_target_version 100301 -> gfx1031" in out


def test_healthy_snapshot_exits_0_and_suggests_verify(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--snapshot", str(FIX / "mi300x-healthy"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["next_command"] == "rocmfix verify"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["doctor", "--snapshot", "/nonexistent/snap"], "not a snapshot"),
        (["doctor", "--python", "/nonexistent/python"], "not an executable file"),
        (["doctor", "--check", "no-such-check", "--no-torch"], "unknown check id"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_check_that_crashed_has_its_own_mark() -> None:
    from rocmfix.commands.doctor import MARKS

    assert len({mark for mark, _ in MARKS.values()}) == len(MARKS)


def _last_stdout() -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "rocmfix", "doctor", "--json", "--no-torch", "--check", "os-info"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.stdout


def test_live_json_names_the_host_so_fleet_summaries_can_name_nodes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import socket

    main(["doctor", "--json", "--no-torch", "--check", "os-info"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["host"] == socket.gethostname()


def test_fleet_names_a_node_by_the_host_in_its_doctor_json(tmp_path: Path) -> None:
    from rocmfix.fleet import load

    path = tmp_path / "result-0001.json"
    path.write_text(json.dumps({**json.loads(_last_stdout()), "host": "gpu017"}))
    (node,) = load([path])
    assert node.name == "gpu017"
