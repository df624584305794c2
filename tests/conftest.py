"""Shared fixtures: every test runs with a private HOME and XDG dirs so that a
developer's own kb.d, caches, journals or shell files are never read or touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from _fakes import Machine, fake_machine

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
TAXONOMY = DATA / "kb-taxonomy.yaml"
"""The root-cause ids (a copy of the project's taxonomy, carried so a clone alone tests)."""


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("ROCMFIX_KB", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    for var in ("LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """A throwaway machine with the fake system tools (tests/_fakes.py), for action tests."""
    return fake_machine(tmp_path, monkeypatch)
