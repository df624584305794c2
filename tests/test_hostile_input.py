"""Property-based tests: whatever bytes arrive, the extractor and the matcher
return a result in bounded time and never crash."""

from __future__ import annotations

import io
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
