"""Snapshot tests (pytest-textual-snapshot) of the main screens at 80x24 with fixed data.

The machine is the bundled demo snapshot, the log the bundled training log,
and the cursor does not blink, so each SVG depends on the code only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from rocmfix import demo
from rocmfix.app import RocmfixApp
from rocmfix.screens.session import Session

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _no_timing_in_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow, loaded machine would add "matched in 2.3s" to the picture."""
    from rocmfix.screens import paste

    monkeypatch.setattr(paste, "SLOW_MATCH_S", float("inf"))


def make_app() -> RocmfixApp:
    session = Session(
        snapshot=demo.SNAPSHOT, home=Path("/nonexistent-demo-home"), demo=True, real_gpu=False
    )
    return RocmfixApp(session, text=demo.LOG.read_text(), name="train.log")


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    app.clear_notifications()
    for widget in app.screen.query(TextArea):
        widget.cursor_blink = False
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for _ in range(4):
        await pilot.pause(0.1)
        await app.workers.wait_for_complete()
    app.clear_notifications()
    for widget in app.screen.query("TextArea, Input"):
        widget.cursor_blink = False
    await pilot.pause(0.1)


class TestPasteScreen:
    """The first screen a user sees: the log and its ranked causes."""

    def test_paste_screen_ranks_the_demo_log(self, snap_compare) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(make_app(), terminal_size=SIZE, run_before=settle)


class TestDetailScreen:
    """A cause with its explanation, evidence and fixes."""

    def test_detail_screen_of_the_top_cause(self, snap_compare) -> None:  # type: ignore[no-untyped-def]
        async def open_top(pilot) -> None:  # type: ignore[no-untyped-def]
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)

        assert snap_compare(make_app(), terminal_size=SIZE, run_before=open_top)


class TestDoctorScreen:
    """The checklist of the recorded RX 6700 XT once every check has finished."""

    def test_doctor_checklist_of_the_demo_machine(self, snap_compare) -> None:  # type: ignore[no-untyped-def]
        async def doctor(pilot) -> None:  # type: ignore[no-untyped-def]
            await settle(pilot)
            await pilot.press("f3")
            await settle(pilot)

        assert snap_compare(make_app(), terminal_size=SIZE, run_before=doctor)


class TestKbScreen:
    """Fuzzy search over the knowledge base."""

    def test_kb_search_for_a_gfx(self, snap_compare) -> None:  # type: ignore[no-untyped-def]
        async def search(pilot) -> None:  # type: ignore[no-untyped-def]
            await settle(pilot)
            await pilot.press("f5", *"override")
            await settle(pilot)

        assert snap_compare(make_app(), terminal_size=SIZE, run_before=search)
