"""Every refusal rocmfix can print reaches Chinese in a Chinese session.

The list of refusals is not written by hand: it is read from the source
(every ``RocmfixError``/``InputError``/``ActionError``/... built with a
message), so a new ``raise`` without a Chinese wording fails here. A second
test drives real refused commands under ``LANG=zh_CN.UTF-8`` and reads what
the user sees.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import rocmfix
from rocmfix.cli import main
from rocmfix.i18n_errors import HINTS, MESSAGES, translate

ERRORS = {"RocmfixError", "InputError", "KbError", "ProbeError", "ActionError", "ArgumentTypeError"}
HAN = re.compile(r"[\u4e00-\u9fff]")
VALUE = re.compile(r"V\d+v")


def _variants(node: ast.expr | None, counter: Iterator[int]) -> list[str]:
    """The text ``node`` builds, with each computed part replaced by a stand-in value
    (``V1v``...); an ``a if c else b`` gives both texts."""
    if node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        parts = [
            [v.value] if isinstance(v, ast.Constant) else [f"V{next(counter)}v"]
            for v in node.values
        ]
        return ["".join(p) for p in itertools.product(*parts)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _variants(node.left, counter), _variants(node.right, counter)
        return [a + b for a in left for b in right]
    if isinstance(node, ast.IfExp):
        return _variants(node.body, counter) + _variants(node.orelse, counter)
    if isinstance(node, ast.Name) and node.id.isupper():
        return [f"CONST:{node.id}"]
    return [f"V{next(counter)}v"]


def _sites() -> list[tuple[str, str, str]]:
    """(where, "message"|"hint", text) for every error rocmfix constructs with words."""
    root = Path(rocmfix.__file__).parent
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            for t in n.targets
            if isinstance(t, ast.Name) and isinstance(n.value.value, str)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            if name not in ERRORS:
                continue
            hint = next((k.value for k in node.keywords if k.arg == "hint"), None)
            if hint is None and len(node.args) > 1:
                hint = node.args[1]
            where = f"{path.relative_to(root)}:{node.lineno}"
            for kind, part in (("message", node.args[0]), ("hint", hint)):
                for text in _variants(part, itertools.count(1)):
                    if text.startswith("CONST:"):
                        text = constants[text[6:]]
                    out.append((where, kind, text))
    return out


def english_left(text: str) -> list[str]:
    """Runs of three or more English words outside `code`, stand-in values, paths,
    options, ids and variable names: what a Chinese reader would meet untranslated."""
    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", " ", text)
    words = []
    for token in text.split():
        bare = token.strip("()（）,，:：;；.。?？")
        plain = re.fullmatch(r"[A-Za-z]+", bare) and not bare.isupper() and not VALUE.search(bare)
        words.append(bare if plain else "|")
    runs = " ".join(words).split("|")
    return [r.strip() for r in runs if len(r.split()) >= 3]


SITES = _sites()


def test_the_source_scan_finds_the_refusals() -> None:
    # a scan that silently found nothing would pass everything below
    assert len(SITES) > 150
    texts = {text for _, _, text in SITES}
    assert any(t.startswith("rocmfix does not set V1v") for t in texts)  # set-env's allow-list
    assert any("needs a terminal" in t for t in texts)


@pytest.mark.parametrize(("where", "kind", "text"), SITES, ids=[f"{w}-{k}" for w, k, _ in SITES])
def test_every_refusal_has_a_chinese_wording(where: str, kind: str, text: str) -> None:
    if not re.search(r"[A-Za-z]{2,}", VALUE.sub("", text)):
        pytest.skip("no words of its own: the message is carried in from elsewhere")
    zh = translate(text, MESSAGES if kind == "message" else HINTS, "zh")
    assert HAN.search(zh), f"{where}: no Chinese for {text!r}"
    assert not english_left(zh), f"{where}: English left in {zh!r}"
    assert set(VALUE.findall(zh)) == set(VALUE.findall(text)), zh  # every value kept


def test_english_left_spots_a_sentence_but_not_values() -> None:
    assert english_left("rocmfix：cannot read the journal")
    assert not english_left("rocmfix：`rocmfix fix set-env` 不设置 HSA_OVERRIDE_GFX_VERSION")
    assert not english_left("/home/me/train.log：文件不存在 --python PATH")


def _zh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("SHELL", "/bin/bash")


def _cases(tmp: Path) -> list[list[str]]:
    (tmp / "full").mkdir()
    (tmp / "full" / "x").write_text("x")
    (tmp / "empty.log").write_text("")
    (tmp / "bad.jsonl").write_text('{"text": "x"}\n')  # no label
    return [
        ["fix", "set-env", "FOO=1"],  # the allow-list refusal
        ["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3"],
        ["fix", "set-env", "HIP_VISIBLE_DEVICES=0;rm"],
        ["fix", "set-env"],
        ["fix", "clear-miopen-cache", "x=1"],
        ["fix", "reinstall-torch", "rocm_index=nope"],
        ["undo"],
        ["undo", "not-an-id"],
        ["undo", "--last", "20260101T120000-3f9a"],
        ["report", "--yes"],
        ["report", "--out", str(tmp)],
        ["install-plan", "--gpu", "gfx9999x"],
        ["verify", "--timeout", "0"],
        ["verify", "--device", "x"],
        ["verify", "--python", str(tmp / "nope")],
        ["kb", "eval", str(tmp / "bad.jsonl")],
        ["fix", "gpu-out-of-memory", "--from-log", str(tmp / "empty.log")],
        ["explain", "-f", str(tmp / "empty.log")],
        ["explain", "a", "--file", str(tmp / "empty.log")],
        ["fleet", "summarize", str(tmp / "nowhere")],
        ["fleet", "summarize", str(tmp / "full")],
        ["collect", "--out", str(tmp / "full")],
        ["doctor", "--snapshot", str(tmp / "full")],
    ]


def test_refused_commands_speak_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _zh(monkeypatch, tmp_path)
    for argv in _cases(tmp_path):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse's own refusals (an option's type check)
            code = stop.code
        assert code == 2, argv
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines, argv
        if lines[0].startswith("用法："):
            lines = lines[-1:]  # argparse: usage, then "rocmfix verify：错误：…"
        for line in lines:
            assert line.startswith(("rocmfix", "提示：")), (argv, err)
            assert HAN.search(line), (argv, err)
            left = [r for r in english_left(line) if not any(r in a for a in argv)]
            assert not left, (argv, line, left)


@pytest.mark.parametrize(
    "argv",
    [
        ["doctor", "--bogus"],
        ["verify", "--level"],
        ["kb", "show"],
        ["fix", "set-env", "--json", "-x"],
    ],
)
def test_usage_errors_speak_chinese(
    argv: list[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _zh(monkeypatch, tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert err.startswith("用法：") and "错误：" in err, err
    message = err.splitlines()[-1]
    assert HAN.search(message) and not english_left(message), message
    if "--json" in argv:
        assert json.loads(out)["schema"] == "rocmfix.error/1"
