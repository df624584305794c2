"""Typed model of a knowledge-base entry (format: docs/kb-schema.md).

Entries are immutable once loaded; the matcher, the CLI and the TUI all read
the same objects. Localised text is a mapping ``lang -> text`` with English
always present; :meth:`Entry.text` falls back to English.
"""

from __future__ import annotations

from rocmfix import _rx
from rocmfix._record import field, record

TYPE_CHECKING = False  # typing and collections are not imported at run time (start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping

SEVERITIES = ("error", "benign")
RISKS = ("low", "medium", "high")


def pick(text: Mapping[str, str], lang: str) -> str:
    """The ``lang`` variant of a localised string, falling back to English."""
    chosen = text.get(lang)
    if chosen and lang == "zh":
        return tidy_cjk(chosen)
    return chosen or text.get("en", "")


_CJK = "\u3400-\u9fff\uf900-\ufaff"
_CJK_OPEN = "（「『《【“‘"
_CJK_CLOSE = "。，、；：！？）」』》】”’"
_CJK_GAP = _rx.compile(
    rf"(?<=[{_CJK}{_CJK_CLOSE}])[ \t]*\n[ \t]*(?=[{_CJK}{_CJK_OPEN}{_CJK_CLOSE}])"  # a folded line
    rf"|(?<=[{_CJK_CLOSE}])[ \t]+"  # a space after full-width punctuation
    rf"|[ \t]+(?=[{_CJK_CLOSE}])"  # a space before it
    rf"|(?<=[{_CJK}])[ \t]+(?=[{_CJK}{_CJK_OPEN}])"  # a space between two Chinese characters
)


def tidy_cjk(text: str) -> str:
    """Chinese text without the spaces a folded YAML line or a joined sentence left.

    Chinese has no spaces between words or after its full-width punctuation;
    a space between a Chinese character and a Latin word (``GPU 上``) is the
    usual style and is kept, as are paragraph breaks (blank lines).
    """
    return _CJK_GAP.sub("", text)


@record
class Signature:
    """A pattern that identifies an entry in a line of text."""

    pattern: str
    """Regex source, or the literal text when ``literal`` is true."""
    weight: float
    """0..1: >= 0.8 decisive; < 0.5 only supports a stronger hit."""
    literal: bool = False
    ignore_case: bool = False
    amd_weight: float | None = None
    """Weight when the text shows an AMD/ROCm machine and nothing of NVIDIA: for
    CUDA-worded messages that ROCm builds print too ("No CUDA GPUs are available")."""

    @property
    def decisive(self) -> bool:
        return self.weight >= 0.8

    @property
    def supporting(self) -> bool:
        return self.weight < 0.5


@record
class Extractor:
    """A named value pulled from matching text (first capture group)."""

    name: str
    regex: str


@record
class Fix:
    """One way to fix an entry: a built-in action, or manual steps to type."""

    text: Mapping[str, str]
    """What the step does, localised."""
    action: str | None = None
    """Built-in action id (rocmfix.actions) or None for a manual step."""
    params: Mapping[str, object] = field(default_factory=dict)
    """Typed action parameters; strings may hold ``{placeholders}``."""
    commands: tuple[str, ...] = ()
    """Commands shown for the user to type; rocmfix never runs these."""
    risk: str = "low"
    root: bool = False
    when: tuple[str, ...] = ()
    """Parameter names that must be known for this fix to be offered."""


@record
class Entry:
    """One root cause (or one benign, expected line) in the knowledge base."""

    id: str
    title: Mapping[str, str]
    summary: Mapping[str, str]
    explanation: Mapping[str, str]
    severity: str = "error"
    priority: int = 50
    caveats: Mapping[str, str] = field(default_factory=dict)
    signatures: tuple[Signature, ...] = ()
    excludes: tuple[Signature, ...] = ()
    symptoms: tuple[str, ...] = ()
    extract: tuple[Extractor, ...] = ()
    checks: tuple[str, ...] = ()
    fixes: tuple[Fix, ...] = ()
    references: tuple[str, ...] = ()
    origin: str = ""
    """File the entry was loaded from."""

    @property
    def benign(self) -> bool:
        return self.severity == "benign"

    def text(self, name: str, lang: str = "en") -> str:
        """Localised value of ``title``, ``summary``, ``explanation`` or ``caveats``."""
        return pick(getattr(self, name), lang)


@record
class KnowledgeBase:
    """All entries in load order, plus the user files that were skipped."""

    entries: tuple[Entry, ...]
    sources: tuple[str, ...] = ()
    """Files merged, in order."""
    problems: tuple[str, ...] = ()
    """One message per user KB file that was invalid and skipped."""

    def get(self, entry_id: str) -> Entry | None:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        return None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.entries)
