"""Literal texts a regex match must contain (for a cheap prefilter).

``required_literals(r"hipError\\w+|Memory access fault")`` is
``{"hipError", "Memory access fault"}``: every match contains one of them, so
a text that contains none of them cannot match and the regex is neither
compiled nor run. None means no such set was found (the regex must run).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

try:  # Python >= 3.11
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_MIN = 3
"""Shortest literal worth a search (shorter ones hit almost every chunk)."""
_MAX_SET = 64


_MAX_CLASS = 10
"""Largest character class spelled out into literals (``[VP]100`` -> ``v100``, ``p100``)."""


_ASCII_DIGITS = frozenset("0123456789")


def _class_chars(av: object, icase: bool, ascii_digits: bool = False) -> frozenset[str] | None:
    """The characters a small positive class of literals and ranges matches, or None.

    With ``ascii_digits`` a ``\\d`` is the ten ASCII digits, as Hyperscan reads it
    (Python's ``re`` also matches other Unicode digits in a str pattern)."""
    chars: set[str] = set()
    for op, arg in av:  # type: ignore[attr-defined]
        if op is _c.LITERAL:
            chars.add(chr(arg))
        elif op is _c.RANGE and arg[1] - arg[0] < _MAX_CLASS:
            chars.update(chr(x) for x in range(arg[0], arg[1] + 1))
        elif ascii_digits and op is _c.CATEGORY and arg is _c.CATEGORY_DIGIT:
            chars.update(_ASCII_DIGITS)
        else:  # NEGATE, categories (\d is Unicode), anything else: not spelled out
            return None
        if len(chars) > _MAX_CLASS:
            return None
    if icase:
        chars = {ch.lower() for ch in chars}
    return frozenset(chars)


def _exact(items: list[tuple[object, object]], icase: bool) -> set[str] | None:
    """Every text ``items`` can match, when that is a small finite set (else None).

    Zero-width assertions (``\\b``, ``^``, lookarounds) add no text and are skipped."""
    out: set[str] = {""}
    for op, av in items:
        if op is _c.LITERAL:
            add: set[str] | None = {chr(av)}  # type: ignore[arg-type]
        elif op is _c.IN:
            chars = _class_chars(av, icase)
            add = set(chars) if chars else None
        elif op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            continue
        elif op is _c.SUBPATTERN:
            if len(av) == 4 and not icase and av[1] & re.IGNORECASE:  # type: ignore[index, arg-type]
                return None
            add = _exact(list(av[-1]), icase)  # type: ignore[index]
        elif op is _c.BRANCH:
            add = set()
            for alt in av[1]:  # type: ignore[index]
                got = _exact(list(alt), icase)
                if got is None:
                    return None
                add |= got
        elif op is _c.MAX_REPEAT and av[1] <= 2:  # type: ignore[index, operator]
            once = _exact(list(av[2]), icase)  # type: ignore[index]
            if once is None:
                return None
            add, power = set(), {""}
            for k in range(av[1] + 1):  # type: ignore[index, operator]
                if k >= av[0]:  # type: ignore[index, operator]
                    add |= power
                power = {a + b for a in power for b in once}
                if len(power) > _MAX_SET:
                    return None
        else:
            return None
        if add is None or not add or len(out) * len(add) > _MAX_SET:
            return None
        out = {a + b for a in out for b in add}
    return out


def _firsts(items: list[tuple[object, object]], icase: bool) -> frozenset[str] | None:
    """The characters one of which every match of ``items`` starts with (``\\d`` as
    ASCII digits), or None when that is not a small set or a match can be empty."""
    for op, av in items:
        if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            continue
        if op is _c.LITERAL:
            got: frozenset[str] | None = frozenset(chr(av))  # type: ignore[arg-type]
        elif op is _c.IN:
            got = _class_chars(av, False, ascii_digits=True)
        elif op is _c.SUBPATTERN:
            if len(av) == 4 and not icase and av[1] & re.IGNORECASE:  # type: ignore[index, arg-type]
                return None
            got = _firsts(list(av[-1]), icase)  # type: ignore[index]
        elif op is _c.BRANCH:
            parts = [_firsts(list(alt), icase) for alt in av[1]]  # type: ignore[index]
            got = None if any(x is None for x in parts) else frozenset().union(*parts)  # type: ignore[arg-type]
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:  # type: ignore[index, operator]
            got = _firsts(list(av[2]), icase)  # type: ignore[index]
        else:
            return None
        if got is None or len(got) > _MAX_CLASS:
            return None
        return frozenset(x.lower() for x in got) if icase else got
    return None


def _seq(
    items: list[tuple[object, object]],
    icase: bool = False,
    shortest: int = _MIN,
    extend: bool = False,
    good: Callable[[str], bool] | None = None,
) -> frozenset[str] | None:
    """Best required-literal set for a sequence: runs of literal characters (small
    classes spelled out), or a child's set.

    With ``extend`` a run also takes the first character of what follows it when
    that is one of a few (``gfx`` + ``(?:6\\d\\d|7\\d\\d)`` -> ``gfx6``, ``gfx7``),
    and the first characters of a spelled-out set too large to append whole; ``\\d``
    counts as ASCII digits there, as in Hyperscan (stage 1 of the two-stage scan).
    With ``good``, a set all of whose texts it accepts beats one with a text it does
    not (stage 1: ``gtt`` over ``size``, a word of ordinary chatter)."""
    best: frozenset[str] | None = None

    def score(cand: frozenset[str]) -> tuple[bool, int]:
        return (good is None or all(good(x) for x in cand), min(map(len, cand)))

    run: set[str] = {""}

    def better(cand: frozenset[str] | None) -> None:
        nonlocal best
        if cand and len(cand) > 1:  # a text that contains another one adds nothing
            cand = frozenset(x for x in cand if not any(y != x and y in x for y in cand))
        if cand is None or not cand or min(map(len, cand)) < shortest or len(cand) > _MAX_SET:
            return
        if best is None or score(cand) > score(best):
            best = cand

    def flush() -> None:
        nonlocal run
        if run != {""}:
            better(frozenset(run))
        run = {""}

    for op, av in items:
        if op is _c.LITERAL:
            ch = chr(av)  # type: ignore[arg-type]
            run = {r + ch for r in run}
            continue
        if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            continue  # zero-width: the run of text goes on
        texts = None
        if op in (_c.IN, _c.SUBPATTERN, _c.BRANCH, _c.MAX_REPEAT):
            texts = _exact([(op, av)], icase)
            if texts and len(run) * len(texts) <= _MAX_SET:
                run = {r + t for r in run for t in texts}
                continue
        if extend and run != {""}:
            heads = _firsts([(op, av)], icase)
            if texts and "" not in texts:  # the longest prefixes few enough to append
                for j in range(max(map(len, texts)), 0, -1):
                    cut = frozenset(t[:j] for t in texts)
                    if len(run) * len(cut) <= _MAX_SET:
                        heads = cut
                        break
            if heads and len(run) * len(heads) <= _MAX_SET:
                better(frozenset(r + h for r in run for h in heads))
        flush()
        if op is _c.SUBPATTERN:
            if not icase and len(av) == 4 and av[1] & re.IGNORECASE:  # type: ignore[index, arg-type]
                continue
            better(_seq(list(av[-1]), icase, shortest, extend, good))  # type: ignore[index]
        elif op is _c.BRANCH:
            parts = [_seq(list(alt), icase, shortest, extend, good) for alt in av[1]]  # type: ignore[index]
            if all(x is not None for x in parts):
                better(frozenset().union(*parts))  # type: ignore[arg-type]
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:  # type: ignore[index]
            better(_seq(list(av[2]), icase, shortest, extend, good))  # type: ignore[index]
    flush()
    return best


def required_literals(
    pattern: str,
    ignore_case: bool = False,
    shortest: int = _MIN,
    extend: bool = False,
    good: Callable[[str], bool] | None = None,
) -> frozenset[str] | None:
    """A set of literals one of which every match of ``pattern`` contains, or None.

    With ``ignore_case`` the literals are lower-cased: look for them in the
    lower-cased text (ASCII text only: Unicode case folding has exceptions).
    """
    try:
        tree = _p.parse(pattern)
    except Exception:  # noqa: BLE001 - the caller compiles the pattern itself
        return None
    icase = ignore_case or bool(tree.state.flags & re.IGNORECASE)
    try:
        found = _seq(list(tree), icase, shortest, extend, good)
    except Exception:  # noqa: BLE001 - an unexpected node: no prefilter, never wrong
        return None
    if found and icase:
        return frozenset(x.lower() for x in found)
    return found
