"""A Chinese session's doctor, verify, history and help screens speak Chinese.

Only the screens' own words are translated (a check's summary or a stage's
label comes from the core, in English); each test looks for the Chinese text
and for the English it replaces, so a string left behind fails it.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button, DataTable, Label, Markdown, Static

from rocmfix import demo
from rocmfix.app import RocmfixApp
from rocmfix.screens.doctor import CheckScreen, DoctorScreen
from rocmfix.screens.fix import FixScreen
from rocmfix.screens.modals import ConfirmModal
from rocmfix.screens.session import Session
from rocmfix.screens.texts import EN, ZH
from test_tui import DATA, settle

SIZE = (120, 40)


def shown(app: RocmfixApp) -> str:
    widgets = [*app.screen.query(Label).results(), *app.screen.query(Static).results()]
    buttons = [str(b.label) for b in app.screen.query(Button).results()]
    return " | ".join([*(str(w.render()) for w in widgets), *buttons])


def zh_demo(home: Path) -> Session:
    return Session(snapshot=demo.SNAPSHOT, home=home, demo=True, real_gpu=False, lang="zh")


def test_every_english_screen_string_has_a_chinese_one_without_stray_spaces() -> None:
    assert set(ZH) == set(EN)
    for key, text in ZH.items():
        assert "  " not in text.strip(), key
        assert not any(  # no ASCII space between two Chinese characters
            text[i] == " " and "\u4e00" <= text[i - 1] <= "\u9fff" and "\u4e00" <= text[i + 1] <= "\u9fff"
            for i in range(1, len(text) - 1)
        ), key
        assert "," not in text and "; " not in text, key  # full-width punctuation in Chinese


async def test_the_doctor_screen_speaks_chinese() -> None:
    app = RocmfixApp(Session(snapshot=DATA / "host" / "rx6700xt-no-override", lang="zh"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(app, pilot)
        assert isinstance(app.screen, DoctorScreen)
        drawn = str(app.screen.query_one("#doctor-summary").render())
        width = app.screen.query_one("#doctor-summary").size.width
        from rich.cells import cell_len

        assert all(cell_len(line) <= width for line in drawn.splitlines()), drawn
        summary = " ".join(drawn.split("\n"))  # wrapped between characters at the width
        assert "2 项失败" in summary and "最可能的原因：" in summary, summary
        assert "按 enter 查看详情。" in summary, summary
        table = app.screen.query_one("#checks", DataTable)
        titles = [str(row[1]) for row in (table.get_row_at(i) for i in range(table.row_count))]
        assert "操作系统" in titles and all("\u4e00" <= t[0] <= "\u9fff" or t[0].isascii() for t in titles)
        for english in ("failed", "warnings", "Most likely", "Enter: details"):
            assert english not in summary, english
        table = app.screen.query_one("#checks", DataTable)
        labels = [str(c.label) for c in table.columns.values()]
        assert labels[1:] == ["检查", "结果"], labels
        row = list(table.rows).index(next(k for k in table.rows if k.value == "gpu-arch-vs-torch"))
        table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, CheckScreen)
        text = shown(app)
        assert "失败" in text and "知识库条目" in text, text
        assert "Knowledge-base entries" not in text and "Evidence" not in text, text
        links = app.screen.query_one("#kb-links")
        first = str(links.get_option_at_index(0).prompt)
        assert first.startswith("证实 no-binary-for-gpu："), first


async def test_the_verify_screen_speaks_chinese_with_the_demo_s_recorded_result(
    tmp_path: Path,
) -> None:
    app = RocmfixApp(zh_demo(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await settle(app, pilot, rounds=6)
        text = shown(app)
        assert "显示演示机器的录制结果（本机没有 GPU）" in text, text
        assert "GPU 测试 · 级别" in text and "GPU 测试在分配显存阶段失败（出错）：" in text, text
        assert "（录制结果：这是演示机器的结果，并非在本机运行）" in text, text
        assert "✗ 分配显存" in text and "注：修复之前在演示机器上录制" in text, text
        for english in ("Showing the demo", "GPU test", "recorded:", "another Python"):
            assert english not in text, english


async def test_history_confirm_and_help_speak_chinese(tmp_path: Path) -> None:
    session = zh_demo(tmp_path)
    record = session.apply(
        session.plan("set-env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}), runner=lambda a, t: None
    )
    app = RocmfixApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f6")
        await settle(app, pilot)
        table = app.screen.query_one("#history", DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["编号", "操作", "状态", "取值"]
        assert "修复记录：" in shown(app) and "Journal" not in shown(app)
        await pilot.press("u")
        await pilot.pause(0.3)  # the confirm worker waits on the dialog: no settle here
        assert isinstance(app.screen, ConfirmModal)
        text = shown(app)
        assert f"撤销 {record.id}？" in text and "取消 (n)" in text, text
        await pilot.press("n")
        await settle(app, pilot)
        assert table.get_row_at(0)[2] == "已应用", "declined: still applied"
        await pilot.press("f1")
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "HelpScreen"
        page = app.screen.query_one(".dialog")
        assert page.border_title == "帮助" and "关闭" in str(page.border_subtitle)
        help_text = app.screen.query_one(Markdown).source
        assert "按 **esc**、**q** 或 **F1** 关闭帮助。" in help_text
        assert "anywhere" not in help_text


async def test_the_english_help_says_how_to_close_it() -> None:
    app = RocmfixApp(Session())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await pilot.pause(0.2)
        assert "closes this help" in app.screen.query_one(Markdown).source
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert type(app.screen).__name__ != "HelpScreen"


def _override_fix():  # type: ignore[no-untyped-def]
    """The set-env fix both fix-screen tests open (one place, so they cannot drift)."""
    from rocmfix.kb.render import RenderedFix

    return RenderedFix(
        text="Set the override",
        action="set-env",
        params={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
        commands=(),
        risk="low",
        root=False,
        complete=True,
        number=1,
    )


async def test_a_fix_opened_with_a_snapshot_says_it_is_planned_for_this_machine(
    tmp_path: Path,
) -> None:
    """The doctor reads the snapshot; the plan (its values, its writes) is this machine's,
    and the fix screen and its confirmation say so instead of naming the snapshot."""
    from dataclasses import replace


    session = Session(snapshot=DATA / "host" / "rx6700xt-no-override")
    session._cache["context"] = replace(session.context(), home=tmp_path, env={"HOME": str(tmp_path)})
    fix = _override_fix()
    app = RocmfixApp(session)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(FixScreen(fix))
        await settle(app, pilot)
        text = shown(app)
        assert "planned for this machine (not snapshot rx6700xt-no-override" in text, text
        await pilot.press("a")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ConfirmModal)
        assert "to this machine (not snapshot rx6700xt-no-override" in shown(app), shown(app)
        await pilot.press("n")
        await settle(app, pilot)
    assert not list(tmp_path.iterdir()), "declined: nothing written"


async def test_the_command_palette_s_own_entries_are_chinese() -> None:
    app = RocmfixApp(Session(lang="zh"))
    async with app.run_test(size=SIZE) as pilot:
        commands = list(app.get_system_commands(app.screen))
        titles = [c.title for c in commands]
        for word in ("粘贴：", "诊断：", "验证：", "知识库：", "历史：", "帮助"):
            assert any(t.startswith(word) for t in titles), (word, titles)
        assert not any(t.startswith(("Paste", "Doctor", "History")) for t in titles), titles
        next(c for c in commands if c.title.startswith("历史：")).callback()
        await pilot.pause(0.2)
        assert app.current_mode == "history"


async def test_the_fix_screen_speaks_chinese_from_plan_to_undo(tmp_path: Path) -> None:
    """Plan headings, the confirmation, the output log and the outcome line are Chinese;
    the plan itself (a diff of the user's file) and ids stay as they are."""
    from textual.widgets import Log


    fix = _override_fix()
    app = RocmfixApp(zh_demo(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(FixScreen(fix))
        await settle(app, pilot)
        text = shown(app)
        assert "修复：Set the override" in text and "计划（尚未做任何改动）" in text, text
        assert "计划用于演示机器的临时 HOME" in text and "输出" in text, text
        assert "按 a 应用（会先征求确认），按 esc 返回。" in text, text
        for english in ("Plan (", "Output", "planned for", "Press a", "action set-env"):
            assert english not in text, english
        await pilot.press("a")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ConfirmModal)
        text = shown(app)
        assert "应用这项修复？" in text and "应用 (y)" in text and "会保留备份" in text, text
        assert "Apply" not in text and "backup" not in text, text
        await pilot.press("y")
        await settle(app, pilot, rounds=6)
        assert isinstance(app.screen, FixScreen)
        outcome = str(app.screen.query_one("#outcome").render())
        assert outcome.startswith("已恢复：") and "RECOVERED" not in outcome, outcome
        assert str(app.screen.query_one("#plan-title").render()) == "计划（已应用）"
        log = "\n".join(str(line) for line in app.screen.query_one("#fix-log", Log).lines)
        assert "正在应用 " in log and "已应用 " in log and "applying" not in log, log
        await pilot.press("u")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ConfirmModal)
        assert "撤销 (y)" in shown(app) and "Undo" not in shown(app), shown(app)
        await pilot.press("y")
        await settle(app, pilot)
        outcome = str(app.screen.query_one("#outcome").render())
        assert outcome.startswith("已撤销：") and "Undone" not in outcome, outcome
        log = "\n".join(str(line) for line in app.screen.query_one("#fix-log", Log).lines)
        assert "每个文件都已恢复原样" in log, log
