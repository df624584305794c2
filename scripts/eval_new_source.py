"""Estimate the figure on reports from a new source, on the tune side only.

The ranker and combiner are trained on the tune side of the rounds collected *before*
the held-out rounds, then the tune side of the held-out rounds is scored with the
shipped decision (signatures as they are). That mimics a report from a source nobody
tuned for; the frozen side is never read.

    PYTHONPATH=src python scripts/eval_new_source.py [--new ak-bf,aa-aj] [--cache DIR]
        [--no-signature-weight W] [--alone A] [--monotone] [--stack-by thread|round]
        [--C C] [--max-features N] [--class-weight none|balanced]
        [--sample-weight case|thread|round] [--df-by case|thread|round] [--none-weight W] [--json]

Held-out sets (``--new``, comma-separated, each trained on the rounds older than it):
``ak-bf`` (rounds heldout-ak ... heldout-bf, trained on a ... aj: the yardstick),
``aa-aj`` (the round-2 estimate, trained on a ... z), ``at-bf``, ``bg-bv``, ``bw-ce``, ``cf-cl`` and
``cm-cw``, ``cx-df``, ``dg-do``, ``dp-ea`` (the newest rounds, each trained on every older round, or on the rounds older than
``--train-before ROUND``).
Prints top-1, top-3, look-alikes left alone, "confidence >= 0.5 is right", prose top-1
and the silent misses: "none" answered while the right id was in the top 3.
Also grouped 5-fold CV (by thread) over each set's training rows, from the same out-of-fold
scores: the ranker alone and the combined decision.
Needs scikit-learn (the `train` dependency group).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
from collections import Counter
from pathlib import Path

import numpy as np

from rocmfix.kb import ranker as rk
from rocmfix.kb import setups
from rocmfix.kb import train as tr
from rocmfix.kb.split import TUNE, repo_cases

SETS = {
    "ak-bf": ("ak", "bf"),
    "aa-aj": ("aa", "aj"),
    "at-bf": ("at", "bf"),
    "bg-bv": ("bg", "bv"),
    "bw-ce": ("bw", "ce"),
    "cf-cl": ("cf", "cl"),
    "cm-cw": ("cm", "cw"),
    "cx-df": ("cx", "df"),
    "dg-do": ("dg", "do"),
    "dp-ea": ("dp", "ea"),
}


def round_key(name: str) -> tuple[int, str]:
    """Collection order: heldout-a ... heldout-z, then heldout-aa ... ; other files first."""
    if not name.startswith("heldout-"):
        return (0, "")
    tail = name.removeprefix("heldout-")
    return (len(tail), tail)


def held(name: str, first: str, last: str) -> bool:
    return round_key("heldout-" + first) <= round_key(name) <= round_key("heldout-" + last)


def older(name: str, first: str) -> bool:
    return round_key(name) < round_key("heldout-" + first)


def held_decide(r, decide=None):
    """``rk.decide`` followed by the set-up holds the matcher applies after the ranker
    (rocmfix.kb.setups): entries the text rules out are held at setups.HELD."""
    decide = rk.decide if decide is None else decide
    held = r.get("held", ())

    def run(sig, q, bar):
        out = decide(sig, q, bar)
        for e, v in out.items():
            if e in held:
                out[e] = min(v, setups.HELD)
        return out

    return run


def score(rows, probs, w, b, alone, decide=None):
    """Figures of the shipped decision over rows, with the silent misses."""
    silent_top3 = 0
    misses = []

    def on_row(r, got, order):
        nonlocal silent_top3
        if r["label"] != "none" and got == "none" and r["label"] in order[:3]:
            silent_top3 += 1
        if got != r["label"] and got not in r["alt"]:
            misses.append((r["label"], str(got)))

    stats: dict = {}
    for r, p in zip(rows, probs, strict=True):
        tr.combined(
            [r], [p], w, b, stats, alone=alone, on_row=on_row, decide=held_decide(r, decide)
        )
    return tr.figures(stats), silent_top3, misses


def ranker_scores(old, new, cache: Path | None, stack_by: str = "thread"):
    """Out-of-fold probabilities of ``old`` (folds grouped by ``stack_by``) and a ranker
    trained on ``old`` scoring ``new``."""
    key = hashlib.sha256(
        repr((sorted(r["id"] for r in old), sorted(r["id"] for r in new))).encode()
    ).hexdigest()[:16]
    tail = "" if stack_by == "thread" else f"-{stack_by}"
    if (tr.C, tr.MAX_FEATURES) != (30.0, 20000):  # the settings the cache was first keyed by
        tail += f"-C{tr.C:g}-F{tr.MAX_FEATURES}"
    if tr.CLASS_WEIGHT is not None:
        tail += f"-cw{tr.CLASS_WEIGHT}"
    if tr.SAMPLE_WEIGHT != "case":
        tail += f"-sw{tr.SAMPLE_WEIGHT}"
    if tr.DF_BY != "case":
        tail += f"-df{tr.DF_BY}"
    if tr.NONE_WEIGHT != 1.0:
        tail += f"-nw{tr.NONE_WEIGHT:g}"
    path = cache / f"scores-{key}{tail}.pkl" if cache else None
    if path is not None and path.exists():
        return pickle.loads(path.read_bytes())
    feats = [rk.features(r["region"]) for r in old]
    oof, _ = tr.out_of_fold(old, feats, False, by=stack_by)
    space = tr.Space(feats, old)
    model = tr.fit_lr(space.matrix(feats), np.array([r["label"] for r in old]), old)
    p = tr.shipped_probs(model, space.matrix([rk.features(r["region"]) for r in new]))
    probs = [{c: float(p[a, j]) for j, c in enumerate(model.classes_)} for a in range(len(new))]
    if path is not None:
        path.write_bytes(pickle.dumps((oof, probs)))
    return oof, probs


def estimate(rows, name, args, cache):
    first, last = SETS[name]
    tune = [r for r in rows if r["side"] == TUNE]
    before = getattr(args, "train_before", None) or first
    if round_key("heldout-" + before) > round_key("heldout-" + first):
        raise SystemExit(
            f"--train-before {before}: later than the held-out set's first round {first}"
        )
    old = [r for r in tune if older(r["round"], before)]
    new = [r for r in tune if held(r["round"], first, last)]
    oof, probs = ranker_scores(old, new, cache, args.stack_by)
    signs = tr.MONOTONE_SIGNS if args.monotone else None
    w, b = tr.fit_combiner(old, oof, args.no_signature_weight, signs=signs)
    figs, silent, misses = score(new, probs, w, b, args.alone)
    return {
        "cv": grouped_cv(old, oof, args, signs),
        "held_out": f"heldout-{first} ... heldout-{last}",
        "trained_on": len(old),
        "scored": len(new),
        "figures": figs,
        "none_with_right_id_in_top3": silent,
        "misses": Counter(misses),
    }


def grouped_cv(rows, oof, args, signs):
    """Grouped 5-fold CV (by thread) over the training rows, from the out-of-fold ranker
    scores already made: the ranker alone, and the combiner fitted on four folds and
    scored on the fifth with the shipped decision (as `kb train` reports it)."""
    from sklearn.model_selection import GroupKFold  # noqa: PLC0415

    y = np.array([r["label"] for r in rows])
    groups = np.array([r["thread"] for r in rows])
    pooled: dict = {}
    for a, b in GroupKFold(n_splits=tr.FOLDS).split(np.zeros(len(rows)), y, groups):
        w, c = tr.fit_combiner(
            [rows[i] for i in a], [oof[i] for i in a], args.no_signature_weight, signs=signs
        )
        fold = [rows[i] for i in b]
        for r, p in zip(fold, [oof[i] for i in b], strict=True):
            tr.combined([r], [p], w, c, pooled, alone=args.alone, decide=held_decide(r))
    return {"lr": tr.ranker_only(rows, oof), "combined": tr.figures(pooled)["all"]}


def with_setups(rows, data: Path):
    """Each row with the ids its text holds (``held``), as the shipped matcher reads them."""
    cases = repo_cases(data)
    if len(cases) != len(rows):
        raise SystemExit("rows and cases differ: delete the --cache folder")
    for r, c in zip(rows, cases, strict=True):
        r["held"] = sorted(setups.held_by_text(c["text"]))
    return rows


def load_rows(data: Path, cache: Path | None):
    path = cache / "rows.pkl" if cache else None
    if path is not None and path.exists():
        return pickle.loads(path.read_bytes())
    rows = with_setups(tr.prepare(data), data)
    if path is not None:
        path.write_bytes(pickle.dumps(rows))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="tests/data")
    ap.add_argument("--new", default="ak-bf,aa-aj", help="held-out sets: " + ", ".join(SETS))
    ap.add_argument(
        "--cache",
        help="folder for prepared rows and ranker scores (rebuilt when missing;"
        " delete it after a KB or data change)",
    )
    ap.add_argument("--no-signature-weight", type=float, default=tr.NO_SIGNATURE_WEIGHT)
    ap.add_argument("--alone", type=float, default=tr.RANKER_ALONE)
    ap.add_argument(
        "--monotone", action="store_true", help="fit the combiner with weights bounded in sign"
    )
    ap.add_argument(
        "--stack-by",
        choices=("thread", "round"),
        default=tr.STACK_BY,
        help="group the out-of-fold scores the combiner is fitted on by thread or by round"
        f" (default {tr.STACK_BY}, as `kb train` does)",
    )
    ap.add_argument(
        "--train-before",
        metavar="ROUND",
        help="train only on rounds older than ROUND (default: the set's first round); e.g. "
        "`--new cm-cw --train-before at` asks what the rounds at..cl add on cm..cw",
    )
    ap.add_argument("--C", type=float, default=tr.C, help="the ranker's L2 inverse strength")
    ap.add_argument(
        "--max-features",
        type=int,
        default=tr.MAX_FEATURES,
        help="features kept, by document frequency",
    )
    ap.add_argument(
        "--class-weight",
        choices=("none", "balanced"),
        default=str(tr.CLASS_WEIGHT).lower(),
        help="the ranker's class weighting",
    )
    ap.add_argument(
        "--sample-weight",
        choices=tr.WEIGHTINGS,
        default=tr.SAMPLE_WEIGHT,
        help="each case, thread or round sums to the same weight in the ranker's fit",
    )
    ap.add_argument(
        "--df-by",
        choices=tr.WEIGHTINGS,
        default=tr.DF_BY,
        help="features chosen by how many cases, threads or rounds use them",
    )
    ap.add_argument(
        "--none-weight",
        type=float,
        default=tr.NONE_WEIGHT,
        help="weight of look-alike cases in the ranker's fit",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    tr.C, tr.MAX_FEATURES = args.C, args.max_features
    tr.CLASS_WEIGHT = None if args.class_weight == "none" else args.class_weight
    tr.SAMPLE_WEIGHT, tr.DF_BY, tr.NONE_WEIGHT = args.sample_weight, args.df_by, args.none_weight
    names = [n.strip() for n in args.new.split(",") if n.strip()]
    unknown = [n for n in names if n not in SETS]
    if unknown:
        ap.error(f"unknown held-out set {', '.join(unknown)} (known: {', '.join(SETS)})")
    cache = Path(args.cache) if args.cache else None
    if cache:
        cache.mkdir(parents=True, exist_ok=True)
    rows = load_rows(Path(args.data), cache)
    out = {n: estimate(rows, n, args, cache) for n in names}
    if args.json:
        for o in out.values():
            o["misses"] = {f"{a} -> {b}": n for (a, b), n in o["misses"].most_common()}
        print(json.dumps(out, indent=1))
        return 0
    for o in out.values():
        print(
            f"{o['held_out']}: trained on {o['trained_on']} older tune cases, "
            f"scored {o['scored']} tune cases"
        )
        for k, f in o["figures"].items():
            print(f"  {k:6} {f}")
        print(f"  'none' while the right id is in the top 3: {o['none_with_right_id_in_top3']}")
        print(
            f"  grouped CV on the training rows: ranker {o['cv']['lr']}, combined {o['cv']['combined']}"
        )
        print("  misses (label -> answer), counts:", dict(o["misses"].most_common(40)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
