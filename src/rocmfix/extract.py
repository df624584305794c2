"""Streaming log extractor: from anything a user pastes to candidate error lines.

A failed training run can leave a multi-gigabyte log. The extractor reads it in
fixed-size binary chunks (plain, gzip or stdin), finds the lines that any
knowledge-base pattern or a generic fatal marker could match with a
multi-pattern engine (Hyperscan when installed, else one combined ``re``),
and decodes and cleans only those lines: ANSI colours, tqdm ``\\r`` progress
segments, CRLF, invalid UTF-8, NUL bytes, ``[rank3]:`` prefixes and
timestamps. Identical lines (8 ranks, or a loop printing 5,000 times) collapse
into one :class:`Finding` with a count and the first and last line numbers.
Memory stays bounded: one chunk, a capped number of distinct findings (the
first ones and the most recent ones are kept), and a short tail of the log.
"""

from __future__ import annotations

import io
import os

try:  # collections' own classes, without importing collections (start-up cost)
    from _collections import OrderedDict, deque
except ImportError:  # pragma: no cover - interpreters without the C module
    from collections import OrderedDict, deque

from rocmfix import _rx
from rocmfix._record import field, record
from rocmfix.errors import InputError
from rocmfix.termtext import plain

TYPE_CHECKING = False  # typing is not imported at run time (start-up cost)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from pathlib import Path
    from typing import Any, BinaryIO

CHUNK = 8 * 1024 * 1024
MAX_LINE = 32 * 1024
"""Characters of one line analysed whole. A longer line (a tqdm bar that ran for
an hour, a dumped tensor) is analysed by its first 8 KB and its last 16 KB,
joined by an ellipsis: the message a crash appends to a progress bar is kept."""
_HEAD = 8 * 1024
_TAIL = 16 * 1024
_MARK_TEXT = " \u2026 "
_MARK = _MARK_TEXT.encode()
_LONG_BYTES = 2 * MAX_LINE
"""Lines longer than this many bytes are cut to head and tail before decoding."""
_CR_TO_LF = bytes.maketrans(b"\r", b"\n")
SHORT_INPUT = 64 * 1024
"""Inputs up to this size keep their full text for fuzzy and whole-text matching."""
TAIL_LINES = 120
HEAD_FINDINGS = 1500
RECENT_FINDINGS = 1500
MAX_HITS_PER_CHUNK = 20000

# Generic markers of an error region, independent of the KB.
FATAL_PATTERNS: tuple[str, ...] = (
    r"Traceback \(most recent call last\)",
    r"\b[A-Za-z_.]*(?:Error|Exception|Fault)\b:",
    r"Segmentation fault",
    r"core dumped",
    r"\bAborted\b",
    r"\bKilled\b",
    r"Fatal Python error",
    r"terminate called after",
    r"\bfatal error\b",
    r"\bFATAL\b",
    r"\berror:",
    r"\bERROR\b",
)

_ANSI_RE = _rx.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_PREFIX_RE = _rx.compile(
    r"^(?:"
    r"\s*\[(?:rank|default|Rank )\s*\d+\]:?\s*"  # [rank3]: / [default0]:
    r"|\s*\d+:\s(?=\S)"  # torchrun "3: " prefixes
    r"|\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s*"
    r"|\s*\[\d{2}:\d{2}:\d{2}(?:\.\d+)?\]\s*"
    r"|\s*[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \S+ \S+?:\s*"  # syslog
    r"|\s*\[\s*\d+\.\d+\]\s*"  # dmesg [ 1234.5678]
    r")+"
)
_VOLATILE_RE = _rx.compile(r"0x[0-9a-fA-F]+|\b\d+(?:\.\d+)?\b")
_HS_UNSUPPORTED = _rx.compile(r"\(\?<?[=!]|\\[1-9]|\(\?P=")
_HS_NON_ASCII = _rx.compile(r"[^\x00-\x7f]|\\[uUN]")


_NON_ASCII_CHAR = r"[\xc2-\xf4][\x80-\xbf]{1,3}"  # one UTF-8 encoded non-ASCII character
_NON_ASCII_MEMBER = _rx.compile(r"(?:\\u[0-9a-fA-F]{4}|[^\x00-\x7f])(?:-(?:\\u[0-9a-fA-F]{4}|[^\x00-\x7f]))?")


def _hs_class(cls: str) -> str:
    """A superset, in bytes, of a character class naming non-ASCII characters."""
    if cls.startswith("[^"):
        return "[\\s\\S]{1,4}"
    ascii_part = _NON_ASCII_MEMBER.sub("", cls[1:-1])
    if ascii_part:
        return f"(?:[{ascii_part}]|{_NON_ASCII_CHAR})"
    return _NON_ASCII_CHAR


def _hs_source(branch: str) -> tuple[bytes, bool]:
    """One branch as Hyperscan reads it (bytes, no UTF-8 mode), and whether it is
    only a superset (then a hit is confirmed with ``re``).

    Hyperscan refuses ``\\u`` escapes, and a character class of non-ASCII
    characters would match single bytes of their UTF-8 forms. Such a class becomes
    "any one to four bytes" and a ``\\uXXXX`` outside a class its UTF-8 bytes: a
    superset of the branch, so its hits go through the exact regex.
    """
    if not _HS_NON_ASCII.search(branch):
        return branch.encode("utf-8"), False
    out: list[str] = []
    i, n = 0, len(branch)
    while i < n:
        c = branch[i]
        if c == "\\" and i + 1 < n:
            nxt = branch[i + 1]
            if nxt == "u" and i + 6 <= n:
                out.extend(f"\\x{b:02x}" for b in chr(int(branch[i + 2 : i + 6], 16)).encode())
                i += 6
                continue
            out.append(branch[i : i + 2])
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < n and branch[j] == "^":
                j += 1
            if j < n and branch[j] == "]":
                j += 1
            while j < n and branch[j] != "]":
                j += 2 if branch[j] == "\\" else 1
            cls = branch[i : j + 1]
            out.append(_hs_class(cls) if _HS_NON_ASCII.search(cls) else cls)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out).encode("utf-8"), True
_FATAL_RE = _rx.compile("|".join(f"(?:{p})" for p in FATAL_PATTERNS))


@record
class Finding:
    """One distinct candidate line of the input (repeats collapsed)."""

    text: str
    """The cleaned line as first seen."""
    first_line: int
    """1-based line number of the first occurrence."""
    last_line: int
    count: int
    fatal: bool
    """Matches a generic error marker (traceback, ``XxxError:``, segfault...)."""


@record
class Excerpt:
    """What the extractor keeps of an input."""

    bytes: int
    lines: int
    findings: tuple[Finding, ...]
    """Candidate lines ordered by first occurrence."""
    tail: tuple[tuple[int, str], ...]
    """The last lines of the input, cleaned: ``(line number, text)``."""
    full_text: str | None
    """The whole cleaned input when it is short (hand-pasted), else None."""
    dropped: int = 0
    """Matching lines not analysed in detail because of the bounds."""
    binary: bool = False
    """The input looks like binary data rather than text."""
    long_lines: int = 0
    """Lines longer than :data:`MAX_LINE`, analysed by their head and tail only."""

    @property
    def last_fatal(self) -> Finding | None:
        fatal = [f for f in self.findings if f.fatal]
        return max(fatal, key=lambda f: f.last_line) if fatal else None

    @property
    def first_fatal(self) -> Finding | None:
        fatal = [f for f in self.findings if f.fatal]
        return min(fatal, key=lambda f: f.first_line) if fatal else None


def split_lines(text: str) -> list[str]:
    """Split text into lines; CR-only line ends (classic Mac, some pastes) count too.

    A text with no LF at all but CRs is CR-separated; elsewhere a lone CR is a
    progress-bar overwrite inside one line (tqdm) and :func:`clean_line` keeps
    what was shown last.
    """
    if "\n" not in text and "\r" in text.rstrip("\r"):
        return text.split("\r")
    return text.split("\n")


def _long_text(raw: str) -> str:
    """The part of an overlong line that is analysed: its last progress segment, cut
    to head and tail when still too long."""
    seg = raw.rstrip("\r\n")
    while True:
        i = seg.rfind("\r")
        if i < 0 or seg[i + 1 :].strip():
            seg = seg[i + 1 :]
            break
        seg = seg[:i]
    if len(seg) > MAX_LINE:
        seg = seg[:_HEAD] + _MARK_TEXT + seg[-_TAIL:]
    return seg


def clean_line(raw: str) -> str:
    """Strip colours, progress-bar overwrites, rank/timestamp prefixes and NULs."""
    cut = len(raw) > MAX_LINE or _MARK_TEXT in raw
    if len(raw) > MAX_LINE:
        raw = _long_text(raw)
    if "\x1b" in raw:
        raw = _ANSI_RE.sub("", raw)
    raw = raw.replace("\x00", "").rstrip("\r\n")
    if "\r" in raw:
        parts = [p for p in raw.split("\r") if plain(p).strip()]
        raw = parts[-1] if parts else ""
    raw = plain(raw)  # no other escape or control character reaches a terminal
    raw = _PREFIX_RE.sub("", raw, count=1)
    if cut:  # no ellipsis where the cut-out part was blank (NUL padding, spaces)
        head, sep, tail = raw.partition(_MARK_TEXT)
        if sep and (not head.strip() or not tail.strip()):
            raw = head + tail
        if sep and not tail.strip():
            raw = _PREFIX_RE.sub("", head, count=1)
    return raw.strip()


def dedup_key(text: str) -> str:
    """Key under which repeats of a line collapse (numbers and addresses ignored)."""
    return _VOLATILE_RE.sub("#", text)


# ----------------------------------------------------------------- engines


def split_alternation(pattern: str) -> list[str]:
    """Top-level branches of a regex (``a|b(c|d)`` -> ``a``, ``b(c|d)``).

    A multi-pattern engine matches the branches as separate expressions much
    faster than one alternation; a leading global flag group is kept on each.
    """
    flags = ""
    m = _rx.compile(r"\(\?[aiLmsux]+\)").match(pattern)
    if m:
        flags, pattern = m.group(0), pattern[m.end() :]
    out: list[str] = []
    depth, start, i, in_class = 0, 0, 0, False
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern.startswith("^", i + 1):
                i += 1
            if pattern.startswith("]", i + 1):
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    if depth != 0 or in_class:
        return [flags + pattern]
    return [flags + b for b in out]


def _bytes_re(source: str, icase: bool) -> re.Pattern[bytes] | None:
    try:
        return _rx.compile(source.encode("utf-8"), (_rx.IGNORECASE if icase else 0) | _rx.MULTILINE)
    except (_rx.error, OverflowError, RecursionError):
        return None


def _text_re(source: str, icase: bool) -> re.Pattern[str] | None:
    try:
        return _rx.compile(source, (_rx.IGNORECASE if icase else 0) | _rx.MULTILINE)
    except (_rx.error, OverflowError, RecursionError):
        return None


def _re_plan(
    patterns: Sequence[tuple[str, bool]], use_cache: bool = True
) -> tuple[list[int], dict[bytes, list[int]], list[tuple[int, str, bool]]]:
    """What the ``re`` fallback searches for: ``(patterns that compile, literal text ->
    pattern numbers, branches without a literal text as (number, source, icase))``.

    Parsing ~900 branches for their literal texts costs ~0.3 s, on every large
    input without Hyperscan: the plan is cached, keyed by the patterns and the
    interpreter (whose ``re`` parser it rests on)."""
    import sys  # noqa: PLC0415

    from rocmfix._quick import cached  # noqa: PLC0415

    key = f"re-plan-1\0{sys.version}\0".encode() + "\0".join(
        f"{int(ic)}{src}" for src, ic in patterns
    ).encode("utf-8", "surrogatepass")

    def build() -> tuple[list[int], dict[bytes, list[int]], list[tuple[int, str, bool]]]:
        ok: list[int] = []
        found: dict[bytes, list[int]] = {}
        scan_src: list[tuple[int, str, bool]] = []
        for i, (source, icase) in enumerate(patterns):
            if _bytes_re(source, icase) is None:
                continue
            pid = len(ok)
            ok.append(i)
            for branch in split_alternation(source):
                lits = _required(branch)
                if lits is None:
                    whole = _bytes_re(branch, icase) is None
                    scan_src.append((pid, source if whole else branch, icase))
                    continue
                for lit in lits:
                    found.setdefault(lit, []).append(pid)
        # A needle that contains another one is implied by it: search the shorter only.
        kept: dict[bytes, list[int]] = {}
        for lit in sorted(found, key=len):
            inner = next((k for k in kept if k in lit), None)
            if inner is not None:
                kept[inner].extend(found[lit])
            else:
                kept[lit] = list(found[lit])
        return ok, {k: sorted(set(v)) for k, v in kept.items()}, scan_src

    return cached("replan", key, build) if use_cache else build()  # type: ignore[no-any-return]


class _ReEngine:
    """Fallback without Hyperscan: ``re`` over the raw bytes (ASCII semantics, like
    Hyperscan's MULTILINE block mode).

    ``re`` has no multi-pattern search, and one alternation of every pattern
    tries each of them at every byte. Instead each pattern's top-level branch
    names literal texts one of which its every match contains (see
    :mod:`rocmfix.kb.literals`); the chunk, lower-cased once, is searched for
    those texts with ``bytes.find`` and only the lines that hold one are
    checked with the exact regexes. A branch with no such text runs over the
    chunk as it is. Every regex runs on whole lines of bounded length, never
    across a multi-megabyte line.
    """

    name = "re"
    use_grep = True
    """On a plain file, let GNU grep pick the candidate lines (see :func:`_grep_scan`)."""

    def __init__(self, patterns: Sequence[tuple[str, bool]]):
        self._exact: list[re.Pattern[bytes]] = []
        self._by_needle: dict[bytes, list[int]] = {}
        self._scan_all: list[re.Pattern[bytes]] = []
        self._scan_all_src: list[tuple[int, str, bool]] = []
        self._plan: tuple[list[bytes], list[bytes]] | None | bool = False
        self._all_pids: list[int] = []
        self._bucket_map: dict[bytes, list[tuple[bytes, list[int]]]] | None | bool = False
        self._trie: re.Pattern[bytes] | None | bool = False
        ok, by_needle, scan_src = _re_plan(patterns)
        exact = [_bytes_re(*patterns[i]) for i in ok]
        if None in exact:  # pragma: no cover - a damaged cache: derive the plan again
            ok, by_needle, scan_src = _re_plan(patterns, use_cache=False)
            exact = [_bytes_re(*patterns[i]) for i in ok]
        self._exact = exact  # type: ignore[assignment]
        for pid, src, icase in scan_src:
            self._scan_all.append(_bytes_re(src, icase) or self._exact[pid])
            self._scan_all_src.append((pid, src, icase))
        self._by_needle = by_needle

    def grep_plan(self) -> tuple[list[bytes], list[bytes]] | None:
        """What grep must look for so that every line this engine would hit is among
        the lines grep picks: the literal texts (``grep -F -i``) and, for branches with
        none, EREs matching a superset of their lines (``grep -E``); None when a
        branch has no such ERE."""
        if self._plan is False:
            plan: tuple[list[bytes], list[bytes]] | None = None
            needles = sorted(self._by_needle)
            eres = [ere_superset(src, icase) for _, src, icase in self._scan_all_src]
            fits = sum(map(len, needles)) + sum(len(e or "") for e in eres) < 96 * 1024  # argv
            if fits and all(n and b"\n" not in n and b"\0" not in n for n in needles) and all(eres):
                plan = (needles, sorted({e.encode() for e in eres if e}))
            self._plan = plan
            self._all_pids = sorted({pid for pid, _, _ in self._scan_all_src})
        return self._plan  # type: ignore[return-value]

    def check_line(self, raw: bytes, first: bool = False) -> bool:
        """Whether :meth:`scan` would hit this whole line (no newline in ``raw``)."""
        low = raw.lower()
        # A line follows a newline, as in a chunk (lookbehinds see it), except the first.
        buf, off = (raw, 0) if first else (b"\n" + raw, 1)
        end = off + min(len(raw), _LONG_BYTES)
        exact = self._exact
        buckets = self._buckets
        if buckets is None:
            items = self._by_needle.items()
        else:  # only the needles whose first three bytes occur in the line
            grams = {low[i : i + 3] for i in range(len(low) - 2)}
            items = [item for g in grams.intersection(buckets) for item in buckets[g]]
        for needle, pids in items:
            if needle in low:
                for pid in pids:
                    if exact[pid].search(buf, off, end):
                        return True
        return any(exact[pid].search(buf, off, end) for pid in self._all_pids)

    @property
    def _buckets(self) -> dict[bytes, list[tuple[bytes, list[int]]]] | None:
        if self._bucket_map is False:
            table: dict[bytes, list[tuple[bytes, list[int]]]] | None = {}
            for needle, pids in self._by_needle.items():
                if len(needle) < 3:
                    table = None
                    break
                table.setdefault(needle[:3], []).append((needle, pids))  # type: ignore[union-attr]
            self._bucket_map = table
        return self._bucket_map  # type: ignore[return-value]

    @property
    def _any_needle(self) -> re.Pattern[bytes] | None:
        """One regex for every literal text, as a trie (``ab|ac`` -> ``a(?:b|c)``): ``re``
        tries it once per byte instead of searching the text once per literal."""
        if self._trie is False:
            words = sorted(n for n in self._by_needle if b"\n" not in n)
            self._trie = _rx.compile(_trie_regex(words)) if words else None
        return self._trie  # type: ignore[return-value]

    def _line_hit(self, src: bytes, low: bytes, start: int, stop: int) -> bool:
        """Whether a pattern with a literal text in ``src[start:stop]`` matches that line."""
        seg = low[start:stop]
        exact = self._exact
        buckets = self._buckets
        if buckets is None or len(seg) > 4096:
            items = self._by_needle.items()
        else:  # only the needles whose first three bytes occur in the line
            grams = {seg[i : i + 3] for i in range(len(seg) - 2)}
            items = [item for g in grams.intersection(buckets) for item in buckets[g]]
        limit = min(stop, start + _LONG_BYTES)
        for needle, pids in items:
            if needle in seg:
                for pid in pids:
                    if exact[pid].search(src, start, limit):
                        return True
        return False

    def scan(self, src: bytes, a: int = 0, b: int | None = None) -> list[int]:
        end = len(src) if b is None else b
        hits: list[int] = []
        if a or end != len(src):
            src, a, end = bytes(memoryview(src)[a:end]), 0, end - a
        low = src.lower()
        find = self._any_needle
        pos = 0
        while find is not None:
            m = find.search(low, pos)
            if m is None:
                break
            start = src.rfind(b"\n", 0, m.start()) + 1
            stop = src.find(b"\n", m.start())
            stop = end if stop < 0 else stop
            if self._line_hit(src, low, start, stop):
                hits.append(start)  # any offset in the line names the line
            pos = stop + 1
        for rx in self._scan_all:
            for m in rx.finditer(src):
                hits.append(max(m.end() - 1, m.start()))
        return hits


def _trie_regex(words: Sequence[bytes]) -> bytes:
    """A regex matching exactly the texts ``words`` (none empty), factored as a trie."""
    trie: dict[int, Any] = {}
    for w in words:
        node = trie
        for c in w:
            node = node.setdefault(c, {})
        node[-1] = {}

    import re  # noqa: PLC0415 - the cold path of explain does not load re

    def emit(node: dict[int, Any]) -> bytes:
        alts = [re.escape(bytes([c])) + emit(node[c]) for c in sorted(node) if c >= 0]
        if not alts:
            return b""
        body = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
        if -1 in node:  # a word ends here and longer ones go on
            body = (b"(?:" + body + b")?") if len(alts) == 1 else body + b"?"
        return body

    return emit(trie)


def _required(source: str, extend: bool = False, rare: bool = False) -> tuple[bytes, ...] | None:
    """Lower-cased literal texts one of which every match of ``source`` contains
    (``extend``: as Hyperscan reads it, see :func:`rocmfix.kb.literals.required_literals`;
    ``rare``: a set of texts all :func:`_rare` where the branch has one)."""
    from rocmfix.kb.literals import required_literals  # noqa: PLC0415

    good = (lambda x: _rare(x.lower().encode("utf-8"))) if rare else None
    lits = required_literals(source, ignore_case=True, extend=extend, good=good)
    if not lits:
        return None
    return tuple(sorted(x.encode("utf-8") for x in lits))


def _hs_plan(hs: object, patterns: Sequence[tuple[str, bool]]) -> tuple[list[list[Any]], list[int]]:
    """Each pattern's branches as Hyperscan reads them, ``[expr, flags, pid, branch]``,
    and the ids of patterns whose hits the exact regex confirms. Splitting the KB's
    ~620 patterns costs ~25 ms a run: cached, keyed by the patterns."""
    from rocmfix._quick import cached  # noqa: PLC0415

    def build() -> tuple[list[list[Any]], list[int]]:
        plan: list[list[Any]] = []
        prefilter: set[int] = set()
        base = hs.HS_FLAG_MULTILINE  # type: ignore[attr-defined]
        for pid, (source, icase) in enumerate(patterns):
            flags = base | (hs.HS_FLAG_CASELESS if icase else 0)  # type: ignore[attr-defined]
            if _HS_UNSUPPORTED.search(source):
                flags |= hs.HS_FLAG_PREFILTER  # type: ignore[attr-defined]
                prefilter.add(pid)
            for branch in split_alternation(source):
                expr, superset = _hs_source(branch)
                if superset:
                    prefilter.add(pid)
                plan.append([expr, flags, pid, branch])
        return plan, sorted(prefilter)

    key = f"{getattr(hs, '__version__', '')}\0hsplan-1\0".encode() + b"\0".join(
        (("i" if icase else "c") + source).encode("utf-8", "surrogatepass") for source, icase in patterns
    )
    plan, prefilter = cached("hsplan", key, build)
    return plan, prefilter


class _HyperscanEngine:
    """Hyperscan database; patterns it cannot compile go to a small ``re`` fallback.

    Patterns with lookarounds compile in prefilter mode (a superset); their hits
    are checked with the exact regex on the hit's line, so both engines report
    the same lines.
    """

    name = "hyperscan"
    two_stage = True
    """Scan large ranges with the small stage-1 database first (False: the full one only)."""

    def __init__(self, patterns: Sequence[tuple[str, bool]], hyperscan: object):
        hs = hyperscan
        self._hs = hs
        self._patterns = list(patterns)
        self._exact: dict[int, re.Pattern[bytes] | re.Pattern[str] | None] = {}
        plan, prefilter = _hs_plan(hs, self._patterns)
        self._prefilter: set[int] = set(prefilter)
        good = [(expr, flags, *patterns[pid], pid) for expr, flags, pid, _branch in plan]
        branches = [row[3] for row in plan]
        self._db = _load_cached_db(hs, good) or None
        rest: list[tuple[str, bool]] = []
        if self._db is None and good:
            # Patterns Hyperscan refuses go to ``re``. Which they are is remembered
            # beside the database cache: finding them costs compiles, and paying
            # that on every run made a 1 GB scan eight times slower.
            bad = _load_refused(hs, good)
            if bad is None:
                self._db = self._compile(hs, good, cache=True)
                bad = set() if self._db is not None else _find_refused(hs, good, self._compile)
                _store_refused(hs, good, bad)
            if bad:
                ok = [i for i in good if i[4] not in bad]
                rest = [patterns[pid] for pid in sorted(bad)]
                self._db = _load_cached_db(hs, ok) or self._compile(hs, ok, cache=True)
            elif self._db is None:
                self._db = self._compile(hs, good, cache=True)
        self._fallback = _ReEngine(rest) if rest else None
        self._db1: object | None = None
        """Stage 1 (see :func:`_stage1_items`): a range it finds nothing in holds no hit."""
        self._skip = 0
        self._backoff = 0
        # ROCMFIX_STAGE1=0 measures the full database alone (benchmarks/explain_speed.py).
        if self._db is not None and self.two_stage and os.environ.get("ROCMFIX_STAGE1") != "0":
            refused = set(rest)
            kept = [(br, g) for br, g in zip(branches, good, strict=False) if patterns[g[4]] not in refused]
            items = _stage1_items(hs, kept)
            if items:
                self._db1 = _load_cached_db(hs, items) or self._compile(hs, items, cache=True)
        import threading  # noqa: PLC0415

        self._threading = threading
        self._local = threading.local()

    @staticmethod
    def _compile(
        hs: object, items: Sequence[tuple[bytes, int, str, bool, int]], cache: bool = False
    ) -> object | None:
        if not items:
            return None
        db = hs.Database()  # type: ignore[attr-defined]
        try:
            db.compile(
                expressions=[i[0] for i in items],
                ids=[i[4] for i in items],
                flags=[i[1] for i in items],
            )
        except Exception:  # noqa: BLE001 - hyperscan.error; the caller falls back to re
            return None
        if cache:
            _store_cached_db(hs, items, db)
        return db

    def _scratch(self) -> object:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            threading = self._threading
            if threading.current_thread() is threading.main_thread():
                scratch = self._db.scratch  # type: ignore[attr-defined]
            else:
                scratch = self._hs.Scratch(self._db)  # type: ignore[attr-defined]
            self._local.scratch = scratch
        return scratch

    def _scratch1(self) -> object:
        scratch = getattr(self._local, "scratch1", None)
        if scratch is None:
            threading = self._threading
            if threading.current_thread() is threading.main_thread():
                scratch = self._db1.scratch  # type: ignore[attr-defined]
            else:
                scratch = self._hs.Scratch(self._db1)  # type: ignore[attr-defined]
            self._local.scratch1 = scratch
        return scratch

    def _clear(self, src: bytes, a: int, end: int) -> bool:
        """Whether stage 1 shows that no branch of the full database matches in ``src[a:end]``.

        Stage 1 stops at its first match, and then the whole range goes to the full
        database: a log whose every line holds a common word costs one line of stage
        1 per chunk. One with a match near the end of every chunk is bounded by a
        backoff: after a range that needed the full database the next 1, 3, 7, then
        15 ranges skip stage 1; a range that stage 1 clears resets it."""
        if self._skip > 0:
            self._skip -= 1  # worker threads race on these counters: they only steer speed
            return False
        data = memoryview(src)[a:end] if (a or end != len(src)) else src
        try:
            self._db1.scan(data, match_event_handler=_stop, scratch=self._scratch1())  # type: ignore[attr-defined]
        except self._hs.ScanTerminated:  # type: ignore[attr-defined]
            self._backoff = min(2 * self._backoff + 1, _STAGE1_MAX_SKIP)
            self._skip = self._backoff
            return False
        except Exception:  # noqa: BLE001 - hyperscan.error: the full database alone, as before
            self._db1 = None
            return False
        self._backoff = 0
        return True

    def scan(self, src: bytes, a: int = 0, b: int | None = None) -> list[int]:
        end = len(src) if b is None else b
        hits: list[int] = []
        checks: list[tuple[int, int]] = []
        if self._db1 is not None and end - a >= _STAGE1_MIN and self._clear(src, a, end):
            return self._fallback.scan(src, a, end) if self._fallback is not None else hits
        if self._db is not None:
            prefilter = self._prefilter

            def on_match(pid: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
                if pid in prefilter:
                    checks.append((pid, to - 1 if to else 0))
                else:
                    hits.append(to - 1 if to else 0)

            data = memoryview(src)[a:end] if (a or end != len(src)) else src
            try:
                self._db.scan(data, match_event_handler=on_match, scratch=self._scratch())  # type: ignore[attr-defined]
            except Exception:  # noqa: BLE001 - hyperscan.error: never let the engine break explain
                self._db = self._db1 = None
                self._fallback = _ReEngine(self._patterns)
                return self._fallback.scan(src, a, end)
        if checks:
            hits.extend(self._verify(src, a, end, checks))
        if self._fallback is not None:
            hits.extend(self._fallback.scan(src, a, end))
        return hits

    def _verify(self, src: bytes, a: int, end: int, checks: list[tuple[int, int]]) -> list[int]:
        """Keep prefilter hits whose line the exact regex matches."""
        out: list[int] = []
        seen: set[tuple[int, int]] = set()
        for pid, off in checks:
            pos = a + off
            start = src.rfind(b"\n", a, pos) + 1 or a
            if (pid, start) in seen:
                continue
            seen.add((pid, start))
            stop = src.find(b"\n", pos, end)
            stop = end if stop < 0 else stop
            if pid not in self._exact:
                self._exact[pid] = _bytes_re(*self._patterns[pid]) or _text_re(*self._patterns[pid])
            rx = self._exact[pid]
            stop = min(stop, start + _LONG_BYTES)
            if rx is None:
                out.append(off)
            elif isinstance(rx.pattern, bytes):
                if rx.search(src, start, stop):
                    out.append(off)
            elif rx.search(_decode(src[start:stop])):  # \u escapes: only a str pattern reads them
                out.append(off)
        return out


def _stop(*_: object) -> bool:
    return True  # end the stage-1 scan: one match decides


_STAGE1_MIN = 256 * 1024
"""Ranges shorter than this go straight to the full database (stage 1 would save little)."""
_STAGE1_MAX_SKIP = 15
_FACTOR_LEN = 12


def factor_cover(
    literal_sets: Iterable[Iterable[bytes]], k: int = _FACTOR_LEN, ok: Callable[[bytes], bool] | None = None
) -> list[bytes]:
    """Few literal texts such that every text of every set contains one of them.

    A text containing another one is found through it; a text longer than ``k``
    bytes is found through one of its ``k``-byte pieces, chosen greedily so that
    one piece serves as many texts as it can ("hiperrorinv" for the
    ``hipErrorInvalid...`` family). With ``ok``, only pieces it accepts are chosen
    (a piece of a rare text may be common: "memory alloc"); a text with none stands
    for itself. Deterministic: the same sets give the same list."""
    texts = sorted({t for group in literal_sets for t in group}, key=lambda t: (len(t), t))
    kept: list[bytes] = []
    for t in texts:
        if not any(x in t for x in kept):
            kept.append(t)
    chosen = [t for t in kept if len(t) <= k]
    pieces = {t: {t[i : i + k] for i in range(len(t) - k + 1)} for t in kept if len(t) > k}
    if ok is not None:
        pieces = {t: {g for g in grams if ok(g)} for t, grams in pieces.items()}
        chosen.extend(t for t, grams in pieces.items() if not grams)
        pieces = {t: grams for t, grams in pieces.items() if grams}
    holders: dict[bytes, set[bytes]] = {}
    for t, grams in pieces.items():
        for g in grams:
            holders.setdefault(g, set()).add(t)
    while holders:
        best = max(holders, key=lambda g: (len(holders[g]), g))
        chosen.append(best)
        for t in list(holders[best]):
            for g in pieces[t]:
                held = holders.get(g)
                if held is not None:
                    held.discard(t)
                    if not held:
                        del holders[g]
    return sorted(chosen)


def chatter_norm(text: str) -> str:
    """Ordinary chatter's lines and stage-1 texts as the chatter table compares them:
    lower-cased, every run of hex digits holding a digit (numbers, ids, hashes) as one "0"."""
    import re  # noqa: PLC0415 - the cold path of explain does not load re

    return re.sub(r"[0-9a-f]*[0-9][0-9a-f]*", "0", text.lower())


_CHATTER: bytes | None = None
_RARE_MIN = 4
"""Shortest text that may stand for a branch in stage 1 (with three letters)."""


def _chatter_table() -> bytes:
    """The distinct lines of generated ordinary chatter, through :func:`chatter_norm`
    (``data/chatter-lines.txt``, written by ``benchmarks/chatter.py --table``)."""
    global _CHATTER
    if _CHATTER is None:
        with open(os.path.join(os.path.dirname(__file__), "data", "chatter-lines.txt"), "rb") as fh:
            _CHATTER = b"\n".join(x for x in fh.read().split(b"\n") if not x.startswith(b"#"))
    return _CHATTER


def _rare(text: bytes) -> bool:
    """Whether a required (lower-cased) text is rare enough in ordinary log lines to stand
    for its branch in stage 1: ASCII (Hyperscan folds case in ASCII only), no newline, at
    least ``_RARE_MIN`` bytes of which three are letters, and found in no line of the chatter
    table (healthy logs of several tools, generated by benchmarks/chatter.py; not the
    benchmark's own log). Measured, not a length rule: "size" is in "batch size" lines
    there; "gttsize" and "torch.cuda.is_available()" are in none."""
    letters = sum(97 <= c <= 122 for c in text)
    if not (text.isascii() and len(text) >= _RARE_MIN and b"\n" not in text and letters >= 3):
        return False
    return chatter_norm(text.decode("ascii")).encode() not in _chatter_table()


def _hs_literal(text: bytes) -> bytes:
    """A literal text as a Hyperscan expression (all but letters and digits as ``\\xHH``)."""
    return b"".join(
        bytes([c]) if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122) else b"\\x%02x" % c
        for c in text
    )


def _class_end(expr: bytes, i: int) -> int:
    """The index just past the character class that opens at ``expr[i]`` (``[``): a
    leading ``^`` and a ``]`` right after it are members, a backslash escapes the next
    byte. ``len(expr)`` or more where the class is not closed."""
    n = len(expr)
    j = i + 1
    if j < n and expr[j] == 0x5E:
        j += 1
    if j < n and expr[j] == 0x5D:
        j += 1
    while j < n and expr[j] != 0x5D:
        j += 2 if expr[j] == 0x5C else 1
    return j + 1


def _line_tail(expr: bytes) -> bytes:
    """A Hyperscan expression ``^(?=X)[^\\n]*?REST`` as ``REST``: every match of the first
    holds a match of the second on its line (a superset, for stage 1). The leading
    lookahead costs a scan from every line's start (~1.5 s of CPU per GB on chatter that
    names the GPU stack); other expressions come back as they are."""
    if not expr.startswith(b"^(?="):
        return expr
    depth, i, n = 0, 1, len(expr)
    while i < n:
        c = expr[i]
        if c == 0x5C:  # backslash: the next byte is literal
            i += 2
            continue
        if c == 0x5B:  # a class: up to its closing bracket
            i = _class_end(expr, i)
            continue
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                rest = expr[i + 1 :]
                lead = b"[^\\n]*?"
                return rest[len(lead) :] if rest.startswith(lead) and len(rest) > len(lead) else expr
        i += 1
    return expr


def _atoms(expr: bytes) -> tuple[bytes, list[tuple[bytes, bool, bool]]] | None:
    """A Hyperscan expression's leading flag group and its top-level atoms, each with
    its quantifier: ``(text, literal, zero_width)``; None for a top-level alternation
    or what this reading does not know. ``literal``: one unquantified character
    (``a``, ``\\.``, ``\\xe6``); ``zero_width``: ``\\b``, ``^``, ``$``, a lookaround."""
    import re  # noqa: PLC0415 - only when stage 1 is built (a cache miss)

    flag_group = re.compile(rb"\(\?[aiLmsux]+\)")
    quant = re.compile(rb"(?:[?*+]|\{\d+(?:,\d*)?\})[?+]?")
    m = flag_group.match(expr)
    head = m.group(0) if m else b""
    i, n = len(head), len(expr)
    out: list[tuple[bytes, bool, bool]] = []
    while i < n:
        c, start, lit, zero = expr[i], i, False, False
        if c == 0x5C:  # backslash
            if i + 1 >= n:
                return None
            e = expr[i + 1]
            if e == 0x78:  # \xHH
                if not re.fullmatch(rb"[0-9a-fA-F]{2}", expr[i + 2 : i + 4]):
                    return None
                i, lit = i + 4, True
            else:
                i += 2
                zero = e in b"bBAzZG"
                lit = not zero and not (48 <= e <= 57 or 65 <= e <= 90 or 97 <= e <= 122)
        elif c == 0x5B:  # a class: up to its closing bracket
            i = _class_end(expr, i)
            if i > n:
                return None
        elif c == 0x28:  # a group: up to its closing parenthesis
            depth, j = 0, i
            while j < n:
                d = expr[j]
                if d == 0x5C:
                    j += 2
                    continue
                if d == 0x5B:
                    j = _class_end(expr, j)
                    continue
                depth += (d == 0x28) - (d == 0x29)
                j += 1
                if depth == 0:
                    break
            if depth != 0:
                return None
            body = expr[i:j]
            if flag_group.fullmatch(body):
                return None  # a flag group past the start changes what follows it
            zero = body.startswith((b"(?=", b"(?!", b"(?<=", b"(?<!"))
            i = j
        elif c in b"|)":
            return None
        else:
            zero = c in b"^$"
            lit = not zero and c not in b".*+?{"
            i += 1
        q = quant.match(expr, i)
        if q:
            if zero:
                return None
            i, lit = q.end(), False
        out.append((expr[start:i], lit, zero))
    return head, out


def _common_in_chatter(run: bytes, caseless: int) -> bool:
    """Whether a run of literal characters (as written in an expression: ``\\.``,
    ``\\xe6``) is on more than one line in fifty of the raw chatter ("for" and "wheel"
    are on one in twenty, "python" on one in fifty-four, "cuda" and "kfd" on fewer). Set
    by measuring: tails from "for" and "wheel" cost more on pip and apt logs than the
    branches they stood for; the one from "python" saved ~0.25 s per GB on HF's."""
    import re  # noqa: PLC0415 - only when stage 1 is built (a cache miss)

    text = re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), run)
    text = re.sub(rb"\\(.)", rb"\1", text)
    lines = _chatter_raw().split(b"\n")
    if caseless:
        text = text.lower()
        lines = [x.lower() for x in lines]
    return sum(text in x for x in lines) * 50 > len(lines)


def _chatter_raw() -> bytes:
    """Raw lines of generated ordinary chatter, one for each line of the chatter
    table (``data/chatter-raw.txt``, written by ``benchmarks/chatter.py --table``):
    what a regex stand-in is tried on, numbers and case as the tools print them."""
    global _RAW
    if _RAW is None:
        with open(os.path.join(os.path.dirname(__file__), "data", "chatter-raw.txt"), "rb") as fh:
            _RAW = b"\n".join(x for x in fh.read().split(b"\n") if not x.startswith(b"#"))
    return _RAW


_RAW: bytes | None = None


def _tail_stand_in(expr: bytes, flags: int, caseless: int) -> bytes:
    """A shorter stand-in for a stage-1 branch that has no rare literal text: its
    shortest tail that begins at a run of literal characters with three letters or more
    that few lines of the raw chatter hold (:func:`_common_in_chatter`; with the
    ``\\b``-like assertions just before it) and that as a whole matches no line of it
    (``\\bwheels?\\b[^.\\n]{0,25}\\bfor\\b[^.\\n]{0,12}\\b(?:python ?)?(?:cp ?3...)`` ->
    ``\\bfor\\b[^.\\n]{0,12}...``; ``^c[r-][w-]-{7}...\\bkfd$`` -> ``\\bkfd$``).

    Every match of a sequence ends with a match of each of its tails, at the same
    place in the same text (an assertion reads the text around it, not the match), so
    a tail is a superset of its branch. What costs on chatter is the start: Hyperscan
    runs the rest of the branch from every place its first texts occur ("wheel" on
    every third line of pip's output, a run of dashes in its progress bars for the
    ``ls -l`` line of ``/dev/kfd``). The expression itself where no tail will do."""
    import re  # noqa: PLC0415 - only when stage 1 is built (a cache miss)

    got = _atoms(expr)
    if got is None:
        return expr
    head, atoms = got
    starts: list[int] = []
    k = 0
    while k < len(atoms):
        if not atoms[k][1]:
            k += 1
            continue
        j = k
        while j < len(atoms) and atoms[j][1]:
            j += 1
        run = b"".join(a[0] for a in atoms[k:j])
        letters = sum(65 <= c <= 90 or 97 <= c <= 122 for c in run)
        if letters >= 3 and not _common_in_chatter(run, flags & caseless):
            s = k
            while s > 0 and atoms[s - 1][2]:
                s -= 1  # the assertions just before the run go with it
            if s > 0:
                starts.append(s)
        k = j
    raw = None
    for s in reversed(starts):  # the shortest tail first
        tail = head + b"".join(a[0] for a in atoms[s:])
        try:
            rx = re.compile(tail, re.MULTILINE | (re.IGNORECASE if flags & caseless else 0))
        except (re.error, OverflowError, RecursionError):
            continue
        if raw is None:
            raw = _chatter_raw()
        if rx.search(raw) is None:
            return tail
    return expr


def _stage1_items(
    hs: object, kept: Sequence[tuple[str, tuple[bytes, int, str, bool, int]]]
) -> list[tuple[bytes, int, str, bool, int]]:
    """Stage 1 of the two-stage scan: a database that matches somewhere in every
    range in which the full database matches.

    The full database costs ~0.9 s of CPU per GB on the KB's ~930 branches however
    few lines hit. Most branches need one of a few literal texts (:func:`_required`);
    where all of a branch's texts are rare (:func:`_rare`) the branch is stood for by
    the :func:`factor_cover` of those texts, matched caselessly (a superset). A branch
    whose texts are too short gets a second chance with the first characters of
    what follows them (``extend``: ``\\bgfx(?:6\\d\\d|7\\d\\d)`` -> ``gfx6``, ``gfx7``);
    every other branch goes in as it is in the full database, or as a shorter tail of
    it (:func:`_tail_stand_in`; not for a prefilter branch). A range stage 1 clears has
    no hit; any stage-1 match sends the whole range to the full database, so the
    hits are the same. Parsing the branches costs ~0.2 s: cached, keyed by them."""
    from rocmfix._quick import cached  # noqa: PLC0415

    head = f"{getattr(hs, '__version__', '')}\0stage1-6\0{_FACTOR_LEN}\0{_RARE_MIN}\0".encode()
    head += _chatter_table() + b"\0" + _chatter_raw()
    key = head + b"\0".join(
        item[0] + b"\1" + str(item[1]).encode() + b"\1" + branch.encode("utf-8", "surrogatepass")
        for branch, item in kept
    )

    def build() -> list[list[Any]]:
        single = hs.HS_FLAG_SINGLEMATCH  # type: ignore[attr-defined]
        literal: list[tuple[bytes, ...]] = []
        out: list[list[Any]] = []
        for branch, (expr, flags, _source, _icase, _pid) in kept:
            lits = _required(branch, rare=True)  # "gtt" rather than "size" (chatter)
            if lits is None or not all(_rare(t) for t in lits):
                lits = _required(branch, extend=True, rare=True)  # "gfx" -> "gfx6", "gfx7": rare again
            if lits is not None and all(_rare(t) for t in lits):
                literal.append(lits)
            else:
                expr = _line_tail(expr)
                if not flags & hs.HS_FLAG_PREFILTER:  # type: ignore[attr-defined]
                    expr = _tail_stand_in(expr, flags, hs.HS_FLAG_CASELESS)  # type: ignore[attr-defined]
                out.append([expr, flags | single])
        caseless = hs.HS_FLAG_CASELESS | single  # type: ignore[attr-defined]
        out.extend([_hs_literal(f), caseless] for f in factor_cover(literal, ok=_rare))
        return out

    return [(e, f, "", False, i) for i, (e, f) in enumerate(cached("hs1plan", key, build))]


# Compiling the KB's patterns takes ~0.2 s; the compiled database is cached on
# disk, keyed by the exact patterns, flags and Hyperscan version.
def _db_cache_path(hs: object, items: Sequence[tuple[bytes, int, str, bool, int]]) -> str:
    # _quick's sha256 is CPython's built-in one: hashlib would load OpenSSL (~4 ms), and
    # pathlib is not imported for a path either (~5 ms): a 1 GB scan's start-up counts too.
    from rocmfix._quick import cache_dir, sha256  # noqa: PLC0415

    h = sha256(str(getattr(hs, "__version__", "")).encode() + b"\0db-2")
    for expr, flags, _, _, pid in items:
        h.update(expr + b"\0" + str(flags).encode() + b"\0" + str(pid).encode() + b"\0")
    return os.path.join(cache_dir(), f"hs-{h.hexdigest()[:32]}.db")


def _find_refused(hs: object, items: Sequence[tuple[bytes, int, str, bool, int]], compile_) -> set[int]:
    """The pattern ids Hyperscan refuses, found by halving (a few dozen compiles, not one per branch)."""
    bad: set[int] = set()

    def walk(part: Sequence[tuple[bytes, int, str, bool, int]]) -> None:
        part = [i for i in part if i[4] not in bad]
        if not part or compile_(hs, part) is not None:
            return
        if len(part) == 1:
            bad.add(part[0][4])
            return
        mid = len(part) // 2
        walk(part[:mid])
        walk(part[mid:])

    walk(items)
    return bad


def _refused_path(hs: object, items: Sequence[tuple[bytes, int, str, bool, int]]) -> str:
    return _db_cache_path(hs, items)[: -len(".db")] + ".refused"


def _load_refused(hs: object, items: Sequence[tuple[bytes, int, str, bool, int]]) -> set[int] | None:
    try:
        with open(_refused_path(hs, items), encoding="ascii") as fh:
            text = fh.read()
        return {int(x) for x in text.split()}
    except (OSError, ValueError):
        return None


def _store_refused(hs: object, items: Sequence[tuple[bytes, int, str, bool, int]], bad: set[int]) -> None:
    from rocmfix._quick import write_atomic  # noqa: PLC0415

    write_atomic(_refused_path(hs, items), (" ".join(str(b) for b in sorted(bad)) + "\n").encode("ascii"))


def _load_cached_db(
    hs: object, items: Sequence[tuple[bytes, int, str, bool, int]]
) -> object | None:
    try:
        from rocmfix._quick import read_cache  # noqa: PLC0415

        data = read_cache(_db_cache_path(hs, items))
        if data is None:
            return None
        db = hs.loadb(data, hs.HS_MODE_BLOCK)  # type: ignore[attr-defined]
        db.scratch = hs.Scratch(db)  # a loaded database has no scratch space yet
        db.scan(b"probe\n", match_event_handler=lambda *_: None)
        return db
    except Exception:  # noqa: BLE001 - missing or stale cache: compile instead
        return None


def _store_cached_db(
    hs: object, items: Sequence[tuple[bytes, int, str, bool, int]], db: object
) -> None:
    try:
        data = hs.dumpb(db)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return
    from rocmfix._quick import write_atomic  # noqa: PLC0415

    write_atomic(_db_cache_path(hs, items), data)


def make_engine(
    patterns: Iterable[tuple[str, bool]], prefer: str = "auto"
) -> _ReEngine | _HyperscanEngine:
    """Build the fastest available multi-pattern engine for ``(regex, ignore_case)`` pairs."""
    pats = list(
        dict.fromkeys([(p, ic) for p, ic in patterns] + [(p, False) for p in FATAL_PATTERNS])
    )
    if prefer == "auto":
        # ROCMFIX_ENGINE=re measures or forces the fallback that machines without
        # Hyperscan wheels (aarch64, macOS) get; =python that fallback without grep.
        prefer = os.environ.get("ROCMFIX_ENGINE", "auto") or "auto"
    if prefer in ("auto", "hyperscan"):
        try:
            import hyperscan  # noqa: PLC0415 - optional, heavy native module

            return _HyperscanEngine(pats, hyperscan)
        except ImportError:
            if prefer == "hyperscan":
                raise
    engine = _ReEngine(pats)
    if prefer == "python":
        engine.use_grep = False
    return engine


# ----------------------------------------------------------------- reading


def open_input(path: str | Path) -> BinaryIO:
    """Open a regular file, plain or compressed (gzip, xz, bzip2), for binary reading.

    Devices, FIFOs and directories are refused (``/dev/zero`` never ends);
    decompressed output is capped (``safeio.LOG_MAX_DECOMPRESSED``).

    Raises:
        InputError: the file is missing, not a regular file or unreadable.
    """
    from rocmfix import safeio  # noqa: PLC0415

    p = os.fspath(path)  # the name as given; pathlib is not imported for it (~5 ms)
    try:
        return safeio.open_log(p)
    except FileNotFoundError:
        raise InputError(
            f"{p}: no such file", hint="check the path, or pipe the log: ... | rocmfix explain -"
        ) from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a log file") from None
    except PermissionError:
        raise InputError(f"{p}: permission denied") from None
    except OSError as err:
        raise InputError(f"{p}: cannot read ({safeio.describe(err)})") from None


def open_stream(fh: BinaryIO) -> BinaryIO:
    """Wrap a binary stream (a pipe) so compressed data is decompressed on the fly, capped."""
    from rocmfix import safeio  # noqa: PLC0415

    return safeio.open_stream(fh, "standard input")


def open_log(source: str | Path) -> BinaryIO:
    """Open a log named on the command line: ``-`` is standard input, else a path.

    Compressed input is decompressed either way. This is the one reading entry
    point for ``explain``, ``report --log`` and ``fix --from-log``.

    Raises:
        InputError: the file cannot be read, or standard input is closed.
    """
    if str(source) != "-":
        return open_input(source)
    import sys  # noqa: PLC0415

    stdin = getattr(sys.stdin, "buffer", None)
    if stdin is None:
        raise InputError(
            "standard input is closed, nothing to read",
            hint="pipe the log: python train.py 2>&1 | rocmfix explain -",
        )
    try:
        os.fstat(stdin.fileno())
    except (OSError, ValueError):
        raise InputError(
            "standard input is closed, nothing to read",
            hint="pipe the log: python train.py 2>&1 | rocmfix explain -",
        ) from None
    except io.UnsupportedOperation:
        pass  # a replaced sys.stdin (tests) has no descriptor
    else:
        if os.isatty(stdin.fileno()):
            return _read_terminal(stdin.fileno())
    return open_stream(stdin)


TERMINAL_MAX = 64 * 1024 * 1024
"""What ``explain -`` takes from a terminal (a paste): far more than a screen holds."""


def _read_terminal(fd: int) -> BinaryIO:
    """What is typed or pasted at a terminal, up to the first Ctrl-D.

    A terminal's end of input is one empty read, not a lasting state: the stream
    readers read again after it and waited for more, so it took two or three
    Ctrl-D. Here reading stops at the first.
    """
    import sys  # noqa: PLC0415

    from rocmfix._lang import locale_lang  # noqa: PLC0415

    zh = locale_lang() == "zh"
    print(
        "rocmfix：粘贴错误信息或日志，然后在空行上按 Ctrl-D"
        if zh
        else "rocmfix: paste the error or the log, then press Ctrl-D on an empty line",
        file=sys.stderr,
    )
    parts, total = [], 0
    while total <= TERMINAL_MAX:
        data = os.read(fd, 1 << 16)
        if not data:
            break
        parts.append(data)
        total += len(data)
    return io.BufferedReader(io.BytesIO(b"".join(parts)))  # type: ignore[arg-type]


def iter_lines(stream: BinaryIO, chunk: int = 1 << 20) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, cleaned text)`` for every non-empty line of a stream.

    Memory stays bounded: a line longer than :data:`MAX_LINE` keeps its head
    and its tail (see :func:`clean_line`). CR-only line ends count as line ends.
    """
    carry = b""
    cr_mode: bool | None = None
    line_no = 0
    while True:
        try:
            block = stream.read(chunk)
        except (OSError, EOFError, ValueError) as err:
            raise InputError(f"cannot read input ({err})") from None
        if cr_mode is None and block:
            cr_mode = b"\n" not in block and b"\r" in block.rstrip(b"\r")
        if cr_mode and block:
            block = block.translate(_CR_TO_LF)
        data = carry + block if carry else block
        if not block:
            if data:
                line_no += 1
                text = clean_line(_decode(data))
                if text:
                    yield line_no, text
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            carry = data if len(data) <= 2 * _LONG_BYTES else _long_head_tail(data)
            continue
        carry = data[cut:]
        for raw in data[:cut].split(b"\n")[:-1]:
            line_no += 1
            text = clean_line(_decode(raw))
            if text:
                yield line_no, text


def _looks_binary(head: bytes) -> bool:
    """Mostly control bytes or invalid UTF-8 in the first block: not a text log."""
    sample = bytes(head[:65536]).decode("utf-8", errors="replace")
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r\f\x1b"))
    return bad / len(sample) > 0.3


@record(frozen=False)
class _State:
    head: OrderedDict[str, list[object]] = field(default_factory=OrderedDict)
    recent: OrderedDict[str, list[object]] = field(default_factory=OrderedDict)
    dropped: int = 0

    def add(self, text: str, first: int, last: int, count: int = 1) -> None:
        key = dedup_key(text)
        slot = self.head.get(key) or self.recent.get(key)
        if slot is not None:
            slot[2] = last
            slot[3] = int(slot[3]) + count  # type: ignore[call-overload]
            if key in self.recent:
                self.recent.move_to_end(key)
            return
        record: list[object] = [text, first, last, count]
        if len(self.head) < HEAD_FINDINGS:
            self.head[key] = record
            return
        self.recent[key] = record
        if len(self.recent) > RECENT_FINDINGS:
            self.recent.popitem(last=False)
            self.dropped += 1

    def findings(self) -> tuple[Finding, ...]:
        rows = list(self.head.values()) + list(self.recent.values())
        rows.sort(key=lambda r: r[1])  # type: ignore[arg-type, return-value]
        return tuple(
            Finding(
                text=str(r[0]),
                first_line=int(r[1]),
                last_line=int(r[2]),
                count=int(r[3]),  # type: ignore[call-overload]
                fatal=bool(_FATAL_RE.search(str(r[0]))),
            )
            for r in rows
        )


def _decode(raw: bytes | memoryview) -> str:
    if len(raw) > _LONG_BYTES:
        raw = _long_head_tail(raw)
    return bytes(raw).decode("utf-8", errors="replace")


def _tally(groups: dict[bytes, list[int]], raw: bytes, line_no: int, cap: int = 0) -> bool:
    """Count one hit of line text ``raw`` at ``line_no`` in ``groups`` (text -> [first, last,
    count]); False, counting nothing, when the text is new and ``groups`` is full
    (``cap`` texts, MAX_HITS_PER_CHUNK when 0)."""
    group = groups.get(raw)
    if group is None:
        if len(groups) >= (cap or MAX_HITS_PER_CHUNK):
            return False
        groups[raw] = [line_no, line_no, 1]
    else:
        group[1] = line_no
        group[2] += 1
    return True


def _long_head_tail(raw: bytes | bytearray | memoryview) -> bytes:
    """Head and tail of an overlong line's bytes, joined by an ellipsis (idempotent)."""
    return bytes(raw[:_HEAD]) + _MARK + bytes(raw[-_TAIL:])


def _workers() -> int:
    try:
        return max(1, min(4, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return max(1, min(4, os.cpu_count() or 1))


class _Cancelled(Exception):
    """A scan :meth:`_Pool.shutdown` dropped before it started."""


class _Job:
    """One scan handed to a :class:`_Pool` worker: ``result()`` waits for it."""

    __slots__ = ("done", "value", "error")

    def __init__(self, done: Any):
        self.done = done
        self.value: Any = None
        self.error: BaseException | None = None

    def result(self) -> Any:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


class _Pool:
    """Worker threads for the scans (Hyperscan releases the GIL while it scans).

    ``concurrent.futures`` would do, but importing it brings in ``logging`` and more
    (~9 ms of a 1 GB explain that should beat grep); this is the part of it used here.
    ``shutdown`` drops the scans not yet started and waits for the running ones."""

    def __init__(self, workers: int):
        import threading  # noqa: PLC0415
        from _queue import SimpleQueue  # noqa: PLC0415 - queue's own C class

        self._event = threading.Event
        self._jobs: Any = SimpleQueue()
        self._stop = False
        self._threads = [threading.Thread(target=self._work, daemon=True) for _ in range(workers)]
        for t in self._threads:
            t.start()

    def _work(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                return
            job, fn, args = item
            if not self._stop:
                try:
                    job.value = fn(*args)
                except BaseException as err:  # noqa: BLE001 - handed to the caller by result()
                    job.error = err
            else:
                job.error = _Cancelled()  # never read: nobody waits for a dropped scan
            job.done.set()

    def submit(self, fn: Callable[..., Any], *args: Any) -> _Job:
        job = _Job(self._event())
        self._jobs.put((job, fn, args))
        return job

    def shutdown(self) -> None:
        self._stop = True
        for _ in self._threads:
            self._jobs.put(None)
        for t in self._threads:
            t.join()


class _Scan:
    """Per-input scanning state: line numbers, findings, tail."""

    def __init__(self, engine: _ReEngine | _HyperscanEngine):
        self.engine = engine
        self.state = _State()
        self.tail: deque[tuple[int, bytes]] = deque(maxlen=TAIL_LINES)
        self.lines = 0  # newlines seen so far

    def line(self, raw: bytes, hit: bool) -> None:
        """One whole line (without its newline) put together from two reads."""
        self.lines += 1
        if hit:
            text = clean_line(_decode(raw))
            if text:
                self.state.add(text, self.lines, self.lines)
        self.tail.append((self.lines, raw))

    def span(self, src: bytes, a: int, b: int, hits: list[int]) -> None:
        """Whole lines ``src[a:b]`` (ending with a newline); ``hits`` are offsets from ``a``."""
        groups: dict[bytes, list[int]] = {}
        pos, line_no = a, self.lines
        last_end = -1
        for off in sorted(hits):
            off += a
            if off < last_end:
                continue
            start = src.rfind(b"\n", a, off) + 1 or a
            end = src.find(b"\n", off, b)
            end = b if end < 0 else end
            line_no += src.count(b"\n", pos, start)
            pos = start
            last_end = end + 1
            if end - start <= _LONG_BYTES:
                raw = src[start:end]
            else:
                raw = _long_head_tail(memoryview(src)[start:end])
            if not _tally(groups, raw, line_no + 1):
                self.state.dropped += 1
        n_chunk = line_no - self.lines + src.count(b"\n", pos, b)
        for raw, (first, last, count) in groups.items():
            text = clean_line(_decode(raw))
            if text:
                self.state.add(text, first, last, count)
        # The chunk's last lines: only they can reach the tail.
        idx = b - 1
        for _ in range(TAIL_LINES):
            idx = src.rfind(b"\n", a, idx)
            if idx < 0:
                break
        start = idx + 1 if idx >= 0 else a
        first_no = self.lines + n_chunk - src.count(b"\n", start, b) + 1
        for offset, raw in enumerate(src[start : b - 1].split(b"\n")):
            if len(raw) > _LONG_BYTES:
                raw = _long_head_tail(raw)
            self.tail.append((first_no + offset, raw))
        self.lines += n_chunk


def _regular_fd(stream: BinaryIO) -> tuple[int, int, int] | None:
    """``(fd, start, size)`` when ``stream`` is a plain regular file worth the parallel path."""
    if not isinstance(stream, io.BufferedReader) or not isinstance(stream.raw, io.FileIO):
        return None
    try:
        fd = stream.fileno()
        st = os.fstat(fd)
        start = stream.tell()
    except (OSError, ValueError):
        return None
    import stat  # noqa: PLC0415

    if not stat.S_ISREG(st.st_mode) or st.st_size - start < 4 * CHUNK:
        return None
    return fd, start, st.st_size


def _pread(fd: int, n: int, off: int) -> bytes:
    try:
        return os.pread(fd, n, off)
    except OSError as err:
        raise InputError(f"cannot read input ({err.strerror})") from None


class _LineCounter:
    """Counts newlines in a file range: ``wc -l`` in a second process for the whole
    file (it runs on the other core while this one scans), in-process for the few
    ranges a hit's line number needs."""

    def __init__(self, fd: int, start: int, size: int):
        self.fd, self.start, self.size = fd, start, size
        self._proc = None
        self._total: int | None = None
        wc = _which("wc")
        proc_fd = f"/proc/self/fd/{fd}"
        if wc and os.path.exists(proc_fd):
            import subprocess  # noqa: PLC0415

            try:
                own = os.open(proc_fd, os.O_RDONLY)  # its own offset, not ours
            except OSError:
                return
            try:
                os.lseek(own, start, os.SEEK_SET)
                self._proc = subprocess.Popen(  # noqa: S603 - fixed argv, the file on stdin
                    [wc, "-l"],
                    stdin=own,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env={"LC_ALL": "C"},
                )
            except OSError:
                self._proc = None
            finally:
                os.close(own)

    def count(self, a: int, b: int) -> int:
        n = 0
        step = 1 << 22
        while a < b:
            block = _pread(self.fd, min(step, b - a), a)
            if not block:
                break
            n += block.count(b"\n")
            a += len(block)
        return n

    def total(self) -> int:
        """Newlines in ``[start, size)`` (counted once, then remembered)."""
        if self._total is None:
            self._total = self._count_all()
        return self._total

    def _count_all(self) -> int:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                out, _ = proc.communicate(timeout=120)
                still = os.fstat(self.fd).st_size == self.size
                if proc.returncode == 0 and still:
                    return int(out.split()[0])
            except (OSError, ValueError, IndexError):
                pass
            except Exception:  # noqa: BLE001 - TimeoutExpired: count here instead
                proc.kill()
                proc.wait()
        return self.count(self.start, self.size)

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


def _which(name: str) -> str | None:
    for d in ("/usr/bin", "/bin"):
        path = os.path.join(d, name)
        if os.access(path, os.X_OK):
            return path
    return None


def _read_size() -> int:
    """Bytes per read on the parallel file path (see :func:`_extract_file`)."""
    return max(CHUNK // 4, 64)


def _extract_file(
    fd: int, start: int, size: int, engine: _ReEngine | _HyperscanEngine, counter: _LineCounter
) -> Excerpt:
    """A plain file: positional reads of whole-line chunks, scanned on worker threads.

    Line numbers are not counted while scanning: the total comes from the line
    counter (a second process), and a hit's number from counting only the
    stretch between it and the nearer counted point (usually a few MB).

    Reads are a quarter of CHUNK: with two workers four reads are in flight, and
    4 x 2 MB stay in the CPU caches between the copy from the page cache and the
    scan where 4 x 8 MB do not (a 256 MB slice, two cores: ~0.1 s of CPU per GB
    less). A read with no newline in it is read again as a whole CHUNK, so lines
    up to CHUNK long are scanned whole as before; the per-read cap on distinct hit
    lines is a quarter of MAX_HITS_PER_CHUNK, the same bound per byte.
    """
    state = _State()
    step = _read_size()
    cap = max(MAX_HITS_PER_CHUNK * step // CHUNK, 1)
    workers = _workers() if engine.name == "hyperscan" else 1
    pool = None
    pending: deque[tuple[int, int, bytes, Any]] = deque()
    # per chunk with hits: (chunk start, [(raw, first_rel, last_rel, count)])
    chunk_hits: list[tuple[int, list[tuple[bytes, int, int, int]]]] = []
    long_lines = 0
    first = b""

    def collect(s: int, block: bytes, n: int, hits: list[int]) -> None:
        if not hits:
            return
        groups: dict[bytes, list[int]] = {}
        pos, line_no, last_end = 0, 0, -1
        for off in sorted(hits):
            if off < last_end:
                continue
            ls = block.rfind(b"\n", 0, off) + 1
            le = block.find(b"\n", off, n)
            le = n if le < 0 else le
            line_no += block.count(b"\n", pos, ls)
            pos, last_end = ls, le + 1
            raw = (
                block[ls:le]
                if le - ls <= _LONG_BYTES
                else _long_head_tail(memoryview(block)[ls:le])
            )
            if not _tally(groups, raw, line_no, cap):
                state.dropped += 1
        chunk_hits.append((s, [(r, a, b, c) for r, (a, b, c) in groups.items()]))

    def drain(limit: int) -> None:
        while len(pending) > limit:
            s, n, block, fut = pending.popleft()
            collect(s, block, n, fut if isinstance(fut, list) else fut.result())

    try:
        pos = start
        if engine.name == "re":
            first = _pread(fd, min(CHUNK, size - pos), pos)
            if b"\n" not in first and b"\r" in first:
                raise _NotPlain
            first = first[: SHORT_INPUT + 1]
            if _grep_scan(fd, start, size, engine, state, counter):  # type: ignore[arg-type]
                pos = size  # grep read it all
        while pos < size:
            block = _pread(fd, min(step, size - pos), pos)
            if not block:
                break
            cut = block.rfind(b"\n") + 1 if pos + len(block) < size else len(block)
            if cut == 0 and step < CHUNK:  # a long line: as much as a whole CHUNK
                block = _pread(fd, min(CHUNK, size - pos), pos)
                cut = block.rfind(b"\n") + 1 if pos + len(block) < size else len(block)
            if not first:
                first = block[: SHORT_INPUT + 1]
                if b"\n" not in block and b"\r" in block:
                    raise _NotPlain
            if cut == 0:  # one line longer than a chunk: find its end without keeping it
                end = pos + len(block)
                while end < size:
                    more = _pread(fd, min(CHUNK, size - end), end)
                    if not more:
                        break
                    i = more.find(b"\n")
                    if i >= 0:
                        end += i + 1
                        break
                    end += len(more)
                tail_part = _pread(fd, min(_TAIL + 1, end - pos), end - min(_TAIL + 1, end - pos))
                raw = block[:_HEAD] + _MARK + tail_part.rstrip(b"\n")[-_TAIL:]
                long_lines += 1
                drain(0)
                collect(pos, raw, len(raw), engine.scan(raw))
                pos = end
                continue
            if workers > 1:
                if pool is None:
                    pool = _Pool(workers)
                pending.append((pos, cut, block, pool.submit(engine.scan, block, 0, cut)))
            else:
                pending.append((pos, cut, block, engine.scan(block, 0, cut)))
            drain(workers)
            pos += cut
        drain(0)
        newlines = counter.total()
    finally:
        if pool is not None:
            pool.shutdown()
        counter.close()
    last_byte = _pread(fd, 1, size - 1) if size > start else b""
    n_lines = newlines + (1 if last_byte and last_byte != b"\n" else 0)
    # Line number of each hit chunk's start: count from the file start up to the
    # largest gap between hit chunks, and from the file end back to it.
    starts = sorted({s for s, _ in chunk_hits})
    base: dict[int, int] = {}
    if starts:
        points = [start, *starts, size]
        gaps = [(points[i + 1] - points[i], i) for i in range(len(points) - 1)]
        _gap, split = max(gaps)
        running = 0
        prev = start
        for s in starts[:split]:
            running += counter.count(prev, s)
            base[s] = running
            prev = s
        running = newlines
        after = size
        for s in reversed(starts[split:]):
            running -= counter.count(s, after)
            base[s] = running
            after = s
    for s, groups in chunk_hits:
        for raw, a, b, c in groups:
            text = clean_line(_decode(raw))
            if text:
                state.add(text, base[s] + a + 1, base[s] + b + 1, c)
    # The tail: the last lines of the file, numbered back from the total.
    tail_bytes = _pread(fd, min(size - start, 1 << 20), size - min(size - start, 1 << 20))
    body = tail_bytes[:-1] if tail_bytes.endswith(b"\n") else tail_bytes
    parts = body.split(b"\n")
    if size - start > len(tail_bytes):
        parts = parts[1:]  # the first one may be cut
    parts = parts[-TAIL_LINES:]
    tail = []
    for i, raw in enumerate(parts):
        text = clean_line(_decode(raw))
        if text:
            tail.append((n_lines - len(parts) + 1 + i, text))
    return Excerpt(
        bytes=size - start,
        lines=n_lines,
        findings=state.findings(),
        tail=tuple(tail),
        full_text=None,
        dropped=state.dropped,
        binary=_looks_binary(first),
        long_lines=long_lines,
    )


# ----------------------------------------------------------------- the fallback's grep prefilter
#
# Without Hyperscan, Python has no multi-pattern search: even with literal
# prefilters it reads a log at a few MB/s. GNU grep has one (Aho-Corasick /
# Commentz-Walter for fixed strings, a DFA for EREs) and every Linux has it. So
# on a plain file the fallback lets grep find the candidate lines, in child
# processes reading the file themselves: ``grep -F`` for the literal texts one of
# which every match of a pattern contains (as the Python prefilter uses them),
# and ``grep -E`` for the few branches without one, translated to an ERE that
# matches a superset of their lines. Each candidate line is then checked with
# the exact regexes, so the lines found are the ones the Python scan finds.

_ERE_SPECIAL = frozenset(".[()*+?{|^$\\")
_CATEGORY_BYTES = {
    "CATEGORY_DIGIT": frozenset(range(48, 58)),
    "CATEGORY_SPACE": frozenset(b" \t\n\r\f\v"),
    "CATEGORY_WORD": frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
}


def _class_bytes(av: Sequence[tuple[object, object]], icase: bool) -> frozenset[int] | None:
    from rocmfix.kb.literals import _c  # noqa: PLC0415

    chars: set[int] = set()
    negate = False
    for op, arg in av:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            chars.add(int(arg))  # type: ignore[call-overload]
        elif op is _c.RANGE:
            lo, hi = arg  # type: ignore[misc]
            chars.update(range(int(lo), min(int(hi), 255) + 1))
        elif op is _c.CATEGORY:
            name = str(arg)
            base = name.replace("_NOT_", "_")
            if base not in _CATEGORY_BYTES:
                return None
            got = _CATEGORY_BYTES[base]
            chars.update(set(range(256)) - got if "_NOT_" in name else got)
        else:
            return None
    if any(c > 255 for c in chars):
        return None
    if icase:
        chars |= {ord(chr(c).swapcase()) for c in chars if c < 128 and chr(c).isalpha()}
    return frozenset(set(range(256)) - chars if negate else chars)


def _bracket(chars: frozenset[int]) -> str | None:
    chars = chars - {10}
    if not chars:
        return None
    if 0 in chars or len(chars) > 200:
        return "."  # wider: a superset is all the prefilter needs
    if len(chars) == 1:
        (c,) = chars
        return ("\\" + chr(c)) if chr(c) in _ERE_SPECIAL else chr(c)
    body = "".join(chr(c) for c in sorted(chars) if chr(c) not in "]^-")
    return (
        "["
        + ("]" if 93 in chars else "")
        + body
        + ("^" if 94 in chars else "")
        + ("-" if 45 in chars else "")
        + "]"
    )


def _ere(items: Sequence[tuple[object, object]], icase: bool) -> str | None:
    """An ERE (GNU grep, C locale) matching a superset of the lines ``items`` match."""
    from rocmfix.kb.literals import _c  # noqa: PLC0415

    out: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            c = int(av)  # type: ignore[call-overload]
            if c > 127:
                return None  # a non-ASCII character is several bytes: not worth it here
            chars = {c}
            if icase and chr(c).isalpha():
                chars.add(ord(chr(c).swapcase()))
            piece = _bracket(frozenset(chars))
        elif op is _c.ANY or op is _c.NOT_LITERAL:
            piece = "."  # NOT_LITERAL: wider, a superset is all the prefilter needs
        elif op is _c.IN:
            got = _class_bytes(av, icase)  # type: ignore[arg-type]
            piece = _bracket(got) if got is not None else None
        elif op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            piece = ""  # anchors and lookarounds only narrow a match: dropped
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            lo, hi, sub = av  # type: ignore[misc]
            inner = _ere(list(sub), icase)
            if inner is None:
                return None
            if lo > 255:
                return None
            top = "" if hi >= _c.MAXREPEAT or hi > 255 else str(hi)
            piece = f"({inner}){{{lo},{top}}}" if inner else ""
        elif op is _c.SUBPATTERN:
            _group, add, remove, sub = av  # type: ignore[misc]
            sub_icase = (icase or bool(add & _rx.IGNORECASE)) and not (remove & _rx.IGNORECASE)
            inner = _ere(list(sub), sub_icase)
            piece = None if inner is None else f"({inner})"
        elif str(op) == "ATOMIC_GROUP":
            inner = _ere(list(av), icase)  # type: ignore[arg-type]
            piece = None if inner is None else f"({inner})"
        elif op is _c.BRANCH:
            alts = [_ere(list(alt), icase) for alt in av[1]]  # type: ignore[index]
            if any(a is None for a in alts):
                return None
            piece = "(" + "|".join(f"({a})" if a else "()" for a in alts) + ")"  # type: ignore[misc]
        else:
            return None  # back-references, conditionals: no ERE
        if piece is None:
            return None
        out.append(piece)
    return "".join(out)


def ere_superset(pattern: str, icase: bool) -> str | None:
    """``pattern`` (Python syntax, bytes semantics) as a GNU ERE matching a superset of
    its lines, or None. An ERE that matches the empty string (every line) is None too."""
    import re  # noqa: PLC0415 - the grep fallback only

    from rocmfix.kb.literals import _p  # noqa: PLC0415

    try:
        tree = _p.parse(pattern)
        ere = _ere(list(tree), icase or bool(tree.state.flags & re.IGNORECASE))
    except Exception:  # noqa: BLE001 - an unexpected node: no ERE, never a wrong one
        return None
    if not ere or re.fullmatch(ere, "") is not None:
        return None
    return ere


_GNU_GREP: list[str | None] = []


def _gnu_grep() -> str | None:
    """GNU grep's path (BusyBox and BSD grep lack or differ in the options used)."""
    if not _GNU_GREP:
        path = _which("grep")
        if path is not None:
            import subprocess  # noqa: PLC0415

            try:
                out = subprocess.run(  # noqa: S603 - fixed argv
                    [path, "--version"], capture_output=True, timeout=10, check=False
                ).stdout
            except (OSError, subprocess.SubprocessError):
                out = b""
            if not out.startswith(b"grep (GNU grep)"):
                path = None
        _GNU_GREP.append(path)
    return _GNU_GREP[0]


class _GrepFailed(Exception):
    """The grep prefilter could not run or met a line it does not handle: scan in Python."""


def _ere_literal(text: bytes) -> bytes:
    """``text`` as a GNU ERE matching it literally."""
    return b"".join(b"\\" + bytes([c]) if chr(c) in _ERE_SPECIAL else bytes([c]) for c in text)


def _grep_args(plan: tuple[list[bytes], list[bytes]]) -> list[bytes]:
    """One ``grep -E -i`` alternation of the literal texts and the superset EREs.

    GNU grep runs one alternation as one DFA over the text: ~3x faster than the
    same texts as separate ``-F`` or ``-e`` patterns (which it searches with its
    keyword matcher, slow for ~700 short texts). ``-i`` only widens the EREs,
    and a superset is all the prefilter needs (the exact regexes confirm)."""
    needles, eres = plan
    alt = b"|".join([*(_ere_literal(n) for n in needles), *(b"(" + e + b")" for e in eres)])
    return [b"-E", b"-i", b"-e", alt]


_PART_CHUNKS = 8
"""A part of a file grep reads in parallel with the others is at least this many chunks."""


def _cuts(fd: int, start: int, size: int, parts: int) -> list[int]:
    """Line starts cutting ``[start, size)`` into up to ``parts`` stretches of similar size."""
    cuts = [start]
    for k in range(1, parts):
        at = start + (size - start) * k // parts
        look = _pread(fd, 1 << 16, at - 1)
        i = look.find(b"\n")
        if i < 0:
            continue  # inside a very long line: one part fewer
        at += i
        if cuts[-1] < at < size:
            cuts.append(at)
    return cuts


def _feed(fd: int, a: int, b: int, pipe_w: int) -> None:
    """Copy ``[a, b)`` of ``fd`` into a pipe (``splice``: the kernel moves page references)."""
    import contextlib  # noqa: PLC0415 - the big-file path only
    import errno  # noqa: PLC0415

    try:
        with contextlib.suppress(OSError):
            import fcntl  # noqa: PLC0415

            fcntl.fcntl(pipe_w, 1031, 1 << 20)  # F_SETPIPE_SZ: fewer, larger moves
        pos = a
        splice = getattr(os, "splice", None)
        while pos < b:
            n = 0
            if splice is not None:
                try:
                    n = splice(fd, pipe_w, min(b - pos, 1 << 20), offset_src=pos)
                except OSError as err:
                    if err.errno not in (errno.EINVAL, errno.ENOSYS):
                        raise
                    splice = None  # a file system without splice: read and write
            if splice is None:
                block = os.pread(fd, min(b - pos, 1 << 20), pos)
                view = memoryview(block)
                while view:
                    view = view[os.write(pipe_w, view) :]
                n = len(block)
            if n <= 0:
                break
            pos += n
    except OSError:
        pass  # grep is gone (killed, or it failed): its reader reports that
    finally:
        os.close(pipe_w)


class _GrepPart:
    """One grep over ``[a, b)`` of a file; a thread confirms its lines with the exact regexes.

    The last part reads the file itself from ``a``; an earlier one reads a pipe
    that a thread fills with just its stretch. Confirmed lines are grouped by
    their bytes per 65,536 lines of the part (as the chunked scan groups them per
    chunk), with 0-based line numbers counted from the part's start."""

    def __init__(self, grep: str, fd: int, a: int, b: int, size: int, args: list[bytes]):
        import subprocess  # noqa: PLC0415

        self.a, self.failed, self.dropped = a, False, 0
        self.windows: list[list[tuple[bytes, int, int, int]]] = []
        self._feeder = None
        self.proc = None
        if b >= size:
            try:
                stdin = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY)  # its own offset
                os.lseek(stdin, a, os.SEEK_SET)
            except OSError:
                raise _GrepFailed from None
            pipe_w = -1
        else:
            stdin, pipe_w = os.pipe()
        try:
            self.proc = subprocess.Popen(  # noqa: S603 - fixed argv, the file on stdin
                [grep.encode(), b"-a", b"-n", *args],
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={"LC_ALL": "C"},
            )
        except OSError:
            if pipe_w >= 0:
                os.close(pipe_w)
            raise _GrepFailed from None
        finally:
            os.close(stdin)
        if pipe_w >= 0:
            import threading  # noqa: PLC0415

            self._feeder = threading.Thread(target=_feed, args=(fd, a, b, pipe_w), daemon=True)
            self._feeder.start()

    def collect(self, engine: _ReEngine) -> None:
        """Read and confirm grep's lines (run on a thread of its own)."""
        groups: dict[bytes, list[int]] = {}
        window = -1
        at_file_start = self.a == 0

        def flush() -> None:
            if groups:
                self.windows.append([(r, a, b, c) for r, (a, b, c) in groups.items()])
                groups.clear()

        try:
            for no, raw in _grep_rows(self.proc):  # type: ignore[arg-type]
                if not engine.check_line(raw, first=at_file_start and no == 0):
                    continue
                if no >> 16 != window:
                    flush()
                    window = no >> 16
                if not _tally(groups, raw, no):
                    self.dropped += 1
            flush()
        except (_GrepFailed, OSError, ValueError):
            self.failed = True
            self.kill()

    def kill(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def close(self) -> None:
        """Kill (when still running) and reap grep; the feeder ends with it."""
        proc = self.proc
        if proc is not None:
            self.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._feeder is not None:
            self._feeder.join()


def _grep_rows(proc: Any) -> Iterator[tuple[int, bytes]]:
    """``(0-based line, raw line)`` of each line a ``grep -n`` prints."""
    out = proc.stdout
    assert out is not None
    limit = _LONG_BYTES + 32
    while True:
        row = out.readline(limit)
        if not row:
            break
        if not row.endswith(b"\n"):
            row_end = out.read(1)
            if row_end:  # a line longer than the exact check reads: scan in Python
                raise _GrepFailed
        no, _, raw = row.partition(b":")
        yield int(no) - 1, raw[:-1] if raw.endswith(b"\n") else raw
    if proc.wait() not in (0, 1):
        raise _GrepFailed


def _grep_scan(
    fd: int, start: int, size: int, engine: _ReEngine, state: _State, counter: _LineCounter
) -> bool:
    """Add the lines grep picks and the exact regexes confirm to ``state``; False (and
    ``state`` untouched) when grep cannot do it here.

    The file is cut at line starts into one part per core, each read by a grep of
    its own; ``wc -l`` on each part's rest of the file says where its line numbers
    begin (``counter`` counts the whole file)."""
    if not engine.use_grep:
        return False
    grep = _gnu_grep()
    plan = engine.grep_plan()
    if grep is None or plan is None:
        return False
    import threading  # noqa: PLC0415

    args = _grep_args(plan)
    parts = max(1, min(_workers(), (size - start) // (_PART_CHUNKS * CHUNK)))
    cuts = _cuts(fd, start, size, parts) if parts > 1 else [start]
    greps: list[_GrepPart] = []
    rests: list[_LineCounter] = []
    threads: list[threading.Thread] = []
    try:
        for k, a in enumerate(cuts):
            b = cuts[k + 1] if k + 1 < len(cuts) else size
            greps.append(_GrepPart(grep, fd, a, b, size, args))
            if k:
                rests.append(_LineCounter(fd, a, size))
        for part in greps:
            threads.append(threading.Thread(target=part.collect, args=(engine,), daemon=True))
            threads[-1].start()
        for t in threads:
            t.join()
        if any(part.failed for part in greps):
            return False
        total = counter.total()
        bases = [0, *(total - rest.total() for rest in rests)]
    except _GrepFailed:
        return False
    finally:
        for part in greps:
            part.close()
        for t in threads:
            t.join()
        for rest in rests:
            rest.close()
    for part, base in zip(greps, bases, strict=True):
        state.dropped += part.dropped
        for rows in part.windows:
            for raw, a, b, c in rows:
                text = clean_line(_decode(raw))
                if text:
                    state.add(text, base + a + 1, base + b + 1, c)
    return True


class _NotPlain(Exception):
    """The file needs the stream path (CR-only line ends)."""


_BINARY_READ_MAX = 64 * 1024 * 1024
"""How much of a stream that starts as binary data is read before giving up on it."""


def extract_stream(
    stream: BinaryIO, engine: _ReEngine | _HyperscanEngine | Callable[[], _ReEngine | _HyperscanEngine]
) -> Excerpt:
    """Scan a binary stream chunk by chunk and return what matters.

    ``engine`` may be a function returning it: on a large plain file the line
    counter (a second process) then starts before the engine is built (loading its
    databases takes ~30 ms during which the other core would idle).

    Each chunk is one ``read`` (no joins): the line cut by a chunk boundary is
    put together on its own, the whole lines in between are scanned in place.
    With Hyperscan, chunks are scanned on worker threads (the scan releases
    the GIL) while this thread reads ahead and counts lines.
    """
    plain = _regular_fd(stream)
    if plain is not None:
        counter = _LineCounter(*plain)
        if callable(engine):
            try:
                engine = engine()
            except BaseException:
                counter.close()
                raise
        try:
            return _extract_file(*plain, engine, counter)
        except _NotPlain:
            stream.seek(plain[1])
    if callable(engine):
        engine = engine()
    scan = _Scan(engine)
    size = max(CHUNK, 64)
    total = 0
    first: bytes | None = None
    binary_head = False
    short: list[bytes] | None = []
    cr_mode = False
    carry = b""
    long_lines = 0
    in_long = False
    pool = None
    pending: deque[tuple[bytes, int, int, Any]] = deque()
    depth = _workers() + 1 if engine.name == "hyperscan" and _workers() > 1 else 1

    def drain(limit: int) -> None:
        while len(pending) > limit:
            src, a, b, hits = pending.popleft()
            if a < 0:  # a line put together from two reads
                scan.line(src, bool(hits))
            else:
                scan.span(src, a, b, hits if isinstance(hits, list) else hits.result())

    try:
        while True:
            try:
                block = stream.read(size)
            except (OSError, EOFError, ValueError) as err:
                raise InputError(f"cannot read input ({err})") from None
            if not block:
                break
            if first is None:
                first = block[: SHORT_INPUT + 1]
                cr_mode = b"\n" not in block and b"\r" in block.rstrip(b"\r")
                binary_head = _looks_binary(first)
            if binary_head and total > _BINARY_READ_MAX:
                break  # binary from the start (/dev/zero on stdin): stop, do not read to the end
            if short is not None:  # a decompressor or a pipe may return short reads
                short.append(block)
                if total + len(block) > SHORT_INPUT:
                    short = None
            if cr_mode:
                block = block.translate(_CR_TO_LF)
            total += len(block)
            nl = block.find(b"\n")
            if nl < 0:  # still inside one line
                carry += block
                if len(carry) > _LONG_BYTES:
                    carry = _long_head_tail(carry)
                    if not in_long:
                        long_lines += 1
                        in_long = True
                continue
            last = block.rfind(b"\n")
            joined = carry + block[:nl]
            if len(joined) > _LONG_BYTES:
                joined = _long_head_tail(joined)
                long_lines += not in_long
            pending.append((joined, -1, -1, engine.scan(joined)))
            in_long = False
            if last > nl:
                a, b = nl + 1, last + 1
                if depth > 1 and b - a > (1 << 20):
                    if pool is None:
                        pool = _Pool(depth - 1)
                    pending.append((block, a, b, pool.submit(engine.scan, block, a, b)))
                else:
                    pending.append((block, a, b, engine.scan(block, a, b)))
            drain(2 * depth)
            carry = block[last + 1 :]
        drain(0)
        if carry:
            if len(carry) > _LONG_BYTES:
                carry = _long_head_tail(carry)
                long_lines += not in_long
            scan.line(carry, bool(engine.scan(carry)))
    finally:
        if pool is not None:
            pool.shutdown()
    first = first or b""
    full = None
    if total <= SHORT_INPUT and short is not None:
        text = b"".join(short).decode("utf-8", "replace")
        full = "\n".join(clean_line(x) for x in split_lines(text))
    return Excerpt(
        bytes=total,
        lines=scan.lines,
        findings=scan.state.findings(),
        tail=tuple((no, t) for no, raw in scan.tail if (t := clean_line(_decode(raw)))),
        full_text=full,
        dropped=scan.state.dropped,
        binary=_looks_binary(first),
        long_lines=long_lines,
    )


def extract_text(text: str, engine: _ReEngine | _HyperscanEngine) -> Excerpt:
    """Extract from an in-memory string (a pasted error or a command-line argument)."""
    return extract_stream(io.BytesIO(text.encode("utf-8", errors="replace")), engine)
