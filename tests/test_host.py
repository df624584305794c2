"""LocalHost runs commands with a timeout and reads the live system without raising."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

from rocmfix.host import LocalHost, parse_meminfo, run_command
from rocmfix.torch_probe import probe_torch


def _fake(tmp_path: Path, name: str, body: str) -> Path:
    exe = tmp_path / name
    exe.write_text(f"#!/bin/sh\n{body}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def test_a_hanging_command_is_killed_and_reported_as_timeout(tmp_path: Path) -> None:
    _fake(tmp_path, "rocminfo", "/usr/bin/sleep 30")
    host = LocalHost(env={"PATH": str(tmp_path)})
    start = time.monotonic()
    res = host.run(["rocminfo"], timeout=0.5)
    assert res.timed_out and res.returncode is None
    assert time.monotonic() - start < 5


def test_a_missing_command_is_reported_as_missing_not_raised(tmp_path: Path) -> None:
    res = LocalHost(env={"PATH": str(tmp_path)}).run(["rocminfo"], timeout=1)
    assert res.missing and not res.ok


def test_command_output_and_status_come_back(tmp_path: Path) -> None:
    _fake(tmp_path, "dkms", "echo 'amdgpu/6.8.5, 6.8.0-45-generic, x86_64: installed'; exit 3")
    res = run_command(["dkms", "status"], 5, env={"PATH": str(tmp_path)})
    assert res.returncode == 3 and "installed" in res.stdout


def test_unreadable_or_missing_files_read_as_none(tmp_path: Path) -> None:
    host = LocalHost()
    assert host.read_text(str(tmp_path / "nope")) is None
    assert host.stat(str(tmp_path / "nope")) is None
    assert host.listdir(str(tmp_path / "nope")) == ()


def test_can_open_rw_follows_the_real_permission(tmp_path: Path) -> None:
    f = tmp_path / "node"
    f.write_text("")
    host = LocalHost()
    assert host.can_open_rw(str(f))
    assert not host.can_open_rw(str(tmp_path / "absent"))


def test_meminfo_is_parsed_into_bytes() -> None:
    info = parse_meminfo(
        "MemTotal: 1024 kB\nMemAvailable: 512 kB\nSwapTotal: 100 kB\nSwapFree: 40 kB\n"
    )
    assert info is not None
    assert (info.total, info.available, info.swap_total, info.swap_used) == (
        1048576,
        524288,
        102400,
        61440,
    )


def test_torch_probe_reports_the_cpu_build_of_this_interpreter() -> None:
    probe = probe_torch(sys.executable, 60)
    assert probe.flavour == "cpu" and probe.hip is None and probe.is_available is False
    assert probe.python_version == ".".join(map(str, sys.version_info[:3]))


def test_torch_probe_turns_a_segfault_into_a_result(tmp_path: Path) -> None:
    python = _fake(tmp_path, "python", "kill -SEGV $$")
    probe = probe_torch(str(python), 10)
    assert probe.flavour == "unknown" and probe.signal == "SIGSEGV"


def test_torch_probe_turns_a_hang_into_a_timeout(tmp_path: Path) -> None:
    python = _fake(tmp_path, "python", "/usr/bin/sleep 30")
    probe = probe_torch(str(python), 0.5)
    assert probe.timed_out and "timed out" in (probe.error or "")


def test_torch_probe_child_code_needs_no_rocmfix(tmp_path: Path) -> None:
    env_pythonpath = os.environ.get("PYTHONPATH")
    assert env_pythonpath is None or "rocmfix" not in env_pythonpath
    from rocmfix.torch_probe import CHILD_CODE

    assert (
        "rocmfix"
        not in CHILD_CODE.replace("ROCMFIX-PROBE", "").replace("ROCMFIX_PROBE", "").lower()
    )
