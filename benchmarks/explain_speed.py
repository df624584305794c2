"""Benchmark `rocmfix explain`: cold start and scale, measured side by side.

1. Cold start: `rocmfix explain --json "<one line>"` against `python -c pass`,
   alternated in one run so machine noise hits both. Target: median ratio <= 8.
2. Scale: `rocmfix explain --file` on a generated training log (1 GiB by
   default) with the error at the very end, against `grep -c -E` with the KB's
   signature set (translated to ERE) on the same file. Target: ratio <= 1.0,
   and peak RSS of explain <= 150 MB.

Run: python benchmarks/explain_speed.py [--size-mb 1024] [--runs 11]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ERROR = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"
# What a failed distributed training run prints: NCCL/RCCL init chatter at the
# start, then progress bars, metrics and the odd warning, then the error.
INIT = (
    "node0:{pid}:{pid} [{r}] NCCL INFO Channel {c:02d}/32 :    0   1   2   3   4   5   6   7",
    "node0:{pid}:{pid} [{r}] NCCL INFO Trees [{c}] -1/-1/-1->0->1 [{c}] -1/-1/-1->0->1",
    "[rank{r}]:[W reducer.cpp:1360] Warning: find_unused_parameters=True was specified in DDP constructor",
)
LINES = (
    "Epoch {e}/100: {p:3d}%|#####     | {s}/50000 [01:{m:02d}<03:10, 12.3it/s, loss={l:.4f}, lr=1.9e-05]",
    "{{'loss': {l:.4f}, 'grad_norm': {g:.3f}, 'learning_rate': 1.9e-05, 'epoch': {f:.2f}}}",
    "2024-06-01 12:{m:02d}:{m:02d},123 - INFO - step {s} throughput {t:.1f} samples/s mem 41.2GB",
    "[rank{r}]: step {s} tokens/s {t:.1f} loss {l:.4f} scale 65536.0",
)


def _fmt(tpl: str, i: int, rng: random.Random) -> str:
    return tpl.format(
        e=i // 500,
        p=i % 100,
        s=i,
        m=i % 60,
        l=rng.random(),
        r=i % 8,
        pid=1000 + i % 8,
        c=i % 32,
        g=rng.random() * 3,
        f=i / 5000,
        t=100.0 + i % 7,
    )


def make_log(path: Path, size: int) -> int:
    rng = random.Random(0)
    head = "\n".join(_fmt(INIT[rng.randrange(len(INIT))], i, rng) for i in range(5000)) + "\n"
    block = "\n".join(_fmt(LINES[rng.randrange(len(LINES))], i, rng) for i in range(20000)) + "\n"
    chunk = block.encode()
    with path.open("wb") as fh:
        fh.write(head.encode())
        written = len(head)
        while written + len(chunk) < size:
            fh.write(chunk)
            written += len(chunk)
        fh.write((ERROR + "\n").encode())
        written += len(ERROR) + 1
    return written


def to_ere(pattern: str) -> str | None:
    """Python regex -> GNU ERE, or None when it has no ERE equivalent (lookarounds)."""
    if re.search(r"\(\?<?[=!]|\\[1-9]", pattern):
        return None
    ere = pattern.replace("(?:", "(").replace("\\d", "[0-9]")
    ere = re.sub(r"\(\?i:", "(", ere)
    ere = re.sub(r"\(\?P<\w+>", "(", ere)
    return None if "(?" in ere else ere


def signature_set() -> list[str]:
    from rocmfix.kb.loader import load_kb

    pats = []
    for entry in load_kb().entries:
        for sig in (*entry.signatures, *entry.excludes):
            ere = re.escape(sig.pattern) if sig.literal else sig.pattern
            ere = to_ere(ere)
            if ere is not None:
                pats.append(ere)
    return pats


def timed(cmd: list[str], **kw: object) -> float:
    # Output goes to a pipe, never /dev/null: GNU grep stops at the first match
    # when it sees its output is /dev/null.
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False, **kw)  # type: ignore[call-overload]
    return time.perf_counter() - start


def peak_rss_mb(cmd: list[str]) -> float:
    code = (
        "import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *cmd], capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip()) / 1024


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--scale-runs", type=int, default=3)
    args = ap.parse_args()
    rocmfix = [sys.executable, "-m", "rocmfix"]
    ok = True

    # warm caches (the KB parse cache, the page cache) before measuring
    timed([*rocmfix, "explain", "--json", ERROR])
    base, cold = [], []
    for _ in range(args.runs):
        base.append(timed([sys.executable, "-c", "pass"]))
        cold.append(timed([*rocmfix, "explain", "--json", ERROR]))
    ratio = statistics.median(cold) / statistics.median(base)
    ok &= ratio <= 8
    print(f"cold start: explain --json one line  median {statistics.median(cold) * 1000:7.1f} ms")
    print(f"            python -c pass           median {statistics.median(base) * 1000:7.1f} ms")
    print(f"            ratio {ratio:.2f}x (target <= 8x)  {'PASS' if ratio <= 8 else 'FAIL'}")

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "train.log"
        size = make_log(log, args.size_mb * 1024 * 1024)
        pats = signature_set()
        pfile = Path(tmp) / "patterns.txt"
        pfile.write_text("\n".join(pats) + "\n")
        grep = ["grep", "-c", "-E", "-f", str(pfile), str(log)]
        explain = [*rocmfix, "explain", "--json", "--file", str(log)]
        timed(["cat", str(log)])  # page cache
        g, e = [], []
        for _ in range(args.scale_runs):
            g.append(timed(grep, env={**os.environ, "LC_ALL": "C"}))
            e.append(timed(explain))
        out = subprocess.run(explain, capture_output=True, text=True, check=False)
        found = out.returncode == 0 and '"no-binary-for-gpu"' in out.stdout
        ok &= found
        verdict = "yes" if found else f"NO (exit {out.returncode})"
        print(f"explain found the buried error: {verdict}")
        rss = peak_rss_mb(explain)
        sratio = statistics.median(e) / statistics.median(g)
        ok &= sratio <= 1.0 and rss <= 150
        mb = size / 1e6
        print(
            f"scale ({mb:.0f} MB log, error on the last line, {len(pats)} signature patterns as ERE):"
        )
        print(
            f"            grep -c -E  median {statistics.median(g):6.2f} s  ({mb / statistics.median(g):6.0f} MB/s)"
        )
        print(
            f"            explain     median {statistics.median(e):6.2f} s  ({mb / statistics.median(e):6.0f} MB/s)"
        )
        print(
            f"            ratio {sratio:.2f} (target <= 1.0)  {'PASS' if sratio <= 1.0 else 'FAIL'}"
        )
        print(
            f"            explain peak RSS {rss:.0f} MB (target <= 150)  {'PASS' if rss <= 150 else 'FAIL'}"
        )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
