"""Benchmark: `rocmfix fleet summarize` on 1,000 generated node reports.

The issue's budget is 2 s for 1,000 nodes. The node reports are real doctor
results of the snapshot fixtures in tests/data/host (one per modelled
machine), copied to 1,000 files named like `srun --output=doctor-%N.json`
would name them, most nodes healthy and the rest spread over the broken
fixtures. Prints the end-to-end time of the CLI (a fresh process, as a user
runs it) and of the library call, each with its ratio to the budget.

    python benchmarks/fleet_summarize.py [--nodes 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rocmfix import fleet, probes
from rocmfix.snapshot import SnapshotHost

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "data" / "host"
BUDGET_S = 2.0


def fixture_reports() -> dict[str, dict]:
    out = {}
    for d in sorted(p for p in FIXTURES.iterdir() if (p / "snapshot.json").is_file()):
        host = SnapshotHost(d)
        out[d.name] = probes.to_json(probes.run_checks(host, python=host.python))
    return out


def generate(folder: Path, nodes: int) -> None:
    reports = fixture_reports()
    healthy = [n for n, r in reports.items() if r["summary"]["status"] == "ok"]
    broken = [n for n in reports if n not in healthy]
    for i in range(nodes):
        # Four nodes in five healthy, the rest cycling through the broken machines.
        base = healthy[i % len(healthy)] if i % 5 else broken[(i // 5) % len(broken)]
        text = json.dumps(reports[base], indent=1)
        (folder / f"doctor-gpu{i:04d}.json").write_text(text, encoding="utf-8")


def timed(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, args.nodes)
        size = sum(p.stat().st_size for p in folder.iterdir())
        cli = [sys.executable, "-m", "rocmfix", "fleet", "summarize", str(folder)]

        def run_cli(extra: list[str]) -> None:
            subprocess.run(cli + extra, stdout=subprocess.DEVNULL, check=False)

        t_json = timed(lambda: run_cli(["--json"]), args.runs)
        t_text = timed(lambda: run_cli([]), args.runs)
        t_lib = timed(lambda: fleet.summarize(fleet.load([folder])), args.runs)
    print(f"{args.nodes} node reports, {size / 1e6:.1f} MB, median of {args.runs} runs")
    print(f"{'':32} {'seconds':>8} {'x budget (2 s)':>15}")
    for label, t in (
        ("CLI fleet summarize --json", t_json),
        ("CLI fleet summarize (text)", t_text),
        ("fleet.load + fleet.summarize", t_lib),
    ):
        print(f"{label:32} {t:8.3f} {t / BUDGET_S:15.2f}")


if __name__ == "__main__":
    main()
