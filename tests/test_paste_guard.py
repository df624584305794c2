"""The input parser keeps a paste whole when the terminal splits its markers (paste_guard)."""

from __future__ import annotations

import time

import pytest
from textual import events

from rocmfix import paste_guard

ESC_WAIT = 0.15  # past Textual's 100 ms escape delay


@pytest.fixture
def parser(monkeypatch: pytest.MonkeyPatch) -> paste_guard.PasteSafeParser:
    monkeypatch.setattr(paste_guard, "STALL_S", 0.4)
    return paste_guard.PasteSafeParser()


def _feed(parser: paste_guard.PasteSafeParser, data: str) -> list[object]:
    return list(parser.feed(data))


def _wait_tick(parser: paste_guard.PasteSafeParser, seconds: float) -> list[object]:
    time.sleep(seconds)
    return list(parser.tick())


def _pastes(tokens: list[object]) -> list[str]:
    return [t.text for t in tokens if isinstance(t, events.Paste)]


def _keys(tokens: list[object]) -> list[str]:
    return [t.key for t in tokens if isinstance(t, events.Key)]


def test_an_end_marker_split_past_the_escape_delay_still_ends_the_paste(parser) -> None:
    assert _feed(parser, "\x1b[200~hello\nworld\x1b") == []
    assert _wait_tick(parser, ESC_WAIT) == []  # no Escape key out of the paste
    assert _pastes(_feed(parser, "[201~")) == ["hello\nworld"]
    assert _keys(_feed(parser, "a\x11")) == ["a", "ctrl+q"]  # the keyboard works after it


def test_textual_alone_loses_that_paste_and_the_keyboard() -> None:
    # the failure this module exists for; if Textual fixes it, the guard can go
    from textual._xterm_parser import XTermParser

    plain = XTermParser()
    list(plain.feed("\x1b[200~hello\x1b"))
    time.sleep(ESC_WAIT)
    list(plain.tick())
    assert list(plain.feed("[201~")) == []
    assert list(plain.feed("a\x11")) == []


def test_a_paste_whose_end_never_comes_is_ended_after_the_stall(parser) -> None:
    _feed(parser, "\x1b[200~first part")
    assert _wait_tick(parser, 0.1) == []  # still within the stall
    assert _pastes(_wait_tick(parser, 0.4)) == ["first part"]
    assert _keys(_feed(parser, "b")) == ["b"]


def test_the_late_tail_of_a_marker_ended_here_is_not_typed_into_the_log(parser) -> None:
    _feed(parser, "\x1b[200~xy\x1b[2")
    assert _pastes(_wait_tick(parser, 0.5)) == ["xy"]
    assert _feed(parser, "0") == []  # "01~" arrives in pieces
    assert _keys(_feed(parser, "1~z")) == ["z"]


def test_a_whole_late_marker_after_a_stall_does_not_eat_the_next_escape(parser) -> None:
    _feed(parser, "\x1b[200~xy")
    assert _pastes(_wait_tick(parser, 0.5)) == ["xy"]
    assert _feed(parser, "\x1b[201~") == []  # harmless outside a paste
    _feed(parser, "\x1b")
    assert _keys(_wait_tick(parser, ESC_WAIT)) == ["escape"]


def test_a_lone_escape_key_is_still_the_escape_key(parser) -> None:
    assert _feed(parser, "\x1b") == []
    assert _keys(_wait_tick(parser, ESC_WAIT)) == ["escape"]


def test_a_split_start_marker_is_held_until_the_rest_comes(parser) -> None:
    _feed(parser, "\x1b[20")
    assert _wait_tick(parser, ESC_WAIT) == []
    assert _pastes(_feed(parser, "0~hi\x1b[201~")) == ["hi"]


def test_a_start_marker_that_never_completes_falls_back_to_keys(parser) -> None:
    _feed(parser, "\x1b[20")
    assert _wait_tick(parser, ESC_WAIT) == []
    assert _keys(_wait_tick(parser, 0.4))  # Textual's own handling after the stall
    assert _keys(_feed(parser, "q")) == ["q"]


def test_ordinary_keys_and_a_whole_paste_pass_through_unchanged(parser) -> None:
    tokens = _feed(parser, "ab\x1b[200~one\ntwo\x1b[201~c")
    assert _keys(tokens) == ["a", "b", "c"]
    assert _pastes(tokens) == ["one\ntwo"]


def test_install_puts_the_parser_into_the_linux_driver() -> None:
    import textual.drivers.linux_driver as linux_driver

    assert paste_guard.install()
    assert paste_guard.install()  # twice is fine
    assert linux_driver.XTermParser is paste_guard.PasteSafeParser


def test_colour_codes_inside_a_paste_stay_paste_text_not_keys(parser) -> None:
    # Textual alone typed up to 32 characters after each ESC as keys (waudit)
    tokens = _feed(parser, "\x1b[200~a \x1b[31mRED\x1b[0m b\rnext \x1b]0;T\x07 c\x1bc d\x1b[201~")
    assert _pastes(tokens) == ["a RED b\rnext  c d"]
    assert _keys(tokens) == []


def test_an_esc_at_the_end_of_a_read_inside_a_paste_waits_for_the_next_read(parser) -> None:
    assert _feed(parser, "\x1b[200~one \x1b") == []
    assert _feed(parser, "[") == []
    tokens = _feed(parser, "31mtwo\x1b[201~")
    assert _pastes(tokens) == ["one two"] and _keys(tokens) == []
    assert _keys(_feed(parser, "a")) == ["a"]


def test_a_held_esc_that_was_the_end_marker_still_ends_the_paste(parser) -> None:
    assert _feed(parser, "\x1b[200~text\x1b[2") == []
    assert _wait_tick(parser, ESC_WAIT) == []
    assert _pastes(_feed(parser, "01~")) == ["text"]
    _feed(parser, "\x1b[200~more\x1b")
    assert _pastes(_wait_tick(parser, 0.5)) == ["more"]  # the rest never came: the stall ends it
    assert _keys(_feed(parser, "b")) == ["b"]
