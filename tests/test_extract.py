"""The streaming extractor: cleaning of real-world log noise, collapsing of
repeats, correct line numbers across chunk boundaries, gzip, bounded memory."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import pytest

from rocmfix import extract
from rocmfix.errors import InputError
from rocmfix.extract import clean_line, extract_stream, make_engine, open_input

PATTERNS = [("hipErrorNoBinaryForGpu", False), ("out of memory", True)]


@pytest.fixture(params=["re", "hyperscan"])
def engine(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    if request.param == "hyperscan":
        pytest.importorskip("hyperscan")
    return make_engine(PATTERNS, prefer=request.param)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[31mRuntimeError: boom\x1b[0m", "RuntimeError: boom"),
        ("[rank3]: RuntimeError: boom", "RuntimeError: boom"),
        ("[default0]:RuntimeError: boom", "RuntimeError: boom"),
        ("2024-05-01 12:00:01,123 RuntimeError: boom", "RuntimeError: boom"),
        ("[ 1234.567890] amdgpu: ring gfx timeout", "amdgpu: ring gfx timeout"),
        (" 10%|#   | 1/10\r 20%|##  | 2/10\rRuntimeError: boom\r\n", "RuntimeError: boom"),
        ("Runtime\x00Error: boom", "RuntimeError: boom"),
    ],
)
def test_clean_line_strips_colour_progress_prefixes_and_nuls(raw: str, clean: str) -> None:
    assert clean_line(raw) == clean


def test_the_same_error_from_eight_ranks_is_one_finding_with_a_count(engine) -> None:  # type: ignore[no-untyped-def]
    log = "".join(f"[rank{r}]: RuntimeError: HIP error: hipErrorNoBinaryForGpu\n" for r in range(8))
    ex = extract_stream(io.BytesIO(("step 1\n" + log).encode()), engine)
    hits = [f for f in ex.findings if "hipErrorNoBinaryForGpu" in f.text]
    assert len(hits) == 1
    assert (hits[0].count, hits[0].first_line, hits[0].last_line) == (8, 2, 9)


def test_line_numbers_stay_right_across_chunk_boundaries(
    engine, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(extract, "CHUNK", 64)
    lines = [f"loss={i} ok" for i in range(500)]
    lines[123] = "hip says hipErrorNoBinaryForGpu here"
    lines[456] = "CUDA out of MEMORY, tried"
    ex = extract_stream(io.BytesIO("\n".join(lines).encode()), engine)
    found = {f.text: f.first_line for f in ex.findings}
    assert found["hip says hipErrorNoBinaryForGpu here"] == 124
    assert found["CUDA out of MEMORY, tried"] == 457
    assert ex.lines == 500
    assert ex.tail[-1] == (500, "loss=499 ok")


def test_invalid_utf8_and_crlf_do_not_break_extraction(engine) -> None:  # type: ignore[no-untyped-def]
    data = b"\xff\xfe garbage\r\nRuntimeError: hipErrorNoBinaryForGpu \xc3\x28\r\n"
    ex = extract_stream(io.BytesIO(data), engine)
    assert any(f.text.startswith("RuntimeError: hipErrorNoBinaryForGpu") for f in ex.findings)


def test_a_gzip_log_is_read_transparently(tmp_path: Path, engine) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "run.log.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("epoch 1\n" * 1000 + "RuntimeError: hipErrorNoBinaryForGpu\n")
    with open_input(path) as stream:
        ex = extract_stream(stream, engine)
    assert ex.findings[-1].first_line == 1001


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        open_input(tmp_path / "missing.log")


def test_one_huge_line_keeps_its_head_without_growing_memory(
    engine, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(extract, "CHUNK", 1 << 16)
    data = b"hipErrorNoBinaryForGpu " + b"x" * (3 << 20) + b"\nnext line\n"
    ex = extract_stream(io.BytesIO(data), engine)
    assert ex.findings and len(ex.findings[0].text) <= extract.MAX_LINE
    assert ex.lines == 2


def test_the_first_and_last_fatal_lines_are_told_apart(engine) -> None:  # type: ignore[no-untyped-def]
    log = "ok\nRuntimeError: first failure\nmore\nValueError: follow-on failure\n"
    ex = extract_stream(io.BytesIO(log.encode()), engine)
    assert ex.first_fatal is not None and ex.first_fatal.first_line == 2
    assert ex.last_fatal is not None and ex.last_fatal.first_line == 4


def test_binary_garbage_is_flagged(engine) -> None:  # type: ignore[no-untyped-def]
    ex = extract_stream(io.BytesIO(bytes(range(256)) * 400), engine)
    assert ex.binary


def test_distinct_findings_stay_bounded(engine, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(extract, "HEAD_FINDINGS", 10)
    monkeypatch.setattr(extract, "RECENT_FINDINGS", 10)
    log = "".join(f"ValueError: distinct message {chr(65 + i % 26)}{i}x\n" for i in range(1000))
    log += "RuntimeError: hipErrorNoBinaryForGpu at the very end\n"
    ex = extract_stream(io.BytesIO(log.encode()), engine)
    assert len(ex.findings) <= 20
    assert ex.findings[-1].text.endswith("at the very end"), "the most recent findings are kept"


def test_a_corrupt_compiled_pattern_cache_is_ignored(tmp_path: Path) -> None:
    pytest.importorskip("hyperscan")
    first = make_engine(PATTERNS, prefer="hyperscan")
    assert first.name == "hyperscan"
    cache_dir = Path(os.environ["XDG_CACHE_HOME"]) / "rocmfix"
    cached = list(cache_dir.glob("hs-*.db"))
    assert cached, "the compiled database is cached"
    for path in cached:
        path.write_bytes(b"garbage")
    again = make_engine(PATTERNS, prefer="hyperscan")
    ex = extract_stream(io.BytesIO(b"ok\nhipErrorNoBinaryForGpu\n"), again)
    assert [f.first_line for f in ex.findings] == [2]


def test_a_file_line_longer_than_a_read_but_not_than_a_chunk_is_scanned_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parallel file path reads CHUNK/4 at a time; a line longer than that (but
    within CHUNK) is still scanned whole, as a pipe's reader scans it: a hit in its
    middle is found, and it is no "long line"."""
    pytest.importorskip("hyperscan")
    monkeypatch.setattr(extract, "CHUNK", 1 << 16)  # reads of 16 KB; the file path from 256 KB
    hs = make_engine(PATTERNS, prefer="hyperscan")
    middle = b"y" * 20_000 + b" hipErrorNoBinaryForGpu " + b"z" * 20_000  # 40 KB: > a read, < a chunk
    data = b"step 1 loss 0.5\n" * 20_000 + middle + b"\n" + b"step 2 loss 0.4\n" * 20_000
    path = tmp_path / "train.log"
    path.write_bytes(data)
    with open_input(path) as stream:
        got = extract_stream(stream, hs)
    want = extract_stream(io.BytesIO(data), hs)
    assert [(f.first_line, f.count) for f in got.findings] == [(20_001, 1)]
    assert [(f.text, f.first_line, f.count) for f in got.findings] == [
        (f.text, f.first_line, f.count) for f in want.findings
    ]
    assert got.long_lines == want.long_lines == 0
    assert got.lines == want.lines == 40_001


def test_the_scan_pool_hands_back_results_and_errors_and_stops_without_hanging() -> None:
    import threading
    import time

    pool = extract._Pool(2)
    jobs = [pool.submit(lambda x: x * 2, n) for n in range(20)]
    assert [j.result() for j in jobs] == [n * 2 for n in range(20)]
    bad = pool.submit(lambda: 1 // 0)
    with pytest.raises(ZeroDivisionError):
        bad.result()  # a worker's error reaches the caller, and the worker lives on
    assert pool.submit(lambda: "still working").result() == "still working"
    pool.shutdown()
    pool = extract._Pool(1)  # one worker: what is queued behind the running scan is dropped
    started = threading.Event()

    def slow() -> str:
        started.set()
        time.sleep(0.2)
        return "done"

    running = pool.submit(slow)
    queued = [pool.submit(time.sleep, 5) for _ in range(4)]
    started.wait(5)
    t0 = time.monotonic()
    pool.shutdown()  # waits for the running scan, drops the queued ones
    assert time.monotonic() - t0 < 3
    assert running.result() == "done"
    assert all(j.done.is_set() for j in queued)
    assert not any(t.is_alive() for t in pool._threads)
