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
    for chinese in (
        "位置参数：\n",
        "选项：\n",
        "显示此帮助信息并退出",
        "命令：",
        "找出错误信息或日志的根本原因",
    ):
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
    assert (
        "用法：rocmfix explain" in err and "rocmfix explain：错误：无法识别的参数：--bogus" in err
    ), err
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


def _parsers(lang: str) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every parser a user can ask for --help: each command, and kb's and fleet's actions."""
    import importlib

    from rocmfix import cli

    out = []

    def walk(prog: str, parser: argparse.ArgumentParser) -> None:
        out.append((prog, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(f"{prog} {name}", sub)

    for name, (module, _) in cli.COMMANDS.items():
        walk(name, cli._command_parser(name, importlib.import_module(module), lang))
    return out


HAN = __import__("re").compile(r"[\u4e00-\u9fff]")


def test_every_option_of_every_command_has_chinese_help() -> None:
    # walks the parsers themselves, so a new option without a Chinese line fails here
    from rocmfix.i18n_argparse import chinese as in_chinese

    english = {prog: p for prog, p in _parsers("en")}
    with in_chinese("zh"):  # as main() builds them in a Chinese session
        chinese = _parsers("zh")
    assert len(chinese) == 19  # thirteen commands, kb's five actions, fleet's one
    for prog, parser in chinese:
        texts = [parser.description or ""]
        texts += [a.help for a in parser._actions if a.help and a.help != argparse.SUPPRESS]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                texts += [c.help for c in action._choices_actions]
        for text in texts:
            assert HAN.search(text), (prog, text)
        if english[prog].epilog:
            assert HAN.search(parser.epilog or ""), prog
    # the English parsers are untouched by building the Chinese ones
    assert english["doctor"].description == "check this machine and confirm or rule out each cause"


def test_subcommand_help_in_chinese_keeps_flags_and_values(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    code, out, _ = run(["verify", "--help"], capsys)
    assert code == 0
    assert "要测试的 GPU 编号，或 'all'" in out and "--device N|all" in out, out
    assert "级别：" in out and "导入 torch 之后几秒钟" in out, out
    code, out, _ = run(["kb", "eval", "--help"], capsys)
    assert code == 0 and "把每个用例埋在 N 行噪声之后" in out and "--bury" in out, out
    code, out, _ = run(["kb", "--help"], capsys)
    assert code == 0 and "显示一个条目" in out, out


def test_chinese_help_wraps_by_display_width() -> None:
    from rocmfix.i18n_argparse import display_width, wrap_wide

    text = (
        "测试其 torch 的解释器（默认：当前解释器）；它需要装有 torch，不需要 rocmfix --python PATH"
    )
    for width in range(12, 60):
        lines = wrap_wide(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
        for line in lines:
            assert display_width(line) <= width + 4, (width, line)  # a character keeps its marks
            assert line == line.strip() and line[0] not in "，。；：、）" and line[-1] != "（"
        assert "--python PATH" in " ".join(lines)  # an ASCII word is never split


def test_english_help_keeps_argparse_wrapping() -> None:
    from rocmfix.cli import _classes

    _Formatter = _classes()["formatter"]  # noqa: N806

    text = "interpreter whose torch to test (default: this one); it needs torch, not rocmfix"
    for width in (20, 40, 56):
        assert _Formatter("x")._split_lines(text, width) == argparse.HelpFormatter(
            "x"
        )._split_lines(text, width)
    for _, parser in _parsers("en"):
        assert not HAN.search(parser.format_help())
