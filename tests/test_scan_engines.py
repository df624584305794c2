"""Reading and scanning at scale: both engines agree, long lines keep their end,
CR-only input is split, compressed stdin is read, and no signature can hang explain."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmfix import extract
from rocmfix.errors import KbError
from rocmfix.extract import clean_line, extract_stream, make_engine, open_stream, split_lines
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import _NVIDIA_CONTEXT, Matcher
from rocmfix.kb.redos import redos_problem
from rocmfix.kb.schema import parse_kb_text

KB = load_kb()
ERROR = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object"


def _kb_patterns() -> list[tuple[str, bool]]:
    import re

    return [
        (re.escape(s.pattern) if s.literal else s.pattern, s.ignore_case)
        for e in KB.entries
        for s in (*e.signatures, *e.excludes)
    ]


@pytest.fixture(scope="module")
def engines():  # type: ignore[no-untyped-def]
    pytest.importorskip("hyperscan")
    pats = _kb_patterns()
    return make_engine(pats, prefer="hyperscan"), make_engine(pats, prefer="re")


# Lines built from KB fragments, log noise and random text: every engine must pick the same lines.
_FRAGMENTS = [
    ERROR,
    "HIP out of memory. Tried to allocate 2.00 GiB",
    "Memory access fault by GPU node-1",
    "libamdhip64.so: cannot open shared object file",
    "gfx1031",
    "NCCL WARN Connection closed",
    "[rank3]: ",
    "\x1b[31m",
    "Traceback (most recent call last):",
    "ROCm 6.2",
    "nvidia-smi",
    "Segmentation fault (core dumped)",
    "loss=0.1234",
    "Epoch 3/100",
    "é",
    "\t",
    "H100",
    "RTX 4090",
]
_line = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=20)), max_size=6).map(
    "".join
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(_line, max_size=40))
def test_hyperscan_and_the_fallback_find_the_same_lines(engines, lines: list[str]) -> None:  # type: ignore[no-untyped-def]
    hs, fallback = engines
    data = "\n".join(lines).encode("utf-8", "replace")
    a = extract_stream(io.BytesIO(data), hs)
    b = extract_stream(io.BytesIO(data), fallback)
    assert [(f.text, f.first_line, f.count) for f in a.findings] == [
        (f.text, f.first_line, f.count) for f in b.findings
    ]
    assert a.lines == b.lines


def _file_results(path: Path, engines: list[object], chunk: int) -> list[tuple[object, int]]:
    results = []
    old_chunk = extract.CHUNK
    extract.CHUNK = chunk  # the file path starts at 4 chunks, a grep part at 8
    try:
        for engine in engines:
            with extract.open_input(path) as stream:
                ex = extract_stream(stream, engine)  # type: ignore[arg-type]
            results.append(
                ([(f.text, f.first_line, f.last_line, f.count) for f in ex.findings], ex.lines)
            )
    finally:
        extract.CHUNK = old_chunk
    return results


class _GrepSpy:
    """Counts the grep scans that ran to the end and the parts they cut the file into."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.done: list[bool] = []
        self.parts: list[int] = []
        real_scan, real_part = extract._grep_scan, extract._GrepPart

        def scan(*args):  # type: ignore[no-untyped-def]
            self.done.append(real_scan(*args))
            return self.done[-1]

        def part(*args):  # type: ignore[no-untyped-def]
            self.parts.append(args[2])
            return real_part(*args)

        monkeypatch.setattr(extract, "_grep_scan", scan)
        monkeypatch.setattr(extract, "_GrepPart", part)


def _no_children_left() -> bool:
    psutil = pytest.importorskip("psutil")
    return not [
        p for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE
    ]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(_line, min_size=1, max_size=40), st.sampled_from([1, 3, 4]))
def test_the_fallback_on_a_file_finds_the_same_lines_with_and_without_grep(  # type: ignore[no-untyped-def]
    engines, lines: list[str], workers: int
) -> None:
    """A plain file is prefiltered by grep in the fallback, in one part per core: the lines
    it finds are the ones Hyperscan, the fallback's own chunked scan and the pure-Python
    engine (no grep) find."""
    import tempfile

    if extract._gnu_grep() is None:
        pytest.skip("no GNU grep")
    hs, _ = engines
    fallback = make_engine(_kb_patterns(), prefer="re")
    python = make_engine(_kb_patterns(), prefer="python")
    body = "\n".join(lines).encode("utf-8", "replace")
    filler = b"".join(b"step %d loss 0.%04d lr 1e-05 Epoch 3/100 360 MI250\n" % (i, i) for i in range(400))
    data = filler + body + b"\n" + filler + body
    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as tmp:
        spy = _GrepSpy(mp)
        mp.setattr(extract, "_workers", lambda: workers)
        path = Path(tmp) / "train.log"
        path.write_bytes(data)
        results = _file_results(path, [hs, fallback, python], 1 << 10)
    assert spy.done == [True, False]  # grep ran for the fallback; the pure-Python engine declined
    assert len(spy.parts) == min(workers, len(data) // (8 << 10))  # one grep per part
    assert results[0] == results[1] == results[2]
    assert _no_children_left()


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_grep_parts_agree_around_long_lines_and_at_the_cuts(  # type: ignore[no-untyped-def]
    engines, tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Errors right at the cut points, a 200 KB line (longer than a part, and too long
    for grep's rows: the Python scan takes over) and a long line ending in an error."""
    if extract._gnu_grep() is None:
        pytest.skip("no GNU grep")
    hs, _ = engines
    fallback = make_engine(_kb_patterns(), prefer="re")
    python = make_engine(_kb_patterns(), prefer="python")
    step = b"".join(b"step %d loss 0.%04d\n" % (i, i) for i in range(300))
    err = (ERROR + "\n").encode()
    plain = (step + err) * 12
    long_line = b"x" * 200_000 + b" " + err
    monkeypatch.setattr(extract, "_workers", lambda: workers)
    for data, grep_ran in ((plain, True), (step + long_line + plain, False)):
        spy = _GrepSpy(monkeypatch)
        path = tmp_path / "train.log"
        path.write_bytes(data)
        results = _file_results(path, [hs, fallback, python], 1 << 10)
        assert spy.done == [grep_ran, False]  # the pure-Python engine never runs grep
        assert results[0] == results[1] == results[2]
        hits = [f for f in results[0][0] if "hipErrorNoBinaryForGpu" in f[0]]  # type: ignore[union-attr, index]
        assert sum(f[3] for f in hits) == data.count(err)  # type: ignore[index]
        assert _no_children_left()


def test_the_pure_python_engine_finds_what_grep_finds_on_a_training_log(tmp_path: Path) -> None:
    """ROCMFIX_ENGINE=python (no grep) and =re (grep) read the same lines of a log."""
    if extract._gnu_grep() is None:
        pytest.skip("no GNU grep")
    chatter = "".join(
        f"[rank{i % 8}]: step {i} tokens/s 1{i % 7}3.0 loss 0.{i:04d} Warning: grad is None\n"
        for i in range(3000)
    )
    data = (chatter + "HIP out of memory. Tried to allocate 2.00 GiB\n" + chatter + ERROR + "\n").encode()
    path = tmp_path / "train.log"
    path.write_bytes(data)
    engines = [make_engine(_kb_patterns(), prefer=p) for p in ("re", "python")]
    a, b = _file_results(path, engines, 1 << 12)
    assert a == b
    assert any("hipErrorNoBinaryForGpu" in f[0] for f in a[0])  # type: ignore[union-attr, index]


def test_the_grep_superset_eres() -> None:
    from rocmfix.extract import ere_superset

    assert ere_superset(r"\bp[45]d?e?\.\d+xl", False) == r"p[45](d){0,1}(e){0,1}\.([0123456789]){1,}xl"
    assert ere_superset(r"(?i:ab)", False) == "([Aa][Bb])"
    assert ere_superset(r"(a)\1", False) is None  # no ERE for a back-reference
    assert ere_superset(r"x|\s*", False) is None  # matches every line: no use as a prefilter


def test_the_literal_gate_does_not_change_an_answer() -> None:
    """Skipping signatures whose literal text is absent gives the answers of running them all."""
    gated = Matcher(KB)
    ungated = Matcher(KB)
    ungated._gate.may_match = lambda *_: True  # type: ignore[method-assign]
    texts = [
        ERROR,
        "HIP out of memory on gfx1100",
        "torch.cuda.is_available() False on RX 6700 XT",
        "libMIOpen.so.1: cannot open shared object file",
        "my training hangs at the first epoch",
    ]
    for text in texts:
        a, b = gated.explain_text(text), ungated.explain_text(text)
        assert [(m.entry.id, m.confidence) for m in a.matches] == [
            (m.entry.id, m.confidence) for m in b.matches
        ]


def test_an_error_at_the_end_of_a_104_kb_progress_line_is_found() -> None:
    bar = "".join(
        f"\r {i % 100:3d}%|#####     | {i}/50000 [00:10<00:12, 12.3it/s]" for i in range(2000)
    )
    assert len(bar) > 100_000
    data = ("step 1\n" + bar + ERROR + "\nnext\n").encode()
    result = Matcher(KB).explain_stream(io.BytesIO(data))
    assert result.matches and result.matches[0].entry.id == "no-binary-for-gpu"
    assert result.matches[0].evidence[0].line == 2


def test_a_long_line_without_progress_bars_keeps_head_and_tail() -> None:
    line = "RuntimeError: first words " + "x" * 200_000 + " " + ERROR
    text = clean_line(line)
    assert text.startswith("RuntimeError: first words")
    assert text.endswith(ERROR)
    assert len(text) <= extract.MAX_LINE


def test_a_long_line_in_a_pasted_text_is_matched_at_its_end() -> None:
    result = Matcher(KB).explain_text("a" * 5000 + " " + ERROR)
    assert result.matches and result.matches[0].entry.id == "no-binary-for-gpu"


@pytest.mark.parametrize("prefer", ["re", "hyperscan"])
def test_cr_only_line_ends_are_lines(prefer: str) -> None:
    if prefer == "hyperscan":
        pytest.importorskip("hyperscan")
    engine = make_engine(_kb_patterns(), prefer=prefer)
    data = ("epoch 1\r" * 500 + ERROR + "\repoch 2\r").encode()
    ex = extract_stream(io.BytesIO(data), engine)
    assert ex.lines == 502
    hits = [f for f in ex.findings if "hipErrorNoBinaryForGpu" in f.text]
    assert hits and hits[0].first_line == 501


def test_cr_only_pasted_text_is_split() -> None:
    assert split_lines("a\rb\rc") == ["a", "b", "c"]
    assert split_lines("a\r\nb") == ["a\r", "b"]  # CRLF: the CR is dropped by clean_line
    result = Matcher(KB).explain_text("epoch 1\r" + ERROR + "\repoch 2")
    assert result.excerpt.lines == 3
    assert result.matches[0].evidence[0].line == 2


@pytest.mark.parametrize("prefer", ["hyperscan", "re", "python"])
def test_a_cr_only_file_is_read_as_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefer: str
) -> None:
    if prefer == "hyperscan":
        pytest.importorskip("hyperscan")
    monkeypatch.setattr(extract, "CHUNK", 1 << 12)  # the parallel file path starts at 4 chunks
    monkeypatch.setenv("ROCMFIX_ENGINE", prefer)
    path = tmp_path / "mac.log"
    path.write_bytes(("loss 0.1\r" * 5000 + ERROR + "\r").encode())
    with extract.open_input(path) as stream:
        result = Matcher(KB).explain_stream(stream)
    assert result.excerpt.lines == 5001
    assert result.matches[0].evidence[0].line == 5001


@pytest.mark.parametrize("kind", ["gzip", "xz", "bz2"])
def test_compressed_streams_are_detected_on_a_pipe(kind: str) -> None:
    import bz2
    import lzma

    raw = ("ok\n" * 100 + ERROR + "\n").encode()
    packed = {"gzip": gzip.compress, "xz": lzma.compress, "bz2": bz2.compress}[kind](raw)

    class Pipe(io.RawIOBase):  # no seek, no peek: what a pipe gives
        def __init__(self) -> None:
            self._b = io.BytesIO(packed)

        def readable(self) -> bool:
            return True

        def readinto(self, b) -> int:  # type: ignore[no-untyped-def, override]
            return self._b.readinto(b)

    assert open_stream(Pipe()).read() == raw  # type: ignore[arg-type]


def _run(args: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(Path(extract.__file__).parents[1]), **kw.pop("env", {})}  # type: ignore[dict-item]
    return subprocess.run(
        [sys.executable, "-m", "rocmfix", *args],
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
        **kw,
    )  # type: ignore[call-overload]


def test_gzip_on_stdin_is_explained() -> None:
    out = _run(["explain", "--json", "-"], input=gzip.compress(("ok\n" + ERROR + "\n").encode()))
    assert out.returncode == 0, out.stderr
    assert b'"no-binary-for-gpu"' in out.stdout


def test_a_closed_stdin_is_a_clear_message() -> None:
    out = _run(["explain", "-"], stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert out.returncode == 2
    assert b"standard input is closed" in out.stderr
    assert b"Traceback" not in out.stderr


# ----------------------------------------------------------------- backtracking


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a+)+b",
        r"(a*)*b",
        r"(a|aa)+b",
        r"(\w+\s?)*x",
        r"\w*[\w.+-]*\.so",
        r"\d+\.?\d*x",
        r"(.*a){20}",
    ],
)
def test_catastrophic_patterns_are_refused(pattern: str) -> None:
    assert redos_problem(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        r"hipError\w+",
        r"(?:, \d+)*",
        r"foo.*bar",
        r"(?:ab|cd)+",
        r"[a-z]+\d+",
        r"(?:[a-z]+,)+x",
        r"\blib(?:hip[a-z]|rocm)[\w.+-]*\.so[\d.]*: cannot open",
    ],
)
def test_ordinary_patterns_pass(pattern: str) -> None:
    assert redos_problem(pattern) is None


def test_every_built_in_signature_passes_the_backtracking_check() -> None:
    for e in KB.entries:
        for s in (*e.signatures, *e.excludes):
            if not s.literal:
                assert redos_problem(s.pattern, s.ignore_case) is None, (e.id, s.pattern)
        for x in e.extract:
            assert redos_problem(x.regex) is None, (e.id, x.regex)


_EVIL = """schema: rocmfix.kb/1
entries:
  - id: evil
    title: evil
    summary: evil
    explanation: evil
    severity: benign
    signatures:
      - regex: '(a+)+b'
        weight: 0.9
"""


def test_a_user_kb_with_a_catastrophic_regex_is_refused_with_its_line() -> None:
    with pytest.raises(KbError, match=r"kb\.d/evil\.yaml:9: entry 'evil' .*backtrack"):
        parse_kb_text(_EVIL, "kb.d/evil.yaml")


def test_a_user_regex_a_plus_plus_b_does_not_hang_explain(tmp_path: Path) -> None:
    kbd = tmp_path / "config" / "rocmfix" / "kb.d"
    kbd.mkdir(parents=True)
    (kbd / "evil.yaml").write_text(_EVIL)
    start = time.monotonic()
    out = _run(
        ["explain", "a" * 5000],
        env={"XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    assert time.monotonic() - start < 60
    assert out.returncode in (0, 1)
    assert b"backtrack" in out.stderr and b"file skipped" in out.stderr


def test_the_rewritten_library_signature_is_linear_and_still_matches() -> None:
    import re

    sig = next(
        s
        for e in KB.entries
        if e.id == "hip-runtime-lib-missing"
        for s in e.signatures
        if s.pattern.startswith(r"\blib(?:hip[a-z]")
    )
    rx = re.compile(sig.pattern)
    for line in [
        "libhipblaslt.so.0: cannot open shared object file",
        "librocm_smi64.so.7: cannot open shared object file",
        "librocm_sysdeps_liblzma.so.5: cannot open shared object file",
        "libamdhip64.so.6: cannot open shared object file",
    ]:
        assert rx.search(line), line
    start = time.monotonic()
    rx.search("libhipx" + "a" * 200_000)
    assert time.monotonic() - start < 1.0


def test_the_fallback_is_linear_in_the_length_of_a_line() -> None:
    engine = make_engine(_kb_patterns(), prefer="re")
    times = []
    for n in (20_000, 80_000):
        data = ("x" * n + " hipErrorNoBinaryForGpu\n").encode()
        start = time.monotonic()
        extract_stream(io.BytesIO(data), engine)
        times.append(time.monotonic() - start)
    assert times[1] < 10 * times[0] + 0.5, times  # 4x the length: far from 16x


# ----------------------------------------------------------------- Hyperscan refusals
def _hs():  # type: ignore[no-untyped-def]
    return pytest.importorskip("hyperscan")


def test_every_shipped_pattern_is_in_the_one_hyperscan_database(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A pattern Hyperscan refuses drops to re for every chunk of a large log; the
    # NVIDIA-context pattern's \\u4e00 class once did, unnoticed, and cost 8x on 1 GB.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    engine = extract._HyperscanEngine(
        [*_kb_patterns(), (_NVIDIA_CONTEXT.pattern, False)],
        _hs(),
    )
    assert engine._db is not None
    assert engine._fallback is None


def test_a_refused_pattern_costs_its_search_once_not_on_every_run(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    hs = _hs()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    pats = [*(_kb_patterns()[:200]), (r"keep(?>alpha|al)pha", False)]  # atomic group: Hyperscan refuses it
    calls = []
    real = extract._HyperscanEngine._compile

    def counting(hs_, items, cache=False):  # type: ignore[no-untyped-def]
        calls.append(len(items))
        return real(hs_, items, cache)

    monkeypatch.setattr(extract._HyperscanEngine, "_compile", staticmethod(counting))
    first = extract._HyperscanEngine(pats, hs)
    assert first._fallback is not None and len(calls) < 40  # halving, not one compile per branch
    calls.clear()
    second = extract._HyperscanEngine(pats, hs)
    assert calls == []  # the refusal and the database both come from the cache
    text = b"noise\nkeepalphapha here\n" + ERROR.encode() + b"\nmore noise\n"
    assert sorted(first.scan(text)) == sorted(second.scan(text))
    lines = {text.count(b"\n", 0, off) for off in second.scan(text)}
    assert lines == {1, 2}


def test_a_non_ascii_class_reaches_hyperscan_as_a_superset_confirmed_by_re(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    expr, superset = extract._hs_source(r"[\u4e00-\u9fff][2-5]0[5-9]0(?![0-9])")
    assert superset and b"\\u" not in expr
    engine = extract._HyperscanEngine([(r"[\u4e00-\u9fff][2-5]0[5-9]0(?![0-9])", False)], _hs())
    assert engine._fallback is None
    text = "step 4090 loss\n测试了4090显卡\nx4090\n".encode()
    lines = {text.count(b"\n", 0, off) for off in engine.scan(text)}
    assert lines == {1}
    # The superset stays tight: a step counter after ASCII never reaches the exact regex.
    raw: list[int] = []
    engine._db.scan(b"step 4090 loss\n" * 50, match_event_handler=lambda *a: raw.append(a[0]))
    assert raw == []


def test_training_chatter_sends_no_line_to_the_exact_regexes(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # What a 1 GB scan's speed rests on: progress bars, step counters and metrics
    # never reach the per-line regex check (a loose superset once sent 39,000
    # lines of the benchmark log there and made the scan 3.7x slower).
    import random

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import explain_speed as bench
    finally:
        sys.path.pop(0)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rng = random.Random(1)
    text = "\n".join(
        bench._fmt(bench.LINES[rng.randrange(len(bench.LINES))], i, rng) for i in range(40000)
    ).encode() + b"\n"
    engine = extract._HyperscanEngine([*_kb_patterns(), (_NVIDIA_CONTEXT.pattern, False)], _hs())
    checked: list[int] = []
    real = engine._verify
    monkeypatch.setattr(engine, "_verify", lambda s, a, e, checks: checked.extend(checks) or real(s, a, e, checks))
    assert engine.scan(text) == []
    assert checked == []
