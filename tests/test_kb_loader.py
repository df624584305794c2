"""The KB loader: validation messages that point at the problem, merging of
user files, and a parse cache that never serves a stale KB."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml

from rocmfix.errors import KbError
from rocmfix.kb.loader import builtin_kb_path, load_kb, parse_kb_text, read_kb_file

TAXONOMY = Path(__file__).resolve().parent / "data" / "kb-taxonomy.yaml"

ENTRY = """\
schema: rocmfix.kb/1
entries:
  - id: demo-cause
    title: {en: Demo cause, zh: 演示}
    summary: {en: A demo.}
    explanation: {en: Because.}
    signatures:
      - literal: DEMO_FAILURE_42
        weight: 0.9
    references: [https://rocm.docs.amd.com/]
"""


def test_builtin_kb_is_valid_and_covers_every_taxonomy_id() -> None:
    kb = load_kb(use_cache=False)
    wanted = {row["id"] for row in yaml.safe_load(TAXONOMY.read_text())}
    assert wanted <= set(kb.ids), sorted(wanted - set(kb.ids))


def test_every_builtin_entry_cites_an_authoritative_source() -> None:
    authoritative = (
        "rocm.docs.amd.com",
        "github.com/ROCm/",
        "github.com/pytorch/",
        "docs.pytorch.org",
        "pytorch.org",
        "amd.com",
        "docs.nvidia.com",
        "kernel.org",
        "github.com/ROCmSoftwarePlatform/",
        "github.com/RadeonOpenCompute/",
        "wiki.ubuntu.com",
        "launchpad.net",
        "github.com/canonical/",
        "learn.microsoft.com",
    )
    for entry in load_kb(use_cache=False).entries:
        if entry.benign:
            continue
        assert any(a in ref for ref in entry.references for a in authoritative), entry.id


def test_broken_yaml_names_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema: rocmfix.kb/1\nentries:\n  - id: x\n    title: [unclosed\n")
    with pytest.raises(KbError) as err:
        read_kb_file(bad)
    assert str(bad) in err.value.message
    assert ":5:" in err.value.message or ":4:" in err.value.message


def test_an_invalid_field_names_entry_field_and_line() -> None:
    text = ENTRY.replace("weight: 0.9", "weight: 7")
    with pytest.raises(KbError) as err:
        parse_kb_text(text, "kb.yaml")
    msg = err.value.message
    assert "kb.yaml:9" in msg and "'demo-cause'" in msg and "weight" in msg


def test_a_regex_that_does_not_compile_is_reported() -> None:
    text = ENTRY.replace("literal: DEMO_FAILURE_42", "regex: '(unclosed'")
    with pytest.raises(KbError, match="does not compile"):
        parse_kb_text(text, "kb.yaml")


def test_a_missing_kb_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(KbError, match="no such file"):
        read_kb_file(tmp_path / "nope.yaml")


def test_a_user_file_in_kb_d_is_merged(tmp_path: Path) -> None:
    kbd = Path(os.environ["XDG_CONFIG_HOME"]) / "rocmfix" / "kb.d"
    kbd.mkdir(parents=True)
    (kbd / "mine.yaml").write_text(ENTRY)
    kb = load_kb()
    assert kb.get("demo-cause") is not None
    assert not kb.problems


def test_a_broken_user_file_is_skipped_with_a_message() -> None:
    kbd = Path(os.environ["XDG_CONFIG_HOME"]) / "rocmfix" / "kb.d"
    kbd.mkdir(parents=True)
    (kbd / "broken.yaml").write_text("entries: [ {id: x\n")
    kb = load_kb()
    assert kb.entries, "the built-in KB still loads"
    assert len(kb.problems) == 1 and "broken.yaml" in kb.problems[0]


def test_a_user_entry_with_a_builtin_id_replaces_it(tmp_path: Path) -> None:
    first_id = load_kb().entries[0].id
    override = tmp_path / "o.yaml"
    override.write_text(ENTRY.replace("demo-cause", first_id).replace("Demo cause", "Replaced"))
    kb = load_kb([override])
    assert kb.get(first_id).text("title") == "Replaced"
    assert kb.ids.count(first_id) == 1


def test_the_parse_cache_is_invalidated_when_the_yaml_changes(tmp_path: Path) -> None:
    path = tmp_path / "kb.yaml"
    path.write_text(ENTRY)
    assert load_kb(builtin=path).get("demo-cause").text("title") == "Demo cause"
    time.sleep(0.01)
    path.write_text(ENTRY.replace("Demo cause", "Edited title"))
    assert load_kb(builtin=path).get("demo-cause").text("title") == "Edited title"


def test_the_builtin_kb_path_exists() -> None:
    assert builtin_kb_path().is_file()


def test_amd_weight_must_be_a_weight() -> None:
    text = ENTRY.replace("weight: 0.9", "weight: 0.3\n        amd_weight: 2")
    with pytest.raises(KbError, match="amd_weight"):
        parse_kb_text(text, "kb.yaml")


def test_kb_eval_reads_several_files_and_ends_with_its_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from rocmfix.cli import main

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(
        json.dumps({"id": "a1", "text": "hipErrorNoBinaryForGpu", "label": "no-binary-for-gpu"})
        + "\n"
    )
    b.write_text(
        json.dumps({"id": "b1", "text": "epoch 1 loss 0.5", "label": "gpu-out-of-memory"}) + "\n"
    )
    assert main(["kb", "eval", str(a), str(b)]) == 0
    lines = [ln.strip() for ln in capsys.readouterr().out.strip().splitlines()]
    miss = next(i for i, ln in enumerate(lines) if ln.startswith("miss b1"))
    table = next(i for i, ln in enumerate(lines) if ln.startswith("== all: 2 cases"))
    assert miss < table  # the summary comes after the misses, where it is not scrolled away
    assert any(ln.startswith("all") and "50.0%" in ln for ln in lines[table:])
