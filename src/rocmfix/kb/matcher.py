"""Rank knowledge-base entries for a pasted error or a whole log.

Scoring, per entry:

* **Signatures.** Each distinct signature that matches a candidate line adds
  its weight by noisy-or (``1 - prod(1 - w)``). Supporting signatures
  (weight < 0.5) only count beside a stronger hit; alone they stay below 0.3.
* **Benign lines.** A line that a ``benign`` entry claims decisively (MIOpen's
  missing-database warning...) counts at a third of its weight for root causes.
* **Excludes.** A matching exclude pattern divides the strength by four.
* **CUDA-worded messages.** ROCm builds of torch reuse CUDA's wording ("No CUDA
  GPUs are available"); such a signature may carry an ``amd_weight`` that
  applies only when the text shows an AMD machine and nothing of NVIDIA.
* **Machine context.** A text that shows an NVIDIA machine (nvidia-smi output,
  a GeForce or datacenter name, NVIDIA driver packages, CUDA-only launch hints)
  or a Mac, and nothing of ROCm, halves
  every confidence: a wrong confident answer costs a user hours.
* **Symptoms.** Short hand-typed input is fuzzy-matched (rapidfuzz) against
  the entries' symptom phrasings; an ambiguous phrase (several entries close
  together) stays below 0.5.
* **Position.** Hits in the last error region of a log count fully; earlier
  hits keep 90%, since an early cause line often explains a later symptom.

``confidence >= 0.5`` means "this is the cause"; lower means "possibly
related". Ordering is deterministic: confidence, then priority, then id.
"""

from __future__ import annotations

from rocmfix import _rx
from rocmfix._record import cached_property, field, record, replace
from rocmfix.extract import (
    Excerpt,
    clean_line,
    extract_stream,
    extract_text,
    make_engine,
    split_lines,
)
from rocmfix.kb import family, setups, symptoms
from rocmfix.kb.model import Entry, KnowledgeBase, Signature
from rocmfix.kb.render import RenderedFix, clean_value, derive, render_fixes

TYPE_CHECKING = False  # typing, re and collections are not imported at run time (start-up cost)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Mapping
    from typing import Any

CONFIDENT = 0.5
WEAK_KEEPS_RANKER = True
"""Whether a weak match keeps at least the ranker's own reading of its entry where the
ranker is sure of it (see ``_with_ranker`` and ``RANKER_SURE``).

Measured in session 11 (wprose) without the ``RANKER_SURE`` condition: 6 more frozen
reports right, but 2 fewer frozen look-alikes left alone (one round group below its
floor). On the tune side (wcomb) the cases it changes split by the ranker's own
probability: the 22 it names right all have p >= 0.53 (21 of them >= 0.76), while the
reports the ranker's voice alone names wrongly (no signature behind them: 10 look-alikes,
12 other causes) sit at p 0.30-0.66, 19 of 22 below 0.5 -- the kind a weak hint had kept
unnamed. (The ranker trained on the tune side, so its p there runs high; the bar is the
plain "more likely than not", not fitted to those figures.) With the condition the tune
side moves as without it: rounds aa-do top-1 0.652 -> 0.672, prose 0.594 -> 0.654,
look-alikes left alone 0.861 unchanged, confidence >= 0.5 right 0.897 -> 0.899; rounds
a-z and logs/ top-1 0.961 -> 0.975, look-alikes 0.952 unchanged. Frozen side, measured
once after the choice (counts only): rounds aa-do top-1 0.494 -> 0.506, look-alikes left
alone 0.889 unchanged, confidence >= 0.5 right 0.840 -> 0.838; rounds a-z and logs/ top-1
0.911 -> 0.914, look-alikes 0.952 unchanged; every floor of tests/test_kb_accuracy.py holds."""
RANKER_SURE = 0.5
"""The ranker's own probability for its first cause from which an agreeing weak match
never lowers it: the ranker by itself says "more likely than not" (the bar a cause is
named at). Below it, the combiner's lowering beside a weak match stands, as before."""
_MAX_EVIDENCE = 5
_MAX_CANDIDATES = 6000

_AMD_CONTEXT = _rx.compile(
    r"\bhip[A-Z]\w+|\bHIP\b|\bROCm\b|\brocm|\bgfx\d|amdgpu|MIOpen|rocBLAS|hipBLAS|Radeon|Instinct|"
    r"\bHSA_|\bhsa_|/dev/kfd|rocminfo|rocm-smi|amd-smi|\bRCCL\b|libamdhip64|(?<![A-Za-z0-9])AMD(?![A-Za-z0-9])|directml|zluda|"
    r"(?<![A-Za-z0-9])MI[1-4]\d{2}[AXL]?(?![A-Za-z0-9])|"
    r"\bRX ?\d{3,4}(?:XTX?|GRE|M|S)?\b|\b[5-9]\d{2}0 ?XTX?\b|"
    # Hygon DCUs run a ROCm/HIP-derived stack (DTK, hy-smi): the same ROCm causes, told with other names.
    r"\bHygon\b|\bhy-smi\b|\bDCUs?\b",
    _rx.IGNORECASE,
)
# Signs of an NVIDIA machine or a CUDA runtime actually running kernels (ROCm
# builds print TORCH_USE_HIP_DSA / HIP kernel errors instead of these hints).
_NVIDIA_CONTEXT = _rx.compile(
    r"NVIDIA-SMI|nvidia-smi|(?i:\bgeforce\b)|Quadro|\bTesla [A-Z]?\d|(?<!Radeon )\b[RG]TX[- ]?\d{3,4}|(?<![A-Za-z0-9])[AHL]\d{2,3}(?:[ -]SXM|[ -]PCIe|x[1-8](?![A-Za-z0-9])|(?![A-Za-z0-9]))|"
    r"(?<![A-Za-z0-9])(?:[VP]100|K80|A10G|L40S?|[GH]H200|B200|DGX)(?![A-Za-z0-9])|"
    r"\bnvidia[-_](?:dkms|uvm|kernel|current|container|docker)|\bdkms/nvidia\b|\bnvidia/\d{3}\.\d|"
    r"NVIDIA_VISIBLE_DEVICES|\bruntime: ?nvidia\b|--runtime[= ]nvidia\b|"
    # A Mac named the way people type it ("on an M1 Mac", "mac M2").
    r"\bM[1-5] (?:Pro |Max |Ultra )?Mac\b|(?<![A-Za-z])[Mm]ac ?M[1-5](?![0-9A-Za-z])|"
    r"CUDA_LAUNCH_BLOCKING|TORCH_USE_CUDA_DSA|cudaError\w+|CUBLAS_STATUS_|CUDNN_STATUS_|libcudnn|\bNVRM\b|"
    r"CUDA Version: ?\d|NVIDIA driver version|NCCL version [\d.]+\+cuda|nvidia-nccl-cu\d+|_portable_nvidia|library=cuda\b|"
    r"error looking up nvidia GPU memory|\bnvmlDev \d+|\bNVIDIA \d{3}\.\d+|\bCUDA\d+ buffer\b|"
    r"(?i:\brtx ?\d{3,4}\b|\bh100\b)|"
    # GeForce model numbers typed bare ("a single 5090", "8 Nvidia 2080ti GPUs", "测试了4090");
    # Radeon numbers never have this shape. Also laptop switching that only NVIDIA has.
    # (a step counter "step 4090" is not one: a Ti/SUPER suffix, a GPU word, a plural or an article is needed)
    r"(?<![A-Za-z0-9.:/=#-])[2-5]0[5-9]0 ?(?:[Tt]i|SUPER|Super)\b|(?<![A-Za-z0-9.:/=#-])[2-5]0[5-9]0s? ?(?:GPUs?|cards?|显卡)|"
    r"\b(?:single|my|an?|two|dual|both|multiple|\d ?x|[Nn]vidia|NVIDIA) [2-5]0[5-9]0s?\b|[\u4e00-\u9fff][2-5]0[5-9]0(?![0-9])|"
    r"\bOptimus\b|\bnouveau\b|"
    # the CUDA toolkit version named beside torch or NCCL ("PyTorch 2.5.1 with CUDA 12.4", "CUDA 10.0 and NCCL 2.4.2")
    r"\b(?:with|and|using) CUDA ?(?:[89]|1[0-3])\.\d\b|\bCUDA ?(?:[89]|1[0-3])\.\d,? and NCCL\b|"
    r"backends[\\/]nvidia"
)

# Values any entry's fixes may use, pulled from the whole input when the entry's
# own extractors found nothing.
_GLOBAL_EXTRACT: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("gfx", _rx.compile(r"\b(gfx[0-9]{3,4}[0-9a-f]?)\b")),
    ("rocm_version", _rx.compile(r"(?:ROCm|rocm)[ -]?v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)")),
    (
        "torch_version",
        _rx.compile(r"\btorch[= -]{1,3}v?(\d\.\d{1,2}(?:\.\d{1,2})?(?:\+[a-z0-9.]+)?)"),
    ),
    ("library", _rx.compile(r"\b(lib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*)")),
)


@record
class Evidence:
    """A line of the input that supports a match."""

    line: int
    text: str
    count: int = 1
    last_line: int = 0
    weight: float = 0.0
    pattern: str = ""
    """The signature that fired (so a UI can say why)."""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"line": self.line, "text": self.text}
        if self.count > 1:
            out["count"] = self.count
            out["last_line"] = self.last_line
        return out


@record
class Match:
    """One ranked entry with its evidence and the values found for its fixes."""

    entry: Entry
    confidence: float
    evidence: tuple[Evidence, ...]
    params: Mapping[str, str] = field(default_factory=dict)
    via: str = "signature"
    """signature | symptom | ranker: what made the match."""

    @property
    def confident(self) -> bool:
        return self.confidence >= CONFIDENT

    def fixes(self, lang: str = "en") -> tuple[RenderedFix, ...]:
        return render_fixes(self.entry.fixes, self.params, lang)


@record
class Explanation:
    """The result of explaining one input."""

    matches: tuple[Match, ...]
    """Root-cause candidates, best first (only entries with some evidence)."""
    benign: tuple[Match, ...]
    """Harmless, expected lines that were found."""
    excerpt: Excerpt
    context: str
    """amd | nvidia | mixed | unknown: what kind of machine the text shows."""
    region: str = ""
    """The candidate lines the ranker read (for similar cases, see ``rocmfix.kb.ranker``)."""

    @property
    def top(self) -> Match | None:
        return self.matches[0] if self.matches and self.matches[0].confident else None


class _CompiledEntry:
    __slots__ = ("entry", "sigs", "excludes", "_extract")

    def __init__(self, entry: Entry, gate: _Gate):
        self.entry = entry
        self.sigs = tuple((s, _LazyRx(s, gate)) for s in entry.signatures)
        self.excludes = tuple(_LazyRx(s, gate) for s in entry.excludes)
        self._extract: tuple[tuple[str, re.Pattern[str]], ...] | None = None

    @property
    def extract(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        if self._extract is None:  # only matched entries fill in values
            self._extract = tuple((x.name, _rx.compile(x.regex)) for x in self.entry.extract)
        return self._extract


def _compile(sig: Signature) -> re.Pattern[str]:
    source = _rx.escape(sig.pattern) if sig.literal else sig.pattern
    return _rx.compile(source, _rx.IGNORECASE if sig.ignore_case else 0)


class _Gate:
    """Which signatures can match the text being explained (a literal prefilter).

    Compiling every signature costs more than a one-line explain should take,
    so a signature is compiled only when one of the literal texts every match
    of it must contain occurs in the input (see :mod:`rocmfix.kb.literals`).
    """

    def __init__(self) -> None:
        self.text: str | None = None
        self.lower: str | None = None
        self.generation = 0
        """Bumped per input: each signature asks the gate once per input, not per line."""

    def open_for(self, texts: Iterable[str]) -> None:
        joined = "\n".join(texts)
        self.text = joined
        self.lower = joined.lower() if joined.isascii() else None
        self.generation += 1

    def may_match(self, needles: tuple[str, ...] | None, icase: bool) -> bool:
        if needles is None or self.text is None:
            return True
        if icase:
            if self.lower is None:  # Unicode case folding: let the regex decide
                return True
            return any(n in self.lower for n in needles)
        return any(n in self.text for n in needles)


class _LazyRx:
    """A signature's regex, compiled on first use and skipped when the gate is shut."""

    __slots__ = ("sig", "gate", "_rx", "needles", "_seen", "_open")

    def __init__(self, sig: Signature, gate: _Gate):
        self.sig, self.gate, self._rx = sig, gate, None
        self.needles = _needles(sig)
        self._seen = -1  # the gate generation _open was computed for
        self._open = True

    @property
    def pattern(self) -> str:
        return _rx.escape(self.sig.pattern) if self.sig.literal else self.sig.pattern

    def shut(self) -> bool:
        """Whether the gate rules this signature out for the whole current input."""
        gate = self.gate
        if self._seen != gate.generation:
            self._open = gate.may_match(self.needles, self.sig.ignore_case)
            self._seen = gate.generation
        return not self._open

    def search(self, text: str) -> re.Match[str] | None:
        if self.shut():
            return None
        needles = self.needles
        if needles is not None:  # the same test on the line itself: cheaper than the regex
            if self.sig.ignore_case:
                if text.isascii():
                    low = text.lower()
                    if not any(n in low for n in needles):
                        return None
            elif not any(n in text for n in needles):
                return None
        if self._rx is None:
            self._rx = _compile(self.sig)
        return self._rx.search(text)


def _on_any_line(rx: _LazyRx, candidates: list[tuple[int, str, int, int]]) -> bool:
    return not rx.shut() and any(rx.search(c[1]) for c in candidates)


def _needles(sig: Signature) -> tuple[str, ...] | None:
    if sig.literal:
        lit = sig.pattern.lower() if sig.ignore_case else sig.pattern
        return (lit,)
    key = (sig.pattern, sig.ignore_case)
    if key not in _NEEDLES:
        from rocmfix.kb.literals import required_literals  # noqa: PLC0415

        found = required_literals(sig.pattern, ignore_case=sig.ignore_case)
        _NEEDLES[key] = tuple(sorted(found)) if found else None
    return _NEEDLES[key]


_NEEDLES: dict[tuple[str, bool], tuple[str, ...] | None] = {}


def _load_needles(kb: KnowledgeBase) -> None:
    """Fill :data:`_NEEDLES` for ``kb`` from a small on-disk cache (parsing ~600
    regexes for their literals costs more than the rest of a one-line explain)."""
    import os  # noqa: PLC0415

    from rocmfix._quick import cache_dir, read_marshal, sha256, write_marshal  # noqa: PLC0415

    keys = sorted(
        {
            (s.pattern, s.ignore_case)
            for e in kb.entries
            for s in (*e.signatures, *e.excludes)
            if not s.literal
        }
    )
    if all(k in _NEEDLES for k in keys):
        return
    h = sha256(b"needles-2\0")  # bump when rocmfix.kb.literals changes
    for pattern, icase in keys:
        h.update(f"{pattern}\0{int(icase)}\0".encode())
    path = os.path.join(cache_dir(), f"needles-{h.hexdigest()[:32]}.marshal")
    cached = read_marshal(path)
    if isinstance(cached, dict):
        _NEEDLES.update(cached)
        return
    from rocmfix.kb.literals import required_literals  # noqa: PLC0415

    found = {}
    for pattern, icase in keys:
        lits = required_literals(pattern, ignore_case=icase)
        found[(pattern, icase)] = tuple(sorted(lits)) if lits else None
    _NEEDLES.update(found)
    write_marshal(path, found)  # atomic; a read-only cache only costs speed


class Matcher:
    """A knowledge base compiled for matching. Build once, use for many inputs."""

    def __init__(self, kb: KnowledgeBase, *, use_ranker: bool = True):
        self.kb = kb
        self.use_ranker = use_ranker
        """Combine signature scores with the learned ranker (rocmfix.kb.ranker)."""
        _load_needles(kb)
        self._gate = _Gate()
        self._entries = tuple(_CompiledEntry(e, self._gate) for e in kb.entries)
        self._by_id = {e.id: e for e in kb.entries}
        self._symptoms = symptoms.SymptomIndex(kb.entries, use_cache=True)

    @cached_property
    def _engine(self):  # type: ignore[no-untyped-def]  # engine types are private to extract
        pats: list[tuple[str, bool]] = []
        for ce in self._entries:
            for sig in (*ce.entry.signatures, *ce.entry.excludes):
                pats.append(
                    (_rx.escape(sig.pattern) if sig.literal else sig.pattern, sig.ignore_case)
                )
        pats.append((_NVIDIA_CONTEXT.pattern, False))
        return make_engine(pats)

    # ------------------------------------------------------------- entry points

    def explain_text(self, text: str) -> Explanation:
        """Explain an in-memory text (argument, paste)."""
        if len(text) <= 64 * 1024:
            return self._explain(_short_excerpt(text))
        return self._explain(extract_text(text, self._engine))

    def explain_stream(self, stream) -> Explanation:  # type: ignore[no-untyped-def]
        """Explain a binary stream (file, gzip, stdin) with bounded memory."""
        # The engine is built inside, once a large file's line count has started beside it.
        return self._explain(extract_stream(stream, lambda: self._engine))

    # ------------------------------------------------------------- scoring

    def _explain(self, excerpt: Excerpt) -> Explanation:
        candidates = _candidates(excerpt)
        self._gate.open_for(c[1] for c in candidates)
        context = _context(candidates)
        benign_lines = self._benign_lines(candidates)
        # Benign lines only lose weight when the input holds a real error elsewhere;
        # on their own (a user pasting just the warning) they are the question asked.
        if not any(f.fatal and f.first_line not in benign_lines for f in excerpt.findings):
            benign_lines = set()
        last_fatal = excerpt.last_fatal
        region_start = max(1, last_fatal.first_line - 60) if last_fatal else 0
        scored: list[Match] = []
        for ce in self._entries:
            match = self._score(ce, candidates, benign_lines, region_start, context)
            if match is not None:
                scored.append(match)
        # A real error line that names a cause outranks any resemblance of phrasing.
        ceiling = 0.45 if any(m.confident for m in scored) else 1.0
        # Typed text that names CUDA and nothing of AMD is not ours to call by resemblance.
        if context != "amd" and _CUDA_WORD.search(excerpt.full_text or ""):
            ceiling = 0.45
        # Under a 0.45 ceiling each entry's symptom confidence is its own (no ambiguity cap
        # bites), and one that a signature already put at 0.45 or more cannot be lifted:
        # its exact score is moot, so rapidfuzz is not loaded for it alone.
        settled = (
            frozenset(m.entry.id for m in scored if m.confidence >= 0.45)
            if ceiling == 0.45
            else frozenset()
        )
        fuzzy = (
            self._symptoms.scores(excerpt.full_text or "", settled)
            if excerpt.full_text is not None
            else {}
        )
        if context == "nvidia":
            fuzzy = {k: v - 15 for k, v in fuzzy.items() if v - 15 >= symptoms.THRESHOLD}
        # An entry's excludes argue against it however it was found.
        fuzzy = {k: v for k, v in fuzzy.items() if not self._excluded(k, candidates)}
        scored = _merge_symptoms(scored, symptoms.confidences(fuzzy, ceiling), self._by_id)
        if excerpt.full_text is not None and len(excerpt.full_text) > symptoms.MAX_CHARS:
            # A pasted report with prose: phrasing it contains is a weak hint, never a cause.
            hints = self._symptoms.hints(excerpt.full_text)
            hints = {k: 0.25 * v for k, v in hints.items() if not self._excluded(k, candidates)}
            scored = _merge_symptoms(scored, hints, self._by_id)
        region = _region(candidates)
        # Facts the text states (torch build, /dev/kfd state, the GPU's age against ROCm)
        # decide between members of one family, before the ranker reads the signature
        # scores and again after it; they never bring in another family.
        facts = None
        if any(m.entry.id in family.FAMILY_IDS for m in scored):
            facts = family.read(excerpt.full_text or region)
            scored = family.decide(scored, facts, self._by_id, bring_in=not self.use_ranker)
        if self.use_ranker:
            # Text naming CUDA and nothing of AMD is not ours to call by resemblance.
            cuda_only = context != "amd" and bool(_CUDA_WORD.search(region))
            scored = _with_ranker(
                scored,
                region,
                self._by_id,
                lambda eid: cuda_only or self._excluded(eid, candidates),
                # on another vendor's machine a signature was halved on purpose: no floor
                weak_floor=context != "nvidia",
            )
        if self.use_ranker and any(m.entry.id in family.FAMILY_IDS for m in scored):
            if facts is None:
                facts = family.read(excerpt.full_text or region)
            scored = family.decide(scored, facts, self._by_id)
        # Entries whose defining condition the text never states or rules out (a second GPU
        # beside the iGPU; a CUDA torch that is ZLUDA's own set-up) stay below a named cause.
        if any(m.entry.id in setups.HELD_IDS for m in scored):
            scored = setups.hold(scored, excerpt.full_text or region)
        common = [c[1] for c in candidates] + [t for _, t in excerpt.tail]
        machine_wide: dict[str, str | None] = {}  # per name: the first value the common lines hold
        scored = [self._with_params(m, common, machine_wide) for m in scored]
        # Ordered as shown (whole percents): where the shown figures tie, an entry that an
        # error line or symptom matched comes before one only the ranker put there (beside a
        # decisive signature the ranker's leftovers all read ~0 %, and their order is noise).
        scored.sort(
            key=lambda m: (
                -round(m.confidence, 2),
                m.via == "ranker",
                -m.entry.priority,
                m.entry.id,
            )
        )
        causes = tuple(m for m in scored if not m.entry.benign)
        benign = tuple(m for m in scored if m.entry.benign and m.confident)
        return Explanation(
            matches=causes, benign=benign, excerpt=excerpt, context=context, region=region
        )

    def _excluded(self, entry_id: str, candidates: list[tuple[int, str, int, int]]) -> bool:
        ce = next(c for c in self._entries if c.entry.id == entry_id)
        return any(_on_any_line(rx, candidates) for rx in ce.excludes)

    def _benign_lines(self, candidates: list[tuple[int, str, int, int]]) -> set[int]:
        lines: set[int] = set()
        for ce in self._entries:
            if not ce.entry.benign:
                continue
            for sig, rx in ce.sigs:
                if sig.decisive and not rx.shut():
                    lines.update(c[0] for c in candidates if rx.search(c[1]))
        return lines

    def _score(
        self,
        ce: _CompiledEntry,
        candidates: list[tuple[int, str, int, int]],
        benign_lines: set[int],
        region_start: int,
        context: str,
    ) -> Match | None:
        hits: dict[int, tuple[float, Evidence]] = {}
        evidence: list[Evidence] = []
        in_region = False
        for idx, (sig, rx) in enumerate(ce.sigs):
            if rx.shut():  # asked once per input, not once per candidate line
                continue
            for line, text, count, last in candidates:
                if not rx.search(text):
                    continue
                weight = sig.amd_weight if sig.amd_weight and context == "amd" else sig.weight
                if line in benign_lines and not ce.entry.benign:
                    weight /= 3
                ev = Evidence(
                    line=line,
                    text=text,
                    count=count,
                    last_line=last,
                    weight=weight,
                    pattern=sig.pattern,
                )
                if idx not in hits or weight > hits[idx][0]:
                    hits[idx] = (weight, ev)
                evidence.append(ev)
                if last >= region_start:
                    in_region = True
        if not hits:
            return None
        strength = 1.0
        for w, _ in hits.values():
            strength *= 1.0 - w
        strength = 1.0 - strength
        if not any(w >= 0.5 for w, _ in hits.values()):
            strength = min(strength, 0.3)  # supporting hints alone never make a cause
        if ce.excludes and any(_on_any_line(rx, candidates) for rx in ce.excludes):
            strength /= 4
        if context == "nvidia" and not ce.entry.benign:  # harmless lines are harmless anywhere
            strength /= 2
        if region_start and not in_region:
            strength *= 0.9
        strongest: dict[int, Evidence] = {}  # per line, the signature that weighs most
        for e in evidence:
            if e.line not in strongest or e.weight > strongest[e.line].weight:
                strongest[e.line] = e
        best = sorted(strongest.values(), key=lambda e: (-e.weight, e.line))
        # Decisive lines first (what names the cause), then supporting ones, each in log order.
        chosen = sorted(best[:_MAX_EVIDENCE], key=lambda e: (e.weight < 0.5, e.line))
        return Match(
            entry=ce.entry, confidence=round(min(strength, 0.99), 4), evidence=tuple(chosen)
        )

    def _with_params(
        self, match: Match, common: list[str], machine_wide: dict[str, str | None]
    ) -> Match:
        """``match`` with the values its entry's extractors and the machine-wide ones read,
        first from its evidence lines, then from the candidate and tail lines (``common``,
        the same for every entry: the machine-wide reading of them is kept in ``machine_wide``)."""
        ce = next(c for c in self._entries if c.entry is match.entry)
        params: dict[str, str] = {}
        own = [e.text for e in match.evidence]
        texts = own + common
        for name, rx in ce.extract:
            if name in params:  # several extractors may share a name: the first that matches wins
                continue
            for text in texts:
                m = rx.search(text)
                if m and m.group(1) and (value := clean_value(name, m.group(1))):
                    params[name] = value
                    break
        for name, rx in _GLOBAL_EXTRACT:
            if name in params:
                continue
            value = next((v for text in own if (v := _global_value(name, rx, text))), None)
            if value is None:
                if name not in machine_wide:
                    machine_wide[name] = next(
                        (v for text in common if (v := _global_value(name, rx, text))), None
                    )
                value = machine_wide[name]
            if value:
                params[name] = value
        return Match(
            entry=match.entry,
            confidence=match.confidence,
            evidence=match.evidence,
            params=derive(params, texts),
            via=match.via,
        )


def _global_value(name: str, rx: re.Pattern[str], text: str) -> str | None:
    """The value a machine-wide extractor reads from one line, if its shape is right."""
    m = rx.search(text)
    return clean_value(name, m.group(1)) if m else None


def _short_excerpt(text: str) -> Excerpt:
    """Every line of a short input is a candidate (no engine needed)."""
    from rocmfix.extract import TAIL_LINES, _State  # noqa: PLC0415

    state = _State()
    cleaned = [clean_line(raw) for raw in split_lines(text)]
    for no, line in enumerate(cleaned, 1):
        if line:
            state.add(line, no, no)
    n = len(cleaned) - (1 if text.endswith(("\n", "\r")) and len(cleaned) > 1 else 0)
    tail = tuple((i + 1, t) for i, t in enumerate(cleaned) if t)[-TAIL_LINES:]
    return Excerpt(
        bytes=len(text.encode("utf-8", "replace")),
        lines=max(n, 0),
        findings=state.findings(),
        tail=tail,
        full_text="\n".join(cleaned),
    )


def _candidates(excerpt: Excerpt) -> list[tuple[int, str, int, int]]:
    rows = {f.first_line: (f.first_line, f.text, f.count, f.last_line) for f in excerpt.findings}
    for no, text in excerpt.tail:
        if no not in rows and all(r[1] != text for r in rows.values()):
            rows[no] = (no, text, 1, no)
    out = sorted(rows.values())
    if len(out) > _MAX_CANDIDATES:
        half = _MAX_CANDIDATES // 2
        out = out[:half] + out[-half:]
    return out


_CUDA_WORD = _rx.compile(r"\bCUDA\b")
_NOT_AMD = _rx.compile(
    r"ROCM used to build PyTorch: N/A|HIP runtime version: N/A|MIOpen runtime version: N/A|"
    # Liger-Kernel's env report (liger_kernel/env_report.py) prints this line on every machine,
    # "Not available" where torch.version.hip is None or no GPU is usable
    r"HIP\(ROCm\) version: (?:Not available|Unable to query)|"
    # rocm-smi's words for a machine without the amdgpu module (W&B prints it on NVIDIA boxes too)
    r"Driver not initialized \(amdgpu not found in modules\)|Drivers not loaded \(amdgpu\b[^)\n]{0,60}\)|"
    # an AMD processor says nothing of the GPU ("AMD CPUs and an Nvidia GPU")
    r"\bAMD (?:CPUs?|processors?)\b|"
    # a CPU field naming AMD's CPU brand is the processor, not the GPU (neofetch's "CPU: AMD Ryzen 5
    # 5600 (12) @ 3.500GHz" beside "GPU: NVIDIA GeForce RTX 3060"); only the field form, since a Ryzen
    # named bare is often the APU the report runs ROCm on, and an APU field still reads as AMD through
    # its "with Radeon Graphics" name.
    r"\b(?:CPU|Processor|processor)\s*[:=]\s*AMD(?:\(R\)|®)? (?=Ryzen|EPYC|Athlon|Threadripper)"
)

# A Mac (Apple silicon or an Intel Mac): no ROCm there, whatever torch says.
_APPLE_CONTEXT = _rx.compile(
    r"\bmacOS\b|(?i:\bmac ?os(?: ?x)?\b)|\bOS ?X\b|\bMac ?(?:Book|laptop|mini|Studio|Pro)\b|\bmy Mac\b|\bDarwin\b|\bApple M[1-5]\b|torch\.backends\.mps|\bMPS backend\b|\bdevice=.?mps\b|"
    r"(?<![A-Za-z]:)/Users/[\w.-]+/|\.dylib\b|"
    # Metal's own command-buffer reports and MPS-only wording (Apple GPUs only).
    r"kIOGPUCommandBuffer\w*|Execution of the command buffer was aborted|Metal Performance Shaders|"
    r"\bAGX\w*(?:Device|CommandBuffer)\b|\bPYTORCH_MPS_\w+|\bthe MPS device\b"
)
# An Intel GPU (XPU / IPEX / oneAPI Level Zero): not a ROCm machine either.
_INTEL_CONTEXT = _rx.compile(
    r"\bXPU out of memory\b|\btorch\.xpu\b|device=.?xpu\b|intel_extension_for_pytorch|\b(?:ipex|IPEX)\b|"
    r"Intel\(R\) Arc\(TM\)|\bIntel Arc\b|\blevel[_ ]zero\b|\bUR_RESULT_ERROR_\w+|\bc10_xpu\.dll\b"
)


def amd_named(text: str) -> bool:
    """Whether ``text`` names anything of AMD or ROCm (the words ``_context`` reads as AMD)."""
    return bool(_AMD_CONTEXT.search(_NOT_AMD.sub("", text)))


def _context(candidates: Iterable[tuple[int, str, int, int]]) -> str:
    amd = nvidia = False
    for _, text, _, _ in candidates:
        # torch's environment report names ROCm even on CUDA builds ("... : N/A").
        amd = amd or bool(_AMD_CONTEXT.search(_NOT_AMD.sub("", text)))
        nvidia = nvidia or bool(
            _NVIDIA_CONTEXT.search(text)
            or _APPLE_CONTEXT.search(text)
            or _INTEL_CONTEXT.search(text)
        )
        if amd and nvidia:
            return "mixed"
    return "amd" if amd else "nvidia" if nvidia else "unknown"


def _merge_symptoms(
    scored: list[Match], confidences: Mapping[str, float], entries: Mapping[str, Entry]
) -> list[Match]:
    by_id = {m.entry.id: m for m in scored}
    for eid, conf in confidences.items():
        existing = by_id.get(eid)
        if existing is None:
            by_id[eid] = Match(entry=entries[eid], confidence=conf, evidence=(), via="symptom")
        elif min(conf, 0.45) > existing.confidence:
            # The KB's own weight for a line that fired beats a resemblance of phrasing:
            # a symptom may lift a weakly matched entry to "possibly related", no further.
            conf = min(conf, 0.45)
            by_id[eid] = Match(
                entry=existing.entry, confidence=conf, evidence=existing.evidence, via="symptom"
            )
    return list(by_id.values())


_NUMBERS = _rx.compile(r"\d+")


def _region(candidates: list[tuple[int, str, int, int]]) -> str:
    """What the ranker reads: the candidate lines (never every line of a huge log).

    A line that differs from an earlier one only in its numbers (progress bars,
    per-step losses, per-channel chatter, the same error once per rank) is read once.
    """
    from rocmfix.kb.ranker import MAX_CHARS  # noqa: PLC0415

    seen: set[str] = set()
    keep = []
    for c in candidates:
        shape = _NUMBERS.sub("0", c[1])
        if shape not in seen:
            seen.add(shape)
            keep.append(c[1])
    return "\n".join(keep)[-MAX_CHARS:]


def _with_ranker(
    scored: list[Match],
    region: str,
    entries: Mapping[str, Entry],
    excluded: Any,
    *,
    weak_floor: bool = True,
) -> list[Match]:
    """Re-score causes with the learned ranker; a decisive signature still decides.

    An entry whose own excludes fire (the KB says this text is not that cause) is
    never lifted to a cause by resemblance.
    """
    from rocmfix.kb.ranker import default_ranker  # noqa: PLC0415

    model = default_ranker()
    if model is None or not region.strip():
        return scored
    signature = {m.entry.id: m.confidence for m in scored if not m.entry.benign}
    probs = model.probabilities(region)
    final = model.combine(signature, probs)
    # A weak match (a resemblance of phrasing, a supporting line: below 0.5) is evidence
    # for its entry, never against it; yet the combiner, fitted mostly on cases where a
    # signature decides, scores an entry the ranker favours lower beside such a match
    # than with none at all (its "no signature here" regime trusts the ranker more).
    # Such an entry, when it is the ranker's first, keeps the better of both readings
    # (an entry the ranker does not put first is not lifted by the ranker's voice).
    # Only where the ranker is sure by itself (its probability for ``first`` reaches
    # ``RANKER_SURE``): where it merely leads a spread field, the calibrated "ranker alone"
    # reading is what names look-alikes, and the combiner's caution beside a weak match stands.
    first = min((c for c in probs if c != "none"), key=lambda c: (-probs[c], c), default=None)
    weak = {
        e
        for e, s in signature.items()
        if 0.0 < s < CONFIDENT and e == first and probs.get(e, 0.0) >= RANKER_SURE
    }
    if weak and weak_floor and WEAK_KEEPS_RANKER:
        bare = model.combine({e: s for e, s in signature.items() if e not in weak}, probs)
        for eid in weak:
            if bare.get(eid, 0.0) > final.get(eid, 0.0):
                final[eid] = bare[eid]
    by_id = {m.entry.id: m for m in scored}
    out = [m for m in scored if m.entry.benign]
    for eid, conf in final.items():
        if conf >= CONFIDENT and signature.get(eid, 0.0) < CONFIDENT and excluded(eid):
            conf = 0.45
        old = by_id.get(eid)
        if old is not None:
            out.append(replace(old, confidence=round(conf, 4)))
        elif eid in entries and not entries[eid].benign:
            out.append(
                Match(entry=entries[eid], confidence=round(conf, 4), evidence=(), via="ranker")
            )
    return out


_MATCHERS: dict[int, Matcher] = {}


def matcher_for(kb: KnowledgeBase) -> Matcher:
    """A cached :class:`Matcher` for ``kb``."""
    key = id(kb)
    if key not in _MATCHERS:
        _MATCHERS.clear()
        _MATCHERS[key] = Matcher(kb)
    return _MATCHERS[key]


def explain_text(text: str, kb: KnowledgeBase | None = None) -> Explanation:
    """Explain ``text`` with ``kb`` (default: the merged built-in + user KB)."""
    if kb is None:
        from rocmfix.kb.loader import load_kb  # noqa: PLC0415

        kb = load_kb()
    return matcher_for(kb).explain_text(text)
