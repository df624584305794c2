"""Does `rocmfix verify` measure the GPU as fast as plain torch loops do?

Runs, in one go on one GPU: a sustained hand-written bf16 torch.matmul loop
and a plain conv loop (the same ResNet-like block as verify's conv stage,
forward and backward, bf16), then `rocmfix verify --json --level LEVEL` (which
times in its own child process), then both plain loops again. Pass criteria:

  * verify's bf16 matmul TFLOPS >= 95% of the better sustained plain loop,
  * verify's bf16 conv block time per iteration >= 90% as fast as the better
    plain conv loop, and
  * verify's bf16 TFLOPS within the expected range of the GPU's dense bf16
    peak from the packaged table (50% to 100%; an H200 is 989.4 TFLOPS dense,
    a plain loop typically reaches 600-800 there).

This script imports torch itself (it is a benchmark, not part of rocmfix).
Usage: python benchmarks/verify_vs_torch.py [--size 8192] [--device 0] [--level standard]
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

MIN_RATIO = 0.95
MIN_CONV_RATIO = 0.90
PEAK_RANGE = (0.50, 1.00)
CONV_SHAPE = (128, 64, 56)  # verify's conv stage on a GPU: ResNet-18 layer1 at batch 128


def plain_loop(torch: Any, n: int, index: int, iters: int = 200, reps: int = 5) -> float:
    """Median bf16 TFLOPS of ``reps`` blocks of ``iters`` back-to-back ``a @ b``, after 1 s warm-up."""
    dev = torch.device("cuda", index)
    torch.cuda.set_device(dev)
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 1.0:  # sustained: clocks settle as under a real job
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


def plain_conv_loop(torch: Any, index: int, iters: int = 100, reps: int = 5) -> float:
    """Median milliseconds per forward+backward of the block (bf16), written plainly."""
    import torch.nn.functional as F

    dev = torch.device("cuda", index)
    n, c, hw = CONV_SHAPE
    dt = torch.bfloat16
    x = (torch.rand(n, c, hw, hw, device=dev, dtype=dt) - 0.5).requires_grad_()
    w1 = ((torch.rand(c, c, 3, 3, device=dev, dtype=dt) - 0.5) / 24).requires_grad_()
    w2 = ((torch.rand(c, c, 3, 3, device=dev, dtype=dt) - 0.5) / 24).requires_grad_()
    g = torch.rand(n, c, hw, hw, device=dev, dtype=dt) - 0.5

    def step() -> None:
        y = F.relu(F.conv2d(x, w1, padding=1))
        out = F.relu(F.conv2d(y, w2, padding=1) + x)
        torch.autograd.grad(out, (x, w1, w2), g)

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.5:
        step()
        torch.cuda.synchronize(dev)
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            step()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / iters)
    return statistics.median(times)


def run_verify_cli(python: str, n: int, index: int, level: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "rocmfix", "verify", "--json", "--python", python]
    cmd += ["--device", str(index), "--size", str(n), "--level", level]
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
    parser.add_argument("--level", default="standard", choices=("standard", "full"))
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("verify_vs_torch: no GPU visible to torch; nothing to compare")
        return 2
    name = torch.cuda.get_device_name(args.device)
    before = plain_loop(torch, args.size, args.device)
    conv_before = plain_conv_loop(torch, args.device)
    torch.cuda.empty_cache()
    report = run_verify_cli(args.python, args.size, args.device, args.level)
    after = plain_loop(torch, args.size, args.device)
    conv_after = plain_conv_loop(torch, args.device)
    plain = max(before, after)
    conv_plain = min(conv_before, conv_after)
    conv = next((s for s in report["stages"] if s["stage"] == "conv" and s["ok"]), None)
    conv_ms = (((conv or {}).get("data") or {}).get("dtypes") or {}).get("bf16", {}).get("repeat_ms")

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
    print(
        f"plain conv block loop     before {conv_before:8.3f}  after {conv_after:8.3f} ms/iter"
        f" (bf16 fwd+bwd, {'x'.join(map(str, CONV_SHAPE))})"
    )
    conv_ratio = None
    shape = ((conv or {}).get("data") or {}).get("shape")
    if shape and tuple(shape) != CONV_SHAPE:
        print(f"verify timed the conv block at {shape}, this script at {CONV_SHAPE}: not comparable")
        conv_ms = None
    if conv_ms:
        conv_ratio = conv_plain / conv_ms
        print(
            f"rocmfix verify conv       {conv_ms:8.3f} ms/iter = {conv_ratio:.1%} of the plain"
            f" loop's speed (need >= {MIN_CONV_RATIO:.0%})"
        )
        checks.append(conv_ratio >= MIN_CONV_RATIO)
    else:
        print("rocmfix verify did not time the conv block")
        checks.append(False)
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
    summary.update({"conv_plain_ms": conv_plain, "conv_verify_ms": conv_ms, "conv_ratio": conv_ratio})
    summary.update({"level": args.level, "verify_wall_s": report["_wall"], "verify_ok": report["ok"]})
    print(json.dumps(summary))
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
