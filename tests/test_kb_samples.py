"""The knowledge base, the thefuck way: every real error text in
tests/data/logs/<kb-id>/ ranks its entry first with confidence >= 0.5, every
negative (no ROCm root cause) matches nothing confidently, and the catalogue
is internally consistent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import matcher_for

LOGS = Path(__file__).parent / "data" / "logs"
KB = load_kb(use_cache=False)
MATCHER = matcher_for(KB)


def _samples() -> list[Path]:
    return sorted(p for p in LOGS.glob("*/*.txt") if not p.parent.name.startswith("_"))


def _text(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join(line for line in lines if not line.startswith("# source:"))


@pytest.mark.parametrize("path", _samples(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_real_sample_ranks_its_entry_first(path: Path) -> None:
    result = MATCHER.explain_text(_text(path))
    entry = KB.get(path.parent.name)
    assert entry is not None, f"no KB entry named {path.parent.name}"
    if entry.benign:
        assert entry.id in [b.entry.id for b in result.benign]
        assert (
            not result.matches
            or not result.matches[0].confident
            or result.matches[0].entry.id != entry.id
        )
        return
    assert result.matches, "nothing matched"
    top = result.matches[0]
    assert (top.entry.id, top.confident) == (entry.id, True), [
        (m.entry.id, m.confidence) for m in result.matches[:3]
    ]


@pytest.mark.parametrize("path", sorted(LOGS.glob("_negative/*.txt")), ids=lambda p: p.stem)
def test_logs_without_a_rocm_cause_match_nothing_confidently(path: Path) -> None:
    result = MATCHER.explain_text(_text(path))
    assert not [m for m in result.matches if m.confident], [
        (m.entry.id, m.confidence) for m in result.matches[:3]
    ]


def test_every_sample_file_names_its_source() -> None:
    for path in LOGS.glob("*/*.txt"):
        first = path.read_text(encoding="utf-8", errors="replace").splitlines()[0]
        assert re.match(r"# source: https?://", first), path


def test_every_root_cause_entry_has_at_least_three_real_samples() -> None:
    for entry in KB.entries:
        if entry.benign or entry.origin != KB.sources[0]:
            continue
        assert len(list((LOGS / entry.id).glob("*.txt"))) >= 3, entry.id


def test_every_entry_has_english_and_chinese_title_summary_and_fix_text() -> None:
    for entry in KB.entries:
        for name in ("title", "summary"):
            assert getattr(entry, name).get("zh"), (entry.id, name)
        for fix in entry.fixes:
            assert fix.text.get("zh"), (entry.id, fix.text["en"])


def test_buried_errors_are_still_found_at_the_end_of_a_long_noisy_log() -> None:
    from rocmfix.commands.kb import noise_lines

    noise = "\n".join(noise_lines(20000))
    text = (
        noise
        + "\nRuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    )
    result = MATCHER.explain_text(text)
    assert result.matches[0].entry.id == "no-binary-for-gpu" and result.matches[0].confident
    assert result.matches[0].evidence[0].line == 20001


def test_ranking_is_deterministic() -> None:
    text = _text(_samples()[0]) + "\n" + _text(_samples()[-1])
    first = [(m.entry.id, m.confidence) for m in MATCHER.explain_text(text).matches]
    assert all(
        [(m.entry.id, m.confidence) for m in MATCHER.explain_text(text).matches] == first
        for _ in range(3)
    )


def test_a_real_error_elsewhere_turns_a_benign_line_into_background() -> None:
    warning = "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_40.kdb Performance may degrade."
    alone = MATCHER.explain_text(warning)
    assert not alone.matches or alone.matches[0].entry.id == "miopen-slow-first-run"
    with_error = MATCHER.explain_text(
        warning + "\ntorch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB"
    )
    assert with_error.matches[0].entry.id == "gpu-out-of-memory"
    assert any(b.entry.benign for b in with_error.benign)


def test_an_nvidia_machine_log_is_not_blamed_on_rocm() -> None:
    text = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        "RuntimeError: No CUDA GPUs are available"
    )
    assert not [m for m in MATCHER.explain_text(text).matches if m.confident]


@pytest.mark.parametrize(
    ("typed", "entry_id"),
    [
        ("training is stuck at first epoch, very slow", "miopen-slow-first-run"),
        ("dataloader worker killed by bus error", "shared-memory-too-small"),
        ("gpu resets while training", "gpu-hang-or-reset"),
    ],
)
def test_hand_typed_symptoms_find_their_entry(typed: str, entry_id: str) -> None:
    assert MATCHER.explain_text(typed).matches[0].entry.id == entry_id


def test_a_vague_symptom_shared_by_several_causes_names_none_of_them() -> None:
    result = MATCHER.explain_text("torch.cuda.is_available() returns False")
    assert len(result.matches) >= 2
    assert not any(m.confident for m in result.matches)


def test_the_line_that_names_the_cause_is_the_first_evidence() -> None:
    log = "torch 2.5.1+rocm6.2, HIP 6.2.41133\nstep 1\nRuntimeError: HIP error: invalid device function\n"
    top = MATCHER.explain_text(log).matches[0]
    assert top.entry.id == "no-binary-for-gpu"
    assert top.evidence[0].line == 3 and top.evidence[0].weight >= 0.8


def test_a_mac_is_not_blamed_on_rocm() -> None:
    text = (
        "AssertionError: Torch not compiled with CUDA enabled\nI installed pytorch on my Mac laptop"
    )
    assert not [m for m in MATCHER.explain_text(text).matches if m.confident]
    assert (
        MATCHER.explain_text("AssertionError: Torch not compiled with CUDA enabled")
        .matches[0]
        .confident
    )


@pytest.mark.parametrize(
    ("context", "confident"),
    [
        ("", False),
        ("AMD Radeon RX 7900 XTX, ROCm 6.2\n", True),
        ("NVIDIA GeForce RTX 3090\n", False),
    ],
)
def test_cuda_worded_messages_name_a_rocm_cause_only_on_an_amd_machine(
    context: str, confident: bool
) -> None:
    result = MATCHER.explain_text(context + "RuntimeError: No CUDA GPUs are available")
    top = result.matches[0] if result.matches else None
    assert bool(top and top.confident and top.entry.id == "no-gpu-visible") is confident


def test_no_entry_lists_the_same_pattern_twice() -> None:
    # a duplicated signature would count its line twice in the noisy-or
    for entry in KB.entries:
        for group in (entry.signatures, entry.excludes):
            patterns = [s.pattern for s in group]
            assert len(patterns) == len(set(patterns)), entry.id


def test_every_fix_action_and_check_named_by_the_kb_exists() -> None:
    from rocmfix.commands.kb import cross_check

    assert cross_check(KB.entries) == []
