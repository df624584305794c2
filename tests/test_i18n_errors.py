"""Exit-2 one-liners and hints speak Chinese under --lang zh or a zh locale."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.cli import main
from rocmfix.i18n_errors import HINTS, MESSAGES, translate

HAN = re.compile(r"[\u4e00-\u9fff]")
CASES = [
    (["explain", "-f", "/nonexistent/train.log"], "/nonexistent/train.log"),
    (["doctor", "--check", "bogus"], "bogus"),
    (["fix", "no-such-thing"], "no-such-thing"),
    (["kb", "show", "no-such-entry"], "no-such-entry"),
    (["fix", "set-env", "NOEQUALS"], "NOEQUALS"),
]


@pytest.mark.parametrize(("argv", "value"), CASES, ids=lambda v: str(v))
def test_errors_follow_the_locale(
    argv: list[str], value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert main(argv) == 2
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith("rocmfix：") and HAN.search(first), err
    assert value in first, err  # the value the user typed is kept as typed
    hint = [line for line in err.splitlines()[1:] if line.startswith(("hint", "提示"))]
    assert all(line.startswith("提示：") and HAN.search(line) for line in hint), err
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(argv) == 2
    assert not HAN.search(capsys.readouterr().err)  # English stays English


def test_lang_flag_wins_over_the_locale(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(["explain", "--lang", "zh", "-f", "/nonexistent/x.log"]) == 2
    assert "文件不存在" in capsys.readouterr().err
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert main(["explain", "--lang", "en", "-f", "/nonexistent/x.log"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_no_terminal_hint_in_chinese(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rocmfix"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "LANG": "zh_CN.UTF-8", "PYTHONPATH": ":".join(sys.path)},
        start_new_session=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("rocmfix：交互界面需要终端"), proc.stderr
    assert "提示：" in proc.stderr and "rocmfix explain" in proc.stderr


def test_every_translation_keeps_its_values_and_uses_chinese_punctuation() -> None:
    for table in (MESSAGES, HINTS):
        for rx, template in table:
            names = rx.groupindex
            assert set(re.findall(r"\{(\w+)\}", template)) == set(names), template
            outside = re.sub(r"`[^`]*`|\{\w+\}", "", template)
            assert not re.search(r"[,:;?]", outside), template  # full-width in Chinese prose
    assert translate("/x: no such file", MESSAGES, "zh") == "/x：文件不存在"
    assert translate("something new", MESSAGES, "zh") == "something new"


def _zh_locale(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _bad_kb(tmp_path: Path) -> tuple[Path, Path]:
    from rocmfix.kb.schema import SCHEMA

    severity = tmp_path / "severity.yaml"
    severity.write_text(f"schema: {SCHEMA}\nentries:\n  - id: my-cause\n    severity: loud\n")
    kebab = tmp_path / "kebab.yaml"
    kebab.write_text(f"schema: {SCHEMA}\nentries:\n  - id: Not_Kebab\n")
    return severity, kebab


def test_kb_validate_words_its_schema_problems_in_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _zh_locale(monkeypatch, tmp_path)
    severity, kebab = _bad_kb(tmp_path)
    assert main(["kb", "validate", str(severity), str(kebab)]) == 1
    out = capsys.readouterr().out
    assert f"失败  {severity}" in out and f"失败  {kebab}" in out
    assert f"{severity}:4：条目 'my-cause'：'severity' 必须是 ('error', 'benign') 之一" in out
    assert f"{kebab}:3：条目 #1：'id' 必须是 kebab-case 字符串" in out
    assert "must be" not in out and "entry" not in out
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(["kb", "validate", str(severity)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  {severity}" in out and "entry 'my-cause' 'severity' must be one of" in out
    assert not HAN.search(out)


def test_a_skipped_kb_file_warns_in_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _zh_locale(monkeypatch, tmp_path)
    severity, _ = _bad_kb(tmp_path)
    assert main(["explain", "--kb", str(severity), "hipErrorNoBinaryForGpu"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("rocmfix：警告：") and "（已跳过该文件）" in err, err
    assert "warning" not in err and "file skipped" not in err
    assert main(["explain", "--lang", "en", "--kb", str(severity), "hipErrorNoBinaryForGpu"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("rocmfix: warning: ") and err.rstrip().endswith("(file skipped)")


def test_a_skipped_journal_line_warns_in_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _zh_locale(monkeypatch, tmp_path)
    state = tmp_path / "state" / "rocmfix"
    state.mkdir(parents=True)
    (state / "journal.jsonl").write_text("[1, 2]\n")
    assert main(["history"]) == 0
    err = capsys.readouterr().err
    assert f"rocmfix：警告：{state / 'journal.jsonl'}:1：不是 JSON 对象；已跳过这一行" in err, err
    assert main(["history"]) == 0
    assert capsys.readouterr().out == "还没有应用过修复\n"
