"""CPU per GB of stage 1 alone and of the whole scan, on the benchmark's training log and
on each kind of chatter of benchmarks/chatter.py, with the KB's Hyperscan engine.

Per kind: a log of --mb MB (the error line of explain_speed.py last), read in the scan's
read size; "stage 1" is the stage-1 database over every read (how many reads it clears),
"scan" is ``extract_stream`` (reads, both stages, line numbers) with one worker.
Run it pinned to one core and read it with the load average it prints:

    taskset -c 0 python benchmarks/stage1_chatter.py --mb 256 [--kinds gen,deepspeed]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chatter  # noqa: E402
import explain_speed  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=256)
    ap.add_argument("--kinds", default=",".join(["gen", *chatter.KINDS]))
    ap.add_argument("--runs", type=int, default=2, help="best of N")
    ap.add_argument(
        "--parts",
        action="store_true",
        help="also split stage 1's cost on the benchmark's log: its literal items alone, the others alone",
    )
    args = ap.parse_args()
    from rocmfix import extract
    from rocmfix.kb.loader import load_kb
    from rocmfix.kb.matcher import Matcher

    engine = Matcher(load_kb())._engine
    assert engine.name == "hyperscan" and engine._db1 is not None, "needs Hyperscan with stage 1"
    print(f"rocmfix from {extract.__file__}; load average at start: {explain_speed.load()}")
    print(f"{'kind':10s} {'MB':>5s} {'stage1 s/GB':>11s} {'cleared':>9s} {'scan s/GB':>9s}  (best of {args.runs})")
    read = extract._read_size()
    with tempfile.TemporaryDirectory(prefix="rocmfix-s1-") as tmp:
        path = Path(tmp) / "log"
        for kind in args.kinds.split(","):
            if kind == "gen":
                size = explain_speed.make_log(path, args.mb * 1024 * 1024)
            else:
                size = chatter.make_log(path, kind, args.mb * 1024 * 1024, last=explain_speed.ERROR)
            gb = size / 1e9
            s1, scan, cleared, reads = float("inf"), float("inf"), 0, 0
            for _ in range(args.runs):
                cleared = reads = 0
                t0 = time.process_time()
                with path.open("rb") as fh:
                    while block := fh.read(read):
                        engine._skip = engine._backoff = 0
                        cleared += engine._clear(block, 0, len(block))
                        reads += 1
                s1 = min(s1, time.process_time() - t0)
                t0 = time.process_time()
                with path.open("rb") as fh:
                    extract.extract_stream(fh, engine)
                scan = min(scan, time.process_time() - t0)
            print(f"{kind:10s} {size / 1e6:5.0f} {s1 / gb:11.2f} {cleared:4d}/{reads:<4d} {scan / gb:9.2f}", flush=True)
            path.unlink()
    if args.parts:
        parts(engine, args.mb, args.runs)
    print(f"load average at the end: {explain_speed.load()}")
    return 0


def parts(engine, mb: int, runs: int) -> None:  # type: ignore[no-untyped-def]
    """Stage 1 split in two: the caseless literal texts (one Hyperscan literal matcher) and
    the branches that went in as expressions (they need automata over every byte)."""
    from rocmfix import extract

    hs = engine._hs
    plan, _prefilter = extract._hs_plan(hs, engine._patterns)
    good = [(expr, flags, *engine._patterns[pid], pid) for expr, flags, pid, _b in plan]
    items = extract._stage1_items(hs, list(zip([r[3] for r in plan], good, strict=True)))
    caseless = hs.HS_FLAG_CASELESS | hs.HS_FLAG_SINGLEMATCH
    literal = [i for i in items if i[1] == caseless]
    other = [i for i in items if i[1] != caseless]
    with tempfile.TemporaryDirectory(prefix="rocmfix-s1p-") as tmp:
        path = Path(tmp) / "log"
        explain_speed.make_log(path, mb * 1024 * 1024)
        data = path.read_bytes()
    body = data[: data.rfind(b"\n", 0, len(data) - 200) + 1]  # all but the error line
    for name, part in (("stage 1", items), ("literal texts", literal), ("expressions", other)):
        db = hs.Database()
        db.compile(expressions=[i[0] for i in part], ids=list(range(len(part))), flags=[i[1] for i in part])
        best = float("inf")
        for _ in range(runs):
            t0 = time.process_time()
            for a in range(0, len(body), 1 << 21):
                with contextlib.suppress(hs.ScanTerminated):
                    db.scan(memoryview(body)[a : a + (1 << 21)], match_event_handler=extract._stop)
            best = min(best, time.process_time() - t0)
        print(f"parts: {name:14s} {len(part):5d} items {best / (len(body) / 1e9):6.2f} s/GB", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
