"""The labelled report files under tests/data/heldout are well-formed data.

Every row is one JSON object with the fields the evaluation reads, its label is a
taxonomy id (or ``none`` for a look-alike), its source is a thread URL, and ids are
unique. Rounds collected after the split was frozen (``heldout-aa.jsonl`` onwards)
must bring threads the repository did not hold yet: a thread that also appears in
another data file would let a tuned-on wording leak into a "never tuned" figure.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from rocmfix.kb.loader import load_kb
from rocmfix.kb.split import repo_cases, thread_key

DATA = Path(__file__).parent / "data"
HELDOUT = DATA / "heldout"
FIELDS = {"id", "source", "text", "label", "alt_labels", "why"}
LATE_ROUND = re.compile(r"^heldout-[a-z]{2}\.jsonl$")


def _taxonomy() -> set[str]:
    entries = yaml.safe_load((DATA / "kb-taxonomy.yaml").read_text(encoding="utf-8"))
    return {str(e["id"]) for e in entries}


def _rows(path: Path) -> list[dict[str, object]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:  # pragma: no cover - the assertion message is the point
            pytest.fail(f"{path.name}:{n}: not JSON ({exc})")
        assert isinstance(row, dict), f"{path.name}:{n}: not an object"
        rows.append(row)
    return rows


FILES = sorted(HELDOUT.glob("*.jsonl"))
LATE = [p for p in FILES if LATE_ROUND.match(p.name)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_row_has_the_fields_a_taxonomy_label_and_a_url(path: Path) -> None:
    # Late rounds use the taxonomy's root-cause ids only; earlier rounds may also
    # name the knowledge base's own extra entries (benign warnings and the like).
    late = bool(LATE_ROUND.match(path.name))
    ids = _taxonomy() | {"none"}
    if not late:
        ids |= {entry.id for entry in load_kb().entries}
    rows = _rows(path)
    assert rows, f"{path.name} is empty"
    for row in rows:
        where = f"{path.name}:{row.get('id')}"
        if late:
            assert set(row) >= FIELDS, (where, FIELDS - set(row))
            assert str(row["id"]).startswith(path.stem + "-"), where
            assert str(row["why"]).strip(), where
        assert str(row.get("text", "")).strip(), where
        assert row.get("label") in ids, (where, row.get("label"))
        alts = row.get("alt_labels") or []
        assert isinstance(alts, list), where
        if late:  # earlier rounds carry a few free-form alternates; late ones may not
            assert all(a in ids for a in alts), (where, alts)
            assert row["label"] not in alts, where
        assert re.match(r"^https?://[^\s/]+/\S*$", str(row.get("source", ""))), where


def test_case_ids_are_unique_across_the_heldout_files() -> None:
    counts = Counter(str(row["id"]) for path in FILES for row in _rows(path))
    assert not [i for i, n in counts.items() if n > 1]


def test_late_rounds_bring_only_threads_the_repository_did_not_hold() -> None:
    assert LATE, "no round after the frozen split is present"
    late_names = {f"heldout/{p.name}" for p in LATE}
    elsewhere: dict[str, str] = {}
    for case in repo_cases(DATA):
        key = thread_key(str(case.get("source", "")))
        if key and case["origin"] not in late_names:
            elsewhere.setdefault(key, case["origin"])
    seen: dict[str, str] = {}
    for path in LATE:
        for row in _rows(path):
            key = thread_key(str(row["source"]))
            assert key not in elsewhere, (row["id"], "thread already in", elsewhere.get(key))
            assert key not in seen, (row["id"], "thread repeated from", seen.get(key))
            seen[key] = str(row["id"])


def test_late_rounds_hold_no_duplicate_text() -> None:
    texts = Counter(str(row["text"]).strip() for path in LATE for row in _rows(path))
    assert not [t[:60] for t, n in texts.items() if n > 1]


def test_a_tracker_that_names_its_thread_in_the_query_keeps_it_in_the_thread_key() -> None:
    # Two Bugzilla bugs are two threads (the split places them apart, duplicates are caught).
    a = thread_key("https://bugzilla.redhat.com/show_bug.cgi?id=2332429")
    b = thread_key("https://bugzilla.redhat.com/show_bug.cgi?id=2332430#c4")
    assert a == "bugzilla.redhat.com/show_bug.cgi?id=2332429" and a != b
    assert thread_key("https://bbs.archlinux.org/viewtopic.php?id=1&p=2") == "bbs.archlinux.org/viewtopic.php?id=1"
    # other queries are still dropped, as for the threads recorded before this rule
    assert thread_key("https://git.proxmox.com/?a=object&h=89773b85599a") == "git.proxmox.com"
    assert thread_key("https://github.com/ROCm/ROCm/issues/12?x=1#issuecomment-9") == "github.com/rocm/rocm/12"
