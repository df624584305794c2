"""Fuzzy matching of short, hand-typed symptoms ("stuck at the first epoch").

Only inputs of a few hundred characters go through here: a pasted log is
matched by its signatures. Two views of resemblance, the better one wins:
rapidfuzz's character-level similarity (typos, word order) and a
rarity-weighted overlap of content words (paraphrases). A phrase that fits
several entries well names none of them with confidence.
"""

from __future__ import annotations

import math

from rocmfix import _rx
from rocmfix._record import cached_property

TYPE_CHECKING = False  # typing and collections are not imported at run time (start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rocmfix.kb.model import Entry

MAX_CHARS = 400
"""Longer inputs are logs, not typed symptoms."""
THRESHOLD = 70.0
"""Resemblance (0..100) below which an entry is not a candidate."""
AMD_CAP = 80.0
"""The most a symptom that names AMD's GPU stack scores in a text that names none of it
(confidence 0.45: "possibly related")."""
# A symptom that says something is not so ("not detected", "returns False") names its
# entry only in a text with some word of trouble (``_TROUBLE``).
_NEGATION = _rx.compile(
    r"(?i)\b(?:not|no|cannot|never|unable|without|false|fails?|failed|dont|doesnt|cant|wont|isnt)\b|"
    r"n['’]t\b|[不没]|无法|失败"
)
# A word of trouble: a failure, a question, an error word (a report of any problem has one).
_TROUBLE = _rx.compile(
    r"(?i)\b(?:not|no|cannot|never|unable|without|false|none|nothing|zero|only|still|anymore|"
    r"dont|doesnt|cant|wont|isnt|didnt)\b|n['’]t\b|"
    r"error|fail|crash|broke|wrong|issue|problem|stuck|hang|freez|froze|slow|missing|denied|"
    r"unsupported|segfault|segmentation|abort|killed|timeout|help|\?|？|"
    r"[不没]|无法|失败|错误|报错|问题|崩溃|卡住|卡死|死机|慢"
)
_GATE = THRESHOLD - 0.5  # an upper bound below this cannot reach THRESHOLD (float margin)
_TABLES_VERSION = "symptom-tables-4"
"""Bump when content_words, ascii_process or the tables' layout change (cache key)."""


class SymptomIndex:
    """The symptom phrasings of a set of entries, ready for fuzzy lookups."""

    def __init__(self, entries: Sequence[Entry], *, use_cache: bool = False):
        """``use_cache``: keep the derived tables (each symptom's words and tokens, the
        idf, whether it names AMD's stack) in the user cache, keyed by every entry's
        symptoms (a one-line explain otherwise spends ~1.5 ms rebuilding them, and ~9 ms
        more for the AMD flags)."""
        self._entries = tuple(entries)
        if use_cache:
            self._from_cache()

    def _from_cache(self) -> None:
        from rocmfix._quick import cached  # noqa: PLC0415

        key = [_TABLES_VERSION, _amd_words_key()]
        for e in self._entries:
            key.append("\x1e".join(e.symptoms))
        flat, idf, gate, amd = cached(
            "symptoms",
            "\x1f".join(key).encode("utf-8", "surrogatepass"),
            lambda: (self._flat, self._idf, self._gate_tokens, self._names_amd),
        )
        self.__dict__.update(_flat=flat, _idf=idf, _gate_tokens=gate, _names_amd=amd)

    @cached_property
    def _idf(self) -> dict[str, float]:
        docs = [words for _, _, words in self._flat]  # each symptom's words, computed once
        counts: dict[str, int] = {}
        for doc in docs:
            for word in doc:
                counts[word] = counts.get(word, 0) + 1
        n = max(len(docs), 1)
        return {w: math.log(1 + n / c) for w, c in counts.items()}

    @cached_property
    def _flat(self) -> tuple[tuple[int, str, frozenset[str]], ...]:
        """Every (entry index, symptom, its content words), in entry order."""
        return tuple(
            (i, symptom, content_words(symptom))
            for i, e in enumerate(self._entries)
            for symptom in e.symptoms
        )

    def scores(self, text: str, settled: frozenset[str] = frozenset()) -> dict[str, float]:
        """0..100 resemblance of ``text`` to each entry that reaches the threshold.

        ``settled``: entries whose score the caller will not use whatever it is; their
        character similarity is computed only when another entry needs rapidfuzz anyway
        (else their value is the word overlap alone).
        """
        if len(text) > MAX_CHARS or not text.strip():
            return {}
        if text.isascii():
            query = ascii_process(text)
        else:
            from rapidfuzz import utils  # noqa: PLC0415

            query = utils.default_process(text)
        words = content_words(text)
        tokens = query.split()
        if len(tokens) < 2 or not words:
            return {}
        flat = self._flat
        best = [0.0] * len(flat)  # per symptom
        if not text.isascii() or self._may_reach(frozenset(tokens), settled):
            self._char_scores(text, best)
        idf = self._idf
        rare = max(idf.values(), default=1.0)  # once, not once per symptom
        for k, (_i, _symptom, sym_words) in enumerate(flat):
            if words.isdisjoint(sym_words):
                continue  # no shared word: the overlap is 0
            # Half the weighted words shared is as telling as a 70% character match.
            cosine = overlap(words, sym_words, idf, rare)
            if cosine >= 0.5:
                best[k] = max(best[k], 70 + (cosine - 0.5) * 60)
        if not text.isascii():
            self._cjk_scores(words, best)
        return self._by_entry(text, best)

    def _by_entry(self, text: str, best: list[float]) -> dict[str, float]:
        """Each entry's best symptom score at or above the threshold.

        A symptom that names AMD's GPU stack ("... on my AMD GPU", "ROCm ...", "AMD 显卡")
        says that stack is where it happens: in a text that names nothing of AMD's (a game
        freezing the PC, a NAS to reboot) the rest of its words may still fit, and there it
        counts up to ``AMD_CAP`` (a possible cause, never a named one). Where such a
        symptom led the field, or made it ambiguous, every entry stays at ``AMD_CAP`` or
        below: lowering one entry alone would name a runner-up that its resemblance to
        the leader had kept unnamed (see :func:`confidences`). The same holds for a
        symptom that says something is not so ("GPU not detected in the container",
        "is_available() returns False") in a text with no word of trouble at all ("detected
        fine in the container", "returns True"): the words fit, the report is the opposite.
        """
        flat = self._flat
        raw: dict[str, float] = {}
        plain: dict[str, float] = {}  # per entry, the best of symptoms whose context the text has
        has: dict[str, bool] = {}  # what the text holds, asked once and only where it matters
        for k, score in enumerate(best):
            if score < THRESHOLD:
                continue
            eid = self._entries[flat[k][0]].id
            if score > raw.get(eid, 0.0):
                raw[eid] = score
            if score > plain.get(eid, 0.0) and (
                score <= AMD_CAP or self._context_met(k, text, has)
            ):
                plain[eid] = score
        lifted = {e for e, v in raw.items() if v > plain.get(e, 0.0)}  # unmet context led it there
        if not lifted:
            return raw
        ranked = sorted(raw.values(), reverse=True)
        if _ambiguous(ranked) or max(raw, key=lambda e: (raw[e], e in lifted)) in lifted:
            return {e: min(v, AMD_CAP) for e, v in raw.items()}
        return {e: max(plain.get(e, 0.0), AMD_CAP) if e in lifted else v for e, v in raw.items()}

    def _context_met(self, k: int, text: str, has: dict[str, bool]) -> bool:
        """Whether ``text`` holds what symptom ``k`` takes for granted: AMD's stack where the
        symptom names it, a word of trouble where the symptom is a negation ("not detected",
        "returns False"): "detected fine", "returns True" are no report of it."""
        if self._names_amd[k]:
            if "amd" not in has:
                has["amd"] = _text_names_amd(text)
            if not has["amd"]:
                return False
        if self._negated[k]:
            if "trouble" not in has:
                has["trouble"] = bool(_TROUBLE.search(text))
            if not has["trouble"]:
                return False
        return True

    @cached_property
    def _negated(self) -> tuple[bool, ...]:
        """Per symptom: whether it says something is not so ("not detected", "False")."""
        return tuple(bool(_NEGATION.search(symptom)) for _, symptom, _ in self._flat)

    @cached_property
    def _names_amd(self) -> tuple[bool, ...]:
        """Per symptom: whether its own words name AMD's GPU stack."""
        return tuple(_text_names_amd(symptom) for _, symptom, _ in self._flat)

    def _cjk_scores(self, words: frozenset[str], best: list[float]) -> None:
        """Containment of Chinese symptoms into ``best``.

        Chinese has no spaces, so rapidfuzz's token views see one long token and a short
        symptom inside a sentence never reaches the threshold; an English symptom whose
        words all appear in a short text scores ~85 there. The same bar here: the share
        of a Chinese symptom's rarity-weighted words (bigrams) the text holds, 0.8 -> 70,
        all of them -> 85.
        """
        idf = self._idf
        for k, (_i, symptom, sym_words) in enumerate(self._flat):
            if symptom.isascii() or len(sym_words) < 3 or not _CJK_RUN.search(symptom):
                continue  # other symptoms are scored above; very short ones are too loose
            total = sum(idf.get(w, 1.0) for w in sym_words)
            share = sum(idf.get(w, 1.0) for w in sym_words & words) / total if total else 0.0
            if share >= 0.8:
                best[k] = max(best[k], 70 + (share - 0.8) * 75)

    def _char_scores(self, text: str, best: list[float]) -> None:
        """Character similarity into ``best``: min(token_set_ratio, WRatio) per symptom.

        It counts only at or above the threshold, so the batch pass (in C) keeps the
        symptoms whose token_set_ratio gets there and WRatio is computed for those alone.
        """
        from rapidfuzz import fuzz, process, utils  # noqa: PLC0415 - only short inputs need it

        query = utils.default_process(text)
        flat = self._flat
        for _choice, tsr, k in process.extract(
            query, self._processed, scorer=fuzz.token_set_ratio, limit=None, score_cutoff=THRESHOLD
        ):
            symptom = flat[k][1]
            chars = min(tsr, fuzz.WRatio(query, symptom, processor=utils.default_process))
            best[k] = max(best[k], chars)

    @cached_property
    def _gate_tokens(self) -> tuple[frozenset[str], ...]:
        """Each symptom's rapidfuzz tokens, computed without rapidfuzz."""
        return tuple(
            frozenset(
                (ascii_process(symptom) if symptom.isascii() else unicode_process(symptom)).split()
            )
            for _, symptom, _ in self._flat
        )

    def _may_reach(self, tokens: frozenset[str], settled: frozenset[str]) -> bool:
        """Whether any symptom's token_set_ratio with these query tokens can reach the threshold.

        An upper bound, so that rapidfuzz (~10 ms to import) is loaded only when a
        symptom could score: the same terms as rapidfuzz's token_set_ratio (its
        edit distance from a bit-parallel LCS, tested against rapidfuzz).
        """
        entries = self._entries
        for (i, _, _), sym in zip(self._flat, self._gate_tokens, strict=True):
            if entries[i].id in settled:
                continue
            if upper_token_set_ratio(tokens, sym) >= _GATE:
                return True
        return False

    @cached_property
    def _processed(self) -> list[str]:
        from rapidfuzz import utils  # noqa: PLC0415

        return [utils.default_process(symptom) for _, symptom, _ in self._flat]

    def hints(self, text: str, minimum: float = 0.7) -> dict[str, float]:
        """Entries whose symptom phrasing a longer text mostly contains (0..1).

        For pastes too long for character similarity: the share of a symptom's
        rarity-weighted words present anywhere in the text. Only ever a hint
        ("possibly related"), never a cause by itself.
        """
        words = content_words(text)
        if not words:
            return {}
        idf = self._idf
        out: dict[str, float] = {}
        for entry in self._entries:
            best = 0.0
            for symptom in entry.symptoms:
                want = content_words(symptom)
                if len(want) < 3:
                    continue
                total = sum(idf.get(w, 1.0) for w in want)
                best = max(
                    best, sum(idf.get(w, 1.0) for w in want & words) / total if total else 0.0
                )
            if best >= minimum:
                out[entry.id] = best
        return out


# rapidfuzz.utils.default_process on ASCII: every character but a letter or a digit
# becomes a space, letters are lower-cased, the ends are stripped.
_ASCII_PROCESS = {c: (chr(c).lower() if chr(c).isalnum() else " ") for c in range(128)}


def ascii_process(text: str) -> str:
    """``rapidfuzz.utils.default_process(text)`` for an ASCII ``text``, without rapidfuzz."""
    return text.translate(_ASCII_PROCESS).strip()


def unicode_process(text: str) -> str:
    """``rapidfuzz.utils.default_process(text)`` for any ``text`` (slower than
    :func:`ascii_process`): lower-cased, every non-alphanumeric character a space."""
    return "".join(c.lower() if c.isalnum() else " " for c in text).strip()


def _joined_len(tokens: frozenset[str] | set[str]) -> int:
    return sum(map(len, tokens)) + len(tokens) - 1 if tokens else 0


def lcs_len(x: str, y: str) -> int:
    """Length of the longest common subsequence (bit-parallel, Hyyrö 2004)."""
    masks: dict[str, int] = {}
    for i, c in enumerate(x):
        masks[c] = masks.get(c, 0) | (1 << i)
    full = (1 << len(x)) - 1
    v = full
    for c in y:
        u = v & masks.get(c, 0)
        v = ((v + u) | (v - u)) & full
    return len(x) - bin(v).count("1")


def upper_token_set_ratio(a: frozenset[str], b: frozenset[str]) -> float:
    """rapidfuzz's token_set_ratio for two token sets (0..100), computed here; the gate
    uses it as an upper bound with a margin for rounding."""
    if not a or not b:
        return 0.0
    sect = a & b
    ab = a - b
    ba = b - a
    if sect and (not ab or not ba):
        return 100.0
    sect_len, ab_len, ba_len = _joined_len(sect), _joined_len(ab), _joined_len(ba)
    sect_ab_len = sect_len + (sect_len != 0) + ab_len
    sect_ba_len = sect_len + (sect_len != 0) + ba_len
    total = sect_ab_len + sect_ba_len
    # ratio(sect+ab, sect+ba) = 1 - indel(ab, ba) / total, with indel(x, y) = |x| + |y| - 2 lcs
    # and lcs at most the characters the two have in common (counted with repeats).
    best = 100.0 * (1 - abs(ab_len - ba_len) / total) if total else 0.0
    if best >= _GATE:
        common = lcs_len(" ".join(sorted(ab)), " ".join(sorted(ba)))
        best = 100.0 * (1 - (ab_len + ba_len - 2 * common) / total)
    if sect_len:
        for diff_len, other_len in ((ab_len, sect_ab_len), (ba_len, sect_ba_len)):
            best = max(best, 100.0 * (1 - (1 + diff_len) / (sect_len + other_len)))
    return best


def _ambiguous(ranked: Sequence[float]) -> bool:
    """A phrase that fits several entries well ("is_available returns False") names none
    of them (``ranked``: the entries' scores, best first)."""
    return len(ranked) > 1 and (ranked[0] - ranked[1] < 4 or ranked[1] >= 85)


def confidences(scores: Mapping[str, float], ceiling: float = 1.0) -> dict[str, float]:
    """Map resemblance scores to confidences; ambiguity and ``ceiling`` cap them."""
    ranked = sorted(scores.values(), reverse=True)
    ambiguous = _ambiguous(ranked)
    out = {}
    for eid, score in scores.items():
        conf = 0.3 + 0.45 * (score - THRESHOLD) / (100 - THRESHOLD)
        if ambiguous or score < ranked[0]:
            conf = min(conf, 0.45)
        out[eid] = round(min(conf, ceiling), 4)
    return out


_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "with",
        "on",
        "in",
        "at",
        "of",
        "to",
        "for",
        "and",
        "or",
        "but",
        "my",
        "i",
        "me",
        "we",
        "when",
        "after",
        "before",
        "from",
        "by",
        "as",
        "not",
        "no",
        "do",
        "does",
        "did",
        "very",
        "so",
        "get",
        "gets",
        "got",
        "has",
        "have",
        "had",
        "can",
        "cannot",
    ]
)
_WORD_RE = _rx.compile(r"[a-z0-9_.+]+")
_CJK_RUN = _rx.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
# Chinese function characters: a bigram made only of these says nothing of the situation.
_CJK_STOP = frozenset("的了是在我你他它们这那就都也和与或把被着过吗呢吧啊一个有不没")


def _amd_words_key() -> str:
    """The AMD context's own patterns (the symptoms' AMD flags in the cache follow them)."""
    from rocmfix.kb import family, matcher  # noqa: PLC0415 - the matcher imports this module

    return "\x1d".join(
        (matcher._AMD_CONTEXT.pattern, matcher._NOT_AMD.pattern, family._NOT_AMD_TOO.pattern)
    )


def _text_names_amd(text: str) -> bool:
    """The matcher's AMD context (rocmfix.kb.family.names_amd): AMD, ROCm, Radeon, HIP, gfx ...
    (Chinese "A卡" too: the AMD card as CSDN writes it)."""
    from rocmfix.kb.family import names_amd  # noqa: PLC0415 - the matcher imports this module

    return names_amd(text) or "A卡" in text


def content_words(text: str) -> frozenset[str]:
    """Lower-case content words, crude plural folding, stop words dropped.

    Chinese is written without spaces: each run of CJK characters gives its character
    bigrams (a lone character stands for itself), the same unit the ranker reads, so a
    symptom written as on CSDN ("跑在CPU上", "需要sudo才能") shares words with a report.
    """
    out = set()
    for word in _WORD_RE.findall(text.lower()):
        word = word.strip(".")
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word and word not in _STOP:
            out.add(word)
    if not text.isascii():
        for run in _CJK_RUN.findall(text):
            if len(run) == 1:
                if run not in _CJK_STOP:
                    out.add(run)
                continue
            for i in range(len(run) - 1):
                pair = run[i : i + 2]
                if not (pair[0] in _CJK_STOP and pair[1] in _CJK_STOP):
                    out.add(pair)
    return frozenset(out)


def overlap(
    query: frozenset[str],
    symptom: frozenset[str],
    idf: Mapping[str, float],
    rare: float | None = None,
) -> float:
    """Cosine of rarity-weighted word sets; unknown query words count as rare
    (``rare``: the largest idf, when the caller has it already)."""
    if not query or not symptom:
        return 0.0
    if rare is None:
        rare = max(idf.values(), default=1.0)
    q = {w: idf.get(w, rare) for w in query}
    s = {w: idf.get(w, rare) for w in symptom}
    shared = sum(q[w] * s[w] for w in query & symptom)
    norm = math.sqrt(sum(v * v for v in q.values()) * sum(v * v for v in s.values()))
    return shared / norm if norm else 0.0
