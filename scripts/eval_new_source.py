"""Estimate the figure on reports from a new source, on the tune side only.

The ranker and combiner are trained on the tune side *without* the late rounds (heldout-aa onwards)
(the rounds collected last, from sources the repo had not held), then the tune side of
those rounds is scored with the shipped decision (signatures as they are). That mimics
a report from a source nobody tuned for; the frozen side is never read.

    PYTHONPATH=src python scripts/eval_new_source.py [--cache /tmp/rows.pkl]
        [--no-signature-weight W] [--alone A] [--json]

Also prints how often "none" was answered while the right id was in the top 3.
Needs scikit-learn (the `train` dependency group).
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
from collections import Counter
from pathlib import Path

import numpy as np

from rocmfix.kb import ranker as rk
from rocmfix.kb import train as tr
from rocmfix.kb.split import TUNE

LATE = re.compile(r"^heldout-[a-z]{2}$")


def score(rows, probs, w, b, alone):
    """Figures of the shipped decision (rk.decide) over rows, with the silent misses."""
    silent_top3 = 0
    misses = []

    def on_row(r, got, order):
        nonlocal silent_top3
        if r["label"] != "none" and got == "none" and r["label"] in order[:3]:
            silent_top3 += 1
        if got != r["label"] and got not in r["alt"]:
            misses.append((r["label"], got))

    stats = tr.combined(rows, probs, w, b, alone=alone, on_row=on_row)
    return tr.figures(stats), silent_top3, misses


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="tests/data")
    ap.add_argument("--cache", help="pickle of prepared rows (rebuilt when missing)")
    ap.add_argument("--no-signature-weight", type=float, default=tr.NO_SIGNATURE_WEIGHT)
    ap.add_argument("--alone", type=float, default=tr.RANKER_ALONE)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.cache and Path(args.cache).exists():
        rows = pickle.loads(Path(args.cache).read_bytes())
    else:
        rows = tr.prepare(Path(args.data))
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps(rows))
    tune = [r for r in rows if r["side"] == TUNE]
    old = [r for r in tune if not LATE.match(r["round"])]
    new = [r for r in tune if LATE.match(r["round"])]
    feats = [rk.features(r["region"]) for r in old]
    oof, _ = tr.out_of_fold(old, feats, False)
    y = np.array([r["label"] for r in old])
    space = tr.Space(feats)
    model = tr.fit_lr(space.matrix(feats), y)
    p = tr.shipped_probs(model, space.matrix([rk.features(r["region"]) for r in new]))
    probs = [{c: float(p[a, j]) for j, c in enumerate(model.classes_)} for a in range(len(new))]
    w, b = tr.fit_combiner(old, oof, args.no_signature_weight)
    figs, silent, misses = score(new, probs, w, b, args.alone)
    out = {
        "trained_on": len(old),
        "scored": len(new),
        "figures": figs,
        "none_with_right_id_in_top3": silent,
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"trained on {len(old)} tune cases, scored {len(new)} tune cases of the late rounds (heldout-aa onwards)")
        for k, f in figs.items():
            print(f"  {k:6} {f}")
        print(f"  'none' while the right id is in the top 3: {silent}")
        print("  misses (label -> answer), counts:", dict(Counter(misses).most_common(40)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
