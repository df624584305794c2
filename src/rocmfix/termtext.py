"""Text from a log, a snapshot or another machine, made safe to print on a terminal.

A pasted log, a snapshot someone sent, a kernel log line (a USB device's name),
a process name (any user picks their own) or another node's doctor JSON can
hold terminal control sequences: ``ESC c`` resets the terminal, ``ESC ( 0``
and ``SO`` switch it to line-drawing glyphs, OSC 0 sets its title, OSC 52
writes the clipboard, and UTF-8 encoded C1 controls (U+009B CSI, U+009D OSC)
do the same on terminals that honour them. :func:`plain` removes every such
sequence and every other control character but tab and newline, so what
rocmfix prints of foreign text is only its printable characters (bidirectional
overrides go too); rocmfix's own colours are added after it.
"""

from __future__ import annotations

from rocmfix import _rx

_SEQUENCE = _rx.compile(
    # CSI, 7-bit or C1: parameters, intermediates, a final byte
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    # OSC, DCS, SOS, PM, APC strings, up to BEL or ST (or the line's end)
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    # any other escape sequence: ESC c, ESC 7, ESC ( 0, ESC # 8, ...
    r"|\x1b[ -/]*[0-~]?"
)
# ... and the bidirectional embedding, override and isolate controls (U+202A-U+202E,
# U+2066-U+2069): printed, they reorder what follows them on the line, so a command or a
# path reads differently from the bytes a user would copy ("Trojan Source", CVE-2021-42574).
_CONTROL = _rx.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def plain(text: str) -> str:
    """``text`` without terminal escape sequences or control characters (tab and newline stay)."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


def without_sequences(text: str) -> str:
    """``text`` without terminal escape sequences; other characters (CR, tab) stay."""
    return _SEQUENCE.sub("", text) if ("\x1b" in text or _C1.search(text)) else text


_C1 = _rx.compile(r"[\x90-\x9f]")
