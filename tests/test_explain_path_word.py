"""A new user types `rocmfix explain train.log` (no --file). Before, rocmfix searched
the 9 characters of the file's name, said "read 1 line (9 bytes) ... No known ROCm root
cause found" and never opened the log. The one word that names a file is the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

NO_BINARY = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocmfix", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "LANG": "C.UTF-8"},
    )


def test_a_bare_file_name_reads_the_file(tmp_path: Path) -> None:
    (tmp_path / "train.log").write_text("step 1\n" + NO_BINARY)
    got = run_cli("explain", "--json", "train.log", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    out = json.loads(got.stdout)
    assert out["input"] == {"bytes": len("step 1\n" + NO_BINARY), "lines": 2}
    assert out["matches"][0]["id"] == "no-binary-for-gpu"


def test_a_missing_log_name_says_no_such_file(tmp_path: Path) -> None:
    got = run_cli("explain", "tarin.log", cwd=tmp_path)
    assert got.returncode == 2
    assert "tarin.log: no such file" in got.stderr
    assert "Traceback" not in got.stderr
    assert "No known ROCm root cause" not in got.stdout


def test_a_directory_name_gets_the_directory_message(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    got = run_cli("explain", "logs", cwd=tmp_path)
    assert got.returncode == 2
    assert "is a directory" in got.stderr


def test_an_error_word_is_still_error_text(tmp_path: Path) -> None:
    got = run_cli("explain", "--json", "hipErrorNoBinaryForGpu", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["matches"][0]["id"] == "no-binary-for-gpu"


def test_an_unreadable_log_says_permission_denied_in_both_spellings(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(NO_BINARY)
    log.chmod(0)
    if os.geteuid() != 0:
        runs = [
            run_cli("explain", *form, cwd=tmp_path)
            for form in (["train.log"], ["--file", "train.log"])
        ]
    else:
        # root reads through mode bits: make the open fail as the kernel fails it for a user
        prelude = (
            "import errno, rocmfix.safeio as s\n"
            "def denied(p, *a, **k): raise PermissionError(errno.EACCES, 'Permission denied', str(p))\n"
            "s.open_log = denied\n"
            "from rocmfix.cli import main\n"
            "import sys; raise SystemExit(main(sys.argv[1:]))\n"
        )
        runs = [
            subprocess.run(
                [sys.executable, "-c", prelude, "explain", *form],
                capture_output=True,
                text=True,
                timeout=120,
                cwd=tmp_path,
                env={**os.environ, "LANG": "C.UTF-8"},
            )
            for form in (["train.log"], ["--file", "train.log"])
        ]
    for got in runs:
        assert got.returncode == 2, (got.stdout, got.stderr)
        assert "train.log: permission denied" in got.stderr
        assert "Traceback" not in got.stderr and got.stdout == ""
