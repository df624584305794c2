"""Keep a bracketed paste whole when the terminal delivers it in pieces.

A terminal wraps a paste in ``ESC[200~`` ... ``ESC[201~``. Textual's input
parser gives an escape sequence 100 ms (``ESCDELAY``) to complete; when the
end marker is split (``ESC`` in one read, ``[201~`` in the next, more than
100 ms later: a loaded machine, ssh, Windows Terminal) the parser takes the
``ESC`` for the Escape key and never leaves paste mode. The paste is lost and
every key after it, ctrl+q included, is swallowed: the app looks frozen.
A big match running in a child on a two-core box is enough to cause it.

``PasteSafeParser`` follows the paste markers itself. Inside a paste it holds
back the escape timeout while bytes keep coming; when nothing has arrived for
``STALL_S`` it completes the end marker itself, so the text pasted so far
arrives as one paste and the keyboard works again. If the rest of the marker
turns up after that, it is dropped instead of being typed into the log.
A half-received start marker (``ESC[2`` ...) is held the same way.

An ``ESC`` inside the pasted text (a log copied with its colour codes) is not
the end marker either: Textual's parser took it for the start of a key
sequence and typed up to 32 characters after it as keys at the cursor, so the
lines came out merged and out of order. Inside a paste each such ``ESC`` is
passed on as ``SHIELD`` and the Paste event gets the text back without its
escape sequences (``termtext.without_sequences``); one at the end of a read
is held until the next read shows whether it begins the end marker.

Textual is pinned to one minor version (pyproject), and ``install`` only
replaces the parser class where the driver module has one of this shape.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

START = "\x1b[200~"
END = "\x1b[201~"
ESC = "\x1b"
SHIELD = "\U0010fffd"
"""Stands for an ESC inside a paste while Textual parses it (a private-use character)."""
STALL_S = 1.5
"""Seconds without input inside a paste before it is ended here."""

clock = time.monotonic
"""The time source (tests replace it)."""

try:
    from textual._xterm_parser import XTermParser as _Base
except ImportError:  # pragma: no cover - a Textual without this parser: nothing to guard
    _Base = None  # type: ignore[assignment,misc]


def _pending_prefix(text: str, marker: str, shortest: int = 1) -> str:
    """The longest end of ``text`` that is a proper start of ``marker`` (at least ``shortest`` long)."""
    for size in range(min(len(marker) - 1, len(text)), shortest - 1, -1):
        if text.endswith(marker[:size]):
            return marker[:size]
    return ""


if _Base is not None:

    class PasteSafeParser(_Base):  # type: ignore[misc,valid-type]
        """Textual's parser, with paste markers that survive being split (see the module)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._in_paste = False
            self._recent = ""  # the last few characters fed, for markers split across reads
            self._last_input = clock()
            self._late = ""  # what is left of a marker this parser completed itself
            self._held = ""  # an ESC inside a paste at the end of a read (see _shield)

        def _track(self, data: str) -> None:
            seen = self._recent + data
            start, end = seen.rfind(START), seen.rfind(END)
            if start != end:  # at least one marker: the later one decides
                self._in_paste = start > end
            self._recent = seen[-(len(END) - 1) :]
            self._last_input = clock()

        def _drop_late(self, data: str) -> str:
            """``data`` without the late rest of a marker that was already completed here."""
            if not self._late:
                return data
            if self._late.startswith(data):
                self._late = self._late[len(data) :]
                return ""
            if data.startswith(self._late):
                data, self._late = data[len(self._late) :], ""
                return data
            self._late = ""
            return data

        def _shield(self, data: str) -> tuple[str, int]:
            """``data`` with each ESC inside a paste that is not its end marker as SHIELD,
            and how many characters at its end to hold back: an ESC that may yet begin
            the end marker, or not, once the next read shows."""
            if ESC not in data:
                return data, 0
            seen, off = self._recent + data, len(self._recent)
            in_paste, out, i = self._in_paste, [], 0
            while i < len(seen):
                tail = seen[i:]
                if in_paste and i >= off and len(tail) < len(END) and END.startswith(tail):
                    return "".join(out), len(tail)  # (END starts with ESC: so does tail)
                for marker, state in ((START, True), (END, False)):
                    if seen.startswith(marker, i):
                        in_paste = state
                        out.append(marker[max(0, off - i) :])
                        i += len(marker)
                        break
                else:
                    ch = seen[i]
                    if i >= off:
                        out.append(SHIELD if in_paste and ch == ESC else ch)
                    i += 1
            return "".join(out), 0

        @staticmethod
        def _unshield(tokens: Iterable[Any]) -> Iterable[Any]:
            from textual import events

            for token in tokens:
                if isinstance(token, events.Paste) and SHIELD in token.text:
                    from rocmfix.termtext import without_sequences

                    token = events.Paste(without_sequences(token.text.replace(SHIELD, ESC)))
                yield token

        def feed(self, data: str) -> Iterable[Any]:
            if not data and self._held:  # the end of input: nothing is left to wait for
                data, self._held = self._held, ""
                self._track(data)
            elif data:
                data = self._drop_late(data)
                if not data:
                    return
                data, self._held = self._held + data, ""
                shielded, hold = self._shield(data)
                if hold:
                    data, self._held = data[:-hold], data[-hold:]
                    self._last_input = clock()
                if not data:
                    return
                self._track(data)
                data = shielded
            yield from self._unshield(super().feed(data))

        def _holding(self) -> bool:
            """A marker is under way: the escape timeout must not cut it."""
            return self._in_paste or bool(_pending_prefix(self._recent, START, shortest=3))

        def tick(self) -> Iterable[Any]:
            if not self._holding():
                yield from self._unshield(super().tick())
                return
            if clock() - self._last_input < STALL_S:
                return  # the rest is on its way
            if self._held:  # an ESC held back and nothing after it: it is the end marker's
                held, self._held = self._held, ""
                self._track(held)
                yield from self._unshield(super().feed(held))
            if not self._in_paste:
                # a start marker that never completed: let Textual treat it as keys
                self._recent = ""
                yield from self._unshield(super().tick())
                return
            # the end marker was lost or is very late: end the paste here
            rest = END[len(_pending_prefix(self._recent, END)) :]
            self._track(rest)
            # a whole late marker is harmless outside a paste; only a marker's tail would be typed
            self._late = rest if rest != END else ""
            yield from self._unshield(super().feed(rest))

else:  # pragma: no cover
    PasteSafeParser = None  # type: ignore[assignment,misc]


def install() -> bool:
    """Make Textual's Linux drivers read input with ``PasteSafeParser``; True when done."""
    if PasteSafeParser is None:
        return False
    done = False
    for name in ("linux_driver", "linux_inline_driver"):
        try:
            module = __import__(f"textual.drivers.{name}", fromlist=["XTermParser"])
        except ImportError:
            continue
        current = getattr(module, "XTermParser", None)
        if current is _Base or current is PasteSafeParser:
            module.XTermParser = PasteSafeParser  # type: ignore[attr-defined]
            done = True
    return done
