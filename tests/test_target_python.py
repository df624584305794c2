"""Which interpreter's torch the doctor probes when --python is not given."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from rocmfix.cli import main
from rocmfix.commands._target import default_python


def _fake_python(folder: Path, has_torch: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "python3"
    exe.write_text(f"#!/bin/sh\nexit {0 if has_torch else 3}\n")
    exe.chmod(0o755)
    return exe


def test_the_active_virtualenv_wins(tmp_path: Path) -> None:
    venv = tmp_path / "train"
    exe = _fake_python(venv / "bin", has_torch=False)
    (venv / "bin" / "python").symlink_to(exe)
    chosen, why = default_python({"VIRTUAL_ENV": str(venv), "PATH": "/usr/bin"})
    assert chosen == str(venv / "bin" / "python")
    assert "$VIRTUAL_ENV" in why


def test_conda_prefix_when_no_virtualenv(tmp_path: Path) -> None:
    env = tmp_path / "conda"
    _fake_python(env / "bin", has_torch=True)
    chosen, why = default_python({"CONDA_PREFIX": str(env), "PATH": "/nonexistent"})
    assert chosen == str(env / "bin" / "python3") and "$CONDA_PREFIX" in why


def test_python3_on_path_only_when_it_has_torch(tmp_path: Path) -> None:
    with_torch = _fake_python(tmp_path / "a", has_torch=True)
    chosen, why = default_python({"PATH": str(tmp_path / "a")})
    assert chosen == str(with_torch) and "PATH" in why
    _fake_python(tmp_path / "b", has_torch=False)
    chosen, why = default_python({"PATH": str(tmp_path / "b")})
    assert chosen == sys.executable and "rocmfix" in why


def test_doctor_json_says_which_interpreter_was_probed(capsys: pytest.CaptureFixture[str]) -> None:
    snap = Path(__file__).parent / "data" / "host" / "rx7900xtx-healthy"
    main(["doctor", "--json", "--snapshot", str(snap), "--check", "torch-build"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["python"] == {
        "path": "/home/alex/venv/bin/python",
        "chosen_as": "the interpreter recorded in the snapshot",
    }


def test_doctor_header_names_the_probed_interpreter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", os.path.dirname(os.path.dirname(sys.executable)))
    main(["doctor", "--check", "python-version"])
    out = capsys.readouterr().out
    assert "torch probed in" in out and "$VIRTUAL_ENV" in out
