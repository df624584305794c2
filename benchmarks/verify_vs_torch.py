"""Does `rocmfix verify` measure the GPU as fast as a plain torch.matmul loop?

Runs, in one go on one GPU: a hand-written bf16 torch.matmul timing loop,
then `rocmfix verify --json` (which times in its own child process), then the
plain loop again. Pass criteria:

  * verify's bf16 TFLOPS >= 85% of the better plain-loop result, and
  * verify's bf16 TFLOPS within the expected range of the GPU's dense bf16
    peak from the packaged table (50% to 100%; an H200 is 989.4 TFLOPS dense,
    a plain loop typically reaches 600-800 there).

This script imports torch itself (it is a benchmark, not part of rocmfix).
Usage: python benchmarks/verify_vs_torch.py [--size 8192] [--device 0]
Exit status: 0 pass, 1 fail, 2 no GPU.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any

MIN_RATIO = 0.85
PEAK_RANGE = (0.50, 1.00)


def plain_loop(torch: Any, n: int, index: int, iters: int = 100, reps: int = 5) -> float:
    """Median bf16 TFLOPS of ``reps`` blocks of ``iters`` back-to-back ``a @ b``."""
    dev = torch.device("cuda", index)
    torch.cuda.set_device(dev)
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize(dev)
    rates = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            c = a @ b
        stop.record()
        stop.synchronize()
        rates.append(2.0 * n**3 * iters / (start.elapsed_time(stop) / 1000.0) / 1e12)
    del a, b, c
    torch.cuda.empty_cache()
    return statistics.median(rates)


def run_verify_cli(python: str, n: int, index: int) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "rocmfix", "verify", "--json", "--python", python]
    cmd += ["--device", str(index), "--size", str(n)]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    data = json.loads(proc.stdout)
    data["_wall"] = time.perf_counter() - started
    return data


def main() -> int:
    parser = argparse.ArgumentParser(
        description="verify's bf16 TFLOPS vs a plain torch.matmul loop"
    )
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--python", default=sys.executable, help="interpreter for verify's child")
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("verify_vs_torch: no GPU visible to torch; nothing to compare")
        return 2
    name = torch.cuda.get_device_name(args.device)
    before = plain_loop(torch, args.size, args.device)
    report = run_verify_cli(args.python, args.size, args.device)
    after = plain_loop(torch, args.size, args.device)
    plain = max(before, after)

    dev = report["devices"][0] if report["devices"] else {}
    got = dev.get("tflops", {}).get("bf16")
    peak = dev.get("peak_tflops", {}).get("bf16")
    print(f"GPU {args.device}: {name}, {args.size}x{args.size} bf16")
    print(f"plain torch.matmul loop   before {before:8.1f}  after {after:8.1f} TFLOPS")
    if got is None:
        print(f"rocmfix verify did not time bf16: ok={report['ok']} failure={report['failure']}")
        return 1
    ratio = got / plain
    print(
        f"rocmfix verify            {got:8.1f} TFLOPS = {ratio:.1%} of the plain loop (need >= {MIN_RATIO:.0%})"
    )
    checks = [ratio >= MIN_RATIO]
    if peak:
        share = got / peak
        low, high = PEAK_RANGE
        print(
            f"dense bf16 peak           {peak:8.1f} TFLOPS ({dev.get('peak_name')}); verify reaches {share:.1%}"
        )
        print(
            f"                          plain loop reaches {plain / peak:.1%}; expected {low:.0%}-{high:.0%}"
        )
        checks.append(low <= share <= high)
    else:
        print("dense bf16 peak           unknown for this GPU (not in the table)")
    print(
        f"verify ok={report['ok']}  wall {report['_wall']:.1f} s  child {report.get('child_elapsed')} s"
    )
    verdict = all(checks)
    print("PASS" if verdict else "FAIL")
    summary = {"gpu": name, "size": args.size, "plain_before": before, "plain_after": after}
    summary.update({"verify_bf16": got, "ratio": ratio, "peak_bf16": peak, "pass": verdict})
    print(json.dumps(summary))
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
