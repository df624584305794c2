"""Reject regular expressions that can backtrack catastrophically.

Python's ``re`` backtracks: ``(a+)+b`` on a line of 30 ``a`` takes minutes and
``\\w*[\\w.+-]*x`` is cubic in the length of a long line. Signatures come from
the built-in KB and from user ``kb.d`` files, and every one runs on whatever a
user pastes, so a signature is refused (at ``kb validate`` and at load) when:

* a quantifier that repeats many times holds another such quantifier (star
  height above one: ``(a+)+``, ``(\\w+\\s?)*``, ``(?:x*y?)+``), unless each
  iteration starts with a fixed literal text (``(?:, \\d+)*`` is fine);
* two unbounded quantifiers follow each other (optionally with optional
  items between them) and can match the same character (``\\w*[\\w.+-]*``,
  ``\\d+\\.?\\d*``), so a run of that character splits between them in
  quadratically many ways;
* an alternation under a repeat has two branches that can start with the same
  character and match text of varying length (``(a|aa)+``, ``(\\w|\\d)+``).

The check is conservative in the way a linter is: it looks at the pattern's
structure, not at its meaning, and explains what to change.
"""

from __future__ import annotations

import re

try:  # Python >= 3.11
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_BIG = 16
"""A quantifier whose upper bound is above this counts as 'repeats many times'."""

_ANY = frozenset(range(0x300))
"""The characters the overlap checks reason about (ASCII, Latin, and 0x80 for the rest)."""
_WORD = frozenset(
    [
        *range(ord("0"), ord("9") + 1),
        *range(ord("A"), ord("Z") + 1),
        *range(ord("a"), ord("z") + 1),
        ord("_"),
    ]
)
_DIGIT = frozenset(range(ord("0"), ord("9") + 1))
_SPACE = frozenset(map(ord, " \t\n\r\f\v"))
_NONASCII = frozenset({0x80})  # stands for 'some non-ASCII character'


def _category(cat: object) -> frozenset[int]:
    name = str(cat)
    if "NOT" in name:
        base = _category(getattr(_c, name.replace("_NOT", "")))
        return frozenset(range(0x300)) - base | _NONASCII
    if "DIGIT" in name:
        return _DIGIT
    if "SPACE" in name:
        return _SPACE
    if "WORD" in name:
        return _WORD | _NONASCII
    if "LINEBREAK" in name:
        return frozenset({10})
    return _ANY


def _fold(chars: frozenset[int], icase: bool) -> frozenset[int]:
    if not icase or len(chars) > 200:
        return chars
    out = set(chars)
    for ch in chars:
        c = chr(ch)
        out.update(ord(x) for x in (c.lower(), c.upper()) if len(x) == 1 and ord(x) < 0x300)
    return frozenset(out)


def _first(items: list[tuple[object, object]], icase: bool) -> tuple[frozenset[int], bool]:
    """Characters a sequence can start with, and whether it can match empty."""
    chars: set[int] = set()
    for op, av in items:
        f, empty = _first_item(op, av, icase)
        chars |= f
        if not empty:
            return frozenset(chars), False
    return frozenset(chars), True


def _first_item(op: object, av: object, icase: bool) -> tuple[frozenset[int], bool]:
    if op is _c.LITERAL:
        return _fold(frozenset({av}), icase), False  # type: ignore[arg-type]
    if op is _c.NOT_LITERAL:
        return _ANY - {av}, False  # type: ignore[arg-type]
    if op is _c.ANY:
        return _ANY, False
    if op is _c.IN:
        chars: set[int] = set()
        negate = False
        for sop, sav in av:  # type: ignore[union-attr]
            if sop is _c.NEGATE:
                negate = True
            elif sop is _c.LITERAL:
                chars.add(sav)
            elif sop is _c.RANGE:
                lo, hi = sav
                chars.update(range(lo, min(hi, 0x2FF) + 1))
                if hi > 0x2FF:
                    chars.add(0x80)
            elif sop is _c.CATEGORY:
                chars |= _category(sav)
        got = _fold(frozenset(chars), icase)
        return (_ANY - got if negate else got), False
    if op is _c.CATEGORY:
        return _category(av), False
    if op in (
        _c.MAX_REPEAT,
        _c.MIN_REPEAT,
        _c.POSSESSIVE_REPEAT if hasattr(_c, "POSSESSIVE_REPEAT") else (),
    ):
        lo, _hi, body = av  # type: ignore[misc]
        f, empty = _first(list(body), icase)
        return f, empty or lo == 0
    if op is _c.SUBPATTERN:
        flags = av[1] if len(av) == 4 else 0  # type: ignore[arg-type]
        sub = av[-1]  # type: ignore[index]
        return _first(list(sub), icase or bool(flags & re.IGNORECASE))
    if op is _c.BRANCH:
        chars = set()
        empty = False
        for alt in av[1]:  # type: ignore[index]
            f, e = _first(list(alt), icase)
            chars |= f
            empty = empty or e
        return frozenset(chars), empty
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _first(list(av), icase)  # type: ignore[arg-type]
    # AT (anchors), ASSERT, ASSERT_NOT, GROUPREF...: zero width or unknown
    return frozenset(), True


def _is_many(op: object, av: object) -> bool:
    if op not in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        return False
    _lo, hi, _body = av  # type: ignore[misc]
    return hi is _c.MAXREPEAT or hi > _BIG


def _has_many(items: list[tuple[object, object]]) -> bool:
    for op, av in items:
        if _is_many(op, av):
            return True
        for sub in _children(op, av):
            if _has_many(sub):
                return True
    return False


def _children(op: object, av: object) -> list[list[tuple[object, object]]]:
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        return [list(av[2])]  # type: ignore[index]
    if op is _c.SUBPATTERN:
        return [list(av[-1])]  # type: ignore[index]
    if op is _c.BRANCH:
        return [list(a) for a in av[1]]  # type: ignore[index]
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return [list(av[1])]  # type: ignore[index]
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return [list(av)]  # type: ignore[arg-type]
    return []


def _literal_start(items: list[tuple[object, object]]) -> bool:
    """The sequence starts with a fixed literal character (iterations are delimited)."""
    for op, av in items:
        if op is _c.LITERAL:
            return True
        if op is _c.SUBPATTERN:
            return _literal_start(list(av[-1]))  # type: ignore[index]
        if op is _c.AT:
            continue
        return False
    return False


def _last(items: list[tuple[object, object]], icase: bool) -> frozenset[int]:
    """Characters a sequence can end with."""
    rev = []
    for op, av in reversed(items):
        if op is _c.SUBPATTERN:
            rev.append(
                (_c.SUBPATTERN, (*av[:-1], _p.SubPattern(_p.State(), list(reversed(list(av[-1]))))))
            )  # type: ignore[index]
        else:
            rev.append((op, av))
    return _first(rev, icase)[0]


def _many_chars(items: list[tuple[object, object]], icase: bool) -> frozenset[int]:
    out: set[int] = set()
    for op, av in items:
        if _is_many(op, av):
            out |= _first(list(av[2]), icase)[0]  # type: ignore[index]
        for sub in _children(op, av):
            out |= _many_chars(sub, icase)
    return frozenset(out)


def _edge_many(op: object, av: object, icase: bool, tail: bool) -> frozenset[int]:
    """Characters an unbounded quantifier at the start (or end) of this item can take."""
    if _is_unbounded(op, av):
        return _first(list(av[2]), icase)[0]  # type: ignore[index]
    if op is _c.SUBPATTERN:
        sub = list(av[-1])  # type: ignore[index]
        return _edge_many(*sub[-1 if tail else 0], icase, tail) if sub else frozenset()
    if op is _c.BRANCH:
        out: set[int] = set()
        for alt in av[1]:  # type: ignore[index]
            alt = list(alt)
            if alt:
                out |= _edge_many(*alt[-1 if tail else 0], icase, tail)
        return frozenset(out)
    return frozenset()


def _walk(items: list[tuple[object, object]], icase: bool) -> str | None:
    for op, av in items:
        if _is_many(op, av):
            body = list(av[2])  # type: ignore[index]
            if _has_many(body):
                inner = _many_chars(body, icase)
                end = body[-1] if body else None
                delimited = _literal_start(body) or (
                    end is not None
                    and end[0] is _c.LITERAL
                    and not (_fold(frozenset({end[1]}), icase) & inner)  # type: ignore[arg-type]
                )
                if not delimited:
                    return "a repeated group holds another unbounded quantifier (like (a+)+)"
            elif _width(body) is None and _first(body, icase)[0] & _last(body, icase):
                return "a repeated group can match the same text in several ways (like (a|aa)+)"
        for sub in _children(op, av):
            flags = av[1] if op is _c.SUBPATTERN and len(av) == 4 else 0  # type: ignore[arg-type]
            found = _walk(sub, icase or bool(flags & re.IGNORECASE))
            if found:
                return found
    # Adjacent unbounded quantifiers that overlap, followed by something that can fail.
    for i, (op, av) in enumerate(items):
        left = _edge_many(op, av, icase, tail=True)
        if not left:
            continue
        for k in range(i + 1, len(items)):
            op2, av2 = items[k]
            right = _edge_many(op2, av2, icase, tail=False)
            if right:
                rest = items[k + 1 :]
                if left & right and rest and not _first(rest, icase)[1]:
                    return (
                        "two unbounded quantifiers in a row can match the same characters "
                        "(like \\w*[\\w.]*x): merge them into one"
                    )
                break
            # only an optional single character (\.?) may sit between them
            if not (
                op2 in (_c.MAX_REPEAT, _c.MIN_REPEAT)
                and av2[0] == 0
                and av2[1] == 1
                and len(av2[2]) == 1
            ):  # type: ignore[index]
                break
    return None


def _is_unbounded(op: object, av: object) -> bool:
    return op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[1] is _c.MAXREPEAT  # type: ignore[index]


def _width(items: list[tuple[object, object]]) -> int | None:
    lo, hi = _p.SubPattern(_p.State(), items).getwidth()
    return lo if lo == hi else None


def redos_problem(pattern: str, ignore_case: bool = False) -> str | None:
    """Why ``pattern`` can backtrack catastrophically, or None when it is safe."""
    try:
        tree = _p.parse(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error:
        return None  # the caller reports the compile error itself
    except Exception:  # noqa: BLE001 - parser internals differ between versions
        return None
    try:
        return _walk(list(tree), ignore_case or bool(tree.state.flags & re.IGNORECASE))
    except Exception:  # noqa: BLE001 - an unexpected node type: never block on the linter
        return None
