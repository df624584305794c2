"""The installed app in a real terminal (tmux): what a user's keyboard and paste do.

Pilot tests post events straight into Textual; these send bytes through a pty,
so a paste arrives the way a terminal sends it (bracketed, newlines as CR or
LF) and the exit status is the one a shell sees.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from terminal.harness import TMUX, Terminal, rocmfix_command

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")

READY = "Paste an error message"
OOM = "HIP out of memory. Tried to allocate 2.00 GiB"
THREE = f'Traceback (most recent call last):\n  File "train.py", line 3\ntorch.OutOfMemoryError: {OOM}\n'


def status_line(screen: str) -> str:
    return next(
        line for line in screen.splitlines() if (" line" in line or " 行" in line) and "·" in line
    )


def app(size: tuple[int, int] = (80, 24), *args: str, **kw: object) -> Terminal:
    return Terminal([*rocmfix_command(), *args], size=size, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("line_end", ["\n", "\r", "\r\n"], ids=["LF", "CR", "CRLF"])
def test_a_paste_arrives_once_with_its_lines(line_end: str) -> None:
    with app((100, 30)) as term:
        term.wait_ready(READY)
        term.paste(THREE, line_end=line_end)
        screen = term.wait_for("Likely causes")
        screen = term.wait_for(lambda s: "lines ·" in s)
        assert status_line(screen).strip().startswith("3 lines"), screen
        in_area = [ln for ln in screen.splitlines() if OOM in ln and "L3:" not in ln]
        assert len(in_area) == 1, screen  # the text area shows the line once
        assert "L3:" in screen and "L6:" not in screen, screen  # evidence: line 3 of 3
        assert "GiBtorch" not in screen and "GiBHIP" not in screen
        assert "gpu-out-of-memory" in screen


def test_a_5_mb_paste_is_matched_with_its_line_count() -> None:
    filler = "".join(
        f"step {i} loss 0.{i % 997:03d} lr 3e-4 throughput 1234 img/s\n" for i in range(100_000)
    )
    text = filler + THREE
    assert len(text) > 5_000_000
    with app((120, 40)) as term:
        term.wait_ready(READY)
        term.paste(text, line_end="\r")  # what a terminal sends
        screen = term.wait_for("gpu-out-of-memory", timeout=120)
        screen = term.wait_for(lambda s: "lines" in s and "showing the last" in s, timeout=60)
        assert f"{text.count(chr(10)):,} lines" in status_line(screen), screen
        assert screen.count("HIP out of memory. Tried to allocate 2.00 GiBtorch") == 0
        term.press("C-q")
        assert term.exit_status(timeout=60) == 0


def test_enter_opens_the_confident_cause_after_a_paste() -> None:
    with app() as term:
        term.wait_ready(READY)
        term.paste(THREE)
        term.wait_for("enter opens it")
        term.press("Enter")
        screen = term.wait_for("Check this machine", timeout=15)  # the detail screen's footer
        assert "GPU out of memory" in screen and "Likely causes" not in screen, screen


FKEYS = {  # key -> text only that screen shows
    "F1": "F1 closes",
    "F3": "Enter: details",
    "F4": "GPU test",
    "F5": "Search causes",
    "F6": "Journal:",
    "F2": "Likely causes",
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_every_f_key_screen_draws_and_ctrl_q_exits_0(size: tuple[int, int], tmp_path: Path) -> None:
    with app(size, "demo") as term:
        term.wait_ready("Likely causes")
        for key, marker in FKEYS.items():
            term.press(key)
            screen = term.wait_for(marker, timeout=60)
            assert term.alive(), screen
            if key not in ("F1", "F2"):  # those show the demo log, which holds a traceback
                assert "Traceback" not in screen, screen
            lines = screen.splitlines()
            assert len(lines) <= size[1] and all(len(line) <= size[0] for line in lines)
            if key == "F1":
                term.press("Escape")
                # wait for the dialog itself to go: its "F1 closes" line can scroll out of
                # an 80x24 view while it is still open, and the next keys would go to it
                term.wait_for(lambda s: "F1 closes" not in s and "Paste → cause → check" not in s)
            if key == "F3":  # the result column is not cut to a few characters
                assert "kernel 6.8" in screen or "amdgpu loaded" in screen, screen
        term.press("C-q")
        assert term.exit_status() == 0


def test_no_color_draws_without_colours() -> None:
    with app((80, 24), env={"NO_COLOR": "1"}) as term:
        term.wait_ready(READY)
        styled = term.styled_screen()
        # Textual honours NO_COLOR by drawing in greys: no colour with a hue is left
        colours = re.findall(r"\x1b\[(?:38|48);2;(\d+);(\d+);(\d+)m", styled)
        assert colours, "expected the greys Textual draws with"
        assert all(r == g == b for r, g, b in colours), sorted(set(colours))[:10]
        term.press("C-q")
        assert term.exit_status() == 0


def test_keys_typed_while_the_app_starts_all_arrive() -> None:
    """Typing from the moment the command starts (before the first screen is drawn and
    while it mounts): every key lands in the text area, in order.

    Keys sent before Textual reads the terminal wait in the pty; once it reads, they
    queue as messages that are handled only after the app (and so the paste screen)
    has mounted.
    """
    typed = "".join(chr(ord("a") + i % 26) for i in range(60))
    with app((100, 30)) as term:
        for ch in typed:
            term.press("-l", ch)
            time.sleep(0.02)
        screen = term.wait_for(lambda s: " 1 line" in s, timeout=30)
        assert typed in screen, screen


def test_the_session_speaks_chinese_under_a_chinese_locale() -> None:
    with app((100, 30), env={"LANG": "zh_CN.UTF-8"}) as term:
        term.wait_ready("粘贴")
        term.paste(THREE)
        screen = term.wait_for(lambda s: "gpu-out-of-memory" in s and "按 enter 打开" in s)
        assert "可能的原因" in screen and status_line(screen).strip().startswith("3 行"), screen
        assert "首要原因可信：" in screen, screen  # full-width punctuation in Chinese
        assert "^q 退出" in screen and "Quit" not in screen, screen  # the footer too
        term.press("Enter")
        screen = term.wait_for("可信度", timeout=15)  # the detail screen, in Chinese
        assert "由错误特征匹配" in screen and "confidence" not in screen, screen


def test_doctor_verify_history_and_help_speak_chinese_under_a_chinese_locale() -> None:
    with app((120, 40), "demo", env={"LANG": "zh_CN.UTF-8"}) as term:
        term.wait_ready("粘贴", timeout=60)
        term.press("F3")
        screen = term.wait_for(lambda s: "项失败" in s and "最可能的原因：" in s, timeout=60)
        assert "检查" in screen and "Most likely" not in screen, screen
        term.press("F4")
        screen = term.wait_for("GPU 测试 · 级别", timeout=60)
        assert "显示演示机器的录制结果" in screen and "GPU test" not in screen, screen
        term.press("F6")
        screen = term.wait_for("尚未应用任何修复", timeout=30)
        assert "No fix applied" not in screen, screen
        term.press("F1")
        screen = term.wait_for("esc、q 或 F1 关闭", timeout=30)  # the dialog's border says it
        assert "任意位置" in screen and "anywhere" not in screen, screen
        term.press("Escape")
        term.press("C-q")
        assert term.exit_status() == 0


def test_the_demo_greets_in_chinese_under_a_chinese_locale() -> None:
    with app((100, 30), "demo", env={"LANG": "zh_CN.UTF-8"}) as term:
        screen = term.wait_for("临时 HOME", timeout=60)
        assert "throwaway HOME" not in screen, screen
        term.press("C-q")
        assert term.exit_status() == 0


def test_sigint_from_outside_exits_130() -> None:
    with app() as term:
        term.wait_ready(READY)
        os.kill(term.pid(), signal.SIGINT)
        assert term.exit_status() == 130


def test_demo_removes_its_throwaway_home_on_sigterm_and_sighup(tmp_path: Path) -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP):
        tmp = tmp_path / sig.name
        tmp.mkdir()
        with app((80, 24), "demo", env={"TMPDIR": str(tmp)}) as term:
            term.wait_ready("Likely causes")
            assert list(tmp.glob("rocmfix-demo-*")), list(tmp.iterdir())
            os.kill(term.pid(), sig)
            assert term.exit_status() == 128 + sig
        assert not list(tmp.glob("rocmfix-demo-*")), list(tmp.iterdir())


def test_a_pipe_into_plain_rocmfix_says_to_use_the_dash(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(THREE)
    # the baseline: how long rocmfix takes to start and refuse on this box, in this run
    started = time.monotonic()
    subprocess.run([*rocmfix_command(), "--version"], capture_output=True, timeout=120, check=True)
    baseline = time.monotonic() - started
    with Terminal([f"cat {log} | {' '.join(rocmfix_command())}"], shell=True) as term:
        started = time.monotonic()
        assert term.exit_status(timeout=120) == 2
        took = time.monotonic() - started
        screen = term.screen()
        assert "rocmfix -" in screen and "Traceback" not in screen, screen
    # the refusal comes before the app starts: about one start-up, not a hang until killed
    assert took < 3 * baseline + 5, (took, baseline)


@pytest.mark.parametrize("args", [[], ["demo"], ["tui"], ["train.log"]], ids=str)
def test_no_terminal_at_all_exits_2_with_a_hint(args: list[str]) -> None:
    started = time.monotonic()
    proc = subprocess.run(
        [*rocmfix_command(), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        start_new_session=True,  # no controlling terminal either
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert lines and lines[0].startswith("rocmfix: ") and "terminal" in lines[0], proc.stderr
    assert "explain" in proc.stderr
    assert time.monotonic() - started < 20
    assert sys.executable  # the installed script ran under this venv


@pytest.mark.parametrize("args", [[], ["demo"]], ids=str)
def test_term_dumb_exits_2_with_a_hint_and_no_escape_codes(args: list[str]) -> None:
    # Emacs shell-mode and some CI consoles are terminals without cursor addressing:
    # the session used to start there and paint escape codes the terminal cannot show.
    # Read the raw bytes through a pty (tmux would redraw them).
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.environ["TERM"] = "dumb"
        cmd = [*rocmfix_command(), *args]
        os.execv(cmd[0], cmd)
    out = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        out += chunk
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2, out
    text = out.decode("utf-8", "replace")
    assert "TERM=dumb" in text and "rocmfix explain" in text and "doctor" in text, text
    assert "\x1b" not in text and "Traceback" not in text and READY not in text, text


def test_verify_without_torch_says_to_pick_the_training_python_and_p_picks_it(
    tmp_path: Path,
) -> None:
    no_torch = tmp_path / "python-without-torch"
    no_torch.write_text(f'#!/bin/sh\nexec {sys.executable} -I -S "$@"\n')  # stdlib only
    no_torch.chmod(0o755)
    with app((100, 30), "--python", str(no_torch)) as term:
        term.wait_ready(READY)
        term.press("F4")
        screen = term.wait_for("no PyTorch", timeout=60)
        assert "--python PATH" in screen and "child.py" not in screen, screen
        term.press("p")
        term.wait_ready("Which Python runs your training?")
        term.press("C-u")
        term.press("-l", str(tmp_path / "nonexistent"))
        term.press("Enter")
        term.wait_for("not an executable file")
        term.press("C-u")
        term.press("-l", sys.executable)
        term.press("Enter")
        screen = term.wait_for(f"Testing the torch of {sys.executable}", timeout=30)
        term.wait_for(lambda s: "no PyTorch" not in s and "import torch" in s, timeout=90)


def _match_children(pid: int) -> list[int]:
    import psutil

    found = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if "rocmfix.kb.match_child" in " ".join(child.cmdline()):
                found.append(child.pid)
        except psutil.Error:
            continue
    return found


def _wait_for_match_child(term: Terminal, timeout: float = 60.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := _match_children(term.pid()):
            return found
        time.sleep(0.05)
    raise AssertionError(f"no match child appeared; screen:\n{term.screen()}")


def test_ctrl_q_during_a_big_match_exits_at_once_and_leaves_no_process(tmp_path: Path) -> None:
    import psutil

    line = "RuntimeError: HIP error: invalid device function at step 5\n"
    log = tmp_path / "big.log"
    log.write_text(line * (40_000_000 // len(line)) + THREE)
    # the baselines, on this box in this run: how long the match takes, and quitting when idle
    with app((80, 24), str(log)) as term:
        _wait_for_match_child(term)
        match_started = time.monotonic()
        while _match_children(term.pid()) and time.monotonic() - match_started < 180:
            time.sleep(0.05)
        match_time = time.monotonic() - match_started
        term.wait_for(lambda s: "MB, showing" in s and "matching" not in s, timeout=120)
        started = time.monotonic()
        term.press("C-q")
        assert term.exit_status(timeout=60) == 0
        idle_quit = time.monotonic() - started
    with app((80, 24), str(log)) as term:
        children = _wait_for_match_child(term)  # the match of 40 MB is under way
        term.press("C-c")  # ctrl+c says how to quit, at once, while the match runs
        term.wait_for("ctrl+q", timeout=10)
        assert _match_children(term.pid()) == children, "the match had already finished"
        started = time.monotonic()
        term.press("C-q")
        assert term.exit_status(timeout=60) == 0
        busy_quit = time.monotonic() - started
    assert not [p for p in children if psutil.pid_exists(p)], "the match child was left running"
    # the match takes seconds; a quit that waited for it would take most of them
    assert busy_quit < idle_quit + 0.4 * match_time, (busy_quit, idle_quit, match_time)
    assert match_time > 1.0, "the match was too quick to tell a waiting quit apart"


def test_a_new_paste_abandons_the_running_big_match(tmp_path: Path) -> None:
    import psutil

    line = "RuntimeError: HIP error: invalid device function at step 5\n"
    log = tmp_path / "big.log"
    log.write_text(line * (40_000_000 // len(line)))
    with app((100, 30), str(log)) as term:
        first = _wait_for_match_child(term)
        term.press("C-l")  # clear: the big text's result is moot
        term.wait_for("Waiting for text.")
        term.paste(THREE)
        screen = term.wait_for(lambda s: "gpu-out-of-memory" in s and "3 lines" in s, timeout=60)
        assert "invalid device function" not in screen, screen
        assert not [p for p in first if psutil.pid_exists(p)], "the moot match kept running"
        term.press("C-q")
        assert term.exit_status() == 0


def test_a_paste_whose_end_marker_arrives_late_lands_and_the_keyboard_still_works() -> None:
    # A slow terminal (a loaded box, ssh) can deliver ESC and "[201~" of the end marker
    # more than ESCDELAY apart. Textual alone then stays in paste mode for good: the paste
    # is lost and every key, ctrl+q too, is swallowed (CI caught exactly that frozen screen).
    with app((100, 30)) as term:
        term.wait_ready("Paste an error")
        pasted = THREE.replace("\n", "\r")
        term.send_bytes(b"\x1b[200~" + pasted.encode() + b"\x1b")
        time.sleep(0.6)  # well past Textual's 100 ms escape delay
        term.send_bytes(b"[201~")
        screen = term.wait_for(lambda s: "gpu-out-of-memory" in s and "3 lines" in s, timeout=60)
        assert "[201~" not in screen and "201~" not in screen, screen
        term.press("C-l")
        term.wait_for("Waiting for text.")
        term.send_bytes(b"\x1b[200~" + pasted.encode())  # and one whose end never comes
        screen = term.wait_for(lambda s: "gpu-out-of-memory" in s, timeout=60)
        term.press("C-q")
        assert term.exit_status() == 0


def test_quitting_during_doctor_ends_a_probe_grandchild_that_left_its_session(
    tmp_path: Path,
) -> None:
    import psutil

    pidfile = tmp_path / "grandchild.pid"
    fake = tmp_path / "python"
    fake.write_text(
        f"#!{sys.executable}\nimport os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "        os.close(1); os.close(2)\n"
        "        time.sleep(120)\n"
        "    os._exit(0)\n"
        "time.sleep(120)\n"
    )
    fake.chmod(0o755)
    with app((100, 30), "--python", str(fake)) as term:
        term.wait_ready(READY)
        term.press("F3")
        deadline = time.monotonic() + 30
        while not (pidfile.exists() and pidfile.read_text().strip()):
            assert time.monotonic() < deadline, term.screen()
            time.sleep(0.05)
        grandchild = int(pidfile.read_text())
        term.press("C-q")
        assert term.exit_status() == 0
    time.sleep(0.3)
    try:
        alive = psutil.Process(grandchild).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        alive = False
    if alive:
        os.kill(grandchild, signal.SIGKILL)
    assert not alive, "the probe's detached grandchild outlived the app"


def test_the_chinese_doctor_shows_whole_titles_and_chinese_results_at_80x24() -> None:
    with app((80, 24), "demo", env={"LANG": "zh_CN.UTF-8"}) as term:
        term.wait_ready("粘贴", timeout=60)
        term.press("F3")
        screen = term.wait_for(lambda s: "项失败" in s and "最可能的原因" in s, timeout=60)
        # titles are sized by display width (a Chinese character takes two cells): none is cut
        for title in ("WSL（Windows 子系统）", "独立显卡旁的集成显卡", "安全启动（Secure Boot）"):
            assert title in screen, screen
        assert "不在 WSL 中运行" in screen and "不在容器中" in screen, screen  # results too
        lines = screen.splitlines()
        assert not any(line.rstrip().endswith(("6", "24")) for line in lines[:4]), screen
        term.press("C-q")
        assert term.exit_status() == 0


def test_kb_search_in_chinese_ranks_lists_and_says_when_nothing_matches() -> None:
    # each query goes in one send-keys (separate sends microseconds apart lose keys in
    # Textual's input itself, rocmfix or not: see the w16 report)
    with app((100, 30), env={"LANG": "zh_CN.UTF-8"}) as term:
        term.wait_ready("粘贴")
        term.press("F5")
        term.wait_for("个条目", timeout=30)
        term.press("gfx1031")
        screen = term.wait_for("no-binary-for-gpu", timeout=30)
        assert "entries" not in screen and "Search causes" not in screen, screen
        term.press("C-u")
        term.wait_for("34 / 34", timeout=30)
        time.sleep(1)  # the cleared input settles before the next query
        term.press("zzqqxx")
        screen = term.wait_for("没有条目匹配“zzqqxx”", timeout=30)
        assert "0 / 34" in screen and "No entry matches" not in screen, screen
        term.press("C-q")
        assert term.exit_status() == 0


def _peak_rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


def test_a_log_of_gigabytes_opens_in_bounded_memory_and_its_tail_is_matched(tmp_path: Path) -> None:
    # The session read the whole file into memory: 3.4 GB resident for a 2 GB log (waudit).
    log = tmp_path / "train.log"
    with log.open("wb") as fh:
        fh.write(b"".join(b"step %d loss 0.5 lr 3e-4\n" % i for i in range(10_000)))
        fh.seek(1536 << 20)  # a hole: the disk holds none of it, a reader sees 1.5 GB
        fh.write(b"".join(b"step %d loss 0.4 lr 3e-4 tail\n" % i for i in range(2_000_000)))
        fh.write(THREE.encode())
    with app((120, 40), str(log)) as term:
        screen = term.wait_for("gpu-out-of-memory", timeout=180)
        peak = _peak_rss_mib(term.pid())
        print(f"peak RSS {peak:.0f} MiB; {status_line(screen).strip()}")
        assert peak < 1024, screen
        loaded = float(re.search(r"\(([\d.,]+) MB, showing", status_line(screen)).group(1))  # type: ignore[union-attr]
        assert 50 < loaded < 70, screen  # its first 8 and last 56 MiB, not 1.6 GB
        term.press("C-q")
        assert term.exit_status(timeout=60) == 0


@pytest.mark.parametrize(
    "esc",
    ["\x1b[31mRED\x1b[0m", "\x1b]0;TITLE\x07", "\x1bc", "\x1b(0"],
    ids=["colour", "osc-title", "reset", "charset"],
)
def test_a_paste_with_escape_codes_arrives_whole_in_order(esc: str) -> None:
    # Textual's parser took the ESC inside a bracketed paste for the start of a key
    # sequence: up to 32 characters after it were typed as keys at the cursor, the
    # rest pasted after them, so the lines came out merged and out of order (waudit).
    text = f"RuntimeError: HIP error: invalid device function {esc} one\nhipErrorNoBinaryForGpu {esc} two\n"
    with app((120, 30)) as term:
        term.wait_ready(READY)
        term.paste(text)
        screen = term.wait_for(lambda s: "lines ·" in s and "no-binary-for-gpu" in s, timeout=60)
        assert status_line(screen).strip().startswith("2 lines"), screen
        rows = screen.splitlines()
        first = next(i for i, r in enumerate(rows) if "invalid device function" in r)
        assert "one" in rows[first] and "hipErrorNoBinaryForGpu" in rows[first + 1], screen
        assert "two" in rows[first + 1], screen
        assert "^[" not in screen and "^]" not in screen and "^c" not in screen, screen
        term.press("C-q")
        assert term.exit_status(timeout=60) == 0


def _pane_title(term: Terminal) -> str:
    return term._tmux("display-message", "-p", "-t", "main", "#{pane_title}").strip()


ESCAPES = "\x1b]0;PWNED\x07 \x1bc \x1b(0\x0e lqqk \x1b[31mRED\x1b[0m \u009d2;C1PWNED\u009c"


def test_a_log_with_escape_codes_opens_without_driving_the_terminal(tmp_path: Path) -> None:
    # The text area drew the log as it was: OSC 0 set the window title, ESC c reset
    # the terminal and blanked the rows above it (waudit).
    log = tmp_path / "train.log"
    log.write_text(
        f"RuntimeError: HIP error: invalid device function {ESCAPES}\nhipErrorNoBinaryForGpu {ESCAPES}\n",
        encoding="utf-8",
    )
    with app((120, 30), str(log)) as term:
        before = _pane_title(term)
        screen = term.wait_for(lambda s: "no-binary-for-gpu" in s and "2 lines" in s, timeout=60)
        time.sleep(1)
        screen = term.screen()
        assert "PWNED" not in _pane_title(term), _pane_title(term)
        assert _pane_title(term) == before or "rocmfix" in _pane_title(term)
        assert screen.splitlines()[0].strip().endswith("rocmfix"), screen  # the header row survived
        assert "invalid device function" in screen and "lqqk RED" in screen, screen
        term.press("C-q")
        assert term.exit_status(timeout=60) == 0


def test_the_doctor_screen_on_a_hostile_snapshot_does_not_drive_the_terminal(
    tmp_path: Path,
) -> None:
    snap = tmp_path / "snap"
    (snap / "root" / "etc").mkdir(parents=True)
    (snap / "root" / "etc" / "os-release").write_text(f'PRETTY_NAME="Evil {ESCAPES} Linux"\n')
    (snap / "snapshot.json").write_text('{"schema": "rocmfix.snapshot/1"}')
    with app((120, 40), "--snapshot", str(snap)) as term:
        term.wait_ready(READY)
        term.press("F3")
        screen = term.wait_for("Operating system", timeout=60)
        time.sleep(2)
        screen = term.screen()
        assert "PWNED" not in _pane_title(term), _pane_title(term)
        assert "Evil" in screen and "Linux" in screen, screen
        term.press("C-q")
        assert term.exit_status(timeout=60) == 0


@pytest.mark.parametrize("how", ["ctrl-q", "sigterm"])
def test_quitting_during_verify_ends_a_grandchild_holding_its_output(
    tmp_path: Path, how: str
) -> None:
    # The verify child's orphan kept its stdout open: the runner waited for EOF until
    # the 90 s stall timeout, and the app (ctrl+q or SIGTERM) with it (waudit).
    import psutil

    pidfile = tmp_path / "grandchild.pid"
    fake = tmp_path / "python"
    fake.write_text(
        f"#!{sys.executable}\nimport os, time\n"
        "if os.fork() == 0:\n"  # `(sleep 1000 &)`: an orphan in the child's group
        "    if os.fork() == 0:\n"
        f"        open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "        time.sleep(300)\n"  # keeps the pipes it inherited
        "    os._exit(0)\n"
        "time.sleep(300)\n"
    )
    fake.chmod(0o755)
    with app((100, 30), "--python", str(fake)) as term:
        term.wait_ready(READY)
        term.press("F4")
        deadline = time.monotonic() + 30
        while not (pidfile.exists() and pidfile.read_text().strip()):
            assert time.monotonic() < deadline, term.screen()
            time.sleep(0.05)
        grandchild = int(pidfile.read_text())
        started = time.monotonic()
        if how == "ctrl-q":
            term.press("C-q")
        else:
            os.kill(term.pid(), signal.SIGTERM)
        code = term.exit_status(timeout=30)
        took = time.monotonic() - started
    time.sleep(0.3)
    try:
        alive = psutil.Process(grandchild).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        alive = False
    if alive:
        os.kill(grandchild, signal.SIGKILL)
    assert code == (0 if how == "ctrl-q" else 128 + signal.SIGTERM), code
    assert took < 10, f"the app took {took:.1f}s to quit"
    assert not alive, "the verify child's grandchild outlived the app"
