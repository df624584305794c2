"""Issue 13 items 16 (doctor --python) and 17 (probe output): fake interpreters that drip,
fork, flood and lie are reported within the timeout, in bounded memory, leaving nothing."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_util import alive, cli, deadline

from rocmfix import children
from rocmfix.torch_probe import probe_torch

PY = sys.executable


def _fake(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(f"#!{PY}\nimport os, sys, time, json\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def _pids(tmp_path: Path) -> list[int]:
    return [int(p.read_text()) for p in tmp_path.glob("pid-*") if p.read_text().strip()]


@pytest.fixture(autouse=True)
def _no_sleeper_outlives_a_failed_test(tmp_path: Path) -> Iterator[None]:
    yield
    for pid in _pids(tmp_path):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _setsid_grandchild(tmp_path: Path, keep_stdout: bool) -> str:
    return f"""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            open({str(tmp_path / "pid-grandchild")!r}, "w").write(str(os.getpid()))
            {"" if keep_stdout else "os.close(1); os.close(2)"}
            time.sleep(120)
            os._exit(0)
        os._exit(0)
    time.sleep(0.3)
    """


def test_a_setsid_grandchild_holding_stdout_does_not_hang_the_probe(tmp_path: Path) -> None:
    fake = _fake(
        tmp_path,
        "python",
        _setsid_grandchild(tmp_path, keep_stdout=True)
        + "print('ROCMFIX-PROBE:' + json.dumps({'flavour': 'missing'}))\n",
    )
    with deadline(8):
        probe = probe_torch(str(fake), timeout=5)
    assert probe.flavour == "missing"
    time.sleep(0.2)
    assert _pids(tmp_path) and not any(alive(p) for p in _pids(tmp_path))


def test_doctor_python_finishes_when_the_probe_leaves_a_grandchild(tmp_path: Path) -> None:
    fake = _fake(
        tmp_path, "python", _setsid_grandchild(tmp_path, keep_stdout=True) + "time.sleep(60)\n"
    )
    with deadline(25):
        got = cli(
            ["doctor", "--python", str(fake), "--json", "--timeout", "3", "--torch-timeout", "3"]
        )
    got.no_traceback()
    time.sleep(0.2)
    assert not any(alive(p) for p in _pids(tmp_path))


def test_a_dripping_probe_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    fake = _fake(
        tmp_path, "python", "while True:\n    print('tick', flush=True); time.sleep(0.1)\n"
    )
    with deadline(6):
        probe = probe_torch(str(fake), timeout=2)
    assert probe.timed_out and "timed out" in (probe.error or "")


def test_a_flooding_probe_costs_bounded_memory(tmp_path: Path) -> None:
    fake = _fake(
        tmp_path,
        "python",
        "chunk = b'x' * (1 << 20)\nfor _ in range(200):\n    sys.stdout.buffer.write(chunk)\n"
        "sys.stdout.buffer.write(b'\\nROCMFIX-PROBE:' + json.dumps({'flavour': 'cpu', 'version': '2.5.0'}).encode() + b'\\n')\n",
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with deadline(30):
        probe = probe_torch(str(fake), timeout=25)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 100, f"parent grew by {grown_mb:.0f} MB for 200 MB of output"
    assert probe.flavour == "cpu"  # the result line at the end is still read


def test_a_lying_probe_gives_a_result_not_a_crash(tmp_path: Path) -> None:
    fake = _fake(
        tmp_path,
        "python",
        "print('ROCMFIX-PROBE:' + json.dumps({'flavour': 'rocm', 'devices': 'not-a-list', 'arch_list': 5,"
        " 'device_count': 'many', 'loaded_libs': []}))\n",
    )
    probe = probe_torch(str(fake), timeout=5)
    assert probe.flavour == "unknown" and "malformed" in (probe.error or "")


@pytest.mark.parametrize("keep_stdout", [False, True])
def test_the_runner_reaps_double_forked_children(tmp_path: Path, keep_stdout: bool) -> None:
    fake = _fake(tmp_path, "child", _setsid_grandchild(tmp_path, keep_stdout) + "print('done')\n")
    with deadline(5):
        done = children.run([str(fake)], timeout=3)
    assert b"done" in done.stdout
    time.sleep(0.2)
    # Whether it kept our pipe or closed it and left the session, it came from our child.
    assert _pids(tmp_path) and not any(alive(p) for p in _pids(tmp_path))


def test_doctor_leaves_no_detached_grandchild_of_the_probe(tmp_path: Path) -> None:
    fake = _fake(
        tmp_path,
        "python",
        _setsid_grandchild(tmp_path, keep_stdout=False)
        + "print('ROCMFIX-PROBE:' + json.dumps({'flavour': 'missing'}))\n",
    )
    with deadline(25):
        got = cli(["doctor", "--python", str(fake), "--json", "--timeout", "3"])
    got.no_traceback()
    time.sleep(0.2)
    assert _pids(tmp_path) and not any(alive(p) for p in _pids(tmp_path))


def test_a_child_ignoring_sigterm_is_killed_at_the_deadline(tmp_path: Path) -> None:
    fake = _fake(
        tmp_path,
        "child",
        "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"open({str(tmp_path / 'pid-self')!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n",
    )
    with deadline(5):
        done = children.run([str(fake)], timeout=1)
    assert done.timed_out and done.returncode is None
    assert not any(alive(p) for p in _pids(tmp_path))
