"""argparse's usage, headings and errors in a Chinese session (LANG=zh_CN.UTF-8 or --lang zh)."""

from __future__ import annotations

import argparse

import pytest

from rocmfix.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's --help and usage errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_top_help_is_chinese_under_a_chinese_locale(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    code, out, _ = run(["--help"], capsys)
    assert code == 0
    assert out.startswith("用法：rocmfix "), out
    for chinese in ("位置参数：\n", "选项：\n", "显示此帮助信息并退出", "命令：", "找出错误信息或日志的根本原因"):
        assert chinese in out, chinese
    for english in ("usage:", "options", "show this help", "commands:", "name the root cause"):
        assert english not in out, english


def test_a_usage_error_is_chinese_with_lang_zh_and_argparse_is_put_back(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    code, _, err = run(["explain", "--lang", "zh", "--bogus"], capsys)
    assert code == 2
    assert "用法：rocmfix explain" in err and "rocmfix explain：错误：无法识别的参数：--bogus" in err, err
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _, err = run(["verify", "--level", "nope"], capsys)
    assert code == 2 and "参数 --level：无效的选项：'nope'（可选：" in err, err
    monkeypatch.setenv("LANG", "C.UTF-8")
    # the patch is undone: an English parse in the same process speaks English again
    code, _, err = run(["explain", "--bogus"], capsys)
    assert code == 2 and "usage: rocmfix explain" in err and "unrecognized arguments" in err, err
    assert argparse.HelpFormatter.format_help.__name__ == "format_help"


def test_an_english_session_is_unchanged(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    code, out, _ = run(["doctor", "--help"], capsys)
    assert code == 0 and out.startswith("usage: rocmfix doctor"), out
    assert "check this machine and confirm or rule out each cause" in out
