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

import json
import math
import sys
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from itertools import accumulate

from rocmfix import _rx
from rocmfix._record import record

TYPE_CHECKING = False  # typing is not imported at run time (start-up cost)
if TYPE_CHECKING:
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
    words = _words(text[-MAX_CHARS:])
    counts: Counter[str] = Counter()
    prev = ""
    for w in words:
        counts["w:" + w] += 1
        if prev:
            counts["b:" + prev + " " + w] += 1
        prev = w
        if w[0] < "\u3400":  # character n-grams for Latin words (digits folded)
            padded = " " + _DIGITS.sub("0", w) + " "
            n = len(padded)
            for k in (3, 4, 5):
                for i in range(n - k + 1):
                    counts["c:" + padded[i : i + k]] += 1
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

    def __init__(self, blob: bytes):
        if blob[: len(MAGIC)] != MAGIC:
            raise ValueError("not a rocmfix ranker artifact")
        n = len(MAGIC)
        size = int.from_bytes(blob[n : n + 4], "little")
        data = json.loads(blob[n + 4 : n + 4 + size])
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
        self._vocab: list[str] = section("vocab").decode("utf-8").split("\n")
        self._idf = section("idf")
        self._w_ptr = [0, *accumulate(section("w_cnt"))]
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
        if not (
            len(self._idf) == len(self._vocab)
            and len(self._w_ptr) == len(self._vocab) + 1
            and self._w_ptr[-1] == len(self._w_cls) == len(self._w_val)
            and len(self.classes) == len(self._bias)
            # every class index names a class: deleting the valid bytes leaves none (in C)
            and not self._w_cls.tobytes().translate(None, bytes(range(min(len(self.classes), 256))))
            and self._c_ptr[-1] == len(self._c_term) == len(self._c_val)
        ):
            raise ValueError("ranker artifact arrays disagree in length")
        if len(self._comb_w) != N_COMBINE:  # trained for another set of combination inputs
            raise ValueError("ranker artifact: combiner does not fit this rocmfix")

    @property
    def _cases(self) -> list[dict[str, str]]:
        """Similar-case metadata, parsed on first use (a plain explain never needs it)."""
        if self._cases_list is None:
            cases = json.loads(self._cases_raw.decode("utf-8"))
            if len(cases) + 1 != len(self._c_ptr):
                raise ValueError("ranker artifact: case index disagrees with its cases")
            if max(self._c_term, default=0) >= max(len(self._vocab), 1):
                raise ValueError("ranker artifact: a case names a feature out of range")
            self._cases_list = cases
        return self._cases_list

    # ---------------------------------------------------------------- vectors

    def _lookup(self, feat: str) -> int:
        vocab = self._vocab
        i = bisect_left(vocab, feat)
        return i if i < len(vocab) and vocab[i] == feat else -1

    def vector(self, text: str) -> dict[int, float]:
        """Sparse, L2-normalised TF-IDF vector of ``text`` over the vocabulary."""
        vec: dict[int, float] = {}
        idf = self._idf
        for feat, n in features(without_chatter(text)).items():
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
        vec = self.vector(text) if isinstance(text, str) else text
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
        scored: list[tuple[float, int]] = []
        for n, case in enumerate(self._cases):
            if case["label"] != label or case["thread"] in skip:
                continue
            score = 0.0
            for k in range(ptr[n], ptr[n + 1]):
                x = vec.get(term[k])
                if x is not None:
                    score += x * val[k] / 32767.0
            if score >= min_score:
                scored.append((score, n))
        scored.sort(key=lambda t: (-t[0], t[1]))
        out: list[Similar] = []
        seen: set[str] = set()
        for score, n in scored:
            case = self._cases[n]
            if case["thread"] in seen:
                continue
            seen.add(case["thread"])
            out.append(
                Similar(
                    id=case["id"],
                    url=case["url"],
                    label=case["label"],
                    resolution=case["resolution"],
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


@lru_cache(maxsize=1)
def default_ranker() -> Ranker | None:
    """The shipped model, loaded on first use; ``None`` when it is missing or unreadable."""
    try:
        return read_artifact(_artifact_file())
    except (OSError, ValueError, KeyError, TypeError):
        return None


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
