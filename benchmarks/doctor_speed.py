"""Wall time of `rocmfix doctor` next to `python -m torch.utils.collect_env`, same interpreter.

Targets: `doctor --json` <= 0.8x collect_env; `doctor --no-torch` <= 300 ms.
Also times `doctor --json` with ROCMFIX_PROBE_IMPORT=1, which makes the
probe import torch even for a CPU-only build, to show that the torch import
overlaps the other checks. Usage: python benchmarks/doctor_speed.py [-n 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def wall(argv: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="runs per command (median is reported)")
    n = parser.parse_args().n
    py = sys.executable
    collect_env = wall([py, "-m", "torch.utils.collect_env"], n)
    doctor = wall([py, "-m", "rocmfix", "doctor", "--json"], n)
    forced = wall(
        [py, "-m", "rocmfix", "doctor", "--json"],
        n,
        env={**os.environ, "ROCMFIX_PROBE_IMPORT": "1"},
    )
    import_torch = wall([py, "-c", "import torch"], n)
    no_torch = wall([py, "-m", "rocmfix", "doctor", "--no-torch"], n)
    print(f"python -m torch.utils.collect_env      {collect_env * 1000:7.0f} ms")
    print(f"python -c 'import torch'               {import_torch * 1000:7.0f} ms")
    print(
        f"rocmfix doctor --json                  {doctor * 1000:7.0f} ms  ratio {doctor / collect_env:.2f} (<= 0.80)"
    )
    print(
        f"  same, torch import forced            {forced * 1000:7.0f} ms  ratio {forced / collect_env:.2f} (<= 0.80)"
    )
    print(
        f"rocmfix doctor --no-torch              {no_torch * 1000:7.0f} ms  ratio {no_torch / 0.300:.2f} of 300 ms"
    )


if __name__ == "__main__":
    main()
