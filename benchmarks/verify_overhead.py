"""How much time `rocmfix verify` adds on top of the child's own work.

The child reports how long it worked (from its first line of Python to its
last protocol line); everything else is verify's overhead: starting the
interpreter, the protocol, classification and rendering. The target is under
0.5 s. Three measurements, each the median and worst of N runs:

  api      run_verify() on a fake child that finishes instantly
  cli      `python -m rocmfix verify [--json]` end to end on the same fake child
  rehearse run_verify(device="cpu") with this interpreter's real torch (if any)

Usage: python benchmarks/verify_overhead.py [--runs N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rocmfix.verify import run_verify

ROOT = Path(__file__).resolve().parent.parent
FAKE_OK = ROOT / "tests" / "data" / "fake_pythons" / "ok"
LIMIT = 0.5


def _api_once() -> float:
    result = run_verify(str(FAKE_OK), timeout=30)
    assert result.ok and result.child_elapsed is not None
    return result.elapsed - result.child_elapsed


def _cli_once(json_output: bool) -> float:
    args = [sys.executable, "-m", "rocmfix", "verify", "--python", str(FAKE_OK)]
    started = time.perf_counter()
    proc = subprocess.run(args + ["--json"], capture_output=True, text=True, timeout=60)
    wall = time.perf_counter() - started
    if not json_output:
        started = time.perf_counter()
        subprocess.run(args, capture_output=True, text=True, timeout=60)
        wall = time.perf_counter() - started
    child = json.loads(proc.stdout)["child_elapsed"]
    return wall - child


def _rehearse_once() -> float:
    result = run_verify(sys.executable, timeout=120, device="cpu")
    assert result.ok and result.child_elapsed is not None, result.failure
    return result.elapsed - result.child_elapsed


def _report(name: str, samples: list[float]) -> bool:
    med, worst = statistics.median(samples), max(samples)
    ok = worst < LIMIT
    print(
        f"{name:<14} median {med * 1000:7.1f} ms   worst {worst * 1000:7.1f} ms   {'ok' if ok else 'OVER'}"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    os.environ["ROCMFIX_TEST_PYTHON"] = sys.executable  # fakes start this interpreter, not a shim
    print(
        f"verify overhead over the child's own work (limit {LIMIT * 1000:.0f} ms), {args.runs} runs"
    )
    ok = _report("api", [_api_once() for _ in range(args.runs)])
    ok &= _report("cli --json", [_cli_once(True) for _ in range(args.runs)])
    ok &= _report("cli (table)", [_cli_once(False) for _ in range(args.runs)])
    if importlib.util.find_spec("torch") is not None:
        ok &= _report("rehearse (cpu)", [_rehearse_once() for _ in range(min(args.runs, 3))])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
