"""Property-based tests: whatever bytes arrive, the extractor and the matcher
return a result in bounded time and never crash."""

from __future__ import annotations

import io
import re
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmfix.extract import extract_stream
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import matcher_for

MATCHER = matcher_for(load_kb())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=20_000))
def test_random_bytes_never_crash_the_extractor(data: bytes) -> None:
    ex = extract_stream(io.BytesIO(data), MATCHER._engine)
    assert ex.bytes == len(data)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=3000))
def test_random_text_never_crashes_the_matcher(text: str) -> None:
    result = MATCHER.explain_text(text)
    assert all(0.0 <= m.confidence <= 1.0 for m in result.matches)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["hipErrorNoBinaryForGpu", "\x00", "\r", "\x1b[31m", "out of memory", "gfx1031",
                                 "Traceback (most recent call last):", "\n", "[rank1]: ", "é", "\xff"]), max_size=400))
def test_adversarial_mixtures_of_signature_fragments_are_handled(parts: list[str]) -> None:
    result = MATCHER.explain_text("".join(parts))
    ids = [m.entry.id for m in result.matches]
    assert len(ids) == len(set(ids))


def test_one_hundred_megabyte_line_is_bounded_in_time() -> None:
    data = b"A" * (100 * 1024 * 1024) + b"\nRuntimeError: HIP error: hipErrorNoBinaryForGpu\n"
    start = time.monotonic()
    result = MATCHER.explain_stream(io.BytesIO(data))
    assert time.monotonic() - start < 30
    assert result.matches and result.matches[0].entry.id == "no-binary-for-gpu"


def test_many_nul_bytes_and_a_huge_number_of_matches() -> None:
    data = b"\x00" * 1_000_000 + b"hipErrorNoBinaryForGpu\n" * 200_000
    result = MATCHER.explain_stream(io.BytesIO(data))
    top = result.matches[0]
    assert top.entry.id == "no-binary-for-gpu"
    assert top.evidence[0].count >= 100_000


def test_an_endless_binary_stream_on_stdin_is_refused_without_reading_it_all() -> None:
    class Endless(io.RawIOBase):
        served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buf) -> int:  # type: ignore[no-untyped-def]
            buf[:] = b"\0" * len(buf)
            self.served += len(buf)
            return len(buf)

    src = Endless()
    ex = extract_stream(io.BufferedReader(src), MATCHER._engine)
    assert ex.binary
    assert src.served <= 96 * 1024 * 1024


# Lines as the extractor hands them to the matcher (capped at 4 KB), built from words the
# signatures themselves look for, repeated: the shape that makes an overlapping or nested
# quantifier backtrack (a pasted log with one token a thousand times, a progress bar).
_PROBE_WORDS = ("a", " ", "AMD ", "ROCm ", "nvidia ", "torch ", "/dev/kfd is ", "kfd ", "render group ",
                "sudo ", "works with ", "RX 7900 ", "gfx1100 ", "install ", "cuda ", "lib", "ROCm 5.5 ",
                "not ", "does ", "xformers ", "CUDA版 AMD ", "x.", "-_", "0.")


def _slow_signatures(length: int) -> list[tuple[str, str, str, float]]:
    lines = [(w * (length // len(w) + 1))[: length - 1] + "!" for w in _PROBE_WORDS]
    slow = []
    for entry in load_kb().entries:
        for sig in [*entry.signatures, *entry.excludes]:
            if sig.literal:
                continue
            rx = re.compile(sig.pattern, re.IGNORECASE if sig.ignore_case else 0)
            for line in lines:
                start = time.perf_counter()
                rx.search(line)
                took = time.perf_counter() - start
                if took > 0.25:
                    slow.append((entry.id, sig.pattern[:60], line[:12], round(took, 2)))
    return slow


def test_no_signature_backtracks_on_a_long_line_of_repeated_words() -> None:
    from rocmfix.extract import MAX_LINE  # noqa: PLC0415

    # Short lines first: a nested quantifier goes exponential there within seconds
    # (on a 4 KB line it would never return); then full-length lines for the polynomial kind.
    assert not _slow_signatures(26)
    assert not _slow_signatures(MAX_LINE)
