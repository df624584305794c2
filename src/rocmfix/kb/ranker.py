"""A learned, case-based ranker beside the signatures (pure Python at run time).

The knowledge base's signatures name a cause when a known error line is there.
Reports told in prose, or in an unusual wording, carry no such line; for those a
model trained on the labelled real reports of the *tuning* side of the frozen
split (``rocmfix.kb.split``) ranks the causes by resemblance to solved cases.

Features are TF-IDF weights (sublinear term frequency, L2-normalised) over
lower-cased word tokens, word bigrams and character 3-5-grams inside words
(CJK text as character bigrams). The classifier is a multinomial logistic
regression whose weights, with the vocabulary, the inverse document
frequencies and the similar-case index (ids, source URLs, a resolution line
of ours and a few top features per case — never the reports' prose) ship in
``rocmfix/data/ranker.bin``. ``scripts/train_ranker.py`` rebuilds it,
deterministically. Inference here needs only the standard library, loads the
artifact on first use, and looks at the extracted candidate region of a log,
never at every line of it.
"""

from __future__ import annotations

import math
import sys
from array import array
from itertools import accumulate

from rocmfix import _rx
from rocmfix._record import record

TYPE_CHECKING = False  # typing, json and collections are not imported at run time (start-up cost)
if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Any


SCHEMA = "rocmfix.ranker/1"
ARTIFACT = "ranker.bin"
MAX_CHARS = 32 * 1024
"""The ranker reads at most this much of the candidate region (its end wins)."""

# Progress and metric chatter of a training run (tqdm bars, "it/s" rates, logged loss /
# epoch / throughput values, wandb's prefix, NCCL/RCCL's INFO-level trace, warnings): it
# says nothing about a failure, yet a few such lines beside a short report would dilute
# the report's features. A line that also names an error, a failure or the GPU stack is
# kept. Only the ranker drops them; signatures still see every line.
_CHATTER = _rx.compile(
    r"\d%\|| \d+/\d+ \[|\d\s?(?:it/s|s/it)\b|['\"]?\b(?:loss|grad_norm|learning_rate|epoch)['\"]?\s?[:=]\s?[\d.]"
    r"|\bthroughput\b[^\n]{0,20}\d|^wandb: |\b[NR]CCL INFO\b"
    # a warning (Python's "file.py:12: UserWarning: ...", c10's "[W file.cpp:12] Warning: ...")
    r"|^\s*(?:\S+:\d+: )?\w*Warning: |\[W [\w./-]+:\d+\] Warning: "
)
_SIGNAL = _rx.compile(
    r"(?i)error|fail|exception|abort|fault|traceback|hip|rocm|cuda|nan\b|\binf\b|killed|denied"
)


def without_chatter(text: str) -> str:
    """``text`` without the lines of training-progress chatter (see ``_CHATTER``)."""
    if not _CHATTER.search(text):
        return text
    return "\n".join(
        line for line in text.split("\n") if not _CHATTER.search(line) or _SIGNAL.search(line)
    )


_WORD = _rx.compile(r"[a-z_][a-z0-9_.+-]*[a-z0-9]|[a-z]{2,}")
_CJK_RUN = _rx.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_DIGITS = _rx.compile(r"\d+")
_HEX = _rx.compile(r"0x[0-9a-f]+")


def _words(text: str) -> list[str]:
    low = _HEX.sub(" 0xhex ", text.lower())
    out = _WORD.findall(low)
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            out.append(run)
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def features(text: str) -> Counter[str]:
    """Raw counts of the ranker's features in ``text`` (the training uses this too)."""
    from collections import Counter  # noqa: PLC0415 - inference counts in a dict

    return Counter(_feature_counts(text))


def _feature_counts(text: str) -> dict[str, int]:
    """:func:`features` as a plain dict: the same counts in the same order."""
    words = _words(text[-MAX_CHARS:])
    counts: dict[str, int] = {}
    get = counts.get
    prev = ""
    for w in words:
        key = "w:" + w
        counts[key] = get(key, 0) + 1
        if prev:
            key = "b:" + prev + " " + w
            counts[key] = get(key, 0) + 1
        prev = w
        if w[0] < "\u3400":  # character n-grams for Latin words (digits folded)
            padded = " " + _DIGITS.sub("0", w) + " "
            n = len(padded)
            for k in (3, 4, 5):
                for i in range(n - k + 1):
                    key = "c:" + padded[i : i + k]
                    counts[key] = get(key, 0) + 1
    return counts


def combine_features(
    s: float,
    p: float,
    p_none: float,
    rank_top: bool,
    sig_top: bool,
    others: float,
    p_other: float = 0.0,
) -> list[float]:
    """Inputs of the learned combination of a signature score ``s`` and the ranker's ``p``.

    ``p_none``: the ranker's probability that nothing of ROCm is the cause;
    ``rank_top``/``sig_top``: the entry is the ranker's / the signatures' first;
    ``others``: the best signature score of any other entry; ``p_other``: the
    ranker's best probability for any other cause.

    The last three inputs let the ranker speak where no signature does: on the
    tuning reports a signature fires on almost every labelled case (they were
    written from them), so without a "no signature here" regime of its own the
    combination learns to trust nothing but signatures, and a new report told in
    words nobody wrote a signature for would never get a cause.
    """
    return [
        s,
        float(s >= 0.5),
        p,
        p_none,
        float(rank_top),
        float(sig_top),
        others,
        s * p,
        math.sqrt(p),
        float(others >= 0.5),
        p - p_other,
        p * float(s == 0.0),
    ]


N_COMBINE = len(combine_features(0.0, 0.0, 0.0, False, False, 0.0))


def candidates_of(
    signature: Mapping[str, float], probs: Mapping[str, float], n_ranked: int = 5
) -> list[tuple[str, list[float]]]:
    """Entries worth a combined score: every signature/symptom match and the ranker's first few."""
    ranked = sorted((c for c in probs if c != "none"), key=lambda c: (-probs[c], c))
    top_sig = max(signature.values(), default=0.0)
    out = []
    for e in sorted(set(signature) | set(ranked[:n_ranked])):
        s = signature.get(e, 0.0)
        others = max((v for k, v in signature.items() if k != e), default=0.0)
        p_other = max((probs[c] for c in ranked[:2] if c != e), default=0.0)
        f = combine_features(
            s,
            probs.get(e, 0.0),
            probs.get("none", 0.0),
            bool(ranked) and ranked[0] == e,
            s > 0 and s == top_sig,
            others,
            p_other,
        )
        out.append((e, f))
    return out


def decide(
    signature: Mapping[str, float], combined: Mapping[str, float], alone: float = 0.5
) -> dict[str, float]:
    """Final confidences: a decisive signature (>= 0.5) still decides.

    Entries a signature named with confidence keep the higher of both scores;
    when one exists, the rest stay below 0.5 ("possibly related"); otherwise the
    combined score (the ranker's voice) may name a cause by itself. An entry no
    signature or symptom matched at all names the cause only from ``alone`` up
    (the artifact's bar for the ranker's voice alone; below it, "possibly related").
    """
    decisive = {e for e, s in signature.items() if s >= 0.5}
    out: dict[str, float] = {}
    for e, q in combined.items():
        if e in decisive:
            out[e] = max(signature[e], q)
        elif decisive or (q < alone and not signature.get(e, 0.0)):
            out[e] = min(q, 0.49)
        else:
            out[e] = q
    return out


@record
class Similar:
    """A real report close to the user's text, with how it was resolved."""

    id: str
    url: str
    label: str
    resolution: str
    score: float

    def to_json(self) -> dict[str, object]:
        return {
            "url": self.url,
            "id": self.id,
            "label": self.label,
            "resolution": self.resolution,
            "score": round(self.score, 3),
        }


MAGIC = b"RFXRANK1"
_SECTIONS = {
    "vocab": "",  # UTF-8, one feature a line, sorted
    "idf": "f",
    "w_cnt": "B",  # per feature: how many (class, weight) pairs follow
    "w_cls": "B",
    "w_val": "h",  # int16, times w_scale
    "c_ptr": "I",  # similar cases: per case, where its terms start
    "c_term": "I",
    "c_val": "h",  # int16, times 1/32767
    "cases": "",  # UTF-8 JSON: [{id, url, label, thread, resolution}]
}


def write_artifact(
    path: str | Path, header: Mapping[str, Any], sections: Mapping[str, Any]
) -> None:
    """Write the artifact: magic, a JSON header, then raw little-endian sections.

    Atomically: a temporary file beside ``path``, flushed, then renamed over it, so a
    reader (or an interrupted training) never sees half an artifact.
    """
    blobs: list[bytes] = []
    table: dict[str, list[int]] = {}
    offset = 0
    for name, kind in _SECTIONS.items():
        value = sections[name]
        if kind:
            arr = array(kind, value)
            if sys.byteorder == "big":
                arr.byteswap()
            raw = arr.tobytes()
        else:
            raw = value if isinstance(value, bytes) else str(value).encode("utf-8")
        table[name] = [offset, len(raw)]
        blobs.append(raw)
        offset += len(raw)
    import json  # noqa: PLC0415

    head = json.dumps({**header, "schema": SCHEMA, "sections": table}, sort_keys=True).encode()
    body = MAGIC + len(head).to_bytes(4, "little") + head + b"".join(blobs)
    import os  # noqa: PLC0415  (training only: keep the inference import lean)
    import tempfile  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Ranker:
    """The trained model: ``probabilities(text)``, ``combine(...)`` and ``similar(...)``."""

    def __init__(self, blob: bytes, header: Mapping[str, Any] | None = None):
        """``header``: the artifact's JSON header already parsed (the index cache keeps
        it, checked against the header's bytes); None parses it here."""
        self._head = _head_bytes(blob)
        n = len(MAGIC)
        size = len(self._head)
        if header is None:
            import json  # noqa: PLC0415

            header = json.loads(self._head)
        data = dict(header)  # type: ignore[arg-type]
        self._header = data
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} artifact")
        base = n + 4 + size
        view = memoryview(blob)

        def section(name: str) -> Any:
            off, length = data["sections"][name]
            raw = view[base + off : base + off + length]
            if len(raw) != length:
                raise ValueError("ranker artifact is truncated")
            kind = _SECTIONS[name]
            if not kind:
                return bytes(raw)
            arr = array(kind)
            arr.frombytes(raw)
            if sys.byteorder == "big":
                arr.byteswap()
            return arr

        self.classes: list[str] = list(data["classes"])
        self.meta: dict[str, Any] = dict(data.get("meta", {}))
        # The vocabulary stays one UTF-8 block (a line per feature, sorted): a one-line
        # explain looks up a few hundred features, through an index kept in the user
        # cache (see _attach_index), and never needs 20,000 string objects.
        self._vocab_raw: bytes = section("vocab")
        self._n_vocab = self._vocab_raw.count(b"\n") + 1
        self._vocab_list: list[str] | None = None
        self._idf = section("idf")
        self._w_cnt = section("w_cnt")
        self._w_ptr_list: Any = None
        self._w_cls = section("w_cls")
        self._w_val = section("w_val")
        self._w_scale = float(data["w_scale"])
        self._bias = list(data["bias"])
        self._comb_w = list(data["combiner"]["w"])
        self._comb_b = float(data["combiner"]["b"])
        self._alone = float(data["combiner"].get("alone", 0.5))
        self._c_ptr = section("c_ptr")
        self._c_term = section("c_term")
        self._c_val = section("c_val")
        self._cases_raw = section("cases")
        self._cases_list: list[dict[str, str]] | None = None
        self._slots: Any = None  # the vocabulary index (see _attach_index)
        self._voff: Any = None
        self._by_label: dict[str, bytes] | None = None
        if not (
            len(self._idf) == self._n_vocab
            and len(self._w_cnt) == self._n_vocab
            and sum(self._w_cnt) == len(self._w_cls) == len(self._w_val)
            and len(self.classes) == len(self._bias)
            # every class index names a class: deleting the valid bytes leaves none (in C)
            and not self._w_cls.tobytes().translate(None, bytes(range(min(len(self.classes), 256))))
            and self._c_ptr[-1] == len(self._c_term) == len(self._c_val)
        ):
            raise ValueError("ranker artifact arrays disagree in length")
        if len(self._comb_w) != N_COMBINE:  # trained for another set of combination inputs
            raise ValueError("ranker artifact: combiner does not fit this rocmfix")

    @property
    def _vocab(self) -> list[str]:
        """The features, sorted (a list, for code that walks them all)."""
        if self._vocab_list is None:
            self._vocab_list = self._vocab_raw.decode("utf-8").split("\n")
        return self._vocab_list

    @property
    def _w_ptr(self) -> Any:
        """Per feature, where its (class, weight) pairs start: prefix sums of ``w_cnt``."""
        if self._w_ptr_list is None:
            self._w_ptr_list = [0, *accumulate(self._w_cnt)]
        return self._w_ptr_list

    @property
    def _cases(self) -> list[dict[str, str]]:
        """Similar-case metadata, parsed on first use (a plain explain never needs it)."""
        if self._cases_list is None:
            import json  # noqa: PLC0415

            cases = json.loads(self._cases_raw.decode("utf-8"))
            if len(cases) + 1 != len(self._c_ptr):
                raise ValueError("ranker artifact: case index disagrees with its cases")
            if max(self._c_term, default=0) >= max(self._n_vocab, 1):
                raise ValueError("ranker artifact: a case names a feature out of range")
            self._cases_list = cases
        return self._cases_list

    def _label_cases(self, label: str) -> list[tuple[int, str, str, str, str]]:
        """The cases of ``label`` in artifact order: (number, id, url, thread, resolution)."""
        if self._by_label is not None:
            import marshal  # noqa: PLC0415 - built in

            raw = self._by_label.get(label)
            return marshal.loads(raw) if raw else []
        return [
            (n, c["id"], c["url"], c["thread"], c["resolution"])
            for n, c in enumerate(self._cases)
            if c["label"] == label
        ]

    # ---------------------------------------------------------------- the index

    def index_sections(self) -> dict[str, Any]:
        """What :func:`_attach_index` keeps in the cache: an open-addressing table of the
        vocabulary (slot -> feature number, -1 empty), each feature's offset in the UTF-8
        block, the weight pointers, and each label's similar cases, marshalled apart.

        Raises ValueError when the artifact's case index is damaged (checked here once).
        """
        import marshal  # noqa: PLC0415

        bits = max(4, (2 * self._n_vocab - 1).bit_length())  # load factor <= 1/2
        slots = array("i", [-1]) * (1 << bits)
        voff = array("I", [0])
        pos = 0
        raw = self._vocab_raw
        for i in range(self._n_vocab):
            end = raw.find(b"\n", pos)
            end = len(raw) if end < 0 else end
            j = _slot(raw[pos:end], bits)
            while slots[j] >= 0:
                j = (j + 1) & ((1 << bits) - 1)
            slots[j] = i
            pos = end + 1
            voff.append(pos)
        by_label: dict[str, list[tuple[int, str, str, str, str]]] = {}
        for n, c in enumerate(self._cases):
            by_label.setdefault(c["label"], []).append(
                (n, c["id"], c["url"], c["thread"], c["resolution"])
            )
        return {
            "head": self._head,
            "header": self._header,
            "bits": bits,
            "slots": slots.tobytes(),
            "voff": voff.tobytes(),
            "w_ptr": array("I", self._w_ptr).tobytes(),
            "cases": {k: marshal.dumps(v) for k, v in by_label.items()},
        }

    def use_index(self, index: Mapping[str, Any]) -> bool:
        """Adopt an index from :meth:`index_sections` if it is this artifact's; else False."""
        try:
            if index["head"] != self._head:
                return False
            slots, voff, w_ptr = array("i"), array("I"), array("I")
            slots.frombytes(index["slots"])
            voff.frombytes(index["voff"])
            w_ptr.frombytes(index["w_ptr"])
            bits = int(index["bits"])
            cases = dict(index["cases"])
        except (KeyError, TypeError, ValueError):
            return False
        if (
            len(slots) != 1 << bits
            or len(voff) != self._n_vocab + 1
            or len(w_ptr) != self._n_vocab + 1
            or voff[-1] != len(self._vocab_raw) + 1
        ):
            return False
        self._slots, self._voff, self._bits = slots, voff, bits
        self._w_ptr_list = w_ptr
        self._by_label = cases
        return True

    # ---------------------------------------------------------------- vectors

    def _lookup(self, feat: str) -> int:
        slots = self._slots
        if slots is not None:
            raw, voff, bits = self._vocab_raw, self._voff, self._bits
            key = feat.encode("utf-8")
            j = _slot(key, bits)
            while True:
                i = slots[j]
                if i < 0:
                    return -1
                if raw[voff[i] : voff[i + 1] - 1] == key:
                    return i
                j = (j + 1) & ((1 << bits) - 1)
        from bisect import bisect_left  # noqa: PLC0415 - without the index only

        vocab = self._vocab
        i = bisect_left(vocab, feat)
        return i if i < len(vocab) and vocab[i] == feat else -1

    def vector(self, text: str) -> dict[int, float]:
        """Sparse, L2-normalised TF-IDF vector of ``text`` over the vocabulary."""
        vec: dict[int, float] = {}
        idf = self._idf
        for feat, n in _feature_counts(without_chatter(text)).items():
            i = self._lookup(feat)
            if i >= 0:
                vec[i] = (1.0 + math.log(n)) * idf[i]
        norm = math.sqrt(sum(v * v for v in vec.values()))
        if norm:
            for i in vec:
                vec[i] /= norm
        return vec

    def probabilities(self, text: str | Mapping[int, float]) -> dict[str, float]:
        """P(label | text) over the classes (``none`` included): softmax of the scores."""
        # the same region's similar cases come next: its vector is kept for them
        vec = self._cached_vector(text) if isinstance(text, str) else text
        scores = list(self._bias)
        ptr, cls, val, scale = self._w_ptr, self._w_cls, self._w_val, self._w_scale
        for i, x in vec.items():
            for k in range(ptr[i], ptr[i + 1]):
                scores[cls[k]] += val[k] * scale * x
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {c: e / total for c, e in zip(self.classes, exps, strict=True)}

    def combine(
        self, signature: Mapping[str, float], probs: Mapping[str, float]
    ) -> dict[str, float]:
        """Calibrated P(entry is the cause) from signature scores and ranker probabilities."""
        out = {}
        for e, f in candidates_of(signature, probs):
            z = self._comb_b + sum(w * x for w, x in zip(self._comb_w, f, strict=True))
            out[e] = 1.0 / (1.0 + math.exp(-z))
        return decide(signature, out, self._alone)

    # ---------------------------------------------------------------- similar cases

    def _cached_vector(self, text: str) -> dict[int, float]:
        last = getattr(self, "_last", None)
        if last is not None and last[0] == text:
            return last[1]
        vec = self.vector(text)
        self._last = (text, vec)
        return vec

    def similar(
        self,
        text: str | Mapping[int, float],
        label: str,
        *,
        limit: int = 3,
        exclude_threads: Iterable[str] = (),
        min_score: float = 0.05,
    ) -> list[Similar]:
        """Up to ``limit`` held reports of ``label`` closest to ``text`` (cosine), one per thread.

        ``exclude_threads`` (thread keys, see ``rocmfix.kb.split.thread_key``) keeps an
        evaluated case from finding its own thread.
        """
        vec = self._cached_vector(text) if isinstance(text, str) else text
        skip = set(exclude_threads)
        ptr, term, val = self._c_ptr, self._c_term, self._c_val
        scored: list[tuple[float, int, tuple[int, str, str, str, str]]] = []
        for case in self._label_cases(label):
            n = case[0]
            if case[3] in skip:
                continue
            score = 0.0
            for k in range(ptr[n], ptr[n + 1]):
                x = vec.get(term[k])
                if x is not None:
                    score += x * val[k] / 32767.0
            if score >= min_score:
                scored.append((score, n, case))
        scored.sort(key=lambda t: (-t[0], t[1]))
        out: list[Similar] = []
        seen: set[str] = set()
        for score, _n, (_, case_id, url, thread, resolution) in scored:
            if thread in seen:
                continue
            seen.add(thread)
            out.append(
                Similar(
                    id=case_id,
                    url=url,
                    label=label,
                    resolution=resolution,
                    score=min(score, 1.0),
                )
            )
            if len(out) >= limit:
                break
        return out


def artifact_path() -> Path:
    from pathlib import Path  # noqa: PLC0415 - not on explain's path (see _artifact_file)

    return Path(_artifact_file())


def _artifact_file() -> str:
    """``artifact_path()`` as a string, without importing pathlib (~3 ms of a cold start)."""
    import os  # noqa: PLC0415

    return os.path.join(
        os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "data", ARTIFACT
    )


def read_artifact(path: str | Path) -> Ranker:
    with open(path, "rb") as fh:
        return Ranker(fh.read())


def _head_bytes(blob: bytes) -> bytes:
    """The artifact's JSON header, as bytes."""
    if blob[: len(MAGIC)] != MAGIC:
        raise ValueError("not a rocmfix ranker artifact")
    n = len(MAGIC)
    size = int.from_bytes(blob[n : n + 4], "little")
    head = bytes(blob[n + 4 : n + 4 + size])
    if len(head) != size:
        raise ValueError("ranker artifact is truncated")
    return head


def _slot(key: bytes, bits: int) -> int:
    """Where ``key`` (a feature, UTF-8) starts probing in a table of ``2**bits`` slots.

    ``hash`` of an int is not salted per process (a str's is): the key's bytes as an
    integer, hashed, then spread by a Fibonacci multiplication to the top ``bits``.
    """
    h = hash(int.from_bytes(key, "little")) & 0xFFFFFFFFFFFFFFFF
    return ((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> (64 - bits)


def _index_path(path: str) -> str | None:
    """The index cache file for the artifact at ``path``, keyed by its stamp."""
    import os  # noqa: PLC0415

    from rocmfix import __version__  # noqa: PLC0415
    from rocmfix._quick import cache_dir, sha256  # noqa: PLC0415

    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = f"ranker-index-1\0{__version__}\0{sys.hash_info.modulus}\0{sys.byteorder}\0"
    stamp += f"{os.path.realpath(path)}\0{st.st_size}\0{st.st_mtime_ns}"
    return os.path.join(cache_dir(), f"ranker-{sha256(stamp.encode()).hexdigest()[:32]}.marshal")


def _read_index(cache: str) -> dict[str, Any] | None:
    from rocmfix._quick import read_marshal  # noqa: PLC0415

    index = read_marshal(cache)
    return index if isinstance(index, dict) else None


def _write_index(cache: str, index: Mapping[str, Any]) -> None:
    from rocmfix._quick import write_marshal  # noqa: PLC0415

    write_marshal(cache, dict(index))


def load_with_index(path: str) -> Ranker:
    """The artifact at ``path`` with its vocabulary index and parsed header from the user
    cache, both built and stored on a miss.

    The cache is keyed by the artifact's path, size and mtime and checked against the
    artifact's header bytes, so a retrained artifact never meets an old index; a cache
    that cannot be read or written only costs speed.
    """
    with open(path, "rb") as fh:
        blob = fh.read()
    head = _head_bytes(blob)
    cache = _index_path(path)
    index = _read_index(cache) if cache else None
    if index is not None and index.get("head") == head:
        try:
            cached = Ranker(blob, header=index.get("header"))
        except (KeyError, TypeError, ValueError):  # a damaged cache: build it anew
            cached = None
        if cached is not None and cached.use_index(index):
            return cached
    model = Ranker(blob)
    try:
        index = model.index_sections()
    except ValueError:  # a damaged case index: similar() says so when asked
        return model
    model.use_index(index)
    if cache:
        _write_index(cache, index)
    return model


_DEFAULT: list[Ranker | None] = []


def default_ranker() -> Ranker | None:
    """The shipped model, loaded on first use; ``None`` when it is missing or unreadable."""
    if not _DEFAULT:
        try:
            _DEFAULT.append(load_with_index(_artifact_file()))
        except (OSError, ValueError, KeyError, TypeError):
            _DEFAULT.append(None)
    return _DEFAULT[0]


def _forget_default() -> None:
    _DEFAULT.clear()


default_ranker.cache_clear = _forget_default  # type: ignore[attr-defined]  # as lru_cache had it


def similar_cases(explanation: Any, entry_id: str, limit: int = 3) -> list[Similar]:
    """Solved real reports of ``entry_id`` closest to what the user gave (may be empty)."""
    model = default_ranker()
    region = getattr(explanation, "region", "")
    if model is None or not region.strip():
        return []
    try:
        return model.similar(region, entry_id, limit=limit)
    except ValueError:  # a damaged case index (checked on first use): no similar cases
        return []
