"""Train the learned ranker (``rocmfix/data/ranker.bin``) from a repository's reports.

    rocmfix kb train --data tests/data              # train, write the artifact
    rocmfix kb train --data tests/data --compare    # also kNN and leave-rounds-out figures
    PYTHONPATH=src python scripts/train_ranker.py   # the same, from a source checkout

Only the *tune* side of the frozen split (``DATA/split.json``) is learned from;
the frozen side is never read here except to list its cases as similar-case
material (ids, URLs, our resolution line and a few top features — no prose).
Cross-validation is grouped by thread (GroupKFold, 5 folds); ``--compare`` adds
a leave-rounds-out estimate (whole collection rounds held out at once, the
closest thing to reports from a source nobody has read). Deterministic: the
same data gives the same artifact byte for byte, written atomically. Needs
scikit-learn (a training dependency only; the shipped inference in
``rocmfix.kb.ranker`` is pure Python, and nothing else imports this module).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from rocmfix.kb import family
from rocmfix.kb import ranker as rk
from rocmfix.kb.kinds import text_kind
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher
from rocmfix.kb.split import TUNE, Split, repo_cases, thread_key

C = 30.0  # L2 inverse strength; chosen by grouped CV (see docs/ranker.md)
MIN_DF = 2  # a feature must occur in two tune-side cases
MAX_FEATURES = 20000  # by document frequency, ties by name
CLASS_WEIGHT: str | None = None
"""The ranker's class weighting: None (each case counts by its sample weight) or
"balanced" (each label weighs the same in total). Measured in docs/ranker.md, "Round 8"."""
SAMPLE_WEIGHT = "case"
"""How the ranker's training cases are weighted: "case" (each counts once), "thread" or
"round" (each thread / collection round sums to the same weight, so a large old source
stops outweighing a small new one). Weights are scaled to a mean of 1, so ``C`` keeps
its meaning. Measured in docs/ranker.md, "Round 8"."""
DF_BY = "case"
"""What the document frequency that chooses the features (``MIN_DF``, ``MAX_FEATURES``)
counts: cases, or distinct threads / rounds using the feature, so that a source's own
jargon repeated over its many cases is not kept over words many sources use. The IDF
stays over cases. Measured in docs/ranker.md, "Round 8"."""
NONE_WEIGHT = 1.0
"""Extra weight of the ranker's look-alike (``none``) training cases (1 = as any case)."""
WEIGHTINGS = ("case", "thread", "round")
PRUNE = 0.05  # weights below this share of a class's largest |weight| are dropped
CASE_TERMS = 30  # features kept per similar case
FOLDS = 5
ROUND_GROUPS = 6  # leave-rounds-out: the heldout rounds in this many groups, round-robin
NO_SIGNATURE_WEIGHT = 0.07
"""Weight of each tune case's copy with its signature scores removed, in the combiner's fit.

The signatures were written from the tune-side reports, so on them a signature fires
for nearly every labelled case, and a combiner fitted on that alone learns that no
signature means no cause: on a report in words no signature knows, the ranker could
never name one. The copies teach it what the ranker alone is worth. The weight is the
largest that, by leave-rounds-out on the tune side (docs/ranker.md), costs the reports
as they are nothing (top-1, look-alikes). 0.04 -> 0.07 together with RANKER_ALONE
0.6 -> 0.5, chosen on the tune side of rounds aa-aj scored by a ranker trained without
them (scripts/eval_new_source.py, the closest the tune side has to a new source):
top-1 0.495 -> 0.548, "none" with the right id in the top 3 31 -> 24, look-alikes left
alone 0.71 either way, "confidence >= 0.5 is right" 0.766 -> 0.775. Leave-rounds-out
(whole tune side, 650 labelled, 182 look-alikes): as the cases are top-1 566 -> 567,
look-alikes 152 -> 151; with the signatures taken away top-1 0.50 -> 0.57, look-alikes
0.95 -> 0.93. 0.1 names one more case there but leaves fewer look-alikes alone.
"""
RANKER_ALONE = 0.5
"""The combined score from which the ranker names a cause that no signature or symptom
matched at all (below it: "possibly related"). It was 0.6, which on reports from a new
source left causes the ranker had first unsaid (see NO_SIGNATURE_WEIGHT for the figures
of the change); at 0.5 it is the same bar as any other cause.
"""


def round_of(origin: str) -> str:
    """The collection round a case came from: ``heldout/heldout-u.jsonl`` -> ``heldout-u``."""
    if origin.startswith("heldout/"):
        return origin.split("/", 1)[1].removesuffix(".jsonl")
    return origin.split("/", 1)[0] or "?"


def prepare(data_dir: Path) -> list[dict]:
    """Every case with its candidate-region text and signature-only scores."""
    split = Split.load(data_dir / "split.json")
    matcher = Matcher(load_kb(), use_ranker=False)
    rows = []
    for case in repo_cases(data_dir):
        result = matcher.explain_text(case["text"])
        rows.append(
            {
                "id": str(case.get("id")),
                "label": case["label"],
                "alt": list(case.get("alt_labels") or []),
                "side": split.side(case.get("source", "")),
                "thread": thread_key(case.get("source", "")) or str(case.get("id")),
                "url": case.get("source", ""),
                "why": " ".join(str(case.get("why", "")).split()),
                "kind": text_kind(case["text"]),
                "region": result.region,
                "sig": {m.entry.id: m.confidence for m in result.matches},
                # the facts the matcher reorders family members by (rocmfix.kb.family)
                "facts": family.read(result.excerpt.full_text or result.region),
                "round": round_of(str(case.get("origin", ""))),
            }
        )
    return rows


class Space:
    """Vocabulary and IDF learned from some rows; vectors exactly as rk.Ranker makes them."""

    def __init__(self, feats: list[Counter], rows: list[dict] | None = None):
        df: Counter = Counter()
        for f in feats:
            df.update(f.keys())
        rank = df  # what MIN_DF and MAX_FEATURES count (DF_BY): cases, threads or rounds
        if DF_BY != "case" and rows is not None:
            if len(rows) != len(feats):
                raise ValueError("Space: rows and feats differ in length")
            seen: dict[str, set] = {}
            for f, r in zip(feats, rows, strict=True):
                for t in f:
                    seen.setdefault(t, set()).add(r[DF_BY])
            rank = Counter({t: len(g) for t, g in seen.items()})
        keep = sorted(
            (f for f, n in rank.items() if n >= MIN_DF), key=lambda f: (-rank[f], -df[f], f)
        )
        self.vocab = sorted(keep[:MAX_FEATURES])
        self.index = {f: i for i, f in enumerate(self.vocab)}
        n = len(feats)
        # float32 as shipped, so training sees the weights inference will use
        self.idf = np.array(
            [math.log((1 + n) / (1 + df[f])) + 1 for f in self.vocab], dtype=np.float32
        ).astype(np.float64)

    def matrix(self, feats: list[Counter]) -> csr_matrix:
        data, ind, ptr = [], [], [0]
        for f in feats:
            vec = {self.index[t]: (1 + math.log(c)) for t, c in f.items() if t in self.index}
            vec = {i: v * self.idf[i] for i, v in vec.items()}
            norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
            for i in sorted(vec):
                ind.append(i)
                data.append(vec[i] / norm)
            ptr.append(len(ind))
        return csr_matrix((data, ind, ptr), shape=(len(feats), len(self.vocab)))


def sample_weights(rows: list[dict] | None) -> np.ndarray | None:
    """Per-case weights of the ranker's fit (``SAMPLE_WEIGHT``, ``NONE_WEIGHT``), mean 1;
    None where every case counts once."""
    if rows is None or (SAMPLE_WEIGHT == "case" and NONE_WEIGHT == 1.0):
        return None
    if SAMPLE_WEIGHT not in WEIGHTINGS:
        raise ValueError(f"SAMPLE_WEIGHT {SAMPLE_WEIGHT!r}: one of {', '.join(WEIGHTINGS)}")
    w = np.ones(len(rows))
    if SAMPLE_WEIGHT != "case":
        size = Counter(r[SAMPLE_WEIGHT] for r in rows)
        w = np.array([1.0 / size[r[SAMPLE_WEIGHT]] for r in rows])
    w *= np.array([NONE_WEIGHT if r["label"] == "none" else 1.0 for r in rows])
    return w * (len(rows) / w.sum())


def fit_lr(x: csr_matrix, y: np.ndarray, rows: list[dict] | None = None) -> LogisticRegression:
    """The ranker: multinomial LR (``C``, ``CLASS_WEIGHT``), cases weighted by ``rows``
    (``sample_weights``; None: each case once)."""
    model = LogisticRegression(C=C, max_iter=3000, class_weight=CLASS_WEIGHT)
    return model.fit(x, y, sample_weight=sample_weights(rows))


def shipped_weights(coef: np.ndarray) -> tuple[np.ndarray, float]:
    """The weights as shipped: small ones pruned per class, the rest int16-quantised."""
    scale = float(np.abs(coef).max()) / 32767.0
    keep = np.abs(coef) >= PRUNE * np.abs(coef).max(axis=1, keepdims=True)
    return np.where(keep, np.round(coef / scale), 0.0), scale


def shipped_probs(model: LogisticRegression, x: csr_matrix) -> np.ndarray:
    """Probabilities of the pruned, quantised model (what rk.Ranker computes)."""
    q, scale = shipped_weights(model.coef_)
    z = np.asarray(x @ (q * scale).T) + np.round(model.intercept_, 6)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def knn_probs(xtr, ytr, xte, classes, k=7):
    sims = (xte @ xtr.T).toarray()
    ci = {c: i for i, c in enumerate(classes)}
    out = np.zeros((xte.shape[0], len(classes)))
    for a in range(sims.shape[0]):
        for t in np.argsort(-sims[a], kind="stable")[:k]:
            out[a, ci[ytr[t]]] += sims[a, t]
        out[a] /= out[a].sum() or 1.0
    return out


def ranker_only(rows, probs):
    """top-1 (none counts as an answer), top-3 (among causes), look-alikes left alone."""
    n = t1 = t3 = nn = nok = 0
    for r, p in zip(rows, probs, strict=True):
        order = sorted(p, key=lambda c: (-p[c], c))
        if r["label"] == "none":
            nn += 1
            nok += order[0] == "none"
        else:
            n += 1
            t1 += order[0] == r["label"]
            t3 += r["label"] in [c for c in order if c != "none"][:3]
    return {"top1": t1 / n, "top3": t3 / n, "lookalikes_left_alone": nok / nn}


def combined(rows, probs, comb_w, comb_b, stats=None, alone=None, on_row=None, decide=None):
    """Counts of the shipped decision (rk.Ranker.combine) over rows, per kind and overall.

    ``alone`` overrides the bar for a cause nothing matched (``RANKER_ALONE``);
    ``on_row(row, got, order)`` sees each decision (scripts/eval_new_source.py counts
    its silent misses with it); ``decide`` replaces ``rk.decide`` (to measure another rule).
    """
    stats = {} if stats is None else stats
    bar = RANKER_ALONE if alone is None else alone
    decide = rk.decide if decide is None else decide
    for r, p in zip(rows, probs, strict=True):
        q = {}
        for e, f in rk.candidates_of(r["sig"], p):
            z = comb_b + sum(w * x for w, x in zip(comb_w, f, strict=True))
            q[e] = 1 / (1 + math.exp(-z))
        final = family.reorder(decide(r["sig"], q, bar), r.get("facts"))
        order = sorted(final, key=lambda e: (-final[e], e))
        got = order[0] if order and final[order[0]] >= 0.5 else "none"
        if on_row is not None:
            on_row(r, got, order)
        for key in ("all", r["kind"]):
            s = stats.setdefault(key, [0] * 7)
            if got != "none":
                s[5] += 1
                s[6] += got == r["label"] or got in r["alt"]
            if r["label"] == "none":
                s[3] += 1
                s[4] += got == "none"
            else:
                s[0] += 1
                s[1] += got == r["label"]
                s[2] += r["label"] in order[:3]
    return stats


def figures(stats):
    return {
        k: {
            "cases": s[0] + s[3],
            "top1": round(s[1] / s[0], 4) if s[0] else None,
            "top3": round(s[2] / s[0], 4) if s[0] else None,
            "lookalikes_left_alone": round(s[4] / s[3], 4) if s[3] else None,
            "confident_right": round(s[6] / s[5], 4) if s[5] else None,
        }
        for k, s in sorted(stats.items())
    }


STACK_BY = "thread"
"""How the out-of-fold ranker scores that the combiner is fitted on are grouped.

"thread" scores each tune case by a ranker that never saw its thread, but may have
learned its same-source siblings from other threads of its round, so the combiner
learns on scores more confident than a report from a new source gets. "round" holds
out whole collection rounds (one source each), which is what the next report is to
the shipped ranker. Measured in round 5 (docs/ranker.md): "round" gains two cases on
the bg-bv yardstick and moves none on bw-ce and at-bf (one fewer on ak-bf), and with
the shipped ranker it costs a few frozen cases (rounds a-z and ak-as below their
floors), so the default stays "thread"; ``scripts/eval_new_source.py --stack-by``.
"""
COMBINER_C = 10.0  # L2 inverse strength of the combiner's fit
MONOTONE_SIGNS = (1, 1, 1, -1, 1, 1, -1, 1, 1, -1, 1, 0)
"""Signs for a monotone combiner (``fit_combiner(..., signs=MONOTONE_SIGNS)``), in the
order of rk.combine_features: +1 weight at least 0, -1 at most 0, 0 free. A higher
signature score, ranker probability, being first or a wider margin may only raise
P(cause); P(none) and another entry's signature may only lower it.

Measured, not shipped (docs/ranker.md, "Round 4"): the free fit learns p -5.5 beside
sqrt(p) +5.3, so with a signature present a ranker probability above ~0.24 lowers the
entry's score. Bounded, leave-rounds-out on the tune side gains a case or two in every
era, but the ak-bf yardstick loses one (top-1 0.577 -> 0.571), so the free fit stays.
"""


def fit_combiner(rows, probs, no_signature_weight: float = NO_SIGNATURE_WEIGHT, signs=None):
    """The combiner's weights and bias: an L2-regularised logistic fit (C = ``COMBINER_C``).

    Each tune case counts once as it is and once, at ``no_signature_weight``, with its
    signature scores removed. ``probs`` must be out-of-fold ranker scores (a ranker
    scoring its own training cases is over-confident, and a combiner fitted on that
    trusts it too much). ``signs`` (e.g. ``MONOTONE_SIGNS``) bounds each weight's sign.
    """
    xs, ys, ws = [], [], []
    for r, p in zip(rows, probs, strict=True):
        for sig, weight in ((r["sig"], 1.0), ({}, no_signature_weight)):
            if weight <= 0:
                continue
            for e, f in rk.candidates_of(sig, p):
                xs.append(f)
                ys.append(int(e == r["label"]))
                ws.append(weight)
    x, y, sw = np.array(xs), np.array(ys, dtype=float), np.array(ws)
    if signs is None:
        m = LogisticRegression(C=COMBINER_C, max_iter=5000, tol=1e-8).fit(x, y, sample_weight=sw)
        return [round(float(w), 6) for w in m.coef_[0]], round(float(m.intercept_[0]), 6)
    from scipy.optimize import minimize  # noqa: PLC0415

    d = x.shape[1]

    def loss(t):
        z = x @ t[:d] + t[d]
        g = (1.0 / (1.0 + np.exp(-z)) - y) * sw
        value = float(sw @ (np.logaddexp(0.0, z) - y * z)) + 0.5 * float(t[:d] @ t[:d]) / COMBINER_C
        return value, np.concatenate([x.T @ g + t[:d] / COMBINER_C, [g.sum()]])

    bounds = [(0.0, None) if s > 0 else (None, 0.0) if s < 0 else (None, None) for s in signs]
    fit = minimize(
        loss,
        np.zeros(d + 1),
        jac=True,
        method="L-BFGS-B",
        bounds=[*bounds, (None, None)],
        options={"maxiter": 10000, "ftol": 1e-12, "gtol": 1e-8},
    )
    return [round(float(w), 6) for w in fit.x[:d]], round(float(fit.x[d]), 6)


def out_of_fold(rows, feats, compare: bool, by: str = "thread"):
    """Out-of-fold ranker probabilities (and kNN's with ``compare``), GroupKFold by ``by``.

    ``by="thread"`` keeps each thread in one fold (the ranker's own CV); ``by="round"``
    keeps each collection round in one fold, so a case is scored by a ranker that never
    saw its source: the scores a report from a new source gets, which the combiner and
    its "none" decision are fitted on (``STACK_BY``).
    """
    y = np.array([r["label"] for r in rows])
    groups = np.array([r[by] for r in rows])
    oof: list[dict | None] = [None] * len(rows)
    oof_knn: list[dict | None] = [None] * len(rows)
    for tr, te in GroupKFold(n_splits=FOLDS).split(np.zeros(len(rows)), y, groups):
        space = Space([feats[i] for i in tr], [rows[i] for i in tr])
        xtr = space.matrix([feats[i] for i in tr])
        xte = space.matrix([feats[i] for i in te])
        model = fit_lr(xtr, y[tr], [rows[i] for i in tr])
        classes = list(model.classes_)
        p = shipped_probs(model, xte)
        for a, i in enumerate(te):
            oof[i] = {c: float(p[a, j]) for j, c in enumerate(classes)}
        if compare:
            pk = knn_probs(xtr, y[tr], xte, classes)
            for a, i in enumerate(te):
                oof_knn[i] = {c: float(pk[a, j]) for j, c in enumerate(classes)}
    return oof, oof_knn


def case_index(rows, space: Space):
    """Similar-case material: every labelled report (either side), top features only."""
    cases, ptr, terms, vals = [], [0], [], []
    # Our one-line resolution: a held-out row's `why`; a log sample borrows the one
    # written for its thread, and without one it is not shown as a solved case.
    why = {}
    for r in rows:
        if r["why"] and r["label"] != "none":
            why.setdefault((r["thread"], r["label"]), r["why"])
    keep = []
    for r in rows:
        if r["label"] == "none" or not r["url"]:
            continue
        r["why"] = r["why"] or why.get((r["thread"], r["label"]), "")
        if r["why"]:
            keep.append(r)
    mat = space.matrix([rk.features(r["region"]) for r in keep])
    for n, r in enumerate(keep):
        row = mat.getrow(n)
        pairs = sorted(zip(row.indices, row.data, strict=True), key=lambda t: (-t[1], t[0]))
        pairs = pairs[:CASE_TERMS]
        norm = math.sqrt(sum(v * v for _, v in pairs)) or 1.0
        for i, v in sorted(pairs):
            terms.append(int(i))
            vals.append(round(v / norm * 32767))
        ptr.append(len(terms))
        cases.append(
            {
                "id": r["id"],
                "url": r["url"],
                "label": r["label"],
                "thread": r["thread"],
                "resolution": r["why"][:240],
            }
        )
    return cases, ptr, terms, vals


def leave_rounds_out(rows, feats, oof) -> dict:
    """Whole collection rounds held out at once: the closest estimate of a new source.

    The heldout rounds (``heldout-*``) go into ``ROUND_GROUPS`` groups round-robin; for
    each group the ranker is trained on every other tune case and the combiner on
    their out-of-fold scores, and the group's cases are scored twice: as they are,
    and with their signature scores removed (a report whose wording no signature
    knows — on reports nobody tuned for, that is the common case).
    """
    y = np.array([r["label"] for r in rows])
    rounds = sorted({r["round"] for r in rows if r["round"].startswith("heldout-")})
    groups = [rounds[k::ROUND_GROUPS] for k in range(min(ROUND_GROUPS, len(rounds)))]
    plain: dict = {}
    bare: dict = {}
    ranker_rows, ranker_probs = [], []
    for group in groups:
        te = [i for i, r in enumerate(rows) if r["round"] in group]
        tr = [i for i, r in enumerate(rows) if r["round"] not in group]
        if not te or not tr:
            continue
        space = Space([feats[i] for i in tr], [rows[i] for i in tr])
        model = fit_lr(space.matrix([feats[i] for i in tr]), y[tr], [rows[i] for i in tr])
        p = shipped_probs(model, space.matrix([feats[i] for i in te]))
        probs = [{c: float(p[a, j]) for j, c in enumerate(model.classes_)} for a in range(len(te))]
        w, b = fit_combiner([rows[i] for i in tr], [oof[i] for i in tr])
        test = [rows[i] for i in te]
        combined(test, probs, w, b, plain)
        combined([{**r, "sig": {}} for r in test], probs, w, b, bare)
        ranker_rows += test
        ranker_probs += probs
    return {
        "groups": [",".join(g) for g in groups],
        "lr": ranker_only(ranker_rows, ranker_probs) if ranker_rows else {},
        "combined": figures(plain),
        "combined_without_signatures": figures(bare),
    }


def train(
    data_dir: str | Path,
    out: str | Path,
    *,
    compare: bool = False,
    report_path: str | Path | None = None,
    log: Callable[[str], Any] = print,
) -> dict:
    """Train from ``data_dir`` (``heldout/``, ``logs/``, ``split.json``) and write ``out``.

    Returns the cross-validation report (also written to ``report_path`` as JSON).
    """
    t0 = time.time()
    data = Path(data_dir)
    rows = prepare(data)
    tune = [r for r in rows if r["side"] == TUNE]
    if len({r["thread"] for r in tune}) < FOLDS or len({r["label"] for r in tune}) < 2:
        raise ValueError(
            f"{data}: the tune side needs at least {FOLDS} threads and two labels to train on"
        )
    feats = [rk.features(r["region"]) for r in tune]
    log(f"{len(rows)} cases, {len(tune)} on the tune side ({time.time() - t0:.0f}s)")
    oof, oof_knn = out_of_fold(tune, feats, compare)
    # the combiner's material: scores from rankers that never saw the case's source
    # (with fewer rounds than folds, as in a small data folder, by thread as before)
    by = STACK_BY if len({r[STACK_BY] for r in tune}) >= FOLDS else "thread"
    stack = oof if by == "thread" else out_of_fold(tune, feats, False, by=by)[0]
    report: dict = {"cv": {"folds": FOLDS, "grouped_by": "thread", "stacked_by": by}}
    report["cv"]["lr"] = ranker_only(tune, oof)
    if compare:
        report["cv"]["knn7"] = ranker_only(tune, oof_knn)
    # The combiner's own CV: fitted on four folds' out-of-fold scores, scored on the fifth.
    y = np.array([r["label"] for r in tune])
    groups = np.array([r["thread"] for r in tune])
    pooled: dict = {}
    for tr, te in GroupKFold(n_splits=FOLDS).split(np.zeros(len(tune)), y, groups):
        w, b = fit_combiner([tune[i] for i in tr], [stack[i] for i in tr])
        combined([tune[i] for i in te], [stack[i] for i in te], w, b, pooled)
    report["cv"]["combined"] = figures(pooled)
    if compare:
        report["leave_rounds_out"] = leave_rounds_out(tune, feats, stack)
    comb_w, comb_b = fit_combiner(tune, stack)
    log(json.dumps(report, indent=1))

    space = Space(feats, tune)
    model = fit_lr(space.matrix(feats), np.array([r["label"] for r in tune]), tune)
    classes = [str(c) for c in model.classes_]
    coef = model.coef_  # classes x features
    w_cnt, w_cls, w_val = [], [], []
    q, scale = shipped_weights(coef)
    for j in range(q.shape[1]):
        nz = np.nonzero(q[:, j])[0]
        w_cnt.append(len(nz))
        w_cls += [int(c) for c in nz]
        w_val += [int(q[c, j]) for c in nz]
    cases, c_ptr, c_term, c_val = case_index(rows, space)
    header = {
        "meta": {
            "trained_on": "tune side of tests/data/split.json",
            "tune_cases": len(tune),
            "features": len(space.vocab),
            "C": C,
            "class_weight": CLASS_WEIGHT,
            "sample_weight": SAMPLE_WEIGHT,
            "df_by": DF_BY,
            "none_weight": NONE_WEIGHT,
            "no_signature_weight": NO_SIGNATURE_WEIGHT,
            "ranker_alone": RANKER_ALONE,
            "stacked_by": by,
        },
        "classes": classes,
        "bias": [round(float(b), 6) for b in model.intercept_],
        "combiner": {"w": comb_w, "b": comb_b, "alone": RANKER_ALONE},
        "w_scale": scale,
    }
    sections = {
        "vocab": "\n".join(space.vocab),
        "idf": space.idf.astype(np.float32).tolist(),
        "w_cnt": w_cnt,
        "w_cls": w_cls,
        "w_val": w_val,
        "c_ptr": c_ptr,
        "c_term": c_term,
        "c_val": c_val,
        "cases": json.dumps(cases, ensure_ascii=False, separators=(",", ":")),
    }
    rk.write_artifact(out, header, sections)
    size = Path(out).stat().st_size
    log(
        f"wrote {out}: {size / 1e6:.2f} MB, {len(space.vocab)} features, "
        f"{len(w_val)} weights, {len(cases)} similar cases ({time.time() - t0:.0f}s)"
    )
    if report_path:
        Path(report_path).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parents[3]  # a source checkout: src/rocmfix/kb/train.py
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(root / "tests" / "data"))
    ap.add_argument("--out", default=str(rk.artifact_path()))
    ap.add_argument("--compare", action="store_true", help="also kNN and leave-rounds-out")
    ap.add_argument("--report", metavar="JSON", help="write the CV figures here")
    args = ap.parse_args(argv)
    train(args.data, args.out, compare=args.compare, report_path=args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
