"""Under --json a refused command (exit 2) leaves one rocmfix.error/1 object on stdout."""

from __future__ import annotations

import json
import re

import pytest

from rocmfix.cli import main

HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["fix", "set-env", "FOO=1", "--json"], "does not set FOO"),
        (["doctor", "--snapshot", "/nonexistent-rocmfix-dir", "--json"], "not a snapshot"),
        (["kb", "show", "no-such-entry", "--json"], "no KB entry"),
        (["verify", "--python", "/nonexistent-rocmfix-dir/python", "--json"], "no interpreter"),
    ],
)
def test_refused_json_command_prints_one_error_object(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 1, out
    record = json.loads(lines[0])
    assert set(record) == {"schema", "error", "hint", "code", "exit"}
    assert record["schema"] == "rocmfix.error/1"
    assert record["exit"] == 2
    assert needle in record["error"]
    assert record["hint"] is None or isinstance(record["hint"], str)
    assert needle in err  # the one-line message stays on stderr


def test_refused_command_without_json_keeps_stdout_empty(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["fix", "set-env", "FOO=1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "does not set FOO" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["fix", "set-env", "FOO=1", "--json", "--bogus"], "--bogus"),
        (["doctor", "--json", "--check"], "--check"),
        (["kb", "show", "--json"], "id"),
        (["verify", "--json", "--level", "fast"], "fast"),
        (["--json", "--bogus"], "--bogus"),
    ],
)
def test_usage_error_under_json_prints_one_error_object(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse's own refusals (unknown option, missing value, bad choice) exit 2 like a
    # refused command, and a script reading stdout still gets one object saying why
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 1, out
    record = json.loads(lines[0])
    assert record["schema"] == "rocmfix.error/1" and record["exit"] == 2
    assert record["code"] == "usage"
    assert needle in record["error"]
    assert "usage:" in err and needle in err  # usage and message stay on stderr


@pytest.mark.parametrize(
    ("argv", "english", "chinese"),
    [
        (["doctor", "--json", "--check"], "argument --check: expected one argument", "需要一个值"),
        (
            ["verify", "--json", "--level", "fast"],
            "argument --level: invalid choice: 'fast' (choose from 'quick', 'standard', 'full')",
            "无效的选项",
        ),
        (["verify", "--json", "--timeout", "-1"], "not '-1'", "需要正的秒数"),
        (["--json", "--bogus"], "unrecognized arguments: ", "无法识别的参数"),
    ],
)
def test_a_chinese_usage_error_keeps_the_json_error_english(
    argv: list[str],
    english: str,
    chinese: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the user reads stderr in their language; a script reads one object that is the same
    # in every locale, as a refused command's is (its message is English too)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit):
        main(argv)
    out, err = capsys.readouterr()
    record = json.loads(out)
    assert english in record["error"] and not HAN.search(record["error"])
    assert record["code"] == "usage"
    assert chinese in err


def test_a_refused_command_s_json_says_its_kind_in_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert main(["kb", "show", "no-such-entry", "--json"]) == 2
    out, err = capsys.readouterr()
    record = json.loads(out)
    assert record["code"] == "input" and "no KB entry" in record["error"]
    assert "知识库中没有条目" in err


def test_usage_error_without_json_keeps_stdout_empty(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["doctor", "--bogus"])
    assert capsys.readouterr().out == ""
