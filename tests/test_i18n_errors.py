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
