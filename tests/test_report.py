"""`rocmfix report`: paste-ready Markdown, redacted, with a stable fingerprint."""

from __future__ import annotations

import copy
import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from rocmfix import probes
from rocmfix.cli import main
from rocmfix.report import fingerprint, versions
from rocmfix.snapshot import SnapshotHost

DATA = Path(__file__).parent / "data"
HOST = DATA / "host"
SECRETS = DATA / "secrets"
LOG = DATA / "logs" / "no-binary-for-gpu" / "rx6600-invalid-device-function.txt"


def _doctor(name: str) -> dict:
    host = SnapshotHost(HOST / name)
    return probes.to_json(probes.run_checks(host, python=host.python))


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["report", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_report_on_a_broken_snapshot_names_the_cause_checks_versions_and_gpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _report(capsys, "--snapshot", str(HOST / "rx6700xt-no-override"))
    assert code == 0
    assert re.search(r"\*\*Fingerprint:\*\* `rfx-[0-9a-f]{10}`", out)
    assert "`no-binary-for-gpu` (from gpu-arch-vs-torch)" in out
    assert "(`gpu-arch-vs-torch`): torch has no kernels for gfx1031" in out
    assert "fix: export HSA_OVERRIDE_GFX_VERSION=10.3.0" in out
    assert "| PyTorch | `2.5.1+rocm6.2 (HIP 6.2.41133-dd7f95766)` |" in out
    assert "| `gfx1031` | discrete | 12.0 GiB |" in out
    assert "<summary>All 32 checks</summary>" in out
    assert "Not recorded in snapshots." in out


def test_a_log_adds_its_top_causes_evidence_lines_and_last_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _report(capsys, "--snapshot", str(HOST / "rx6700xt-no-override"), "--log", str(LOG))
    log_part = out[out.index("### Log") :]
    assert "**1. " in log_part and "(`no-binary-for-gpu`, confidence" in log_part
    assert "     8: RuntimeError: HIP error: invalid device function" in log_part
    assert "<summary>Last 10 lines of the log</summary>" in log_part
    assert "**The log points to:** `no-binary-for-gpu`." in out


def test_the_snapshot_user_and_home_path_never_reach_the_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _report(capsys, "--snapshot", str(HOST / "rx6700xt-no-override"))
    assert "alex" not in out
    assert "/home/<user>/venv" in out


def test_placeholders_outside_code_are_escaped_so_github_shows_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _report(capsys, "--snapshot", str(HOST / "rx6700xt-no-override"))
    prose = re.sub(r"```.*?```", "", out, flags=re.S)
    prose = re.sub(r"(`+).*?\1", "", prose)
    assert "<user>" not in prose
    assert "&lt;user&gt;" in prose


def _secret_snapshot(tmp_path: Path) -> Path:
    snap = tmp_path / "snap"
    shutil.copytree(HOST / "rocm62-old-wheel-ldpath", snap)
    meta = json.loads((snap / "snapshot.json").read_text())
    meta["user"]["name"] = "mkowalski"
    meta["env"].update({"USER": "mkowalski", "HOME": "/home/mkowalski"})
    (snap / "snapshot.json").write_text(json.dumps(meta))
    (snap / "root" / "etc").mkdir(parents=True, exist_ok=True)
    (snap / "root" / "etc" / "hostname").write_text("dgx-lab-17\n")
    return snap


def _corpus_log(tmp_path: Path) -> Path:
    log = tmp_path / "run.log"
    parts = [p.read_text() for p in sorted(SECRETS.iterdir()) if p.name != "planted.yaml"]
    log.write_text("\n".join(parts) + "\n" + LOG.read_text())
    return log


def test_no_planted_secret_or_identity_survives_a_full_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import yaml

    planted = yaml.safe_load((SECRETS / "planted.yaml").read_text())
    snap, log = _secret_snapshot(tmp_path), _corpus_log(tmp_path)
    code, out, err = _report(capsys, "--snapshot", str(snap), "--log", str(log))
    assert code == 0, err
    low = out.lower()
    assert [s for s in planted["secrets"] + planted["identities"] if str(s).lower() in low] == []
    assert "invalid device function" in out


def test_no_redact_keeps_the_text_and_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap, log = _secret_snapshot(tmp_path), _corpus_log(tmp_path)
    code, out, err = _report(capsys, "--snapshot", str(snap), "--log", str(log), "--no-redact")
    assert code == 0
    assert "mkowalski" in out
    assert "warning: --no-redact" in err


def test_out_writes_nothing_when_nobody_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    target = tmp_path / "issue.md"
    code, out, err = _report(capsys, "--snapshot", str(HOST / "wsl"), "--out", str(target))
    assert code == 1
    assert not target.exists()
    assert "## rocmfix report" in out  # the preview
    assert "not written" in err


def test_out_writes_the_whole_report_after_yes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    target = tmp_path / "issue.md"
    code, preview, _ = _report(
        capsys, "--snapshot", str(HOST / "rx6700xt-no-override"), "--out", str(target)
    )
    assert code == 0
    written = target.read_text()
    assert written.endswith("Review before posting.</sub>\n")
    assert "more lines (all of them go to the file)" in preview
    assert len(preview.splitlines()) < len(written.splitlines())


def test_yes_flag_skips_the_question(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "issue.md"
    code, _, _ = _report(capsys, "--snapshot", str(HOST / "wsl"), "--out", str(target), "--yes")
    assert code == 0
    assert "`wsl-limitations`" in target.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--log", "/nonexistent/train.log"], "no such file"),
        (["--yes"], "--yes only makes sense with --out"),
        (["--snapshot", "/nonexistent/snap"], "not a snapshot"),
    ],
)
def test_bad_input_gives_one_clear_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _report(capsys, "--snapshot", str(HOST / "wsl"), *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err and out == ""


def test_log_lines_with_backticks_cannot_break_out_of_their_code_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "fence.log"
    log.write_text("```\n## injected heading\nRuntimeError: HIP error: invalid device function\n")
    _, out, _ = _report(capsys, "--snapshot", str(HOST / "wsl"), "--log", str(log))
    assert "````text" in out
    assert "\n## injected heading" not in out


def test_fixes_applied_on_this_machine_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rocmfix.actions import apply_plan, detect, plan_action

    monkeypatch.setenv("SHELL", "/bin/bash")
    apply_plan(plan_action("set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, detect()))
    code, out, _ = _report(capsys, "--no-torch")
    assert code == 0
    fixes = out[out.index("### Fixes already tried") :]
    assert "| `set-env` | `HSA_OVERRIDE_GFX_VERSION=10.3.0` | applied |" in fixes


# ----------------------------------------------------------------- fingerprint


def test_the_fingerprint_ignores_names_paths_times_and_patch_versions() -> None:
    doc = _doctor("rx6700xt-no-override")
    other = copy.deepcopy(doc)
    for check in other["checks"]:
        check["duration"] = 9.9
        check["summary"] = check["summary"].replace("/home/alex", "/home/someone")
        for e in check["evidence"]:
            e["value"] = e["value"].replace("alex", "someone").replace("2.5.1", "2.5.0")
    other["host"] = "gpu-node-1234"
    assert versions(other).torch == "2.5.0+rocm6.2"
    assert fingerprint(other) == fingerprint(doc)


def test_the_fingerprint_changes_with_the_problem_or_a_minor_version() -> None:
    doc = _doctor("rx6700xt-no-override")
    newer = copy.deepcopy(doc)
    for check in newer["checks"]:
        for e in check["evidence"]:
            e["value"] = e["value"].replace("2.5.1+rocm6.2", "2.6.0+rocm6.2")
    assert fingerprint(newer) != fingerprint(doc)
    assert fingerprint(doc, log_cause="gpu-out-of-memory") != fingerprint(doc)
    assert fingerprint(_doctor("rx580-gfx803")) != fingerprint(doc)


def test_the_same_problem_on_two_machines_gives_the_same_report_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prints = []
    for snap in (HOST / "rocm62-old-wheel-ldpath", _secret_snapshot(tmp_path)):
        _, out, _ = _report(capsys, "--snapshot", str(snap))
        prints.append(re.search(r"rfx-[0-9a-f]{10}", out).group(0))  # type: ignore[union-attr]
    assert prints[0] == prints[1]
