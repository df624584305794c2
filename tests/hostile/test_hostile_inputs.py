"""Issue 13 items 13, 15, 17: snapshots with links and fuzzed JSON, special files, big inputs."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_util import cli, deadline
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmfix import safeio
from rocmfix.errors import InputError
from rocmfix.kb.loader import load_kb
from rocmfix.redact import redact_text
from rocmfix.snapshot import SCHEMA, SnapshotHost


def _snapshot(tmp_path: Path, **data: object) -> Path:
    snap = tmp_path / "snap"
    (snap / "root").mkdir(parents=True, exist_ok=True)
    (snap / "snapshot.json").write_text(json.dumps({"schema": SCHEMA, **data}))
    return snap


def test_a_snapshot_root_linking_to_slash_is_refused(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "snapshot.json").write_text(json.dumps({"schema": SCHEMA}))
    os.symlink("/", snap / "root")
    with pytest.raises(InputError, match="symlink"):
        SnapshotHost(snap)
    got = cli(["doctor", "--snapshot", str(snap), "--no-torch"])
    got.clean_refusal()


def test_links_inside_the_snapshot_never_read_this_machine(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path)
    etc = snap / "root" / "etc"
    etc.mkdir()
    os.symlink("/etc/os-release", etc / "os-release")
    os.symlink("/etc", snap / "root" / "sys")
    os.symlink("../../../..", etc / "up")
    (etc / "hostname").write_text("recorded-host\n")
    host = SnapshotHost(snap)
    assert host.read_text("/etc/os-release") is None
    assert host.read_text("/sys/passwd") is None and host.listdir("/sys") == ()
    assert host.read_text("/etc/up/etc/passwd") is None
    assert host.read_text("/etc/hostname") == "recorded-host\n"
    assert not host.exists("/etc/os-release") or host.stat("/etc/os-release") is None


def test_a_huge_file_in_a_snapshot_is_read_in_bounded_memory(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path)
    big = snap / "root" / "proc" / "cmdline"
    big.parent.mkdir(parents=True)
    with big.open("wb") as fh:
        fh.truncate(600 * 1024 * 1024)  # sparse: costs no disk
    with deadline(5):
        text = SnapshotHost(snap).read_text("/proc/cmdline")
    assert text is not None and len(text) <= 4 * 1024 * 1024


def test_a_fifo_in_a_snapshot_does_not_hang(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path)
    (snap / "root" / "etc").mkdir()
    os.mkfifo(snap / "root" / "etc" / "os-release")
    with deadline(3):
        assert SnapshotHost(snap).read_text("/etc/os-release") is None


_json = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
_keys = st.sampled_from(
    [
        "user",
        "env",
        "commands",
        "stat",
        "exists",
        "listdir",
        "links",
        "rw",
        "memory",
        "torch",
        "python",
        "disk_total",
    ]
)


@given(fields=st.dictionaries(_keys, _json, max_size=6))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_fuzzed_snapshot_is_replayed_or_refused_in_one_line(
    tmp_path: Path, fields: dict[str, object]
) -> None:
    snap = _snapshot(tmp_path, **fields)
    try:
        host = SnapshotHost(snap)
    except InputError:
        return
    for path in ("/etc/os-release", "/sys/class/kfd/kfd/topology/nodes", "/dev/kfd"):
        (
            host.read_text(path),
            host.exists(path),
            host.listdir(path),
            host.stat(path),
            host.readlink(path),
        )
    host.run(["rocminfo"])
    host.memory(), host.torch_probe("python3", 1.0), host.processes_holding("/dev/kfd")


def test_a_fuzzed_snapshot_through_the_doctor_has_no_traceback(tmp_path: Path) -> None:
    snap = _snapshot(
        tmp_path,
        user={"name": 5, "uid": "x"},
        stat={"/dev/kfd": {"mode": ""}},
        commands=[{"argv": "rocminfo"}, 7],
        memory={"bogus": 1},
    )
    got = cli(["doctor", "--snapshot", str(snap), "--no-torch", "--json"])
    got.no_traceback()


# ------------------------------------------------------------ special files


@pytest.mark.parametrize("kind", ["zero", "fifo", "dir", "loop"])
def test_kb_d_special_files_are_skipped_with_a_problem(tmp_path: Path, kind: str) -> None:
    kbd = Path(os.environ["XDG_CONFIG_HOME"]) / "rocmfix" / "kb.d"
    kbd.mkdir(parents=True)
    bad = kbd / "bad.yaml"
    if kind == "zero":
        os.symlink("/dev/zero", bad)
    elif kind == "fifo":
        os.mkfifo(bad)
    elif kind == "dir":
        bad.mkdir()
    else:
        os.symlink(bad, bad)
    with deadline(10):
        kb = load_kb(use_cache=False)
        got = cli(
            [
                "explain",
                "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
            ]
        )
    assert kb.entries and any("bad.yaml" in p for p in kb.problems)
    got.no_traceback()


@pytest.mark.parametrize(
    "args", [["fix", "no-binary-for-gpu", "--from-log"], ["report", "--no-torch", "--log"]]
)
@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "fifo"])
def test_devices_and_fifos_as_logs_are_refused_at_once(
    tmp_path: Path, args: list[str], path: str
) -> None:
    if path == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    with deadline(15):
        got = cli([*args, path])
    got.clean_refusal()
    assert "not a regular file" in got.err


def test_a_gzip_bomb_is_cut_at_the_decompressed_cap(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.log.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as fh:
        fh.write(b"\0" * (8 * 1024 * 1024))
    stream = safeio.open_log(bomb, max_decompressed=1024 * 1024)
    with stream, pytest.raises(OSError, match="decompresses to more than"):
        while stream.read(65536):
            pass


def _peak_rss_mb(args: list[str]) -> float:
    """Peak RSS of one ``python -m rocmfix ARGS`` run (its own rusage, from wait4)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "rocmfix", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024


def test_fix_from_log_streams_a_big_log(tmp_path: Path) -> None:
    fatal = b"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    small, big = tmp_path / "small.log", tmp_path / "big.log"
    small.write_bytes(fatal)
    line = b"step 1 loss 0.5 lr 0.001 epoch 3 " * 3 + b"\n"
    with big.open("wb") as fh:
        for _ in range(20):
            fh.write(line * 12000)  # 24 MB in all
        fh.write(fatal)
    size_mb = big.stat().st_size / 1024 / 1024
    grown = _peak_rss_mb(["fix", "no-binary-for-gpu", "--from-log", str(big)]) - _peak_rss_mb(
        ["fix", "no-binary-for-gpu", "--from-log", str(small)]
    )
    assert grown < size_mb * 0.8, f"peak RSS grew {grown:.0f} MB for a {size_mb:.0f} MB log"


def test_report_redaction_is_linear_in_the_number_of_names() -> None:
    text = "".join(f"/home/user{i}/x\n" for i in range(15000))  # ~250 KB, 15,000 names
    start = time.monotonic()
    out = redact_text(text)
    assert time.monotonic() - start < 10
    assert "user1234" not in out and out.count("/home/<user>/x") == 15000
