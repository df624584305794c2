"""What stage 1 of the Hyperscan scan costs, item by item, on the benchmark's training log.

Stage 1 (``rocmfix.extract._stage1_items``) is ~950 caseless literal texts and ~90 branches
that go in as expressions. This measures, on a --mb MB slice of explain_speed.py's log
(all but its error line, in the scan's 2 MB reads, stopping at a read's first match):

* ``stage 1`` as built, ``literal texts`` alone and ``expressions`` alone;
* ``texts + <item>``: the literal texts with one expression item added, for each item,
  the --top costliest printed (what one branch adds to the literal matcher);
* ``texts + 2-byte text``: the literal texts and one two-byte text that the log never
  holds ("qz"): Hyperscan's literal matcher is slower for every read once its shortest
  text is short, whatever that text is;
* ``literal-only``: every expression item replaced by the literal texts one of which its
  branch requires (``required_literals``, three bytes or more, caseless only where that is
  safe) where it has such a set; the branches with none stay expressions. Such texts are
  common words ("cpu", "root", "only", "python"): the row also says how many reads they
  clear on each kind of chatter (a read not cleared costs the full database).

CPU seconds per GB, best of --runs (the machine may be shared: pin it, ``taskset -c 0``).
With --ins, also instructions per byte under valgrind's callgrind (load-independent; the
count of a run that scans nothing is taken off; valgrind reports no AVX-512, so Hyperscan
runs its AVX2 code there and the two columns need not agree):

    taskset -c 0 python benchmarks/stage1_items.py [--mb 64] [--runs 3] [--top 8] [--ins] [--rank-ins]

CPU time moves by more than one item's share on a shared machine: --rank-ins ranks the
items by instructions instead (two valgrind runs an item: 30 minutes for the KB's ~90 on the
loaded 2-core VM).
"""

from __future__ import annotations

import argparse
import contextlib
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chatter  # noqa: E402
import explain_speed  # noqa: E402

READ = 1 << 21

_RUNNER = r"""
import pickle, sys
import hyperscan as hs
items = pickle.load(open(sys.argv[1], "rb"))
data = open(sys.argv[2], "rb").read()[: int(sys.argv[3])]
db = hs.Database()
db.compile(expressions=[i[0] for i in items], ids=list(range(len(items))), flags=[i[1] for i in items])
stop = lambda *_: True
for a in range(0, len(data), 1 << 21):
    try:
        db.scan(memoryview(data)[a : a + (1 << 21)], match_event_handler=stop)
    except hs.ScanTerminated:
        pass
"""


def _body(mb: int, kind: str, tmp: Path) -> bytes:
    path = tmp / f"{kind}.log"
    if kind == "gen":
        explain_speed.make_log(path, mb * 1024 * 1024)
    else:
        chatter.make_log(path, kind, mb * 1024 * 1024, last=explain_speed.ERROR)
    data = path.read_bytes()
    path.unlink()
    return data[: data.rfind(b"\n", 0, len(data) - 200) + 1]  # all but the error line


def _cpu(hs, items, data: bytes, runs: int) -> tuple[float, int, int]:  # type: ignore[no-untyped-def]
    """CPU seconds per GB (best of runs), reads cleared, reads."""
    db = hs.Database()
    db.compile(
        expressions=[i[0] for i in items], ids=list(range(len(items))), flags=[i[1] for i in items]
    )
    best, cleared, view = float("inf"), 0, memoryview(data)
    for _ in range(runs):
        cleared = 0
        t0 = time.process_time()
        for a in range(0, len(data), READ):
            try:
                db.scan(view[a : a + READ], match_event_handler=lambda *_: True)
                cleared += 1
            except hs.ScanTerminated:
                pass
        best = min(best, time.process_time() - t0)
    return best / (len(data) / 1e9), cleared, (len(data) + READ - 1) // READ


def _ins(items, log: Path, size: int, tmp: Path) -> float:  # type: ignore[no-untyped-def]
    """Instructions per byte of the scan under callgrind (a run over no bytes taken off)."""
    pkl = tmp / "items.pkl"
    pkl.write_bytes(pickle.dumps([(e, f) for e, f in items]))
    counts = []
    for n in (0, size):
        out = tmp / f"cg.{n}"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                _RUNNER,
                str(pkl),
                str(log),
                str(n),
            ],
            check=True,
            capture_output=True,
        )
        counts.append(int(re.search(rb"summary: (\d+)", out.read_bytes()).group(1)))  # type: ignore[union-attr]
        out.unlink()
    return (counts[1] - counts[0]) / size


def _caseless_safe(text: str) -> bool:
    """Hyperscan folds ASCII case only: a lower-cased text with a cased non-ASCII letter
    would miss its upper-case spelling."""
    return all(ord(c) < 128 or c.lower() == c.upper() for c in text)


def _literal_set(branch: str, icase: bool) -> list[tuple[bytes, bool]] | None:
    """Texts (with whether to fold case) one of which every match of ``branch`` contains,
    each three bytes or more with two ASCII letters or two non-ASCII characters; None
    where the branch has no such set. A case-sensitive branch keeps its texts' case."""
    from rocmfix.kb.literals import required_literals

    best: tuple[tuple[int, bool], list[tuple[bytes, bool]]] | None = None
    for fold in (True,) if icase else (False, True):
        for extend in (False, True):
            lits = required_literals(branch, ignore_case=fold, extend=extend)
            if not lits:
                continue
            ok = all(
                len(t.encode()) >= 3
                and "\n" not in t
                and (not fold or _caseless_safe(t))
                and (
                    sum(c.isascii() and c.isalpha() for c in t) >= 2
                    or sum(ord(c) > 127 for c in t) >= 2
                )
                for t in lits
            )
            if ok:
                key = (min(len(t.encode()) for t in lits), not fold)
                if best is None or key > best[0]:
                    best = (key, [(t.encode(), fold) for t in lits])
    return best[1] if best else None


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3, help="best of N")
    ap.add_argument("--top", type=int, default=8, help="how many 'texts + <item>' rows to print")
    ap.add_argument("--ins", action="store_true", help="also instructions per byte under callgrind")
    ap.add_argument("--ins-mb", type=int, default=8, help="bytes scanned under callgrind")
    ap.add_argument(
        "--rank-ins",
        action="store_true",
        help="rank the 'texts + <item>' rows by callgrind instructions (slow: two valgrind runs an item)",
    )
    args = ap.parse_args()
    if (args.ins or args.rank_ins) and not shutil.which("valgrind"):
        ap.error("--ins and --rank-ins need valgrind")
    from rocmfix import extract
    from rocmfix.kb.loader import load_kb
    from rocmfix.kb.matcher import Matcher

    engine = Matcher(load_kb())._engine
    assert engine.name == "hyperscan" and engine._db1 is not None, "needs Hyperscan with stage 1"
    hs = engine._hs
    plan, _prefilter = extract._hs_plan(hs, engine._patterns)
    good = [(expr, flags, *engine._patterns[pid], pid) for expr, flags, pid, _b in plan]
    kept = list(zip([r[3] for r in plan], good, strict=True))
    items = [(i[0], i[1]) for i in extract._stage1_items(hs, kept)]
    caseless = hs.HS_FLAG_CASELESS | hs.HS_FLAG_SINGLEMATCH
    texts = [i for i in items if i[1] == caseless]
    exprs = [i for i in items if i[1] != caseless]
    print(f"rocmfix from {extract.__file__}; load average at start: {explain_speed.load()}")
    with tempfile.TemporaryDirectory(prefix="rocmfix-s1i-") as tmp_name:
        tmp = Path(tmp_name)
        data = _body(args.mb, "gen", tmp)
        log = tmp / "body.log"
        log.write_bytes(data[: args.ins_mb << 20])
        ins_size = min(len(data), args.ins_mb << 20)

        def row(name: str, part, note: str = "") -> float:  # type: ignore[no-untyped-def]
            s, cleared, reads = _cpu(hs, part, data, args.runs)
            ins = f" {_ins(part, log, ins_size, tmp):6.2f} ins/B" if args.ins else ""
            print(
                f"{name:34s} {len(part):5d} items {s:6.3f} s/GB{ins}  cleared {cleared}/{reads}{note}",
                flush=True,
            )
            return s

        row("stage 1", items)
        row("literal texts", texts)
        row("expressions", exprs)
        row("texts + 2-byte text 'qz'", [*texts, (b"qz", caseless)])
        added = []
        for item in exprs:  # ranked by instructions with --rank-ins (~8 s an item), else by CPU
            part = [*texts, item]
            cost = (
                _ins(part, log, ins_size, tmp)
                if args.rank_ins
                else _cpu(hs, part, data, args.runs)[0]
            )
            added.append((cost, item))
        added.sort(key=lambda x: -x[0])
        for _s, item in added[: args.top]:
            text = item[0].decode("utf-8", "backslashreplace")
            row(f"texts + {text[:25]}", [*texts, item], f"  ({text[:90]})")
        # literal-only: each branch that stage 1 holds as an expression, by its required texts
        single = hs.HS_FLAG_SINGLEMATCH
        lits: set[tuple[bytes, bool]] = set()
        kept_exprs: list[tuple[bytes, int]] = []
        for branch, (expr, flags, _source, icase, _pid) in kept:
            req = extract._required(branch, rare=True)
            if req is None or not all(extract._rare(t) for t in req):
                req = extract._required(branch, extend=True, rare=True)
            if req is not None and all(extract._rare(t) for t in req):
                continue  # a literal branch of stage 1 already
            got = _literal_set(branch, icase)
            if got is not None:
                lits.update(got)
                continue
            expr = extract._line_tail(expr)
            if not flags & hs.HS_FLAG_PREFILTER:
                expr = extract._tail_stand_in(expr, flags, hs.HS_FLAG_CASELESS)
            kept_exprs.append((expr, flags | single))
        plan_items = [
            *texts,
            *((extract._hs_literal(t), caseless if fold else single) for t, fold in sorted(lits)),
        ]
        row(f"literal-only ({len(kept_exprs)} expressions kept)", [*plan_items, *kept_exprs])
        row(
            "literal-only, no expression kept", plan_items, "  (not a superset: for the cost alone)"
        )
        for kind in sorted(chatter.KINDS):
            body = _body(max(8, args.mb // 4), kind, tmp)
            now = _cpu(hs, items, body, 1)
            new = _cpu(hs, [*plan_items, *kept_exprs], body, 1)
            print(
                f"  {kind:10s} reads cleared: stage 1 {now[1]}/{now[2]}, literal-only {new[1]}/{new[2]}",
                flush=True,
            )
    print(f"load average at the end: {explain_speed.load()}")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        raise SystemExit(main())
