"""The literal prefilter (rocmfix.kb.literals): every match of a pattern contains one of
its literal texts, small classes and optional parts spelled out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocmfix.kb.literals import required_literals
from rocmfix.kb.loader import load_kb

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("pattern", "icase", "expected"),
    [
        (r"hipError\w+|Memory access fault", False, {"hipError", "Memory access fault"}),
        (r"(?<![A-Za-z0-9])(?:[VP]100|K80|A10G)", True, {"v100", "p100", "k80", "a10g"}),
        (r"\bRX ?(?:4[6-8]0)\b", True, {"rx460", "rx470", "rx480", "rx 460", "rx 470", "rx 480"}),
        (r"[Mm][Ii] ?(?:210|250)[AaXx]?", True, {"mi210", "mi250", "mi 210", "mi 250"}),
        (r"ab?c", False, None),  # nothing of three characters is certain
        (r"[^x]{3}", False, None),
        (r"(?i:abc)", False, None),  # a case-insensitive part is no case-sensitive needle
    ],
)
def test_required_literals(pattern: str, icase: bool, expected: set[str] | None) -> None:
    got = required_literals(pattern, ignore_case=icase)
    assert (set(got) if got is not None else None) == expected


def _texts() -> list[str]:
    lines: list[str] = []
    for path in sorted((DATA / "logs").rglob("*")):
        if path.is_file() and "heldout" not in path.name:  # the frozen side is never read
            lines += path.read_bytes().decode("utf-8", "replace").splitlines()
    # Variants that exercise classes and optional characters.
    lines += ["RX 480", "rx480", "MI250X", "mi 210", "Radeon RX 6700 XT", "gfx1030", "V100 and A10G"]
    return lines


def test_every_kb_match_contains_one_of_its_literals() -> None:
    texts = _texts()
    checked = 0
    for entry in load_kb().entries:
        for sig in (*entry.signatures, *entry.excludes):
            if sig.literal:
                continue
            lits = required_literals(sig.pattern, ignore_case=sig.ignore_case)
            if lits is None:
                continue
            rx = re.compile(sig.pattern, re.IGNORECASE if sig.ignore_case else 0)
            for text in texts:
                if rx.search(text):
                    hay = text.lower() if sig.ignore_case else text
                    assert any(x in hay for x in lits), (sig.pattern, text, sorted(lits))
                    checked += 1
    assert checked > 50  # the corpus does reach the signatures


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\bgfx(?:6\d\d|7\d\d|80[0-9])\b", {"gfx6", "gfx7", "gfx8"}),  # run + first characters
        (r"\bRTX ?\d{4}\b", {f"rtx{s}{d}" for s in ("", " ") for d in "0123456789"}),
        (r"/dev/(?:kfd|dri/renderD\d+)$", {"/dev/k", "/dev/d"}),
        (r"hipError\w+", {"hiperror"}),  # nothing follows that narrows it: the run alone
        (r"ab?c", None),
    ],
)
def test_extended_literals_take_the_first_characters_of_what_follows(pattern: str, expected: set[str] | None) -> None:
    got = required_literals(pattern, ignore_case=True, extend=True)
    assert (set(got) if got is not None else None) == expected


def test_every_kb_match_contains_one_of_its_extended_literals() -> None:
    """Stage 1 of the two-stage scan stands for a branch by these texts: a match
    (``\\d`` as ASCII digits, as Hyperscan reads it) never lacks all of them."""
    texts = [t for t in _texts() if t.isascii()]
    texts += ["gfx803 and gfx906", "RTX 4090", "rtx3060", "crw-rw---- 1 root render 226, 128 /dev/kfd"]
    checked = 0
    for entry in load_kb().entries:
        for sig in (*entry.signatures, *entry.excludes):
            if sig.literal:
                continue
            lits = required_literals(sig.pattern, ignore_case=True, extend=True)
            if lits is None:
                continue
            rx = re.compile(sig.pattern, re.IGNORECASE | re.ASCII)
            for text in texts:
                if rx.search(text):
                    assert any(x in text.lower() for x in lits), (sig.pattern, text, sorted(lits))
                    checked += 1
    assert checked > 50
