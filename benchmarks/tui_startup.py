"""Cold start of the interactive session to its first paint, beside plain textual.

Each run is a fresh interpreter (headless), timed from spawn to exit where the
app exits right after its first refresh. Three rows: importing textual, a bare
textual App painting once, and RocmfixApp painting its paste screen. The
budget is 1.0 s for rocmfix. Run: python benchmarks/tui_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

IMPORT_ONLY = "import textual.app"
BARE = """
from textual.app import App
from textual.widgets import Footer, Header, TextArea
class Bare(App):
    def compose(self):
        yield Header(); yield TextArea(); yield Footer()
    def on_mount(self):
        self.call_after_refresh(self.exit)
Bare().run(headless=True, size=(80, 24))
"""
ROCMFIX = """
from rocmfix.app import RocmfixApp
from rocmfix.screens.session import Session
class FirstPaint(RocmfixApp):
    def on_mount(self):
        super().on_mount()
        self.call_after_refresh(self.exit)
FirstPaint(Session()).run(headless=True, size=(80, 24))
"""


def timed(code: str, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = timed(IMPORT_ONLY, args.runs)
    bare = timed(BARE, args.runs)
    ours = timed(ROCMFIX, args.runs)
    print(f"{'import textual.app':<34}{base * 1000:8.0f} ms  1.00x")
    print(f"{'bare textual App, first paint':<34}{bare * 1000:8.0f} ms  {bare / base:.2f}x")
    print(
        f"{'rocmfix TUI, first paint':<34}{ours * 1000:8.0f} ms  {ours / base:.2f}x  (vs bare {ours / bare:.2f}x)"
    )
    print(f"budget 1000 ms: {'OK' if ours <= 1.0 else 'OVER'}")


if __name__ == "__main__":
    main()
