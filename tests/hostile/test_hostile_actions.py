"""Issue 13 items 5, 9, 10, 12, 21: trust boundaries of the fix actions."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest
import yaml
from hostile_util import Machine, cli

from rocmfix.actions import ActionError, apply_plan, fsops, plan_action, undo
from rocmfix.actions.validate import settable
from rocmfix.errors import KbError
from rocmfix.kb.schema import parse_kb_text

REPO = Path(__file__).resolve().parents[2]

PLANTING = [
    "LD_AUDIT",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "NODE_OPTIONS",
    "GIT_SSH_COMMAND",
    "PIP_INDEX_URL",
    "BASH_ENV",
    "PROMPT_COMMAND",
    "HSA_TOOLS_LIB",
    "NCCL_NET_PLUGIN",
    "ROCM_PATH",
    "HIP_PATH",
    "MIOPEN_SYSTEM_DB_PATH",
    "TORCH_EXTENSIONS_DIR",
]


@pytest.mark.parametrize("name", PLANTING)
def test_set_env_cannot_plant_a_loader_or_interpreter_variable(machine: Machine, name: str) -> None:
    machine.bashrc.write_text("alias a=b\n")
    got = cli(["fix", "set-env", f"{name}=/tmp/evil.so", "--apply", "--yes"])
    got.clean_refusal()
    assert f"does not set {name}" in got.err
    assert machine.bashrc.read_text() == "alias a=b\n"
    assert plan_action("set-env", {name: None}, machine.ctx()).steps  # removal stays possible


_SET_ENV_OPTIONS = {"session", "venv"}  # where to set them, not variables


def test_every_set_env_value_in_the_builtin_kb_is_settable() -> None:
    kb = yaml.safe_load((REPO / "kb" / "errors.yaml").read_text(encoding="utf-8"))
    names = {
        name
        for entry in kb["entries"]
        for fix in entry.get("fixes") or ()
        if fix.get("action") == "set-env"
        for name, value in (fix.get("params") or {}).items()
        if value is not None and name not in _SET_ENV_OPTIONS
    }
    assert names and all(settable(n) for n in names), sorted(n for n in names if not settable(n))


def test_a_non_ascii_value_gets_an_honest_message(machine: Machine) -> None:
    got = cli(["fix", "set-env", "MIOPEN_FIND_MODE=ünï"])
    got.clean_refusal()
    assert "non-ASCII" in got.err and "could run a command" not in got.err


def test_a_kb_file_cannot_name_the_interpreter_a_dry_run_starts(
    machine: Machine, tmp_path: Path
) -> None:
    marker = tmp_path / "RAN"
    script = tmp_path / "x.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    builtin = yaml.safe_load((REPO / "kb" / "errors.yaml").read_text(encoding="utf-8"))
    base = next(
        e
        for e in builtin["entries"]
        if any(f.get("action") == "reinstall-torch" for f in e["fixes"])
    )
    evil = {**base, "id": "evil-fix"}
    evil["fixes"] = [
        {
            "action": "reinstall-torch",
            "params": {"rocm_index": "rocm6.2", "python": str(script)},
            "text": {"en": "x"},
        }
    ]
    entry = {"schema": builtin["schema"], "entries": [evil]}
    text = yaml.safe_dump(entry)
    with pytest.raises(KbError, match="may not name an interpreter"):
        parse_kb_text(text, "evil.yaml")
    kb_file = tmp_path / "evil.yaml"
    kb_file.write_text(text)
    got = cli(["fix", "evil-fix", "--kb", str(kb_file)])
    got.no_traceback()
    assert got.code == 2 and not marker.exists()


def test_an_unknown_kb_action_is_never_shown_as_a_command(tmp_path: Path) -> None:
    from rocmfix.commands._explain_render import _fix_command
    from rocmfix.kb.render import RenderedFix

    fix = RenderedFix("x", "nuke-everything", {"target": "/"}, (), "low", False, True)
    shown = _fix_command(fix) or ""
    assert "rocmfix fix nuke-everything" not in shown and "unknown fix action" in shown


# ------------------------------------------------------- clear-miopen-cache


@pytest.mark.parametrize("where", ["/etc", "/usr", "/opt", "/var", "/home"])
def test_clear_miopen_cache_never_plans_to_move_a_system_directory(
    machine: Machine, where: str
) -> None:
    if not os.path.isdir(where):
        pytest.skip(f"{where} absent here")
    env = {**os.environ, "MIOPEN_CUSTOM_CACHE_DIR": where}
    with pytest.raises(ActionError, match="refusing to move"):
        plan_action("clear-miopen-cache", {}, machine.ctx(env=env))


def test_clear_miopen_cache_refuses_a_directory_with_foreign_files(
    machine: Machine, tmp_path: Path
) -> None:
    d = tmp_path / "cache"
    (d / "3.2.0").mkdir(parents=True)
    (d / "3.2.0" / "gfx1100.ukdb").write_bytes(b"k")
    (d / "thesis.tex").write_text("years of work")
    env = {**os.environ, "MIOPEN_CUSTOM_CACHE_DIR": str(d)}
    got_err = None
    try:
        plan_action("clear-miopen-cache", {}, machine.ctx(env=env))
    except ActionError as err:
        got_err = err.message
    assert got_err and "thesis.tex" in got_err
    assert (d / "thesis.tex").read_text() == "years of work"


def test_a_cross_device_move_that_fails_leaves_no_partial_copy(
    machine: Machine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    for i in range(5):
        (src / str(i)).mkdir(parents=True)
        (src / str(i) / "f.ukdb").write_bytes(b"x" * 10)
    dst = tmp_path / "backup" / "cache"
    real_copy = shutil.copy2
    seen = {"n": 0}

    def exdev(a: object, b: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    def copy_then_full(a: str, b: str, **kw: object) -> object:
        seen["n"] += 1
        if seen["n"] > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_copy(a, b)

    monkeypatch.setattr(fsops.os, "rename", exdev)
    monkeypatch.setattr(fsops.shutil, "copy2", copy_then_full)
    with pytest.raises(OSError) as info:
        fsops.move(src, dst)
    assert "[" not in str(info.value.strerror) and "No space" in str(info.value.strerror)
    assert not dst.exists() and not [p for p in dst.parent.iterdir()]
    assert sorted(p.name for p in src.iterdir()) == [str(i) for i in range(5)]


def test_a_cross_device_move_keeps_owners(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give files to another owner")
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "f.ukdb").write_bytes(b"x")
    for p in (src, src / "sub", src / "sub" / "f.ukdb"):
        os.chown(p, 1234, 5678)
    real_rename = os.rename

    def exdev_for_src(a: object, b: object) -> None:
        if str(a) == str(src):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_rename(a, b)  # type: ignore[arg-type]

    monkeypatch.setattr(fsops.os, "rename", exdev_for_src)
    dst = tmp_path / "b" / "cache"
    fsops.move(src, dst)
    monkeypatch.undo()
    for p in (dst, dst / "sub", dst / "sub" / "f.ukdb"):
        st = p.stat()
        assert (st.st_uid, st.st_gid) == (1234, 5678), p


def test_clear_miopen_cache_round_trip_is_exact(machine: Machine) -> None:
    cache = machine.home / ".cache" / "miopen" / "3.2.0"
    cache.mkdir(parents=True)
    (cache / "gfx1100.ukdb").write_bytes(b"kernels")
    record = apply_plan(plan_action("clear-miopen-cache", {}, machine.ctx()))
    assert not cache.exists()
    undo(record.id)
    assert (cache / "gfx1100.ukdb").read_bytes() == b"kernels"
