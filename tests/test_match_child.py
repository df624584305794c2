"""Big texts are matched in a child process: same answer, and it can be abandoned at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

from rocmfix.kb.match_child import explain_in_child
from rocmfix.kb.matcher import explain_text

LINE = "RuntimeError: HIP error: invalid device function at step 5\n"
OOM = "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB\n"


def _children_running(pid: int) -> list[psutil.Process]:
    out = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                out.append(child)
        except psutil.Error:
            continue
    return out


def test_the_child_gives_the_same_explanation_as_the_process_itself() -> None:
    text = "step 1 loss 0.5\n" * 30_000 + OOM
    here, there = explain_text(text), explain_in_child(text, lambda: False)
    assert [m.entry.id for m in there.matches] == [m.entry.id for m in here.matches]
    assert there.excerpt.lines == here.excerpt.lines and there.excerpt.bytes == here.excerpt.bytes
    assert [e.line for e in there.matches[0].evidence] == [e.line for e in here.matches[0].evidence]


def test_cancelling_kills_the_child_at_once() -> None:
    started = time.monotonic()
    seen: list[psutil.Process] = []

    def cancelled() -> bool:
        seen.extend(p for p in _children_running(os.getpid()) if p not in seen)
        return bool(seen)  # as soon as the child is there, the result is moot

    assert explain_in_child(LINE * 600_000, cancelled) is None
    assert seen and not any(p.is_running() and p.status() != "zombie" for p in seen)
    assert not _children_running(os.getpid())
    assert time.monotonic() - started < 30


def test_the_child_dies_with_its_parent_even_by_sigkill() -> None:
    code = (
        "from rocmfix.kb.match_child import explain_in_child\n"
        f"explain_in_child({LINE!r} * 600_000, lambda: False)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        kids: list[psutil.Process] = []
        while time.monotonic() < deadline and not kids:
            kids = _children_running(parent.pid)
            time.sleep(0.05)
        assert kids, "no match child started"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(k.is_running() and k.status() != "zombie" for k in kids):
            time.sleep(0.05)
        assert not any(k.is_running() and k.status() != "zombie" for k in kids)
    finally:
        if parent.poll() is None:
            parent.kill()
