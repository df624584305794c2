"""Reports told in words: Chinese symptoms are read, and a weak match never argues
against the cause it points at."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rocmfix.kb import matcher, symptoms
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import CONFIDENT, Match, _with_ranker
from rocmfix.kb.ranker import default_ranker


def test_chinese_is_read_as_character_bigrams() -> None:
    words = symptoms.content_words("AMD 显卡跑在CPU上")
    assert {"amd", "cpu", "显卡", "卡跑", "跑在"} <= words
    assert symptoms.content_words("plain English words") == frozenset({"plain", "english", "word"})


def test_a_chinese_symptom_held_by_a_short_text_scores() -> None:
    kb = load_kb([])
    index = symptoms.SymptomIndex(kb.entries)
    typed = "装好 ROCm 之后普通用户识别不到显卡，root 用户就可以，这是怎么回事"
    assert "kfd-permission-denied" in index.scores(typed)
    # the same characters' topic without the situation: nothing reaches the bar
    assert "kfd-permission-denied" not in index.scores(
        "今天买了一块新显卡，装好驱动以后玩游戏很流畅"
    )


def test_english_lines_do_not_load_rapidfuzz_for_a_chinese_symptom() -> None:
    kb = load_kb([])
    chinese = [
        SimpleNamespace(id=e.id, symptoms=tuple(s for s in e.symptoms if not s.isascii()))
        for e in kb.entries
    ]
    assert any(e.symptoms for e in chinese)
    index = symptoms.SymptomIndex(chinese)  # type: ignore[arg-type]
    tokens = frozenset(
        symptoms.ascii_process("RuntimeError: HIP error: invalid device function").split()
    )
    assert not index._may_reach(tokens, frozenset())  # noqa: SLF001


@pytest.mark.parametrize(
    "text",
    [
        "rocminfo only works with sudo, as my normal user it says permission denied on my RX 7900",
        "the first epoch takes ages on my Radeon, later epochs are fast",
        "ComfyUI on my RX 6800 runs on the CPU since I updated the custom nodes",
    ],
)
def test_a_weak_match_never_lowers_the_rankers_first_cause_where_the_ranker_is_sure(
    text: str,
) -> None:
    model = default_ranker()
    if model is None:
        pytest.skip("no ranker artifact")
    kb = load_kb([])
    by_id = {e.id: e for e in kb.entries}
    probs = model.probabilities(text)
    first = min((c for c in probs if c != "none"), key=lambda c: (-probs[c], c))
    bare = {m.entry.id: m.confidence for m in _with_ranker([], text, by_id, lambda _: False)}
    weak = Match(entry=by_id[first], confidence=CONFIDENT - 0.05, evidence=(), via="symptom")
    lifted = {m.entry.id: m.confidence for m in _with_ranker([weak], text, by_id, lambda _: False)}
    if probs[first] >= matcher.RANKER_SURE:
        assert lifted[first] >= bare.get(first, 0.0)
    else:  # the ranker merely leads: the combiner's own reading beside the weak match stands
        combined = model.combine({first: CONFIDENT - 0.05}, probs)
        assert lifted[first] == round(combined[first], 4)


def test_the_floor_needs_the_ranker_sure_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    model = default_ranker()
    if model is None:
        pytest.skip("no ranker artifact")
    kb = load_kb([])
    by_id = {e.id: e for e in kb.entries}
    text = (
        "rocminfo only works with sudo, as my normal user it says permission denied on my RX 7900"
    )
    probs = model.probabilities(text)
    first = min((c for c in probs if c != "none"), key=lambda c: (-probs[c], c))
    assert probs[first] >= matcher.RANKER_SURE  # the ranker alone is sure of this one
    weak = Match(entry=by_id[first], confidence=0.3, evidence=(), via="symptom")
    floored = {m.entry.id: m.confidence for m in _with_ranker([weak], text, by_id, lambda _: False)}
    monkeypatch.setattr(matcher, "RANKER_SURE", probs[first] + 0.01)
    held = {m.entry.id: m.confidence for m in _with_ranker([weak], text, by_id, lambda _: False)}
    assert held[first] == round(model.combine({first: 0.3}, probs)[first], 4)
    assert floored[first] >= held[first]
