"""KB search (F5): what users type finds the entry they mean, first; no result says so."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from rocmfix.app import RocmfixApp
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import matcher_for
from rocmfix.screens.kb import search
from rocmfix.screens.session import Session


@pytest.fixture(scope="module")
def kb():  # type: ignore[no-untyped-def]
    return load_kb()


@pytest.mark.parametrize(
    ("query", "wanted", "within"),
    [
        ("out of memory", "gpu-out-of-memory", 1),
        ("render group", "kfd-permission-denied", 1),
        ("segfault", "segfault-at-gpu-init", 1),
        ("tensile", "rocblas-tensile-missing", 1),
        ("gfx1031", "no-binary-for-gpu", 3),  # only the matcher knows this one
        ("rendr grup", "kfd-permission-denied", 3),  # typos still find it
    ],
)
def test_a_query_ranks_the_entry_it_names_near_the_top(
    kb, query: str, wanted: str, within: int
) -> None:  # type: ignore[no-untyped-def]
    ids = [e.id for e in search(kb.entries, query, matcher=matcher_for(kb))]
    assert wanted in ids[:within], ids[:8]


def test_a_query_of_common_words_does_not_rank_by_kb_order(kb) -> None:  # type: ignore[no-untyped-def]
    ids = [e.id for e in search(kb.entries, "out of memory", matcher=matcher_for(kb))]
    assert len(ids) < len(kb.entries) // 2, "'of' alone must not match everything"


async def test_no_result_says_what_to_try() -> None:
    app = RocmfixApp(Session())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f5")
        await pilot.press(*"xyzzyq")
        await pilot.pause(0.1)
        results = app.screen.query_one("#kb-results", OptionList)
        assert results.option_count == 1
        text = str(results.get_option_at_index(0).prompt)
        assert "No entry matches" in text and "xyzzyq" in text
        await pilot.press("enter")  # nothing to open: stays on the search
        await pilot.pause(0.1)
        assert app.screen.query_one("#kb-results", OptionList)
