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


class _ProbeHost:
    """Answers the torch probe from a table: interpreter -> flavour."""

    def __init__(self, flavours: dict[str, str]) -> None:
        self.flavours = flavours
        self.asked: list[str] = []

    def torch_probe(self, python: str, timeout: float):
        from rocmfix.torch_probe import TorchProbe

        self.asked.append(python)
        return TorchProbe(python, self.flavours.get(python, "missing"))


def test_lazy_choice_probes_python3_and_its_own_side_by_side(tmp_path: Path) -> None:
    from rocmfix.commands._target import LazyPython, python_choice

    theirs = _fake_python(tmp_path / "a", has_torch=True)
    lazy = LazyPython({"PATH": str(tmp_path / "a")})
    probe = lazy.probe(_ProbeHost({str(theirs): "rocm"}), 5)
    assert probe.python == str(theirs) and lazy() == str(theirs)
    assert "PATH" in python_choice(str(theirs))
    lazy = LazyPython({"PATH": str(tmp_path / "a")})
    probe = lazy.probe(_ProbeHost({sys.executable: "cpu"}), 5)
    assert probe.python == sys.executable and lazy() == sys.executable


def test_lazy_choice_takes_the_active_environment_without_probing_others(tmp_path: Path) -> None:
    from rocmfix.commands._target import LazyPython

    venv = tmp_path / "train"
    exe = _fake_python(venv / "bin", has_torch=False)
    host = _ProbeHost({})
    LazyPython({"VIRTUAL_ENV": str(venv), "PATH": str(tmp_path)}).probe(host, 5)
    assert host.asked == [str(exe)]


def test_the_early_probe_starts_before_it_is_asked_for_and_hands_back_its_result() -> None:
    """doctor starts the torch child before importing the checks; run_checks collects it."""
    import threading

    from rocmfix.commands._target import EarlyProbe
    from rocmfix.torch_probe import TorchProbe

    started, release = threading.Event(), threading.Event()

    class Host:
        def torch_probe(self, python: str, timeout: float) -> TorchProbe:
            started.set()
            release.wait(5)
            return TorchProbe(python, "rocm")

    early = EarlyProbe("/opt/py/bin/python", Host(), 5)
    assert started.wait(5), "the probe did not start until asked for"
    release.set()
    assert early.probe(None, 5).flavour == "rocm"
    assert early() == "/opt/py/bin/python"


def test_an_early_probe_that_fails_fails_where_it_is_collected() -> None:
    from rocmfix.commands._target import EarlyProbe

    class Host:
        def torch_probe(self, python: str, timeout: float) -> None:
            raise RuntimeError("boom")

    early = EarlyProbe("/opt/py/bin/python", Host(), 5)
    with pytest.raises(RuntimeError, match="boom"):
        early.probe(None, 5)
