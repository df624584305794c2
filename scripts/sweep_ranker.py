"""Sweep the ranker's and the combiner's settings on the tune side only.

For every (C, feature count) pair and every new-source yardstick (scripts/eval_new_source.py:
the ranker and combiner trained on the tune side of the rounds older than the set, the set's
tune side scored), the combiner's settings (no-signature weight, the ranker-alone bar) are
tried over the same ranker scores; ``--lro`` adds the leave-rounds-out estimate over the
whole tune side (rocmfix.kb.train.leave_rounds_out). The frozen side is never read.

    PYTHONPATH=src python scripts/sweep_ranker.py --rows ROWS.pkl --out DIR [--jobs N]
        [--C 10,30,100] [--features 20000,40000] [--sets cm-cw,cx-df] [--lro]

``ROWS.pkl`` is eval_new_source.py's prepared rows (``--cache DIR`` writes DIR/rows.pkl).
One JSON file per job is written to DIR. Needs scikit-learn (the `train` dependency group).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

NSW = (0.04, 0.07, 0.15)
ALONE = (0.5, 0.6)


def _yardstick(rows_path: str, name: str, c: float, f: int) -> dict:
    import eval_new_source as ens  # noqa: PLC0415

    from rocmfix.kb import train as tr  # noqa: PLC0415
    from rocmfix.kb.split import TUNE  # noqa: PLC0415

    tr.C, tr.MAX_FEATURES = c, f
    rows = pickle.loads(Path(rows_path).read_bytes())
    first, last = ens.SETS[name]
    tune = [r for r in rows if r["side"] == TUNE]
    old = [r for r in tune if ens.older(r["round"], first)]
    new = [r for r in tune if ens.held(r["round"], first, last)]
    oof, probs = ens.ranker_scores(old, new, None)
    out = {"set": name, "C": c, "features": f, "trained_on": len(old), "scored": len(new), "runs": []}
    for nsw, alone in itertools.product(NSW, ALONE):
        w, b = tr.fit_combiner(old, oof, nsw)
        figs, silent, _ = ens.score(new, probs, w, b, alone)
        out["runs"].append({"nsw": nsw, "alone": alone, "figures": figs, "silent": silent})
    return out


def _lro(rows_path: str, c: float, f: int) -> dict:
    from rocmfix.kb import ranker as rk  # noqa: PLC0415
    from rocmfix.kb import train as tr  # noqa: PLC0415
    from rocmfix.kb.split import TUNE  # noqa: PLC0415

    tr.C, tr.MAX_FEATURES = c, f
    rows = pickle.loads(Path(rows_path).read_bytes())
    tune = [r for r in rows if r["side"] == TUNE]
    feats = [rk.features(r["region"]) for r in tune]
    oof, _ = tr.out_of_fold(tune, feats, False)
    return {
        "C": c,
        "features": f,
        "cv_lr": tr.ranker_only(tune, oof),
        "leave_rounds_out": tr.leave_rounds_out(tune, feats, oof),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--C", default="10,30,100")
    ap.add_argument("--features", default="20000,40000")
    ap.add_argument("--sets", default="cm-cw,cx-df,bg-bv,cf-cl,at-bf")
    ap.add_argument("--lro", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cs = [float(x) for x in args.C.split(",")]
    fs = [int(x) for x in args.features.split(",")]
    jobs = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for c, f in itertools.product(cs, fs):
            if args.lro:
                jobs[f"lro-C{c:g}-F{f}"] = pool.submit(_lro, args.rows, c, f)
            for name in args.sets.split(","):
                jobs[f"{name}-C{c:g}-F{f}"] = pool.submit(_yardstick, args.rows, name, c, f)
        names = {fut: key for key, fut in jobs.items()}
        for fut in as_completed(names):
            key = names[fut]
            (out / f"{key}.json").write_text(json.dumps(fut.result(), indent=1) + "\n")
            print("done", key, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
