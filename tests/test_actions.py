"""Fix actions: plan, apply, undo and their safety guarantees, against a temporary HOME.

System tools (systemctl, usermod, gpasswd, sudo, id, getent, pip) are the fakes
in tests/fakebin; they record every call and keep their state in a temp dir.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from _fakes import FAKEBIN, Machine
from rocmfix.actions import (
    ACTIONS,
    ActionError,
    ChangedSinceError,
    GpuInfo,
    apply_plan,
    history,
    journal,
    plan_action,
    undo,
)


def test_every_required_action_id_is_registered() -> None:
    assert set(ACTIONS) == {
        "clear-miopen-cache",
        "set-env",
        "disable-gpu-manager",
        "add-user-to-groups",
        "reinstall-torch",
        "hide-igpu",
    }


# --- set-env ------------------------------------------------------------------


def test_planning_set_env_writes_nothing(machine: Machine) -> None:
    rc = machine.home / ".bashrc"
    rc.write_text("alias ll='ls -l'\n")
    plan = plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, machine.ctx())
    assert rc.read_text() == "alias ll='ls -l'\n"
    assert not machine.state.exists()
    assert "+export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in plan.render()


def test_set_env_apply_then_undo_restores_bashrc_byte_for_byte(machine: Machine) -> None:
    rc = machine.home / ".bashrc"
    original = b"# my rc\r\nexport EDITOR=vim\n\xe2\x9c\x93 no newline at end"
    rc.write_bytes(original)
    rc.chmod(0o600)
    plan = plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, machine.ctx())
    record = apply_plan(plan)
    assert "export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in rc.read_text()
    assert stat.S_IMODE(rc.stat().st_mode) == 0o600
    undo(record.id)
    assert rc.read_bytes() == original
    assert stat.S_IMODE(rc.stat().st_mode) == 0o600


def test_applying_set_env_twice_changes_nothing_the_second_time(machine: Machine) -> None:
    params = {"HIP_VISIBLE_DEVICES": "0"}
    ctx = machine.ctx(gpus=(GpuInfo(0, "gfx1100", "RX 7900 XTX", False),))
    apply_plan(plan_action("set-env", params, ctx))
    after_first = (machine.home / ".bashrc").read_bytes()
    second = plan_action("set-env", params, ctx)
    assert second.changes_nothing
    with pytest.raises(ActionError, match="nothing to change"):
        apply_plan(second)
    assert (machine.home / ".bashrc").read_bytes() == after_first


def test_set_env_updates_its_own_block_instead_of_adding_a_second_one(machine: Machine) -> None:
    ctx = machine.ctx()
    apply_plan(plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, ctx))
    apply_plan(plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}, ctx))
    text = (machine.home / ".bashrc").read_text()
    assert text.count("# >>> rocmfix >>>") == 1
    assert "11.0.0" in text and "10.3.0" not in text


def test_set_env_writes_fish_syntax_into_config_fish_for_fish_users(machine: Machine) -> None:
    ctx = machine.ctx(env={**os.environ, "SHELL": "/usr/bin/fish"})
    apply_plan(plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, ctx))
    text = (machine.home / ".config" / "fish" / "config.fish").read_text()
    assert "set -gx HSA_OVERRIDE_GFX_VERSION '10.3.0'" in text


def test_set_env_uses_zdotdir_zshrc_for_zsh_users(machine: Machine, tmp_path: Path) -> None:
    zdot = tmp_path / "zdot"
    zdot.mkdir()
    ctx = machine.ctx(env={**os.environ, "SHELL": "/bin/zsh", "ZDOTDIR": str(zdot)})
    apply_plan(plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, ctx))
    assert "export MIOPEN_FIND_MODE='FAST'" in (zdot / ".zshrc").read_text()


def test_set_env_writes_through_a_symlinked_rc_to_its_target(
    machine: Machine, tmp_path: Path
) -> None:
    target = tmp_path / "dotfiles-bashrc"
    target.write_text("# dotfiles\n")
    (machine.home / ".bashrc").symlink_to(target)
    record = apply_plan(plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx()))
    assert (machine.home / ".bashrc").is_symlink()
    assert "MIOPEN_FIND_MODE" in target.read_text()
    undo(record.id)
    assert target.read_text() == "# dotfiles\n"


def test_removing_a_variable_comments_out_the_users_line_and_unsets_it(machine: Machine) -> None:
    rc = machine.home / ".bashrc"
    rc.write_text("export LD_LIBRARY_PATH=/opt/rocm-5.7/lib:$LD_LIBRARY_PATH\nexport A=1\n")
    record = apply_plan(plan_action("set-env", {"LD_LIBRARY_PATH": None}, machine.ctx()))
    text = rc.read_text()
    assert "# disabled by rocmfix: export LD_LIBRARY_PATH=/opt/rocm-5.7/lib" in text
    assert "\nunset LD_LIBRARY_PATH\n" in text and "export A=1\n" in text
    undo(record.id)
    assert rc.read_text().startswith("export LD_LIBRARY_PATH=/opt/rocm-5.7/lib")


def test_set_env_into_a_venv_edits_its_activate_script(machine: Machine, tmp_path: Path) -> None:
    activate = tmp_path / "venv" / "bin" / "activate"
    activate.parent.mkdir(parents=True)
    activate.write_text("# venv activate\n")
    params = {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "venv": str(tmp_path / "venv")}
    apply_plan(plan_action("set-env", params, machine.ctx()))
    assert "export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in activate.read_text()
    assert not (machine.home / ".bashrc").exists()


def test_set_env_session_mode_prints_exports_and_plans_no_step(machine: Machine) -> None:
    plan = plan_action(
        "set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "session": True}, machine.ctx()
    )
    assert plan.changes_nothing
    assert plan.output == ("export HSA_OVERRIDE_GFX_VERSION='10.3.0'",)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"HSA_OVERRIDE_GFX_VERSION": "10.3.0; rm -rf ~"}, "could run a command"),
        ({"HSA_OVERRIDE_GFX_VERSION": "$(reboot)"}, "could run a command"),
        ({"MIOPEN_FIND_MODE": "`id`"}, "could run a command"),
        ({"MIOPEN_FIND_MODE": "FAST\nrm -rf /"}, "could run a command"),
        ({"HSA_OVERRIDE_GFX_VERSION": "{hsa_override}"}, "never filled in"),
        ({"HSA_OVERRIDE_GFX_VERSION": "<hsa_override>"}, "never filled in"),
        ({"HSA_OVERRIDE_GFX_VERSION": "10.3"}, "malformed"),
        ({"HSA_OVERRIDE_GFX_VERSION": "9.0.a"}, "malformed"),
        ({"HIP_VISIBLE_DEVICES": "1"}, "does not exist"),
        ({"HIP_VISIBLE_DEVICES": "0,0"}, "listed twice"),
        ({"HIP_VISIBLE_DEVICES": "GPU-abc"}, "not a device index"),
        ({"PATH": "/tmp/evil"}, "does not set PATH"),
        ({"BASH_ENV": "/tmp/x"}, "does not set BASH_ENV"),
        ({"lower; rm": "1"}, "not a valid variable name"),
    ],
)
def test_set_env_refuses_unsafe_or_invalid_values(
    machine: Machine, params: dict[str, object], message: str
) -> None:
    ctx = machine.ctx(gpus=(GpuInfo(0, "gfx1100", "RX 7900 XTX", False),))
    with pytest.raises(ActionError, match=message):
        plan_action("set-env", params, ctx)
    assert not (machine.home / ".bashrc").exists()


def test_an_override_with_decimal_stepping_is_accepted(machine: Machine) -> None:
    plan = plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "9.0.10"}, machine.ctx())
    assert "'9.0.10'" in plan.render()


def test_rocr_visible_devices_accepts_gpu_uuids(machine: Machine) -> None:
    plan = plan_action("set-env", {"ROCR_VISIBLE_DEVICES": "GPU-DEADBEEF"}, machine.ctx())
    assert "GPU-DEADBEEF" in plan.render()


# --- safety of apply and undo ---------------------------------------------------


def test_apply_refuses_when_the_file_changed_after_the_plan_was_shown(machine: Machine) -> None:
    rc = machine.home / ".bashrc"
    rc.write_text("a\n")
    plan = plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx())
    rc.write_text("a\nb\n")
    with pytest.raises(ActionError, match="changed since the plan"):
        apply_plan(plan)
    assert rc.read_text() == "a\nb\n"


def test_undo_refuses_when_the_user_edited_the_file_and_shows_the_diff(machine: Machine) -> None:
    rc = machine.home / ".bashrc"
    rc.write_text("original\n")
    record = apply_plan(plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx()))
    with rc.open("a") as handle:
        handle.write("alias gs='git status'\n")
    with pytest.raises(ChangedSinceError) as err:
        undo(record.id)
    assert "+alias gs='git status'" in err.value.details
    assert "alias gs" in rc.read_text()
    assert [r.status for r in history()] == ["applied"]


def test_forced_undo_restores_and_keeps_the_edited_copy(machine: Machine) -> None:
    rc = machine.home / ".bashrc"
    rc.write_text("original\n")
    record = apply_plan(plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx()))
    rc.write_text("edited by hand\n")
    undo(record.id, force=True)
    assert rc.read_text() == "original\n"
    kept = list((machine.state / "backups" / record.id).glob("*.newer"))
    assert [p.read_text() for p in kept] == ["edited by hand\n"]


def test_undo_deletes_a_file_that_the_fix_created(machine: Machine) -> None:
    record = apply_plan(plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx()))
    assert (machine.home / ".bashrc").exists()
    undo(record.id)
    assert not (machine.home / ".bashrc").exists()


def test_backups_and_journal_exist_before_the_first_change(machine: Machine) -> None:
    rc = machine.home / ".bashrc"
    rc.write_text("before\n")
    plan = plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx())
    seen: dict[str, object] = {}

    def runner_never_called(argv: tuple[str, ...], timeout: float) -> None:
        raise AssertionError("set-env runs no command")

    original = journal.write_begin

    def spy(state: Path, p: object) -> None:
        original(state, p)  # type: ignore[arg-type]
        seen["rc_at_begin"] = rc.read_text()
        seen["backup"] = (state / "backups" / plan.id / "0.before").read_text()

    import rocmfix.actions.transaction as tx

    tx.write_begin = spy  # type: ignore[assignment]
    try:
        apply_plan(plan, runner=runner_never_called)
    finally:
        tx.write_begin = original
    assert seen == {"rc_at_begin": "before\n", "backup": "before\n"}


def test_a_failure_midway_rolls_back_the_steps_already_done(machine: Machine) -> None:
    machine.fake_state("units.json", {"gpu-manager.service": {"enabled": True, "masked": False}})
    (machine.fake / "fail-systemctl-mask").touch()
    plan = plan_action("disable-gpu-manager", {}, machine.ctx())
    with pytest.raises(ActionError, match="step 2 failed.*1 earlier change"):
        apply_plan(plan)
    assert machine.read_fake("units.json") == {
        "gpu-manager.service": {"enabled": True, "masked": False}
    }
    assert machine.calls()[-1] == ["systemctl", "enable", "gpu-manager.service"]
    assert [r.status for r in history()] == ["rolled-back"]


def test_two_rocmfix_processes_cannot_change_the_machine_at_once(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "LOCK_WAIT_S", 0.2)
    plan = plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx())
    holding, release = threading.Event(), threading.Event()

    def other_process() -> None:
        with journal.locked(machine.state):
            holding.set()
            release.wait(5)

    worker = threading.Thread(target=other_process)
    worker.start()
    holding.wait(5)
    try:
        with pytest.raises(ActionError, match="another rocmfix process"):
            apply_plan(plan)
    finally:
        release.set()
        worker.join()
    assert not (machine.home / ".bashrc").exists()
    apply_plan(plan)
    assert (machine.home / ".bashrc").exists()


def test_history_lists_applied_and_undone_fixes_in_order(machine: Machine) -> None:
    ctx = machine.ctx()
    first = apply_plan(plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, ctx))
    second = apply_plan(plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, ctx))
    undo("last")
    assert [(r.id, r.status) for r in history()] == [(first.id, "applied"), (second.id, "undone")]
    with pytest.raises(ActionError, match="undone"):
        undo(second.id)


# --- clear-miopen-cache ---------------------------------------------------------


def test_clear_miopen_cache_moves_both_stores_aside_and_undo_moves_them_back(
    machine: Machine,
) -> None:
    cache = machine.home / ".cache" / "miopen" / "3.2.0"
    cache.mkdir(parents=True)
    (cache / "gfx1100.ukdb").write_bytes(b"kernels")
    userdb = machine.home / ".config" / "miopen"
    userdb.mkdir(parents=True)
    (userdb / "gfx1100_48.HIP.3_2_0.udb").write_bytes(b"perf")
    plan = plan_action("clear-miopen-cache", {}, machine.ctx())
    record = apply_plan(plan)
    assert not (machine.home / ".cache" / "miopen").exists() and not userdb.exists()
    backup = machine.state / "backups" / record.id
    assert (backup / "miopen-cache" / "3.2.0" / "gfx1100.ukdb").read_bytes() == b"kernels"
    assert plan_action("clear-miopen-cache", {}, machine.ctx()).changes_nothing
    undo(record.id)
    assert (cache / "gfx1100.ukdb").read_bytes() == b"kernels"
    assert (userdb / "gfx1100_48.HIP.3_2_0.udb").read_bytes() == b"perf"


def test_clear_miopen_cache_follows_the_custom_directory_variables(
    machine: Machine, tmp_path: Path
) -> None:
    custom = tmp_path / "scratch" / "kcache"
    custom.mkdir(parents=True)
    env = {
        **os.environ,
        "MIOPEN_CUSTOM_CACHE_DIR": str(custom),
        "MIOPEN_USER_DB_PATH": str(tmp_path / "absent"),
    }
    plan = plan_action("clear-miopen-cache", {}, machine.ctx(env=env))
    assert [s.src for s in plan.steps] == [str(custom)]  # type: ignore[union-attr]


def test_clear_miopen_cache_refuses_a_variable_that_points_at_home(machine: Machine) -> None:
    env = {**os.environ, "MIOPEN_CUSTOM_CACHE_DIR": str(machine.home)}
    with pytest.raises(ActionError, match="refusing to move"):
        plan_action("clear-miopen-cache", {}, machine.ctx(env=env))


# --- root-needing actions -------------------------------------------------------


def test_disable_gpu_manager_shows_sudo_when_not_root_and_undo_reenables(machine: Machine) -> None:
    machine.fake_state("units.json", {"gpu-manager.service": {"enabled": True, "masked": False}})
    plan = plan_action("disable-gpu-manager", {}, machine.ctx(is_root=False))
    assert plan.needs_root
    assert "$ sudo systemctl disable gpu-manager.service" in plan.render()
    record = apply_plan(plan)
    assert machine.read_fake("units.json") == {
        "gpu-manager.service": {"enabled": False, "masked": True}
    }
    assert ["sudo", "systemctl", "mask", "gpu-manager.service"] in machine.calls()
    assert plan_action("disable-gpu-manager", {}, machine.ctx()).changes_nothing
    undo(record.id)
    assert machine.read_fake("units.json") == {
        "gpu-manager.service": {"enabled": True, "masked": False}
    }


def test_disable_gpu_manager_does_nothing_where_the_service_is_absent(machine: Machine) -> None:
    plan = plan_action("disable-gpu-manager", {}, machine.ctx())
    assert plan.changes_nothing and "not installed" in plan.notes[0]


def test_add_user_to_groups_adds_only_missing_groups_and_undo_removes_only_those(
    machine: Machine,
) -> None:
    machine.fake_state("groups.json", {"alice": ["video"]})
    plan = plan_action(
        "add-user-to-groups", {"groups": ["render", "video"]}, machine.ctx(is_root=False)
    )
    assert [s.argv for s in plan.steps] == [("sudo", "usermod", "-a", "-G", "render", "alice")]  # type: ignore[union-attr]
    assert any("log out" in n for n in plan.notes)
    record = apply_plan(plan)
    assert machine.read_fake("groups.json") == {"alice": ["render", "video"]}
    assert plan_action("add-user-to-groups", {}, machine.ctx()).changes_nothing
    undo(record.id)
    assert machine.read_fake("groups.json") == {"alice": ["video"]}


@pytest.mark.parametrize("groups", [["sudo"], ["render", "docker"], "wheel"])
def test_add_user_to_groups_refuses_groups_other_than_render_and_video(
    machine: Machine, groups: object
) -> None:
    with pytest.raises(ActionError, match="refusing to add"):
        plan_action("add-user-to-groups", {"groups": groups}, machine.ctx())


@pytest.mark.parametrize("kind", ["docker", "podman"])
def test_host_fixes_inside_a_container_print_run_flags_instead(machine: Machine, kind: str) -> None:
    plan = plan_action("add-user-to-groups", {}, machine.ctx(container=kind))
    assert plan.changes_nothing
    flags = "\n".join(plan.output)
    assert (
        f"{kind} run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render"
        in flags
    )
    assert "--shm-size" in flags
    assert machine.calls() == []


def test_host_fixes_under_wsl_explain_the_wsl_route(machine: Machine) -> None:
    plan = plan_action("disable-gpu-manager", {}, machine.ctx(wsl=True))
    assert plan.changes_nothing and any("/dev/dxg" in n for n in plan.notes)


# --- hide-igpu ------------------------------------------------------------------


def test_hide_igpu_keeps_only_the_discrete_gpus(machine: Machine) -> None:
    gpus = (
        GpuInfo(0, "gfx1036", "Raphael iGPU", True),
        GpuInfo(1, "gfx1100", "RX 7900 XTX", False),
    )
    plan = plan_action("hide-igpu", {}, machine.ctx(gpus=gpus))
    assert "+export ROCR_VISIBLE_DEVICES='1'" in plan.render()


def test_hide_igpu_without_an_igpu_changes_nothing(machine: Machine) -> None:
    gpus = (GpuInfo(0, "gfx1100", "RX 7900 XTX", False),)
    assert plan_action("hide-igpu", {}, machine.ctx(gpus=gpus)).changes_nothing


def test_hide_igpu_refuses_when_gpus_cannot_be_listed(machine: Machine) -> None:
    with pytest.raises(ActionError, match="cannot list the GPUs"):
        plan_action("hide-igpu", {}, machine.ctx(gpus=None))


# --- reinstall-torch ------------------------------------------------------------

FAKE_PY = str(FAKEBIN / "fake-python")


def test_reinstall_torch_installs_all_three_from_one_rocm_index_and_undo_restores(
    machine: Machine,
) -> None:
    machine.fake_state("pip.json", {"torch": "2.5.1+cu121", "torchvision": "0.20.1+cu121"})
    plan = plan_action(
        "reinstall-torch", {"rocm_index": "rocm6.2", "python": FAKE_PY}, machine.ctx()
    )
    install = plan.steps[-1]
    assert install.argv == (
        FAKE_PY,
        "-m",
        "pip",
        "install",
        "--index-url",  # type: ignore[union-attr]
        "https://download.pytorch.org/whl/rocm6.2",
        "torch>=2.5",
        "torchvision",
        "torchaudio",
    )
    assert not plan.needs_root
    record = apply_plan(plan)
    assert machine.read_fake("pip.json") == {
        "torch": "2.5.1+rocm6.2",
        "torchvision": "9.9.0+rocm6.2",
        "torchaudio": "9.9.0+rocm6.2",
    }
    assert plan_action(
        "reinstall-torch", {"rocm_index": "rocm6.2", "python": FAKE_PY}, machine.ctx()
    ).changes_nothing
    undo(record.id)
    assert machine.read_fake("pip.json") == {"torch": "2.5.1+cu121", "torchvision": "0.20.1+cu121"}
    assert [
        "fake-python",
        "-m",
        "pip",
        "install",
        "--index-url",
        "https://download.pytorch.org/whl/cu121",
        "torch==2.5.1+cu121",
        "torchvision==0.20.1+cu121",
    ] in machine.calls()


def test_reinstall_torch_does_not_pin_a_release_from_an_unverified_row(machine: Machine) -> None:
    machine.fake_state("pip.json", {})
    plan = plan_action(
        "reinstall-torch", {"rocm_index": "rocm7.0", "python": FAKE_PY}, machine.ctx()
    )
    assert plan.steps[-1].argv[-3:] == ("torch", "torchvision", "torchaudio")  # type: ignore[union-attr]
    assert any("unverified" in n for n in plan.notes)


def test_reinstall_torch_takes_the_index_from_the_gpus_not_the_system_rocm(
    machine: Machine, tmp_path: Path
) -> None:
    # Wheels bundle their own ROCm: an RX 9070 XT needs an index with gfx1201 whatever
    # /opt/rocm says (rocm6.2 wheels have no gfx1201 -> pytorch#148562).
    rocm = tmp_path / "rocm"
    (rocm / ".info").mkdir(parents=True)
    (rocm / ".info" / "version").write_text("6.2.1-112\n")
    machine.fake_state("pip.json", {"torch": "2.5.1+rocm6.2"})
    env = {**os.environ, "ROCM_PATH": str(rocm)}
    gpus = (GpuInfo(0, "gfx1201", "RX 9070 XT", False, 1),)
    plan = plan_action("reinstall-torch", {"python": FAKE_PY}, machine.ctx(env=env, gpus=gpus))
    argv = plan.steps[-1].argv  # type: ignore[union-attr]
    assert "https://download.pytorch.org/whl/rocm7.2" in argv and "torch>=2.11" in argv


def test_reinstall_torch_refuses_on_a_machine_without_an_amd_gpu(machine: Machine) -> None:
    machine.fake_state("pip.json", {"torch": "2.13.0+cpu"})
    with pytest.raises(ActionError, match="no AMD GPU"):
        plan_action("reinstall-torch", {"python": FAKE_PY}, machine.ctx(gpus=()))


def test_reinstall_torch_refuses_an_index_that_lacks_the_gpu(machine: Machine) -> None:
    # The old extractor turned 2.7.1+rocm6.2.4 into rocm6.2: 2.5 wheels without gfx1201.
    machine.fake_state("pip.json", {"torch": "2.7.1+rocm6.2.4"})
    gpus = (GpuInfo(0, "gfx1201", "RX 9070 XT", False, 1),)
    with pytest.raises(ActionError, match="do not target gfx1201"):
        plan_action(
            "reinstall-torch", {"rocm_index": "rocm6.2", "python": FAKE_PY}, machine.ctx(gpus=gpus)
        )


def test_reinstall_torch_never_pins_below_the_installed_release_of_the_index(
    machine: Machine,
) -> None:
    machine.fake_state("pip.json", {"torch": "2.13.0+rocm7.2", "torchvision": "0.28.0+cu130"})
    gpus = (GpuInfo(0, "gfx1100", "RX 7900 XTX", False, 1),)
    plan = plan_action(
        "reinstall-torch", {"rocm_index": "rocm7.2", "python": FAKE_PY}, machine.ctx(gpus=gpus)
    )
    assert "torch>=2.13" in plan.steps[-1].argv  # type: ignore[union-attr]


@pytest.mark.parametrize("index", ["rocm6.2 --pre", "rocm6.2;id", "cu121", "rocm99.9"])
def test_reinstall_torch_refuses_unknown_or_unsafe_indexes(machine: Machine, index: str) -> None:
    machine.fake_state("pip.json", {})
    with pytest.raises(ActionError):
        plan_action("reinstall-torch", {"rocm_index": index, "python": FAKE_PY}, machine.ctx())


def test_a_fix_interrupted_midway_shows_as_incomplete_and_can_be_undone(machine: Machine) -> None:
    from rocmfix.actions import fsops

    rc = machine.home / ".bashrc"
    rc.write_text("mine\n")
    plan = plan_action("set-env", {"MIOPEN_FIND_MODE": "FAST"}, machine.ctx())
    journal.write_begin(machine.state, plan)
    fsops.atomic_write(plan.steps[0].path, plan.steps[0].after)  # type: ignore[union-attr]
    assert [r.status for r in history()] == ["incomplete"]
    undo("last")
    assert rc.read_text() == "mine\n"
    lines = (machine.state / "journal.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["begin", "undone"]
