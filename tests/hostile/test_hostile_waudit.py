"""What a hostile or unlucky user met through the real entry point (waudit).

Each case runs ``python -m rocmfix`` in a subprocess with the user's input and
reads the exit code and what was printed: one clear line, never a traceback,
a hang or unbounded memory.
"""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _run(
    *args: str,
    stdin: bytes | str | None = None,
    timeout: float = 60,
    mem_mib: int = 0,
    **kw: object,
) -> subprocess.CompletedProcess[str]:
    """``stdin`` is bytes to send, or the path of a file to read from (``/dev/zero``)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1", **kw.pop("extra_env", {})}  # type: ignore[dict-item]

    def limit() -> None:
        if mem_mib:
            resource.setrlimit(resource.RLIMIT_AS, (mem_mib << 20, mem_mib << 20))

    if isinstance(stdin, str):
        with open(stdin, "rb") as fh:
            return _run(*args, timeout=timeout, mem_mib=mem_mib, stdin_fh=fh, **kw)
    fh = kw.pop("stdin_fh", None)
    if kw.pop("stdin_closed", False):
        kw["preexec_fn"] = lambda: (limit(), os.close(0))
        fh = subprocess.DEVNULL
    proc = subprocess.run(
        [sys.executable, "-m", "rocmfix", *args],
        input=stdin,
        stdin=fh if fh is not None else None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        env=env,
        **{"preexec_fn": limit, **kw},  # type: ignore[arg-type]
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode(errors="replace"),
        proc.stderr.decode(errors="replace"),
    )


def _refused(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith(("rocmfix", "hint:")), proc.stderr
    for word in words:
        assert word in proc.stderr, proc.stderr


# ---------------------------------------------------------------- timeouts


@pytest.mark.parametrize("value", ["inf", "nan", "1e10", "0"])
@pytest.mark.parametrize(
    "args",
    [
        ["doctor", "--no-torch", "--timeout"],
        ["doctor", "--torch-timeout"],
        ["verify", "--python", "/bin/true", "--timeout"],
        ["verify", "--python", "/bin/true", "--deadline"],
        ["collect", "--no-torch", "--out", "OUT", "--timeout"],
    ],
)
def test_a_timeout_that_is_not_a_usable_number_of_seconds_is_a_usage_error(
    tmp_path: Path, args: list[str], value: str
) -> None:
    # inf and 1e10 overflowed the thread wait (a traceback); nan was taken and meant "no timeout"
    args = [str(tmp_path / "snap") if a == "OUT" else a for a in args]
    proc = _run(*args, value)
    _refused(proc, value)
    assert not (tmp_path / "snap").exists()


# ---------------------------------------------------------------- files that never end


def test_fleet_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "node1.json"
    os.mkfifo(fifo)
    proc = _run("fleet", "summarize", str(fifo), timeout=30)  # it waited for a writer forever
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1, proc.stderr
    assert "FIFO" in proc.stdout, proc.stdout


def test_fleet_stops_reading_an_endless_stdin(tmp_path: Path) -> None:
    proc = _run("fleet", "summarize", "-", stdin="/dev/zero", mem_mib=1500, timeout=60)
    _refused(proc, "stdin")  # it read until a MemoryError traceback


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_kb_eval_refuses_a_fifo_or_a_device_at_once(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "cases.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path(kind)
    proc = _run("kb", "eval", str(path), mem_mib=1500, timeout=30)  # a hang, or memory without end
    _refused(proc, str(path))


@pytest.mark.parametrize(
    "args",
    [
        ["report", "--no-torch", "--out", "OUT"],
        ["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--apply"],
    ],
)
def test_a_question_answered_by_an_endless_stdin_is_a_no(tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "report.md"
    args = [str(out) if a == "OUT" else a for a in args]
    proc = _run(*args, stdin="/dev/zero", mem_mib=1500, timeout=60)  # readline() without end
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode in (1, 2), proc.stderr
    assert not out.exists()
    assert not (Path(os.environ["HOME"]) / ".bashrc").exists()


@pytest.mark.parametrize("args", [["fleet", "summarize", "-"], ["tui"], ["-"]])
def test_a_closed_stdin_is_one_line_not_a_traceback(args: list[str]) -> None:
    # sys.stdin is None when fd 0 is closed (`rocmfix fleet summarize - <&-`)
    proc = _run(*args, stdin_fh=None, timeout=30, close_fds=True, pass_fds=(), stdin_closed=True)
    _refused(proc)


# ---------------------------------------------------------------- report --out


def test_report_out_never_replaces_a_fifo_or_a_device_node(tmp_path: Path) -> None:
    # `--out /dev/full` (as root) renamed the report over the device node itself
    fifo = tmp_path / "report.md"
    os.mkfifo(fifo)
    proc = _run("report", "--no-torch", "--out", str(fifo), "--yes", timeout=60)
    _refused(proc, "FIFO")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]  # no temporary left


def test_kb_train_out_never_replaces_a_fifo_or_a_device_node(tmp_path: Path) -> None:
    # `kb train` writes its artifact by rename too; the target is refused before anything is
    # learned (and before scikit-learn is looked for), as report --out is.
    fifo = tmp_path / "ranker.bin"
    os.mkfifo(fifo)
    proc = _run("kb", "train", "--data", str(tmp_path), "--out", str(fifo), timeout=60)
    _refused(proc, "FIFO")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranker.bin"]


def test_report_out_through_a_symlink_writes_the_file_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "reports" / "bug.md"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "bug.md"
    link.symlink_to(real)
    proc = _run("report", "--no-torch", "--out", str(link), "--yes", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text().startswith("## rocmfix report")


def test_report_out_on_a_read_only_file_system_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the temporary file could not be written, and its clean-up raised EROFS again: a traceback
    from hostile_util import cli

    def erofs(self: Path, *a: object, **k: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "write_text", erofs)
    monkeypatch.setattr(Path, "unlink", erofs)
    got = cli(["report", "--no-torch", "--out", str(tmp_path / "r.md"), "--yes"])
    got.clean_refusal()
    assert "Read-only file system" in got.err


# ---------------------------------------------------------------- a lying --python


def test_verify_with_a_lying_interpreter_prints_no_markup_error_and_no_escapes(
    tmp_path: Path,
) -> None:
    # A stage named "[/bold]" was printed as rich markup: a MarkupError traceback;
    # escapes in its version, details and stderr reached the terminal.
    fake = tmp_path / "python"
    events = [
        {"event": "hello"},
        {
            "event": "done",
            "stage": "import",
            "seconds": 0.1,
            "data": {"version": "9.9\x1b]0;TITLE\x07", "flavour": "rocm", "hip": "6.2"},
        },
        {
            "event": "done",
            "stage": "[/bold]x\x1bc",
            "seconds": 0.1,
            "detail": "d \x1b]0;T\x07 [red]R[/red]",
        },
        {"event": "fail", "stage": "init", "seconds": 0.1, "message": "m \x1b]52;c;eA==\x07"},
        {"event": "end", "elapsed": 1},
    ]
    body = "".join(f"print({json.dumps(json.dumps(e))})\n" for e in events)
    fake.write_text(
        f"#!{sys.executable}\nimport sys\n{body}"
        "print('ImportError: \\x1b]0;PWN\\x07 \\x1bc', file=sys.stderr)\nsys.exit(1)\n"
    )
    fake.chmod(0o755)
    proc = _run("verify", "--python", str(fake), timeout=60)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out[-2000:]
    assert proc.returncode == 1, out[-2000:]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out), out[-2000:]


# ---------------------------------------------------------------- a Windows log


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_utf16_log_with_a_bom_is_read_as_text(tmp_path: Path, encoding: str, how: str) -> None:
    # Windows PowerShell's `python train.py *> log.txt` writes UTF-16 with a BOM and CRLF;
    # it was refused as "binary data, not a text log".
    text = (
        "Traceback (most recent call last):\r\nRuntimeError: HIP error: invalid device function\r\n"
        * 3
    )
    data = (
        ("\ufeff" + text).encode("utf-16-be") if encoding == "utf-16-be" else text.encode("utf-16")
    )
    log = tmp_path / "log.txt"
    log.write_bytes(data)
    if how == "file":
        proc = _run("explain", "-f", str(log), "--json", timeout=60)
    else:
        proc = _run("explain", "-", "--json", stdin=str(log), timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["matches"][0]["id"] == "no-binary-for-gpu", doc["matches"][:1]
    assert doc["input"]["lines"] == 6, doc["input"]


# ---------------------------------------------------------------- kb --kb FILE validate


def test_kb_validate_checks_the_file_given_with_kb(tmp_path: Path) -> None:
    # `rocmfix kb --kb mine.yaml validate` said "ok" about the built-in KB alone
    mine = tmp_path / "mine.yaml"
    mine.write_text("schema: rocmfix.kb/1\nentries:\n  - id: Bad Id\n")
    proc = _run("kb", "--kb", str(mine), "validate", timeout=60)
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert f"FAIL  {mine}" in proc.stdout, proc.stdout


# ---------------------------------------------------------------- --snapshot on a garbage dir


@pytest.mark.parametrize("kind", ["fifo", "dir"])
@pytest.mark.parametrize("command", [["doctor"], ["report", "--no-torch"], ["install-plan"]])
def test_a_snapshot_json_that_is_not_a_file_is_refused_at_once(
    tmp_path: Path, kind: str, command: list[str]
) -> None:
    # a FIFO named snapshot.json waited for a writer forever
    snap = tmp_path / "snap"
    snap.mkdir()
    if kind == "fifo":
        os.mkfifo(snap / "snapshot.json")
    else:
        (snap / "snapshot.json").mkdir()
    proc = _run(*command, "--snapshot", str(snap), timeout=30)
    _refused(proc, "snapshot.json")
    assert "Errno" not in proc.stderr, proc.stderr


def test_the_reason_inside_a_chinese_refusal_is_chinese_too(tmp_path: Path) -> None:
    # "rocmfix：fifo：无法读取（is a FIFO, not a regular file）"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = _run("explain", "-f", str(fifo), timeout=30, extra_env={"LANG": "zh_CN.UTF-8"})
    _refused(proc, "无法读取", "命名管道")
    assert "regular file" not in proc.stderr, proc.stderr


# ---------------------------------------------------------------- explain - at a terminal


def test_explain_dash_at_a_terminal_ends_at_the_first_ctrl_d(tmp_path: Path) -> None:
    # A terminal's EOF is not sticky: after the first Ctrl-D the readers read again and
    # waited; the user had to press Ctrl-D two or three times (waudit).
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.environ.update({"PYTHONPATH": str(SRC), "NO_COLOR": "1"})
        os.execv(sys.executable, [sys.executable, "-m", "rocmfix", "explain", "-"])
    out = b""
    try:
        time.sleep(1.0)
        os.write(fd, b"hipErrorNoBinaryForGpu\r")
        time.sleep(0.3)
        os.write(fd, b"\x04")  # once
        end = time.monotonic() + 30
        status = None
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                out += data
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise AssertionError(f"still waiting after one Ctrl-D: {out.decode(errors='replace')}")
        while select.select([fd], [], [], 0.2)[0]:  # what it printed before it exited
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
    finally:
        os.close(fd)
    assert os.WEXITSTATUS(status) == 0, out.decode(errors="replace")
    assert b"no-binary-for-gpu" in out
