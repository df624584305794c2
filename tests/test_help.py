"""Every subcommand's --help works as a user types it, in English and Chinese: exit 0, its own
usage line, every option of the usage line explained below it (a zh --help once crashed)."""

from __future__ import annotations

import re

import pytest

from rocmfix.cli import COMMANDS, main


@pytest.mark.parametrize("lang", ["C.UTF-8", "zh_CN.UTF-8"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_of_every_subcommand_exits_0_and_names_its_options(
    name: str, lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", lang)
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code in (0, None)
    out, err = capsys.readouterr()
    usage_word = "用法：" if lang.startswith("zh") else "usage: "
    assert out.startswith(f"{usage_word}rocmfix {name}"), out[:200]
    assert "Traceback" not in err
    # every option shown in the usage line is explained below it
    usage = out.split("\n\n", 1)[0]
    body = out[len(usage) :]
    for option in set(re.findall(r"\[(--[a-z][a-z0-9-]*)", usage)):
        assert option in body, (name, option)
