"""Issue 13 items 1, 4, 5, 21: set-env never drops or re-quotes a line the user wrote."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hostile_util import Machine, cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmfix.actions import ActionError, apply_plan, plan_action, undo
from rocmfix.actions.shellrc import BEGIN, DISABLED, END, HEADER, edit, read_block

USER_LINES = [
    'alias gpu="rocm-smi"',
    "export PATH=$HOME/.local/bin:$PATH",
    'export X="$HOME/a b"',
    "export V=0 # comment",
    "export HSA_OVERRIDE_GFX_VERSION=11.0.0",
    "unset HIP_VISIBLE_DEVICES",
    "export MIOPEN_FIND_MODE='NORMAL'   ",
    "  export TORCH_BLAS_PREFER_HIPBLASLT=1",
    "# a comment with 'quotes' and $(subshells)",
    "if [ -f ~/.bash_aliases ]; then . ~/.bash_aliases; fi",
    "export LD_LIBRARY_PATH=/opt/rocm/lib:${LD_LIBRARY_PATH}",
    "",
    "\t",
    "echo ünïcödé",
    "PS1='\\u@\\h:\\w\\$ '",
]


def _apply_and_undo(machine: Machine, changes: dict[str, object]) -> bytes:
    before = machine.bashrc.read_bytes()
    record = apply_plan(plan_action("set-env", changes, machine.ctx()))
    after = machine.bashrc.read_bytes()
    undo(record.id)
    assert machine.bashrc.read_bytes() == before
    return after


def test_hand_added_lines_inside_the_block_survive_verbatim(machine: Machine) -> None:
    user = [
        'alias gpu="rocm-smi"',
        "export PATH=$HOME/.local/bin:$PATH",
        'export X="$HOME/a b"',
        "export V=0 # comment",
    ]
    text = (
        "\n".join(
            [
                "# mine",
                BEGIN,
                HEADER,
                "export HSA_OVERRIDE_GFX_VERSION='10.3.0'",
                *user,
                END,
                "tail",
            ]
        )
        + "\n"
    )
    machine.bashrc.write_text(text)
    after = _apply_and_undo(
        machine, {"HSA_OVERRIDE_GFX_VERSION": "11.0.0", "MIOPEN_FIND_MODE": "FAST"}
    )
    lines = after.decode().splitlines()
    for line in user + ["# mine", "tail"]:
        assert line in lines
    assert "export HSA_OVERRIDE_GFX_VERSION='11.0.0'" in lines
    assert "export HSA_OVERRIDE_GFX_VERSION='10.3.0'" not in lines
    assert "export MIOPEN_FIND_MODE='FAST'" in lines


def test_a_block_without_an_end_line_is_refused_and_the_file_untouched(machine: Machine) -> None:
    text = f"{BEGIN}\nexport HSA_OVERRIDE_GFX_VERSION='10.3.0'\nalias gpu=\"rocm-smi\"\nexport PATH=$HOME/.local/bin:$PATH\n"
    machine.bashrc.write_text(text)
    with pytest.raises(ActionError, match="no end line"):
        plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}, machine.ctx())
    assert machine.bashrc.read_text() == text
    got = cli(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=11.0.0", "--apply", "--yes"])
    got.clean_refusal()
    assert machine.bashrc.read_text() == text


def test_an_end_line_of_a_later_block_is_not_borrowed(machine: Machine) -> None:
    text = f"{BEGIN}\nexport A_X='1'\n{BEGIN}\nexport B='2'\n{END}\n"
    machine.bashrc.write_text(text)
    with pytest.raises(ActionError, match="no end line"):
        plan_action("set-env", {"HSA_ENABLE_SDMA": "0"}, machine.ctx())
    assert machine.bashrc.read_text() == text


def test_several_blocks_keep_every_user_line_and_change_the_last(machine: Machine) -> None:
    text = (
        f"{BEGIN}\nexport HSA_ENABLE_SDMA='1'\nalias a=b\n{END}\n"
        "export PATH=$HOME/bin:$PATH\n"
        f"{BEGIN}\nexport MIOPEN_FIND_MODE='NORMAL'\nexport V=0 # comment\n{END}\n"
    )
    machine.bashrc.write_text(text)
    after = _apply_and_undo(machine, {"MIOPEN_FIND_MODE": "FAST"}).decode()
    assert "alias a=b\n" in after and "export PATH=$HOME/bin:$PATH\n" in after
    assert "export V=0 # comment\n" in after and "export MIOPEN_FIND_MODE='FAST'\n" in after
    assert after.count(BEGIN) == 2 and after.count(END) == 2


def test_removal_comments_out_user_lines_but_never_deletes_them(machine: Machine) -> None:
    text = "export LD_LIBRARY_PATH=/opt/rocm/lib:$LD_LIBRARY_PATH\nalias x=y\n"
    machine.bashrc.write_text(text)
    after = _apply_and_undo(machine, {"LD_LIBRARY_PATH": None}).decode()
    assert DISABLED + "export LD_LIBRARY_PATH=/opt/rocm/lib:$LD_LIBRARY_PATH\n" in after
    assert "alias x=y\n" in after and "unset LD_LIBRARY_PATH\n" in after


def test_latin1_and_crlf_files_round_trip_byte_for_byte(machine: Machine) -> None:
    raw = b"# caf\xe9 na\xefve\r\nexport PATH=$HOME/bin:$PATH\r\n"
    machine.bashrc.write_bytes(raw)
    after = _apply_and_undo(machine, {"HSA_ENABLE_SDMA": "0"})
    assert after.startswith(raw)


@pytest.mark.parametrize("kind", ["dir", "loop", "fifo"])
def test_an_unusable_startup_file_is_one_line_not_a_traceback(machine: Machine, kind: str) -> None:
    if kind == "dir":
        machine.bashrc.mkdir()
    elif kind == "loop":
        os.symlink(machine.home / ".b2", machine.bashrc)
        os.symlink(machine.bashrc, machine.home / ".b2")
    else:
        os.mkfifo(machine.bashrc)
    got = cli(["fix", "set-env", "HSA_ENABLE_SDMA=0", "--apply", "--yes"])
    got.clean_refusal()
    assert "cannot edit" in got.err
    assert not machine.state.joinpath("journal.jsonl").exists()


def test_undo_through_a_dangling_symlink_leaves_no_directory_behind(machine: Machine) -> None:
    target = machine.home / "dotfiles" / "deep" / "bashrc"
    os.symlink(target, machine.bashrc)
    record = apply_plan(plan_action("set-env", {"HSA_ENABLE_SDMA": "0"}, machine.ctx()))
    assert target.is_file()
    undo(record.id)
    assert not (machine.home / "dotfiles").exists()
    assert os.path.islink(machine.bashrc) and os.readlink(machine.bashrc) == str(target)


def test_a_tcsh_user_is_told_instead_of_getting_a_bashrc(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/tcsh")
    got = cli(["fix", "set-env", "HSA_ENABLE_SDMA=0", "--apply", "--yes"])
    got.clean_refusal()
    assert "tcsh" in got.err and not machine.bashrc.exists()
    assert cli(["fix", "set-env", "HSA_ENABLE_SDMA=0", "--session"]).code == 0


def test_a_read_only_bashrc_gets_a_note_and_keeps_its_mode(machine: Machine) -> None:
    machine.bashrc.write_text("alias a=b\n")
    machine.bashrc.chmod(0o444)
    plan = plan_action("set-env", {"HSA_ENABLE_SDMA": "0"}, machine.ctx())
    if os.geteuid() != 0:  # root can write anything, so the note is for users
        assert any("read-only" in n for n in plan.notes)
    apply_plan(plan)
    assert stat.S_IMODE(machine.bashrc.stat().st_mode) == 0o444


# --------------------------------------------------------------- property


_names = st.sampled_from(
    ["HSA_ENABLE_SDMA", "MIOPEN_FIND_MODE", "HIP_VISIBLE_DEVICES", "AMD_LOG_LEVEL"]
)
_values = st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9_.:]{0,8}", fullmatch=True))
_user_line = st.one_of(
    st.sampled_from(USER_LINES),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=30),
)


@st.composite
def rc_files(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        parts += draw(st.lists(_user_line, max_size=4))
        if draw(st.booleans()):
            managed = [
                f"export {n}='{v}'" if v is not None else f"unset {n}"
                for n, v in draw(st.dictionaries(_names, _values, max_size=3)).items()
            ]
            inner = draw(st.permutations(managed + draw(st.lists(_user_line, max_size=3))))
            parts += [BEGIN, *inner, END]
    text = "\n".join(p for p in parts if p.strip() not in (BEGIN, END))
    return text + ("\n" if draw(st.booleans()) and text else "")


@given(text=rc_files(), changes=st.dictionaries(_names, _values, min_size=1, max_size=3))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_edit_never_drops_or_rewrites_a_user_line(
    text: str, changes: dict[str, str | None]
) -> None:
    after = edit(text, "bash", changes)
    removed = {n for n, v in changes.items() if v is None}
    kept = after.splitlines()
    managed_inside = set()
    inside = False
    for line in text.splitlines():
        if line == BEGIN:
            inside = True
        elif line == END:
            inside = False
        elif inside and (
            line.startswith("export ") and line.endswith("'") or line.startswith("unset ")
        ):
            managed_inside.add(line)
    for line in text.splitlines():
        if line in managed_inside:
            continue  # rocmfix's own line: it may be replaced by the new value
        assert line in kept or DISABLED + line in kept, (line, after)
        if DISABLED + line in kept and line not in kept:
            assert any(name in line for name in removed)
    block = read_block(after)
    for name, value in changes.items():
        assert block[name] == value
    assert edit(after, "bash", changes) == after  # applying twice changes nothing more


def test_user_lines_never_change_when_a_fix_is_applied_and_undone(machine: Machine) -> None:
    text = "\n".join(USER_LINES) + "\n"
    machine.bashrc.write_text(text)
    after = _apply_and_undo(machine, {"HSA_ENABLE_SDMA": "0", "MIOPEN_FIND_MODE": "FAST"}).decode()
    assert after.startswith(text)


def test_big_rc_file_is_handled_in_bounded_time(machine: Machine) -> None:
    machine.bashrc.write_bytes(b"export A=1 # filler line\n" * 400_000)  # 10 MB
    plan = plan_action("set-env", {"HSA_ENABLE_SDMA": "0"}, machine.ctx())
    assert plan.steps and Path(plan.steps[0].path) == machine.bashrc  # type: ignore[union-attr]
