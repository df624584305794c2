"""What a hostile or unlucky user met through the real entry point (waudit).

Each case runs ``python -m rocmfix`` in a subprocess with the user's input and
reads the exit code and what was printed: one clear line, never a traceback,
a hang or unbounded memory.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _run(
    *args: str, stdin: bytes | None = None, timeout: float = 60, mem_mib: int = 0, **kw: object
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1"}

    def limit() -> None:
        if mem_mib:
            resource.setrlimit(resource.RLIMIT_AS, (mem_mib << 20, mem_mib << 20))

    proc = subprocess.run(
        [sys.executable, "-m", "rocmfix", *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        env=env,
        preexec_fn=limit,
        **kw,  # type: ignore[arg-type]
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
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
