"""`rocmfix fix` with nothing after it told a new user that NAME=VALUE was required,
though `rocmfix fix KB-ID` takes none: only the missing ACTION|KB-ID is named now."""

from __future__ import annotations

import os
import subprocess
import sys


def test_missing_target_names_only_the_target() -> None:
    got = subprocess.run(
        [sys.executable, "-m", "rocmfix", "fix"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
    )
    assert got.returncode == 2
    last = got.stderr.strip().splitlines()[-1]
    assert "required: ACTION|KB-ID" in last
    assert "NAME=VALUE" not in last
    assert "Traceback" not in got.stderr
