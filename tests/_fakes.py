"""The throwaway machine that action tests run against (tests/test_actions.py, tests/hostile).

A private HOME and state directory, and the fake system tools of
tests/fakebin (systemctl, usermod, gpasswd, sudo, id, getent, pip) first on
PATH; the fakes record every call and keep their state in ``fake/``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from rocmfix.actions import Context

FAKEBIN = Path(__file__).resolve().parent / "fakebin"


class Machine:
    """A private HOME and state directory; the fake system tools first on PATH."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.state = root / "state" / "rocmfix"
        self.fake = root / "fake"
        self.home.mkdir()
        self.fake.mkdir()

    @property
    def bashrc(self) -> Path:
        return self.home / ".bashrc"

    @property
    def journal(self) -> Path:
        return self.state / "journal.jsonl"

    def ctx(self, **kw: object) -> Context:
        base: dict[str, object] = {
            "home": self.home,
            "env": dict(os.environ),
            "user": "alice",
            "is_root": True,
            "gpus": (),
        }
        base.update(kw)
        return Context(**base)  # type: ignore[arg-type]

    def calls(self) -> list[list[str]]:
        """Every call a fake tool recorded, as ``[tool, *argv]``."""
        path = self.fake / "calls.jsonl"
        if not path.exists():
            return []
        return [
            [row["tool"], *row["argv"]] for row in map(json.loads, path.read_text().splitlines())
        ]

    def fake_state(self, name: str, value: object) -> None:
        (self.fake / name).write_text(json.dumps(value))

    def read_fake(self, name: str) -> object:
        return json.loads((self.fake / name).read_text())


def fake_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """A ``Machine`` under ``tmp_path`` with the environment pointing at it (the ``machine`` fixture)."""
    m = Machine(tmp_path)
    monkeypatch.setenv("HOME", str(m.home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(m.home / ".config"))  # what an unset one means
    monkeypatch.setenv("FAKEBIN_STATE", str(m.fake))
    monkeypatch.setenv("FAKEBIN_PYTHON", sys.executable)
    monkeypatch.setenv("PATH", f"{FAKEBIN}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SHELL", "/bin/bash")
    for var in ("MIOPEN_CUSTOM_CACHE_DIR", "MIOPEN_USER_DB_PATH", "ZDOTDIR"):
        monkeypatch.delenv(var, raising=False)
    return m
