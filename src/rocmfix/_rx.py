"""``re.compile`` with the compiled form kept on disk between runs.

A one-line ``rocmfix explain`` compiles some hundred regular expressions
(context detection, line cleaning, value shapes, the signatures its input
reaches), and ``re`` parses and compiles each in Python on every start: a
good part of the run. CPython's ``re`` ends in ``_sre.compile(pattern, flags,
code, ...)`` with ``code`` a list of integers; this module stores those
arguments in the user cache (marshal, keyed by the interpreter's version and
the SRE magic) and hands them straight to ``_sre.compile`` on later runs.
``_sre`` validates the code it is given; a pattern it refuses, any other
interpreter, or an unreadable cache falls back to ``re.compile``. The result
is the same Pattern object ``re.compile`` returns (``==`` compares the code).

On a cache hit ``re`` itself is not imported (with ``enum``, which it needs, some
6 ms of a one-line explain): the flags and :func:`escape` below are ``re``'s own
values and behaviour, and ``re`` comes in on the first miss.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any

# re's flag values (re.IGNORECASE ...), fixed by the SRE engine; tests/test_rx_cache.py checks them.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16
DEBUG = 128

# re.escape's table: every character that has a meaning in a pattern gets a backslash.
_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def __getattr__(name: str) -> object:
    # _rx.error is re.error; looked up only once a compile has failed (re is imported then).
    if name == "error":
        import re  # noqa: PLC0415

        return re.error
    raise AttributeError(name)


def escape(pattern: str) -> str:
    """``re.escape(pattern)`` for a str, without importing ``re``."""
    return pattern.translate(_SPECIAL)


_Key = tuple  # (pattern, flags)
_cache: dict[Any, Any] | None = None
_live: dict[Any, Any] = {}
_dirty = False
_path: str | None = None


def _cache_path() -> str | None:
    try:
        import _sre  # noqa: PLC0415

        magic = _sre.MAGIC
    except (ImportError, AttributeError):
        return None
    from array import array  # noqa: PLC0415

    if sys.implementation.name != "cpython" or array("I").itemsize != _sre.CODESIZE:
        return None
    from rocmfix._quick import cache_dir  # noqa: PLC0415

    tag = f"{sys.implementation.cache_tag}-{magic}-rx2"
    return os.path.join(cache_dir(), f"re-{tag}.marshal")


def _load() -> dict[Any, Any]:
    global _cache, _path
    if _cache is None:
        _cache = {}
        _path = _cache_path()
        if _path is not None:
            from rocmfix._quick import read_marshal  # noqa: PLC0415

            data = read_marshal(_path)
            if isinstance(data, dict):
                _cache = data
    return _cache


def _code_bytes(code: list[int]) -> bytes:
    """SRE code as raw 32-bit words (marshal loads a list of ints an int at a time)."""
    from array import array  # noqa: PLC0415

    return array("I", code).tobytes()


def _code_list(raw: bytes) -> list[int]:
    from array import array  # noqa: PLC0415

    words = array("I")
    words.frombytes(raw)
    return words.tolist()


def _build(pattern: str | bytes, flags: int) -> tuple[Any, ...] | None:
    """The arguments ``re`` passes to ``_sre.compile`` (after the pattern), or None."""
    try:
        try:
            from re import _compiler, _parser  # type: ignore[attr-defined]  # noqa: PLC0415
        except ImportError:  # Python 3.10: the same modules under their old names
            import sre_compile as _compiler  # type: ignore[no-redef]  # noqa: PLC0415
            import sre_parse as _parser  # type: ignore[no-redef]  # noqa: PLC0415

        p = _parser.parse(pattern, flags)
        code = _compiler._code(p, flags)  # noqa: SLF001
        groupindex = dict(p.state.groupdict)
        indexgroup: list[str | None] = [None] * p.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        return (
            int(flags | p.state.flags),
            _code_bytes([int(c) for c in code]),
            int(p.state.groups - 1),
            groupindex,
            tuple(indexgroup),
        )
    except Exception:  # noqa: BLE001 - any interpreter detail we do not expect: plain re
        return None


def compile(pattern: str | bytes, flags: int = 0) -> re.Pattern[Any]:  # noqa: A001 - re's name
    """``re.compile(pattern, flags)``, from the on-disk cache when it holds it."""
    global _dirty
    key = (pattern, int(flags))
    rx = _live.get(key)
    if rx is not None:
        return rx  # type: ignore[no-any-return]
    cache = _load()
    args = cache.get(key)
    if args is not None:
        try:
            import _sre  # noqa: PLC0415

            flags2, code, groups, groupindex, indexgroup = args
            rx = _sre.compile(pattern, flags2, _code_list(code), groups, groupindex, indexgroup)
            _live[key] = rx
            return rx  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - a stale or damaged entry: compile it anew
            cache.pop(key, None)
    import re  # noqa: PLC0415 - only on a cache miss

    rx = re.compile(pattern, flags)
    _live[key] = rx
    if _path is not None and not flags & DEBUG:
        built = _build(pattern, int(flags))
        if built is not None:
            try:
                import _sre  # noqa: PLC0415

                flags2, code, groups, groupindex, indexgroup = built
                same = (
                    _sre.compile(pattern, flags2, _code_list(code), groups, groupindex, indexgroup)
                    == rx
                )
            except Exception:  # noqa: BLE001
                same = False
            if same:
                cache[key] = built
                _dirty = True
                _register_save()
    return rx


_registered = False


def _register_save() -> None:
    global _registered
    if not _registered:
        import atexit  # noqa: PLC0415

        atexit.register(save)
        _registered = True


def save() -> None:
    """Write the cache if this run compiled something new (atomic; errors only cost speed)."""
    global _dirty
    if not _dirty or _path is None or _cache is None:
        return
    _dirty = False
    if len(_cache) > 20000:  # user KBs that churn: start over rather than grow
        _cache.clear()
    from rocmfix._quick import write_marshal  # noqa: PLC0415

    write_marshal(_path, _cache)
