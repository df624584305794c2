"""The symptom gate: rapidfuzz is loaded only when a symptom could score, with the
same scores and answers as always loading it.

The gate's token_set_ratio must never fall below rapidfuzz's (else a symptom that
scores would be skipped), its ASCII preprocessing must equal rapidfuzz's, and an
entry left out as settled must not change the explanation.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.kb import symptoms
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher

fuzz = pytest.importorskip("rapidfuzz.fuzz")
utils = pytest.importorskip("rapidfuzz.utils")

DATA = Path(__file__).parent / "data"
LINE = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"


def _texts(limit: int = 400) -> list[str]:
    texts = []
    for f in sorted((DATA / "heldout").glob("*.jsonl"))[:6] + [DATA / "eval" / "dev.jsonl"]:
        for line in f.read_text(encoding="utf-8").splitlines():
            text = json.loads(line).get("text")
            if isinstance(text, str):
                texts.append(text)
    rng = random.Random(14)
    rng.shuffle(texts)
    return texts[:limit]


def _symptom_texts() -> list[str]:
    return [s for e in load_kb([]).entries for s in e.symptoms]


def test_ascii_process_is_rapidfuzz_default_process() -> None:
    every = "".join(map(chr, range(128)))
    assert symptoms.ascii_process(every) == utils.default_process(every)
    for text in _texts(200) + _symptom_texts():
        if text.isascii():
            assert symptoms.ascii_process(text) == utils.default_process(text)


def test_unicode_process_is_rapidfuzz_default_process() -> None:
    # the gate's tokens for the Chinese symptoms (and any other non-ASCII one)
    for text in _symptom_texts() + ["需要 sudo 才能用 AMD 显卡，Ünïcode—ok", "跑在CPU上"]:
        assert symptoms.unicode_process(text) == utils.default_process(text), text


def test_gate_ratio_never_below_rapidfuzz_and_exact_where_it_counts() -> None:
    syms = [utils.default_process(s) for s in _symptom_texts()]
    rng = random.Random(3)
    queries = [t[:cut] for t in _texts(120) if t.isascii() for cut in (50, 150, 400)]
    for s in _symptom_texts():  # near misses: shuffled, shortened, extended symptoms
        words = s.split()
        rng.shuffle(words)
        queries += [" ".join(words[:-1]), s + " on my machine", s[: len(s) // 2]]
    for q in map(utils.default_process, queries):
        a = frozenset(q.split())
        for p in syms:
            real = fuzz.token_set_ratio(q, p)
            gate = symptoms.upper_token_set_ratio(a, frozenset(p.split()))
            assert gate + 1e-9 >= real, (q, p)
            if gate >= symptoms.THRESHOLD - 0.5:
                assert abs(gate - real) < 1e-6, (q, p)


def test_lcs_len_small_cases() -> None:
    assert symptoms.lcs_len("", "abc") == 0
    assert symptoms.lcs_len("abcbdab", "bdcaba") == 4
    assert symptoms.lcs_len("same", "same") == 4


def test_settled_entries_change_no_answer() -> None:
    """Scores of entries not settled are the ungated ones, whatever is settled."""
    index = load_kb([]).entries
    gated = symptoms.SymptomIndex(index)
    for text in _texts(150) + _symptom_texts()[:60] + [LINE]:
        full = gated.scores(text)
        some = frozenset(e.id for e in index[::3])
        part = gated.scores(text, some)
        assert {k: v for k, v in part.items() if k not in some} == {
            k: v for k, v in full.items() if k not in some
        }


def test_same_explanations_as_a_matcher_that_always_scores() -> None:
    kb = load_kb([])
    gated = Matcher(kb)
    ungated = Matcher(kb)
    # rapidfuzz for every symptom: nothing settled, every symptom may reach the threshold
    ungated._symptoms._may_reach = lambda tokens, settled: True  # type: ignore[method-assign]  # noqa: SLF001
    for text in _texts(150) + _symptom_texts()[:80] + [LINE]:
        a, b = gated.explain_text(text), ungated.explain_text(text)
        assert [(x.entry.id, x.confidence, x.via, x.evidence) for x in a.matches] == [
            (x.entry.id, x.confidence, x.via, x.evidence) for x in b.matches
        ], text[:80]


def test_benchmark_line_needs_no_rapidfuzz_nor_pathlib() -> None:
    # pathlib may come with the interpreter's start-up (a .pth hook): only what
    # rocmfix adds counts.
    code = (
        "import sys, io, contextlib\n"
        "before = 'pathlib' in sys.modules\n"
        "from rocmfix.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()): main(['explain','--json',{LINE!r}])\n"
        "print('rapidfuzz' in sys.modules, before or 'pathlib' not in sys.modules)"
    )
    # the first run may fill the caches (writing them uses pathlib); the second is a user's
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
    assert out.stdout.strip() == "False True"
