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

import gzip
import hashlib
import io
import os
import re
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from rocmfix.errors import InputError

CHUNK = 8 * 1024 * 1024
MAX_LINE = 4096
"""Characters of one line kept for analysis (a 100 MB line keeps its head)."""
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

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_PREFIX_RE = re.compile(
    r"^(?:"
    r"\s*\[(?:rank|default|Rank )\s*\d+\]:?\s*"  # [rank3]: / [default0]:
    r"|\s*\d+:\s(?=\S)"  # torchrun "3: " prefixes
    r"|\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s*"
    r"|\s*\[\d{2}:\d{2}:\d{2}(?:\.\d+)?\]\s*"
    r"|\s*[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \S+ \S+?:\s*"  # syslog
    r"|\s*\[\s*\d+\.\d+\]\s*"  # dmesg [ 1234.5678]
    r")+"
)
_VOLATILE_RE = re.compile(r"0x[0-9a-fA-F]+|\b\d+(?:\.\d+)?\b")
_HS_UNSUPPORTED = re.compile(r"\(\?<?[=!]|\\[1-9]|\(\?P=")
_FATAL_RE = re.compile("|".join(f"(?:{p})" for p in FATAL_PATTERNS))


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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

    @property
    def last_fatal(self) -> Finding | None:
        fatal = [f for f in self.findings if f.fatal]
        return max(fatal, key=lambda f: f.last_line) if fatal else None

    @property
    def first_fatal(self) -> Finding | None:
        fatal = [f for f in self.findings if f.fatal]
        return min(fatal, key=lambda f: f.first_line) if fatal else None


def clean_line(raw: str) -> str:
    """Strip colours, progress-bar overwrites, rank/timestamp prefixes and NULs."""
    if "\x1b" in raw:
        raw = _ANSI_RE.sub("", raw)
    raw = raw.replace("\x00", "").rstrip("\r\n")
    if "\r" in raw:
        parts = [p for p in raw.split("\r") if p.strip()]
        raw = parts[-1] if parts else ""
    raw = _PREFIX_RE.sub("", raw, count=1)
    return raw.strip()[:MAX_LINE]


def dedup_key(text: str) -> str:
    """Key under which repeats of a line collapse (numbers and addresses ignored)."""
    return _VOLATILE_RE.sub("#", text)


# ----------------------------------------------------------------- engines


class _ReEngine:
    """Fallback: one combined ``re`` alternation over the raw bytes."""

    name = "re"

    def __init__(self, patterns: Sequence[tuple[str, bool]]):
        parts = []
        for source, icase in patterns:
            try:
                re.compile(source.encode("utf-8"))
                parts.append(
                    b"(?i:" + source.encode() + b")" if icase else b"(?:" + source.encode() + b")"
                )
            except re.error:
                continue
        self._re = re.compile(b"|".join(parts)) if parts else None

    def scan(self, chunk: bytes) -> list[int]:
        if self._re is None:
            return []
        return [m.start() for m in self._re.finditer(chunk)]


class _HyperscanEngine:
    """Hyperscan database; patterns it cannot compile go to a small ``re`` fallback."""

    name = "hyperscan"

    def __init__(self, patterns: Sequence[tuple[str, bool]], hyperscan: object):
        hs = hyperscan
        self._patterns = list(patterns)
        good: list[tuple[bytes, int, str, bool]] = []
        rest: list[tuple[str, bool]] = []
        for source, icase in patterns:
            flags = hs.HS_FLAG_CASELESS if icase else 0  # type: ignore[attr-defined]
            if _HS_UNSUPPORTED.search(source):
                # Lookarounds: prefilter mode matches a superset; the matcher re-checks
                # every candidate line with the exact Python regex anyway.
                flags |= hs.HS_FLAG_PREFILTER  # type: ignore[attr-defined]
            good.append((source.encode("utf-8"), flags, source, icase))
        self._db = _load_cached_db(hs, good) or self._compile(hs, good, cache=True)
        if self._db is None and good:
            # Find the few patterns Hyperscan refuses, one by one (only on this error path).
            ok = []
            for item in good:
                if self._compile(hs, [item]) is None:
                    rest.append((item[2], item[3]))
                else:
                    ok.append(item)
            self._db = self._compile(hs, ok)
        self._fallback = _ReEngine(rest) if rest else None

    @staticmethod
    def _compile(
        hs: object, items: Sequence[tuple[bytes, int, str, bool]], cache: bool = False
    ) -> object | None:
        if not items:
            return None
        db = hs.Database()  # type: ignore[attr-defined]
        try:
            db.compile(
                expressions=[i[0] for i in items],
                ids=list(range(len(items))),
                flags=[i[1] for i in items],
            )
        except Exception:  # noqa: BLE001 - hyperscan.error; the caller falls back to re
            return None
        if cache:
            _store_cached_db(hs, items, db)
        return db

    def scan(self, chunk: bytes) -> list[int]:
        hits: list[int] = []
        if self._db is not None:

            def on_match(_id: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
                hits.append(to - 1 if to else 0)

            try:
                self._db.scan(chunk, match_event_handler=on_match)
            except Exception:  # noqa: BLE001 - hyperscan.error: never let the engine break explain
                self._db = None
                self._fallback = _ReEngine(self._patterns)
                return self._fallback.scan(chunk)
        if self._fallback is not None:
            hits.extend(self._fallback.scan(chunk))
        return hits


# Compiling the KB's patterns takes ~0.2 s; the compiled database is cached on
# disk, keyed by the exact patterns, flags and Hyperscan version.
def _db_cache_path(hs: object, items: Sequence[tuple[bytes, int, str, bool]]) -> Path:
    h = hashlib.sha256(str(getattr(hs, "__version__", "")).encode())
    for expr, flags, _, _ in items:
        h.update(expr + b"\0" + str(flags).encode() + b"\0")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rocmfix" / f"hs-{h.hexdigest()[:32]}.db"


def _load_cached_db(hs: object, items: Sequence[tuple[bytes, int, str, bool]]) -> object | None:
    try:
        data = _db_cache_path(hs, items).read_bytes()
        db = hs.loadb(data, hs.HS_MODE_BLOCK)  # type: ignore[attr-defined]
        db.scratch = hs.Scratch(db)  # a loaded database has no scratch space yet
        db.scan(b"probe\n", match_event_handler=lambda *_: None)
        return db
    except Exception:  # noqa: BLE001 - missing or stale cache: compile instead
        return None


def _store_cached_db(hs: object, items: Sequence[tuple[bytes, int, str, bool]], db: object) -> None:
    path = _db_cache_path(hs, items)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(hs.dumpb(db))  # type: ignore[attr-defined]
        os.replace(tmp, path)
    except (OSError, TypeError, ValueError):
        pass  # a read-only cache only costs speed


def make_engine(
    patterns: Iterable[tuple[str, bool]], prefer: str = "auto"
) -> _ReEngine | _HyperscanEngine:
    """Build the fastest available multi-pattern engine for ``(regex, ignore_case)`` pairs."""
    pats = list(
        dict.fromkeys([(p, ic) for p, ic in patterns] + [(p, False) for p in FATAL_PATTERNS])
    )
    if prefer in ("auto", "hyperscan"):
        try:
            import hyperscan  # noqa: PLC0415 - optional, heavy native module

            return _HyperscanEngine(pats, hyperscan)
        except ImportError:
            if prefer == "hyperscan":
                raise
    return _ReEngine(pats)


# ----------------------------------------------------------------- reading


def open_input(path: str | Path) -> BinaryIO:
    """Open a plain or gzip file for binary reading.

    Raises:
        InputError: the file is missing, a directory or unreadable.
    """
    p = Path(path)
    try:
        fh: BinaryIO = p.open("rb")
    except FileNotFoundError:
        raise InputError(
            f"{p}: no such file", hint="check the path, or pipe the log: ... | rocmfix explain -"
        ) from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a log file") from None
    except PermissionError:
        raise InputError(f"{p}: permission denied") from None
    except OSError as err:
        raise InputError(f"{p}: cannot read ({err.strerror})") from None
    magic = fh.peek(2)[:2] if hasattr(fh, "peek") else b""
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=fh, mode="rb")  # type: ignore[return-value]
    return fh


def _looks_binary(head: bytes) -> bool:
    """Mostly control bytes or invalid UTF-8 in the first block: not a text log."""
    sample = head[:65536].decode("utf-8", errors="replace")
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r\f\x1b"))
    return bad / len(sample) > 0.3


@dataclass
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


def _hit_lines(chunk: bytes, offsets: list[int]) -> list[tuple[int, int]]:
    """Unique ``(start, end)`` byte spans of the lines containing ``offsets``."""
    spans: list[tuple[int, int]] = []
    last_end = -1
    for off in sorted(offsets):
        if off < last_end:
            continue
        start = chunk.rfind(b"\n", 0, off) + 1
        end = chunk.find(b"\n", off)
        end = len(chunk) if end < 0 else end
        spans.append((start, end))
        last_end = end + 1
    return spans


def _decode(raw: bytes) -> str:
    if len(raw) > MAX_LINE * 4:
        raw = raw[: MAX_LINE * 4]
    return raw.decode("utf-8", errors="replace")


def extract_stream(stream: BinaryIO, engine: _ReEngine | _HyperscanEngine) -> Excerpt:
    """Scan a binary stream chunk by chunk and return what matters."""
    state = _State()
    total = 0
    lines_before = 0  # newlines seen before the current chunk
    carry = b""
    tail: deque[tuple[int, str]] = deque(maxlen=TAIL_LINES)
    short_buf: list[bytes] | None = []
    binary: bool | None = None
    last_newline = False
    while True:
        try:
            block = stream.read(CHUNK)
        except (OSError, EOFError, gzip.BadGzipFile) as err:
            raise InputError(f"cannot read input ({err})") from None
        if binary is None:
            binary = _looks_binary(block)
        total += len(block)
        if block:
            last_newline = block.endswith(b"\n")
        if short_buf is not None:
            short_buf.append(block)
            if total > SHORT_INPUT:
                short_buf = None
        if block:
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                if len(carry) + len(block) <= CHUNK:
                    carry += block
                    continue
                # One enormous line: analyse its head, keep scanning without growing memory.
                data = carry + block
                carry = data[-MAX_LINE:]
                data = data[:-MAX_LINE]
            elif carry or cut < len(block):
                data = b"".join((carry, memoryview(block)[:cut]))  # one copy, not two
                carry = block[cut:]
            else:
                data = block
        else:
            data, carry = carry, b""
        n_chunk = data.count(b"\n")
        _scan_chunk(data, engine, state, lines_before)
        _update_tail(tail, data, lines_before, n_chunk)
        lines_before += n_chunk
        if not block:
            break
    n_lines = lines_before + (1 if total and not last_newline else 0)
    full = None
    if short_buf is not None:
        full = "\n".join(
            clean_line(x) for x in b"".join(short_buf).decode("utf-8", "replace").split("\n")
        )
    return Excerpt(
        bytes=total,
        lines=n_lines,
        findings=state.findings(),
        tail=tuple(tail),
        full_text=full,
        dropped=state.dropped,
        binary=bool(binary),
    )


def _scan_chunk(
    data: bytes, engine: _ReEngine | _HyperscanEngine, state: _State, lines_before: int
) -> None:
    """Record the matching lines of one chunk; identical raw lines are cleaned once."""
    if not data:
        return
    groups: dict[bytes, list[int]] = {}
    pos, line_no = 0, lines_before
    for start, end in _hit_lines(data, engine.scan(data)):
        line_no += data.count(b"\n", pos, start)
        pos = start
        raw = data[start : min(end, start + MAX_LINE * 4)]
        group = groups.get(raw)
        if group is None:
            if len(groups) >= MAX_HITS_PER_CHUNK:
                state.dropped += 1
                continue
            groups[raw] = [line_no + 1, line_no + 1, 1]
        else:
            group[1] = line_no + 1
            group[2] += 1
    for raw, (first, last, count) in groups.items():
        text = clean_line(_decode(raw))
        if text:
            state.add(text, first, last, count)


def _update_tail(
    tail: deque[tuple[int, str]], data: bytes, lines_before: int, n_chunk: int
) -> None:
    """Keep the chunk's last lines; only they can reach the tail."""
    if not data:
        return
    idx = len(data) - 1 if data.endswith(b"\n") else len(data)
    for _ in range(TAIL_LINES):
        idx = data.rfind(b"\n", 0, idx)
        if idx < 0:
            break
    start = idx + 1
    first_no = lines_before + n_chunk - data.count(b"\n", start) + 1
    for offset, raw in enumerate(data[start:].split(b"\n")):
        text = clean_line(_decode(raw))
        if text:
            tail.append((first_no + offset, text))


def extract_text(text: str, engine: _ReEngine | _HyperscanEngine) -> Excerpt:
    """Extract from an in-memory string (a pasted error or a command-line argument)."""
    return extract_stream(io.BytesIO(text.encode("utf-8", errors="replace")), engine)
