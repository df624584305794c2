"""Chinese prose: no stray spaces from folded lines, wrapped between characters, never inside a word."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from rocmfix.commands._explain_render import wrap_cjk
from rocmfix.kb.loader import load_kb
from rocmfix.kb.model import tidy_cjk

HAN = "\u3400-\u9fff"
CLOSE = "。，、；：！？）」』》】”’"
STRAY = re.compile(rf"[{HAN}{CLOSE}][ \t]+[{HAN}]|[{CLOSE}][ \t]+\S|[ \t]+[{CLOSE}]")


def test_tidy_removes_the_spaces_a_folded_line_leaves_and_keeps_latin_spacing() -> None:
    assert tidy_cjk("占用了一部分显存。 PyTorch 的缓存") == "占用了一部分显存。PyTorch 的缓存"
    assert tidy_cjk("而不是真正耗尽； 参见 apu-gtt") == "而不是真正耗尽；参见 apu-gtt"
    assert tidy_cjk("可能有帮助。\n在同一进程") == "可能有帮助。在同一进程"
    assert tidy_cjk("GPU 上的 一次") == "GPU 上的一次"
    assert tidy_cjk("第一段。\n\n第二段") == "第一段。\n\n第二段"  # a paragraph break stays


def test_no_kb_text_in_chinese_has_a_stray_space() -> None:
    kb = load_kb()
    bad = []
    for entry in kb.entries:
        for field in ("title", "summary", "explanation", "caveats"):
            text = entry.text(field, "zh")
            if text and STRAY.search(text):
                bad.append((entry.id, field, STRAY.search(text).group()))  # type: ignore[union-attr]
        for fix in entry.fixes:
            text = fix.text.get("zh", "")
            if text and STRAY.search(tidy_cjk(text)):
                bad.append((entry.id, "fix", text[:40]))
    assert not bad, bad[:10]


@pytest.mark.parametrize("width", [20, 37, 56, 96])
def test_wrap_breaks_between_characters_never_inside_a_latin_word(width: int) -> None:
    kb = load_kb()
    for entry in kb.entries[:40]:
        text = entry.text("explanation", "zh")
        if not text:
            continue
        lines = wrap_cjk(text, width).split("\n")
        words = set(re.findall(r"[A-Za-z0-9_./-]{2,}", text))
        for line in lines:
            assert line == line.rstrip() and not line.startswith(" "), line
            if cell_len(line) > width:  # only a single word longer than the line may overflow
                assert " " not in line and not re.search(f"[{HAN}]", line), (width, line)
            assert not re.match(f"^[{CLOSE}]", line), line  # no line starts with a closing mark
        for a, b in zip(lines, lines[1:], strict=False):
            joint = re.search(r"[A-Za-z0-9_]+$", a), re.match(r"^[A-Za-z0-9_]+", b)
            if joint[0] and joint[1]:
                assert joint[0].group() + joint[1].group() not in words, (a, b)
        # nothing was lost: only the spaces at the breaks are gone
        assert re.sub(r"\s", "", "".join(lines)) == re.sub(r"\s", "", text)


def test_kb_show_in_chinese_labels_its_sections_in_chinese(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rocmfix.cli import main

    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert main(["kb", "show", "gpu-out-of-memory"]) == 0
    out = capsys.readouterr().out
    for english in ("Caveats:", "Symptoms:", "Checks:", "Fixes:", "References:", "(risk "):
        assert english not in out, english
    assert "注意：" in out and "修复：" in out and "（风险：低）" in out
    assert not STRAY.search(out.split("参考资料")[0]), STRAY.search(out).group()  # type: ignore[union-attr]


def test_the_words_for_an_unknown_value_sit_in_chinese_text_without_stray_spaces() -> None:
    # a fix names the user's gfx target; unknown, it reads "你的 GPU 的 gfx 目标（运行 … 查看）",
    # which must not keep the spaces the template sets around a Latin value such as gfx1031
    from rocmfix.kb.render import fill_text

    kb = load_kb()
    bad = []
    for entry in kb.entries:
        for fix in entry.fixes:
            zh = fix.text.get("zh")
            if not zh or "{" not in zh:
                continue
            text = fill_text(zh, {}, "zh")
            if STRAY.search(text):
                bad.append((entry.id, STRAY.search(text).group(0), text[:80]))
    assert not bad, bad
    assert fill_text("请把 {gfx} 加入其列表", {"gfx": "gfx1031"}, "zh") == "请把 gfx1031 加入其列表"
    assert fill_text("请把 {gfx} 加入其列表", {}, "zh").startswith("请把你的 GPU")
